//! The pre-compiled constraint evaluator (PCE).
//!
//! Every partition of every sector of one size has the same R1CS. Instead of
//! evaluating linear combinations at every `enforce` of every proof (what
//! bellperson's prover does), the structure is recorded once into sparse
//! matrices A, B, C, and each proof computes only the witness `w` and then
//! `a = A·w`, `b = B·w`, `c = C·w`:
//!
//! - [`RecordingCS`] records the constraints of a (blank) circuit;
//! - [`WitnessCS`] only stores assigned values: enforce costs nothing;
//!   [`PlacedWitnessCS`] writes them straight into a slot of a larger
//!   witness (a PoRep challenge's values into the partition's);
//! - [`PrecompiledCircuit`] holds the matrices, the densities the prover's
//!   MSMs need, and the shape; it extracts, evaluates, saves and loads;
//! - [`sha256_witness`] and [`poseidon_witness`] allocate what
//!   bellperson's SHA-256 gadget and neptune's Poseidon gadget do, without
//!   building the linear combinations those gadgets build eagerly;
//! - [`PrecompiledCircuit::first_unsatisfied`] names the constraint a
//!   witness breaks, when a proof does not verify;
//! - [`EnforcingCS`] is the enforce-time path ported from bellperson's
//!   prover, kept as the reference the PCE is checked and benchmarked against.
//!
//! All the constraint systems number variables exactly as bellperson's
//! `ProvingAssignment` does: input 0 is ONE (allocated by the caller, as
//! bellperson's prover does), inputs and aux variables are numbered in
//! allocation order, `extend` appends a sub-system dropping its temporary
//! ONE, and the prover appends `input_i · 0 = 0` for every input.

mod circuit;
mod density;
mod disk;
mod enforcing_cs;
mod error;
mod placed_cs;
pub mod poseidon_witness;
mod recording_cs;
mod satisfaction;
pub mod sha256_witness;
mod synthesis;
mod witness_cs;

pub use circuit::{Evaluations, PceSize, PrecompiledCircuit};
pub use density::Density;
pub use enforcing_cs::EnforcingCS;
pub use error::PceError;
pub use placed_cs::{synthesize_placed, Placed, PlacedWitnessCS, Placement};
pub use recording_cs::RecordingCS;
pub use synthesis::{
    synthesize_enforcing, synthesize_witness, synthesize_witness_in, Witness, WitnessTarget,
};
pub use witness_cs::WitnessCS;

pub use blstrs::Scalar;
pub use disk::{FORMAT_VERSION, MAGIC};
pub use pce_csr::{CsrMatrix, FormatError};
