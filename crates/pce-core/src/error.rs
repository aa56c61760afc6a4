//! Errors of extraction, evaluation and the PCE file.

use bellpepper_core::SynthesisError;
use pce_csr::matvec::DimensionMismatch;
use pce_csr::FormatError;

/// Why a circuit could not be pre-compiled, evaluated, saved or loaded.
#[derive(Debug, thiserror::Error)]
pub enum PceError {
    /// The circuit's own synthesis failed.
    #[error("circuit synthesis failed")]
    Synthesis(#[from] SynthesisError),
    /// The circuit has more variables than `u32` columns can address.
    #[error("circuit too large: {inputs} inputs and {aux} aux variables exceed the 2^31 limit of each kind")]
    TooLarge {
        /// Inputs allocated.
        inputs: usize,
        /// Aux variables allocated.
        aux: usize,
    },
    /// A constraint refers to a variable that was never allocated.
    #[error("matrix {matrix}: a constraint uses {kind} variable {index}, but only {allocated} were allocated")]
    Unallocated {
        /// "A", "B" or "C".
        matrix: &'static str,
        /// "input" or "aux".
        kind: &'static str,
        /// Index of the variable.
        index: usize,
        /// How many variables of that kind exist.
        allocated: usize,
    },
    /// The witness does not have the circuit's shape.
    #[error("witness has {inputs} inputs and {aux} aux values, the circuit has {expected_inputs} and {expected_aux}")]
    WitnessShape {
        /// Inputs in the witness.
        inputs: usize,
        /// Aux values in the witness.
        aux: usize,
        /// Inputs of the circuit.
        expected_inputs: usize,
        /// Aux variables of the circuit.
        expected_aux: usize,
    },
    /// Output buffers of the wrong length.
    #[error(transparent)]
    Dimension(#[from] DimensionMismatch),
    /// The PCE file is unreadable, corrupt, or from another version.
    #[error(transparent)]
    Format(#[from] FormatError),
}
