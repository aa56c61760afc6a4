//! Circuits for the workspace's tests.
//!
//! - [`random`]: random satisfiable circuits as proptest strategies: random
//!   linear combinations (repeated variables, zero and arbitrary
//!   coefficients), inputs allocated between aux variables, namespaces, and
//!   sub-circuits merged through `extend` as storage-proofs does;
//! - [`sha256`]: a real gadget circuit, SHA-256 of a preimage.

pub mod random;
pub mod sha256;
