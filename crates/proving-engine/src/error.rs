//! Why the engine could not prove.

use crate::memory::{gib, MemoryModel};

/// What stops a run, or one partition of it. Errors of the job's own
/// steps (input formats, circuits, combining proofs) are the job's
/// ([`crate::Job::Error`]), which wraps this type.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The run was cancelled ([`crate::EngineOptions::cancel`]) before
    /// the job's last partition was proven.
    #[error("cancelled")]
    Cancelled,
    /// No job was given.
    #[error("no job to prove")]
    NoJobs,
    /// A job has no partition to prove.
    #[error("the job has no partition to prove")]
    NoPartitions,
    /// A job's code or the backend panicked; the other jobs go on.
    #[error("{}panicked: {message}", partition.map_or(String::new(), |p| format!("partition {p}: ")))]
    Panicked {
        /// The partition being proven, if the panic happened in one.
        partition: Option<usize>,
        /// The panic's message.
        message: String,
    },
    /// Fixed blinding factors were given, but not one pair per partition.
    #[error("{given} (r, s) pairs were given for {partitions} partitions")]
    Randomness {
        /// Pairs given.
        given: usize,
        /// Partitions of all jobs together.
        partitions: usize,
    },
    /// The backend could not be loaded.
    #[error(transparent)]
    BackendLoad(#[from] backend_api::LoadError),
    /// A backend call outside a proof failed (devices, domain sizes).
    #[error(transparent)]
    Backend(#[from] backend_api::BackendError),
    /// A run was given no device.
    #[error("no device to prove on")]
    NoDevices,
    /// The backend lists no device (which the ABI asks plugins not to do:
    /// they fail to load instead, saying why).
    #[error("backend {backend} lists no device to prove on")]
    BackendListsNone {
        /// The backend.
        backend: String,
    },
    /// The requested device is not in the backend's list.
    #[error("backend {backend} has no device {index} (it lists {listed})")]
    NoSuchDevice {
        /// The backend.
        backend: String,
        /// The device index asked for.
        index: u32,
        /// How many devices it lists.
        listed: usize,
    },
    /// The pre-compiled circuit could not be read or evaluated.
    #[error(transparent)]
    Pce(#[from] pce_core::PceError),
    /// The parameter file is unreadable or corrupt.
    #[error(transparent)]
    Srs(#[from] groth16_prover::SrsError),
    /// The parameter file is whole but of another circuit (or the PCE of
    /// another version of the circuit).
    #[error("{} are not the parameters of circuit {id}: {what}; fetch them again (or, if they are right, remove the circuit's PCE file to record it again)", params.display())]
    ParametersOfAnotherCircuit {
        /// The circuit's id.
        id: String,
        /// The parameter file.
        params: std::path::PathBuf,
        /// How they differ.
        what: String,
    },
    /// The prover could not be set up on the device (bases, parameters).
    #[error("setting up the prover")]
    Prover(#[source] groth16_prover::ProveError),
    /// Proving a partition failed, or its proof did not verify.
    #[error("partition {partition}")]
    Prove {
        /// The partition, within its job.
        partition: usize,
        /// Why.
        #[source]
        source: groth16_prover::ProveError,
    },
    /// A partition failed on its device, then on the fallback backend too
    /// (an input no backend can prove, or both backends broken).
    #[error(
        "partition {partition} failed on its device ({failure}), then on the fallback backend"
    )]
    FallbackFailed {
        /// The partition, within its job.
        partition: usize,
        /// The device's failure.
        failure: String,
        /// The fallback backend's.
        #[source]
        source: groth16_prover::ProveError,
    },
    /// The memory budget does not admit a single partition.
    #[error("memory budget {} is too small: one partition needs {} (process {}, PCE {}, SRS {}, NTT tables {}, devices {}, fallback {}, witness {}, proving {}; see docs/memory.md)", gib(*budget), gib(*needed), gib(model.process), gib(model.pce), gib(model.srs), gib(model.ntt), gib(model.devices), gib(model.fallback), gib(model.witness), gib(model.proving))]
    BudgetTooSmall {
        /// The budget, bytes.
        budget: u64,
        /// The least budget that admits one partition.
        needed: u64,
        /// The model the need comes from.
        model: MemoryModel,
    },
}

impl EngineError {
    /// Whether the device refused the work for want of memory (its status
    /// `PCE_ERR_OUT_OF_MEMORY`): a circuit too large for it, or memory
    /// others hold now, which does not make the device unfit for smaller
    /// work; not a fault to suspend it for.
    pub fn out_of_device_memory(&self) -> bool {
        let prove_error = match self {
            Self::Prover(e) | Self::Prove { source: e, .. } => e,
            _ => return false,
        };
        matches!(
            prove_error,
            groth16_prover::ProveError::Backend(e)
                if e.status.0 == backend_api::ffi::PCE_ERR_OUT_OF_MEMORY
        )
    }
}

/// An error and its sources, `outer: inner: innermost`: how a job's error
/// is logged and reported, its causes included.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

/// What a caught panic said (its `&str` or `String` payload).
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}
