//! Proving many jobs of one circuit: partitions streamed through a backend
//! device under a memory budget.
//!
//! The circuit (PCE and parameters) is loaded once ([`crate::registry`]).
//! Every partition of every job then goes through two stages:
//!
//! ```text
//! witness threads:   admit (memory) → Job::assign ─┐ channel
//! J prover threads:  ◄─────────────────────────────┘ prove and verify → release
//! caller's thread:   ◄── each job's result, once its last partition is proven (Job::finish)
//! ```
//!
//! so the witnesses of the next partitions, of the same job or of the next
//! ones, are generated (as many at once as may be in flight, one thread
//! each) while J partitions are proven on each device: with
//! several devices ([`Devices::All`]) every device has its own J provers,
//! each its own prover (and its own copy of the bases, uploaded once per
//! run), all taking partitions from the one queue, so a job's partitions
//! spread over the devices. A partition is
//! admitted ([`crate::admission`]) before its witness exists and released
//! when its proof is done; how many may be in flight follows from the
//! memory budget and the model of [`crate::memory`]. Each proof is verified
//! once, by the prover, against the public inputs the job derived from its
//! input. A job's result reaches the caller on the caller's own thread,
//! which can write it out without holding up a prover; a failing job does
//! not stop the others.
//!
//! What a run is asked ([`EngineOptions`], in `options`) and what it
//! reports ([`Run`] and [`Event`]s, in `outcome`) are kept apart from the
//! threads here.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use backend_api::{Backend, Device};
use blstrs::Scalar;
use ff::Field;
use groth16_prover::qap::domain_log_size;
use groth16_prover::{ProveError, Prover};
use pce_core::PrecompiledCircuit;
use tracing::{error, info, warn};

use crate::admission::{Admission, Permit};
use crate::job::{Assignment, Job, PartitionProof};
use crate::memory::{default_budget, BackendMemory, MemoryModel};
use crate::registry::LoadedCircuit;
use crate::{chain, panic_message, EngineError};

mod options;
mod outcome;

pub use options::{pick_devices, BetweenPartitions, Devices, EngineOptions};
pub use outcome::{DeviceUse, Event, JobResult, MemoryPlan, Observer, Proven, Run, StageTimes};

/// A device ready to prove one circuit: its prover holds the circuit's
/// bases lent to (on a GPU: uploaded to) the device and the NTT domains
/// it has used, so a process that proves many runs on a device (the
/// daemon) pays for them once.
pub struct DeviceProver<'a> {
    /// The device's name.
    pub name: String,
    /// The prover on it.
    pub prover: Prover<'a>,
    /// The fallback backend's device and its name
    /// ([`DeviceProver::with_fallback`]).
    fallback: Option<(&'a Device, &'a str)>,
}

impl<'a> DeviceProver<'a> {
    /// A prover of `circuit` (decoded first if it is resident) on `device`,
    /// named `name`.
    pub fn new(
        device: &'a Device,
        name: &str,
        circuit: &'a LoadedCircuit,
    ) -> Result<Self, EngineError> {
        circuit.decode()?;
        Ok(Self {
            name: name.to_owned(),
            prover: Prover::new(device, circuit.bases()).map_err(EngineError::Prover)?,
            fallback: None,
        })
    }

    /// Sends the MSMs this device does not support (a backend with G1
    /// MSMs only) to `fallback` (a device and its name), if given
    /// ([`Prover::with_fallback`]), and the partitions this device fails
    /// when [`run_with`] proves on it.
    pub fn with_fallback(self, fallback: Option<(&'a Device, &'a str)>) -> Self {
        Self {
            prover: match fallback {
                Some((device, _)) => self.prover.with_fallback(device),
                None => self.prover,
            },
            fallback,
            ..self
        }
    }
}

/// The first device of the `fallback` backend, with its name; `None`
/// without one, or when it is the run's backend (`primary`).
pub fn open_fallback(
    fallback: Option<&str>,
    primary: &str,
) -> Result<Option<(Device, String)>, EngineError> {
    match fallback {
        Some(name) if name != primary => Setup::open_first(name).map(Some),
        _ => Ok(None),
    }
}

/// Proves `jobs`, all of `circuit`, on the devices `options` names.
///
/// `options.jobs` partitions are proven at once on each device within the
/// memory budget; a budget that does not admit one partition is an error
/// before anything is decoded or proven. Each job's result is passed to
/// `done` on the caller's thread as soon as it is known, and returned with
/// the others. The error of the whole call is for what prevents every proof
/// (backend, device, budget, randomness), found before any proving.
pub fn run<J: Job>(
    circuit: &LoadedCircuit,
    jobs: &[J],
    options: &EngineOptions,
    observer: Observer<'_>,
    done: impl FnMut(usize, &JobResult<J>),
) -> Result<Run<J>, EngineError> {
    if jobs.is_empty() {
        return Err(EngineError::NoJobs);
    }
    randomness(options, jobs.iter().map(Job::partitions).sum())?;
    let setup = Setup::open(options)?;
    let devices: Vec<&Device> = setup.devices.iter().map(|(device, _)| device).collect();
    let fallback_device = open_fallback(
        options.fallback.as_deref(),
        setup.devices[0].0.backend().name(),
    )?;
    let fallback = fallback_device
        .as_ref()
        .map(|(device, name)| (device, name.as_str()));
    plan(
        circuit,
        &devices,
        fallback.map(|(device, _)| device),
        options,
    )?;
    let provers = setup
        .devices
        .iter()
        .map(|(device, name)| {
            let prover = DeviceProver::new(device, name, circuit)?;
            Ok(prover.with_fallback(fallback))
        })
        .collect::<Result<Vec<_>, EngineError>>()?;
    run_with(circuit, &provers, jobs, options, observer, done)
}

/// [`run`] on devices already set up for `circuit`, with the first one's
/// fallback device ([`DeviceProver::with_fallback`]): `options.backend`,
/// `options.devices` and `options.fallback` are not used, so that a
/// process that keeps its devices (the daemon) opens its fallback once and
/// counts what it holds once.
pub fn run_with<J: Job>(
    circuit: &LoadedCircuit,
    provers: &[DeviceProver<'_>],
    jobs: &[J],
    options: &EngineOptions,
    observer: Observer<'_>,
    mut done: impl FnMut(usize, &JobResult<J>),
) -> Result<Run<J>, EngineError> {
    if jobs.is_empty() {
        return Err(EngineError::NoJobs);
    }
    let first = provers.first().ok_or(EngineError::NoDevices)?;
    let counts: Vec<usize> = jobs.iter().map(Job::partitions).collect();
    let randomness = randomness(options, counts.iter().sum())?;
    let devices: Vec<&Device> = provers.iter().map(|p| p.prover.device()).collect();
    let mut plan = plan(
        circuit,
        &devices,
        first.fallback.map(|(device, _)| device),
        options,
    )?;
    let fallback = first
        .fallback
        .map(|(device, name)| DeviceProver::new(device, &format!("{name} (fallback)"), circuit))
        .transpose()?;
    observer(Event::Ready { plan: &plan });

    let shared = Shared {
        jobs,
        options,
        pce: &circuit.pce,
        observer,
        states: counts
            .iter()
            .map(|&n| Mutex::new(JobState::new(n)))
            .collect(),
        first_partition: first_indices(&counts),
        randomness,
        proven_on: provers.iter().map(|_| AtomicUsize::new(0)).collect(),
        fallback: fallback
            .as_ref()
            .map(|prover| (prover, AtomicUsize::new(0))),
        aborted: AtomicBool::new(false),
    };
    let admission = Admission::new(plan.slots);
    let (work, queue) = channel::<WorkItem<'_>>();
    let queue = Mutex::new(queue);
    let (results, received) = channel::<(usize, JobResult<J>)>();
    let mut outcomes: Vec<Option<JobResult<J>>> = jobs.iter().map(|_| None).collect();
    let (shared, admission, queue) = (&shared, &admission, &queue);
    let delivered = std::thread::scope(|scope| {
        let to_caller = results.clone();
        scope.spawn(move || produce_all(shared, admission, work, &to_caller));
        for (device, prover) in provers.iter().enumerate() {
            for _ in 0..options.jobs.max(1) {
                let to_caller = results.clone();
                scope.spawn(move || prove_all(shared, prover, device, queue, &to_caller));
            }
        }
        drop(results);
        deliver::<J>(received, &mut outcomes, &mut done, &shared.aborted)
    });
    if let Err(panic) = delivered {
        std::panic::resume_unwind(panic);
    }
    plan.peak_in_flight = admission.peak();
    Ok(Run {
        results: outcomes
            .into_iter()
            .map(|outcome| outcome.expect("every job reports once"))
            .collect(),
        memory: plan,
        backend: {
            let backend = first.prover.device().backend();
            format!("{} ({})", backend.name(), backend.path().display())
        },
        device: provers
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        devices: provers
            .iter()
            .map(|prover| &prover.name)
            .zip(&shared.proven_on)
            .chain(
                shared
                    .fallback
                    .as_ref()
                    .map(|(prover, count)| (&prover.name, count)),
            )
            .map(|(name, count)| DeviceUse {
                name: name.clone(),
                partitions: count.load(Ordering::Relaxed),
            })
            .collect(),
    })
}

/// The backend and the devices (with their names) of a run.
struct Setup {
    devices: Vec<(Device, String)>,
}

impl Setup {
    /// The first device of backend `spec`, with its name.
    fn open_first(spec: &str) -> Result<(Device, String), EngineError> {
        let backend = Backend::load(spec)?;
        let first = pick_devices(&backend, &[])?.swap_remove(0);
        Ok((backend.open(first.index)?, first.name))
    }

    fn open(options: &EngineOptions) -> Result<Self, EngineError> {
        let backend = Backend::load(&options.backend)?;
        let devices = pick_devices(&backend, options.devices.indices())?
            .into_iter()
            .map(|info| Ok((backend.open(info.index)?, info.name)))
            .collect::<Result<Vec<_>, EngineError>>()?;
        Ok(Self { devices })
    }
}

/// The memory plan of proving `circuit` on `devices` (one backend's, each
/// with its provers), and on `fallback` the partitions they fail, with
/// `options`; an error when the budget does not admit one partition.
fn plan(
    circuit: &LoadedCircuit,
    devices: &[&Device],
    fallback: Option<&Device>,
    options: &EngineOptions,
) -> Result<MemoryPlan, EngineError> {
    if devices.is_empty() {
        return Err(EngineError::NoDevices);
    }
    let log_n = domain_log_size(circuit.pce.num_constraints());
    let backend = BackendMemory::of(devices, fallback, log_n)?;
    let model = MemoryModel::new(
        circuit.pce.size(),
        circuit.params.shape(),
        circuit.resident,
        circuit.process_before,
        backend,
    );
    let budget = options.memory_budget.unwrap_or_else(default_budget);
    let admitted = model.partitions_admitted(budget)?;
    let provers = options.jobs.max(1) * devices.len();
    let slots = admitted.min(provers + options.partitions_in_flight.max(1) - 1);
    let plan = MemoryPlan {
        model,
        budget,
        admitted,
        slots,
        peak_in_flight: 0,
    };
    info!(?plan, "memory plan");
    Ok(plan)
}

/// The `(r, s)` of every partition: the fixed ones, or fresh random ones.
fn randomness(
    options: &EngineOptions,
    partitions: usize,
) -> Result<Vec<(Scalar, Scalar)>, EngineError> {
    match &options.randomness {
        Some(fixed) if fixed.len() != partitions => Err(EngineError::Randomness {
            given: fixed.len(),
            partitions,
        }),
        Some(fixed) => Ok(fixed.clone()),
        None => Ok(fresh_randomness(partitions)),
    }
}

/// Fresh blinding factors `(r, s)` for `partitions` partitions, from the
/// operating system's generator: what a run uses unless it is given some,
/// and what to give two runs that must produce the same proofs.
pub fn fresh_randomness(partitions: usize) -> Vec<(Scalar, Scalar)> {
    let mut rng = rand::rngs::OsRng;
    (0..partitions)
        .map(|_| (Scalar::random(&mut rng), Scalar::random(&mut rng)))
        .collect()
}

/// Index of each job's first partition among all partitions.
fn first_indices(counts: &[usize]) -> Vec<usize> {
    counts
        .iter()
        .scan(0, |next, &count| {
            let first = *next;
            *next += count;
            Some(first)
        })
        .collect()
}

/// A job's progress.
struct JobState<S> {
    /// The parsed input, once the witness threads are done with it.
    statement: Option<S>,
    proofs: Vec<Option<PartitionProof>>,
    remaining: usize,
    times: StageTimes,
    /// Its result has been produced (or is being): later work is dropped.
    settled: bool,
}

impl<S> JobState<S> {
    fn new(partitions: usize) -> Self {
        Self {
            statement: None,
            proofs: (0..partitions).map(|_| None).collect(),
            remaining: partitions,
            times: StageTimes::default(),
            settled: false,
        }
    }

    /// The statement and proofs, when both are complete; settles the job.
    fn take_if_complete(&mut self) -> Option<(S, Vec<PartitionProof>, StageTimes)> {
        if self.settled || self.remaining > 0 || self.statement.is_none() {
            return None;
        }
        self.settled = true;
        let proofs = self.proofs.drain(..).flatten().collect();
        Some((self.statement.take()?, proofs, self.times.clone()))
    }
}

/// A partition whose witness is ready, waiting for a prover.
struct WorkItem<'a> {
    job: usize,
    partition: usize,
    assignment: Assignment,
    _permit: Permit<'a>,
}

/// Where each thread sends the results it produces.
type ToCaller<J> = Sender<(usize, JobResult<J>)>;

/// Everything the threads of a run share.
struct Shared<'a, 'f, 'g, J: Job> {
    jobs: &'a [J],
    options: &'a EngineOptions,
    pce: &'a PrecompiledCircuit,
    observer: Observer<'a>,
    states: Vec<Mutex<JobState<J::Statement>>>,
    first_partition: Vec<usize>,
    randomness: Vec<(Scalar, Scalar)>,
    /// Partitions proven by each device.
    proven_on: Vec<AtomicUsize>,
    /// The fallback backend's prover and the partitions it proved.
    fallback: Option<(&'f DeviceProver<'g>, AtomicUsize)>,
    /// Set when the caller's `done` panicked: the run stops as if
    /// cancelled, then the panic goes on.
    aborted: AtomicBool,
}

impl<J: Job> Shared<'_, '_, '_, J> {
    /// Whether the run is cancelled: by the caller, or by its own panic.
    fn cancelled(&self) -> bool {
        self.options.cancelled() || self.aborted.load(Ordering::Relaxed)
    }

    fn state(&self, job: usize) -> MutexGuard<'_, JobState<J::Statement>> {
        self.states[job].lock().expect("job state poisoned")
    }

    fn is_settled(&self, job: usize) -> bool {
        self.state(job).settled
    }

    /// Whether no job has a partition left to prove (each has ended, or
    /// has every partition proven and only its finishing to come).
    fn all_proven(&self) -> bool {
        (0..self.jobs.len()).all(|job| {
            let state = self.state(job);
            state.settled || state.remaining == 0
        })
    }

    /// Ends job `job` with `error`, unless it has already ended.
    fn fail(&self, job: usize, error: J::Error, to_caller: &ToCaller<J>) {
        {
            let mut state = self.state(job);
            if state.settled {
                return;
            }
            state.settled = true;
            state.statement = None;
            state.proofs.clear();
        }
        error!(job = %self.jobs[job].label(), "{}", chain(&error));
        let _ = to_caller.send((job, Err(error)));
    }

    /// Finishes job `job` if `take` found it complete (outside its lock).
    fn finish(
        &self,
        job: usize,
        complete: Option<(J::Statement, Vec<PartitionProof>, StageTimes)>,
        to_caller: &ToCaller<J>,
    ) {
        let Some((statement, proofs, mut times)) = complete else {
            return;
        };
        let start = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| {
            self.jobs[job].finish(statement, proofs)
        }))
        .unwrap_or_else(|panic| Err(panicked(None, panic).into()));
        times.finish = start.elapsed();
        if let Err(e) = &result {
            error!(job = %self.jobs[job].label(), "{}", chain(e));
        }
        let _ = to_caller.send((job, result.map(|output| Proven { output, times })));
    }
}

/// The witness threads: one per partition that may be in flight, each
/// taking the next partition (every job's, in order) once it is admitted.
///
/// Several witnesses are generated at once because the circuits of some
/// proof kinds synthesize a partition on one thread (SnapDeals'), and a
/// many-core host would otherwise leave all but one core idle while the
/// device waits; kinds that synthesize in parallel (PoRep's challenges) share
/// the one thread pool. Each worker holds one admission at a time, so the
/// memory each witness needs is reserved before it exists.
fn produce_all<'a, J: Job>(
    shared: &Shared<'_, '_, '_, J>,
    admission: &'a Admission,
    work: Sender<WorkItem<'a>>,
    to_caller: &ToCaller<J>,
) {
    for (job, spec) in shared.jobs.iter().enumerate() {
        if spec.partitions() == 0 {
            shared.fail(job, EngineError::NoPartitions.into(), to_caller);
        }
    }
    let producing: Vec<Producing<J::Statement>> = shared
        .jobs
        .iter()
        .map(|spec| Producing::new(spec.partitions()))
        .collect();
    let next =
        Mutex::new((0..shared.jobs.len()).flat_map(|job| {
            (0..shared.jobs[job].partitions()).map(move |partition| (job, partition))
        }));
    let (producing, next) = (&producing, &next);
    std::thread::scope(|scope| {
        for _ in 0..admission.slots() {
            let work = work.clone();
            scope.spawn(move || loop {
                // Admitted under the lock, so partitions start in order and
                // a worker with nothing left takes no permit.
                let ((job, partition), permit) = {
                    let mut next = next.lock().expect("partition order poisoned");
                    let Some(item) = next.next() else {
                        return;
                    };
                    (item, admission.admit())
                };
                let produced = catch_unwind(AssertUnwindSafe(|| {
                    produce(shared, &producing[job], job, partition, permit, &work)
                }));
                let error = match produced {
                    Ok(Ok(())) => None,
                    Ok(Err(e)) => Some(e),
                    Err(panic) => Some(panicked(Some(partition), panic).into()),
                };
                if let Some(error) = error {
                    shared.fail(job, error, to_caller);
                }
                if let Some(statement) = producing[job].partition_done() {
                    let complete = {
                        let mut state = shared.state(job);
                        if !state.settled {
                            state.statement = Some(statement);
                        }
                        state.take_if_complete()
                    };
                    shared.finish(job, complete, to_caller);
                }
            });
        }
    });
}

/// A job's statement while its partitions' witnesses are generated: opened
/// by the first worker to need it, shared by the others, and handed back
/// for finishing when the last partition's witness is done.
struct Producing<S> {
    /// `None` until opened; `Some(None)` when opening failed.
    statement: Mutex<Option<Option<Arc<S>>>>,
    /// Partitions whose witness has not ended (generated, failed or skipped).
    pending: AtomicUsize,
}

impl<S> Producing<S> {
    fn new(partitions: usize) -> Self {
        Self {
            statement: Mutex::new(None),
            pending: AtomicUsize::new(partitions),
        }
    }

    /// The statement, opened with `open` if no worker has tried yet;
    /// `Ok(None)` when an earlier attempt failed (the job already has its
    /// error).
    fn get_or_open<E>(&self, open: impl FnOnce() -> Result<S, E>) -> Result<Option<Arc<S>>, E> {
        let mut slot = self.slot();
        if let Some(opened) = &*slot {
            return Ok(opened.clone());
        }
        *slot = Some(None);
        let statement = Arc::new(open()?);
        *slot = Some(Some(statement.clone()));
        Ok(Some(statement))
    }

    /// Counts one partition as done; after the last one, the statement, if
    /// it was opened. Every worker drops its share of the statement before
    /// it counts its partition, so the last one owns it alone.
    fn partition_done(&self) -> Option<S> {
        if self.pending.fetch_sub(1, Ordering::AcqRel) != 1 {
            return None;
        }
        let shared = self.slot().take()??;
        Arc::into_inner(shared)
    }

    /// The statement's slot. A panic in [`Job::open`] poisons its lock but
    /// leaves it consistent: it was marked as failed before opening began,
    /// so the other partitions of that job are skipped, not panicked on.
    fn slot(&self) -> MutexGuard<'_, Option<Option<Arc<S>>>> {
        self.statement
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Generates the witness of one partition, admitted under `permit`, and
/// hands it to the provers (the job's statement opened first, if it is
/// the first of its partitions to start).
fn produce<'a, J: Job>(
    shared: &Shared<'_, '_, '_, J>,
    producing: &Producing<J::Statement>,
    job: usize,
    partition: usize,
    permit: Permit<'a>,
    work: &Sender<WorkItem<'a>>,
) -> Result<(), J::Error> {
    // Whether the partition is to be skipped (an earlier one failed), or
    // an error if the run was cancelled; asked again after opening, which
    // may have taken a while (another worker's, waited for).
    let stopped = || -> Result<bool, J::Error> {
        if shared.is_settled(job) {
            return Ok(true);
        }
        if shared.cancelled() {
            return Err(EngineError::Cancelled.into());
        }
        Ok(false)
    };
    if stopped()? {
        return Ok(());
    }
    let spec = &shared.jobs[job];
    let Some(statement) = producing.get_or_open(|| spec.open())? else {
        return Ok(()); // its statement could not be opened
    };
    if stopped()? {
        return Ok(());
    }
    let start = Instant::now();
    let assignment = spec.assign(&statement, partition, shared.pce);
    drop(statement);
    let assignment = assignment?;
    shared.state(job).times.witness += start.elapsed();
    (shared.observer)(Event::WitnessReady { job, partition });
    let item = WorkItem {
        job,
        partition,
        assignment,
        _permit: permit,
    };
    work.send(item)
        .expect("the queue's receiver lives as long as the run");
    Ok(())
}

/// How often a prover waiting for a witness runs the work between
/// partitions again, where that work asks to be
/// ([`EngineOptions::between_partitions`]): an urgent job submitted during
/// the wait starts within this, not after the next partition.
const BETWEEN_PARTITIONS_POLL: Duration = Duration::from_millis(200);

/// A prover thread of device `device`: proves partitions until the queue closes.
fn prove_all<J: Job>(
    shared: &Shared<'_, '_, '_, J>,
    prover: &DeviceProver<'_>,
    device: usize,
    queue: &Mutex<Receiver<WorkItem<'_>>>,
    to_caller: &ToCaller<J>,
) {
    // The work between partitions, if it is due: before waiting for the
    // next witness, and again while the wait lasts, not once the witness
    // is there (the device is idle from the end of one proof). Not once no
    // partition is left: the caller hears of the jobs only when the run
    // returns. Nor once the run is cancelled: its jobs' memory is held
    // until the prover threads see it. Its panic, if it panicked, and
    // whether it asks to be run again while the wait lasts.
    let between_partitions = || {
        let Some(work) = (shared.options.between_partitions.as_ref())
            .filter(|_| !shared.all_proven() && !shared.cancelled())
        else {
            return (None, false);
        };
        match catch_unwind(AssertUnwindSafe(|| work.run(prover))) {
            Ok(again) => (None, again),
            Err(panic) => (Some(panic), false),
        }
    };
    loop {
        let (mut between, mut again) = between_partitions();
        let item = loop {
            let waited = if shared.options.between_partitions.is_none() {
                // Nothing to run again: wait for the witness, however long.
                let item = queue.lock().expect("work queue poisoned").recv();
                item.map_err(|_| RecvTimeoutError::Disconnected)
            } else {
                // Another prover waiting holds the queue: this one does not
                // wait behind it, so that it too runs the work again.
                match queue.try_lock() {
                    Ok(queue) => queue.recv_timeout(BETWEEN_PARTITIONS_POLL),
                    Err(TryLockError::WouldBlock) => {
                        std::thread::sleep(BETWEEN_PARTITIONS_POLL);
                        Err(RecvTimeoutError::Timeout)
                    }
                    Err(TryLockError::Poisoned(_)) => panic!("work queue poisoned"),
                }
            };
            match waited {
                Err(RecvTimeoutError::Timeout) if again => (between, again) = between_partitions(),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break None,
                Ok(item) => break Some(item),
            }
        };
        let Some(item) = item else {
            if let Some(panic) = between {
                error!(
                    "the work between partitions panicked after the last: {}",
                    panic_message(panic.as_ref())
                );
            }
            break;
        };
        let (job, partition) = (item.job, item.partition);
        if let Some(panic) = between {
            // Given to the job whose partition waited for it, or said here
            // where that job has already ended.
            if shared.is_settled(job) {
                error!(
                    "the work between partitions panicked: {}",
                    panic_message(panic.as_ref())
                );
            } else {
                shared.fail(job, panicked(Some(partition), panic).into(), to_caller);
            }
            continue;
        }
        if shared.is_settled(job) {
            continue; // an earlier partition failed
        }
        if shared.cancelled() {
            shared.fail(job, EngineError::Cancelled.into(), to_caller);
            continue;
        }
        let proven = catch_unwind(AssertUnwindSafe(|| {
            prove_partition(shared, &prover.prover, device, item, to_caller)
        }));
        if let Err(panic) = proven {
            shared.fail(job, panicked(Some(partition), panic).into(), to_caller);
        }
    }
}

/// Proves and verifies one partition and records its proof; finishes the
/// job when it was the last one.
fn prove_partition<J: Job>(
    shared: &Shared<'_, '_, '_, J>,
    prover: &Prover<'_>,
    device: usize,
    item: WorkItem<'_>,
    to_caller: &ToCaller<J>,
) {
    let (job, partition) = (item.job, item.partition);
    let (r, s) = shared.randomness[shared.first_partition[job] + partition];
    let Assignment {
        witness,
        public_inputs,
    } = item.assignment;
    let start = Instant::now();
    let mut device = device;
    let proven = match prover.prove(shared.pce, &witness, &public_inputs, r, s) {
        Ok(proof) => Ok(proof),
        Err(failure) => match &shared.fallback {
            // Not for a job that has ended (another partition failed) or a
            // run cancelled meanwhile: minutes of CPU at 32 GiB, for nothing.
            Some((fallback, count))
                if worth_another_backend(&failure)
                    && !shared.is_settled(job)
                    && !shared.cancelled() =>
            {
                let device_failure = failure;
                let failure = device_failure.to_string();
                warn!(job = %shared.jobs[job].label(), partition, error = %failure, backend = %fallback.name, "partition failed on its device; proving it on the fallback backend");
                (shared.observer)(Event::FallingBack {
                    job,
                    partition,
                    error: &failure,
                });
                device = shared.proven_on.len();
                let proven = catch_unwind(AssertUnwindSafe(|| {
                    fallback
                        .prover
                        .prove(shared.pce, &witness, &public_inputs, r, s)
                }));
                let proven = match proven {
                    Ok(proven) => proven,
                    Err(panic) => {
                        // The job's error is the panic; the device's failure
                        // is still counted against it.
                        if device_to_blame(&device_failure, None) {
                            (shared.observer)(Event::DeviceFailed {
                                job,
                                partition,
                                error: &failure,
                            });
                        }
                        return shared.fail(
                            job,
                            panicked(Some(partition), panic).into(),
                            to_caller,
                        );
                    }
                };
                match proven {
                    Ok(proof) => {
                        // Partitions proven there, not tried there.
                        count.fetch_add(1, Ordering::Relaxed);
                        Ok(proof)
                    }
                    Err(source) => {
                        if device_to_blame(&device_failure, Some(&source)) {
                            (shared.observer)(Event::DeviceFailed {
                                job,
                                partition,
                                error: &failure,
                            });
                        }
                        Err(EngineError::FallbackFailed {
                            partition,
                            failure,
                            source,
                        })
                    }
                }
            }
            // The fallback would have taken it: the fault is no more the
            // device's than any a fallback recovers (no DeviceFailed), and
            // the job ends as it has ended, or as cancelled.
            Some(_) if worth_another_backend(&failure) => Err(if shared.cancelled() {
                EngineError::Cancelled
            } else {
                EngineError::Prove {
                    partition,
                    source: failure,
                }
            }),
            _ => {
                if device_to_blame(&failure, None) {
                    (shared.observer)(Event::DeviceFailed {
                        job,
                        partition,
                        error: &failure.to_string(),
                    });
                }
                Err(EngineError::Prove {
                    partition,
                    source: failure,
                })
            }
        },
    };
    let elapsed = start.elapsed();
    drop(witness);
    drop(item._permit);
    let proof = match proven {
        Ok(proof) => proof,
        Err(error) => return shared.fail(job, error.into(), to_caller),
    };
    let complete = {
        let mut state = shared.state(job);
        // A job that has failed meanwhile drops the proof, uncounted.
        if state.settled {
            return;
        }
        state.proofs[partition] = Some(PartitionProof {
            proof,
            public_inputs,
        });
        state.times.prove += elapsed;
        state.remaining -= 1;
        state.take_if_complete()
    };
    if let Some(count) = shared.proven_on.get(device) {
        count.fetch_add(1, Ordering::Relaxed);
    }
    info!(job = %shared.jobs[job].label(), partition, device, "partition proven and verified");
    (shared.observer)(Event::PartitionProven {
        job,
        partition,
        device,
    });
    shared.finish(job, complete, to_caller);
}

/// Whether another backend could prove what `failure` stopped: a backend
/// error or a proof that does not verify (a device computing wrongly), not
/// a problem of the input or the parameters, which no backend fixes.
fn worth_another_backend(failure: &ProveError) -> bool {
    matches!(failure, ProveError::Backend(_) | ProveError::Invalid { .. })
}

/// Whether `failure` on the device, and `fallback_failure` on the fallback
/// where one tried and failed too, are the device's fault
/// ([`Event::DeviceFailed`]): not a problem of the input or parameters, not
/// an operation the device declined as unsupported (a G1-only device with
/// no fallback: the configuration's problem) or for want of memory (a
/// circuit too large for it, which does not make it unfit for others), not
/// a proof that neither backend makes verify.
fn device_to_blame(failure: &ProveError, fallback_failure: Option<&ProveError>) -> bool {
    use backend_api::ffi::{PCE_ERR_OUT_OF_MEMORY, PCE_ERR_UNSUPPORTED};
    let declined = matches!(
        failure,
        ProveError::Backend(e)
            if e.status.0 == PCE_ERR_UNSUPPORTED || e.status.0 == PCE_ERR_OUT_OF_MEMORY
    );
    let invalid = |failure: &ProveError| matches!(failure, ProveError::Invalid { .. });
    let neither_verifies = invalid(failure) && fallback_failure.is_some_and(invalid);
    worth_another_backend(failure) && !declined && !neither_verifies
}

/// A panic inside a job's code or the backend, as that job's error: the
/// run goes on with the other jobs.
fn panicked(partition: Option<usize>, panic: Box<dyn std::any::Any + Send>) -> EngineError {
    let message = panic_message(panic.as_ref());
    EngineError::Panicked { partition, message }
}

/// The caller's side: hands each result to `done` as it arrives.
fn deliver<J: Job>(
    received: Receiver<(usize, JobResult<J>)>,
    outcomes: &mut [Option<JobResult<J>>],
    done: &mut impl FnMut(usize, &JobResult<J>),
    aborted: &AtomicBool,
) -> std::thread::Result<()> {
    let mut panicked = Ok(());
    for (job, result) in received {
        // A panic of `done` cancels the run instead of leaving every other
        // job to be proven in full while the scope waits for its threads.
        if panicked.is_ok() {
            panicked = catch_unwind(AssertUnwindSafe(|| done(job, &result)));
            if panicked.is_err() {
                aborted.store(true, Ordering::Relaxed);
            }
        }
        outcomes[job] = Some(result);
    }
    panicked
}

#[cfg(test)]
mod tests {
    use backend_api::ffi::{PCE_ERR_DEVICE, PCE_ERR_OUT_OF_MEMORY, PCE_ERR_UNSUPPORTED};
    use backend_api::{BackendError, Status};

    use super::*;

    fn backend(status: i32) -> ProveError {
        ProveError::Backend(BackendError {
            backend: "gpu".into(),
            device: Some(0),
            operation: "msm",
            status: Status(status),
            message: "failed".into(),
        })
    }

    #[test]
    fn the_device_is_blamed_for_its_own_faults_only() {
        let invalid = || ProveError::Invalid { index: 0 };
        let unsatisfied = ProveError::Unsatisfied {
            index: 0,
            constraint: 7,
        };
        assert!(device_to_blame(&backend(PCE_ERR_DEVICE), None));
        assert!(device_to_blame(&invalid(), None));
        assert!(!device_to_blame(&backend(PCE_ERR_UNSUPPORTED), None));
        assert!(!device_to_blame(&backend(PCE_ERR_OUT_OF_MEMORY), None));
        assert!(!device_to_blame(&unsatisfied, None));
        // A declined MSM the fallback device failed: neither blamed on the
        // device nor worth proving again on that fallback.
        let fallback_msm = ProveError::FallbackMsm(Box::new(BackendError {
            backend: "cpu".into(),
            device: None,
            operation: "msm",
            status: Status(PCE_ERR_DEVICE),
            message: "failed".into(),
        }));
        assert!(!device_to_blame(&fallback_msm, None));
        assert!(!worth_another_backend(&fallback_msm));
        // With a fallback that failed too.
        assert!(device_to_blame(&backend(PCE_ERR_DEVICE), Some(&invalid())));
        assert!(device_to_blame(&invalid(), Some(&backend(PCE_ERR_DEVICE))));
        assert!(!device_to_blame(&invalid(), Some(&invalid())));
        assert!(!device_to_blame(
            &backend(PCE_ERR_UNSUPPORTED),
            Some(&backend(PCE_ERR_DEVICE))
        ));
    }
}
