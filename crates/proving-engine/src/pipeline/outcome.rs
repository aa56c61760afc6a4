//! What a run tells its caller: each job's result and stage times, the
//! memory plan and the devices' shares as it ends, and [`Event`]s as it
//! goes.

use std::time::Duration;

use crate::job::Job;
use crate::memory::MemoryModel;

/// Wall time per stage of one job, summed over its partitions.
#[derive(Debug, Clone, Default)]
pub struct StageTimes {
    /// Witness generation, summed over the partitions (whose witnesses
    /// may be generated at once, overlapping proving).
    pub witness: Duration,
    /// PCE evaluation, NTTs, MSMs, assembly and the proof's verification.
    pub prove: Duration,
    /// [`Job::finish`]: combining the proofs and checking the whole.
    pub finish: Duration,
}

/// A job's output and what it took.
#[derive(Debug, Clone)]
pub struct Proven<O> {
    /// What [`Job::finish`] returned.
    pub output: O,
    /// Its stages.
    pub times: StageTimes,
}

/// How the memory of a run was planned and used.
#[derive(Debug, Clone, Copy)]
pub struct MemoryPlan {
    /// The model the plan follows.
    pub model: MemoryModel,
    /// The budget, bytes.
    pub budget: u64,
    /// Partitions the budget admits at once.
    pub admitted: usize,
    /// Partitions allowed in flight: the admitted ones, capped by the
    /// provers plus the witnesses generated ahead of them.
    pub slots: usize,
    /// The most partitions that were in flight at once.
    pub peak_in_flight: usize,
}

/// What happened, as it happens (for progress bars and measurements);
/// sent from any thread of the run.
#[derive(Debug)]
pub enum Event<'a> {
    /// The backend is set up; proving starts.
    Ready {
        /// The memory plan (its `peak_in_flight` is 0 here).
        plan: &'a MemoryPlan,
    },
    /// A partition's witness is generated.
    WitnessReady {
        /// Index of the job.
        job: usize,
        /// The partition.
        partition: usize,
    },
    /// A partition failed on its device and is proven again on the
    /// fallback backend.
    FallingBack {
        /// Index of the job.
        job: usize,
        /// The partition.
        partition: usize,
        /// Why the device failed it.
        error: &'a str,
    },
    /// A partition failed on its device for the device's sake (a backend
    /// error other than an unsupported operation, or a proof that does not
    /// verify from a witness that holds), and no fallback proved it (there
    /// is none, or it failed otherwise than with a proof that does not
    /// verify either): the job fails. A caller serving many jobs may rest
    /// the device ([`FallingBack`](Self::FallingBack) is the same failure
    /// with a fallback that takes over).
    DeviceFailed {
        /// Index of the job.
        job: usize,
        /// The partition.
        partition: usize,
        /// Why the device failed it.
        error: &'a str,
    },
    /// A partition is proven and verified, its memory released.
    PartitionProven {
        /// Index of the job.
        job: usize,
        /// The partition.
        partition: usize,
        /// Index of the device, in [`Run::devices`] order.
        device: usize,
    },
}

/// Receives the [`Event`]s of a run, from any of its threads.
pub type Observer<'o> = &'o (dyn Fn(Event<'_>) + Sync);

/// A job's result as the caller receives it.
pub type JobResult<J> = Result<Proven<<J as Job>::Output>, <J as Job>::Error>;

/// The result of a run.
pub struct Run<J: Job> {
    /// One result per job, in job order.
    pub results: Vec<JobResult<J>>,
    /// The memory plan, with the peak of partitions in flight.
    pub memory: MemoryPlan,
    /// Backend name and path.
    pub backend: String,
    /// The names of the devices proven on, joined by ", ".
    pub device: String,
    /// Each device and the partitions it proved; the fallback backend's
    /// device last, when the run has one.
    pub devices: Vec<DeviceUse>,
}

/// A device of a run and its share of the work.
#[derive(Debug, Clone)]
pub struct DeviceUse {
    /// Its name.
    pub name: String,
    /// Partitions it proved.
    pub partitions: usize,
}
