//! Filecoin PoRep commit phase 2 (C2) specifics.
//!
//! This crate knows the Filecoin side of the prover: how a commit-phase-1
//! (C1) output becomes one Groth16 circuit per partition, what the blank
//! circuit of a sector size is (the one the PCE is recorded from), and how
//! to seal a small test sector end to end for tests and benchmarks.
//!
//! Not here yet: C1 file formats, parameter and PCE caches, the partition
//! pipeline and proof verification (see the README's status section).

mod error;
pub mod partition;
pub mod test_sector;
pub mod witness;

pub use error::C2Error;
