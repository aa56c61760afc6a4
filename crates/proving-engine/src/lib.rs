//! A proving engine for any circuit recorded as a PCE.
//!
//! It knows circuits, pre-compiled constraint systems, parameter files,
//! backends and jobs, and nothing of any proof system built on them
//! (Filecoin's proof kinds live in their own crate on top):
//!
//! - [`job`]: what a proof kind provides: its partitions' witnesses and
//!   public inputs, and what to make of the proofs;
//! - [`registry`]: each circuit's PCE and parameters, loaded once and shared
//!   by every job;
//! - [`pipeline`]: jobs' partitions through a backend device, witnesses
//!   generated ahead of proving, every proof verified, results handed to
//!   the caller's thread;
//! - [`memory`] and [`admission`]: how many partitions fit in the memory
//!   budget, and the semaphore that holds the run to it;
//! - [`process`]: the process's own memory figures.

pub mod admission;
pub mod cgroup;
mod error;
pub mod job;
pub mod memory;
pub mod pipeline;
pub mod process;
pub mod registry;

pub use error::{chain, panic_message, EngineError};
pub use job::{Assignment, Job, PartitionProof};
pub use pipeline::{
    open_fallback, pick_devices, run, run_with, BetweenPartitions, DeviceProver, DeviceUse,
    Devices, EngineOptions, Event, JobResult, MemoryPlan, Observer, Proven, Run, StageTimes,
};
pub use registry::{LoadedCircuit, Registry};
