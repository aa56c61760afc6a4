//! Errors of the Filecoin-specific steps.

use crate::memory::gib;

/// Why a Filecoin-specific step failed.
#[derive(Debug, thiserror::Error)]
pub enum C2Error {
    /// A filecoin-proofs or storage-proofs call failed.
    #[error("{step}: {message}")]
    Filecoin {
        /// What was being done.
        step: &'static str,
        /// The error chain reported by filecoin-proofs.
        message: String,
    },
    /// The pre-compiled circuit could not be made, read or evaluated.
    #[error(transparent)]
    Pce(#[from] pce_core::PceError),
    /// Test parameters could not be generated.
    #[error("generating test parameters: {0}")]
    Setup(#[from] groth16_prover::setup::SetupError),
    /// Witness generation of the circuit failed.
    #[error("witness generation: {0}")]
    Synthesis(#[from] bellpepper_core::SynthesisError),
    /// The parallel witness of a partition does not have the expected layout.
    #[error("partition {partition}: challenge-parallel witness generation: {what}")]
    WitnessLayout {
        /// The partition.
        partition: usize,
        /// What did not fit.
        what: String,
    },
    /// A partition proof does not verify against the C1 output's public inputs.
    #[error("partition {partition}: the proof does not verify against the public inputs of the C1 output")]
    InvalidProof {
        /// The partition.
        partition: usize,
    },
    /// The Groth16 prover failed.
    #[error(transparent)]
    Prove(#[from] groth16_prover::ProveError),
    /// The C1 file is unusable.
    #[error(transparent)]
    C1(#[from] crate::c1::C1Error),
    /// The parameter file is unreadable or corrupt.
    #[error(transparent)]
    Srs(#[from] groth16_prover::SrsError),
    /// The parameters of the circuit are not in the cache.
    #[error("missing parameters for {proof_type}: {path} does not exist; fetch the published parameters, or run `pce-prover params gen` for insecure test parameters")]
    MissingParameters {
        /// The file looked for.
        path: std::path::PathBuf,
        /// The proof type.
        proof_type: String,
    },
    /// The backend could not be loaded.
    #[error(transparent)]
    BackendLoad(#[from] backend_api::LoadError),
    /// A backend call failed.
    #[error(transparent)]
    Backend(#[from] backend_api::BackendError),
    /// The requested device does not exist.
    #[error("backend {backend} has no device {index}")]
    NoSuchDevice {
        /// The backend.
        backend: String,
        /// The device index asked for.
        index: u32,
    },
    /// filecoin-proofs' `verify_seal` rejected the proof.
    #[error("filecoin-proofs' verify_seal rejected the proof")]
    VerifySealRejected,
    /// The SnarkPack aggregate does not verify against the public inputs
    /// of the C1 output.
    #[error("the SnarkPack aggregate does not verify against the public inputs of the C1 output")]
    AggregateRejected,
    /// SnarkPack's SRS, needed to aggregate non-interactive proofs, is not
    /// in the parameter cache.
    #[error("{proof_type} proofs are aggregated with SnarkPack, which needs the SRS {path}, and it does not exist. \
             The production file comes with the Filecoin proof parameters (e.g. `paramfetch` or `lotus fetch-params`); \
             `pce-prover params gen --sector-size 2KiB --non-interactive` writes an insecure one, for tests only")]
    MissingSrs {
        /// The file looked for.
        path: std::path::PathBuf,
        /// The proof type.
        proof_type: String,
    },
    /// SnarkPack's SRS is unreadable, truncated or too short.
    #[error("SnarkPack SRS {path}: {what}")]
    BadSrs {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        what: String,
    },
    /// No C1 output was given.
    #[error("no C1 output to prove")]
    NoInputs,
    /// Sectors proven together must share one circuit (one PCE, one SRS).
    #[error("{path}: {found} differs from {expected}, the proof type of the first input; prove each proof type in its own run")]
    MixedProofTypes {
        /// The file of another proof type.
        path: std::path::PathBuf,
        /// Its proof type.
        found: String,
        /// The first input's proof type.
        expected: String,
    },
    /// The memory budget does not admit a single partition.
    #[error("memory budget {} is too small: one partition needs {} (process {}, PCE {}, SRS {}, NTT tables {}, witness {}, proving {}; see docs/memory.md)", gib(*budget), gib(*needed), gib(model.process), gib(model.pce), gib(model.srs), gib(model.ntt), gib(model.witness), gib(model.proving))]
    BudgetTooSmall {
        /// The budget, bytes.
        budget: u64,
        /// The least budget that admits one partition.
        needed: u64,
        /// The model the need comes from.
        model: crate::memory::MemoryModel,
    },
    /// A file or directory operation failed.
    #[error("{step}: {source}")]
    Io {
        /// What was being done.
        step: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
}

impl C2Error {
    /// Wraps an error of filecoin-proofs (which reports `anyhow` chains).
    pub(crate) fn filecoin(step: &'static str) -> impl FnOnce(anyhow::Error) -> Self {
        move |e| C2Error::Filecoin {
            step,
            message: format!("{e:#}"),
        }
    }

    /// Wraps an I/O error.
    pub(crate) fn io(step: &'static str) -> impl FnOnce(std::io::Error) -> Self {
        move |source| C2Error::Io { step, source }
    }
}
