//! Errors of the Filecoin-specific steps.

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
