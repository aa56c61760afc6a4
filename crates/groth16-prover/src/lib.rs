//! Groth16 proofs from a pre-compiled circuit, on any backend plugin.
//!
//! - [`srs`]: the proving key from Filecoin/bellperson `.params` files, and `.vk` files;
//! - [`qap`]: the R1CS-to-QAP reduction (the coefficients of h), on backend NTTs;
//! - [`prover`]: the MSMs and the assembly with blinding factors, bellperson-identical,
//!   with every proof verified before it is returned;
//! - [`setup`]: fast random (insecure, test-only) parameters from a PCE, with
//!   [`fixed_base`] multiplication tables.

pub mod fixed_base;
pub mod prover;
pub mod qap;
pub mod setup;
pub mod srs;
pub mod unchecked;

pub use prover::{Bases, ProveError, Prover, PROOF_BYTES};
pub use srs::{
    read_verifying_key, verifying_key_bytes_of_parameters, G1Query, Srs, SrsError, SrsFile,
    SrsShape,
};
