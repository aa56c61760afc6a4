//! Filecoin PoRep commit phase 2 (C2) specifics.
//!
//! This crate knows the Filecoin side of the prover: how a commit-phase-1
//! (C1) output becomes one Groth16 circuit per partition, what the blank
//! circuit of a sector size is (the one the PCE is recorded from), and how
//! to seal a small test sector end to end for tests and benchmarks.
//!
//! - [`aggregate`]: SnarkPack aggregation of non-interactive PoRep proofs,
//!   its SRS and an insecure test SRS;
//! - [`baseline`]: filecoin-proofs' own C2, for benchmarks;
//! - [`c2`]: the whole C2 of a sector, checks included;
//! - [`c1`], [`proof_type`]: commit-phase-1 outputs in any of their JSON shapes;
//! - [`cache`]: parameter and PCE files in filecoin-proofs' cache directory;
//! - [`params`]: random test parameters for a PoRep circuit;
//! - [`partition`], [`witness`]: partition circuits and their witnesses;
//! - [`pipeline`]: many sectors' partitions through the PCE and a backend,
//!   with [`admission`] control under the memory model of [`memory`];
//! - [`synthesis_compare`]: the enforce-time path against the PCE path;
//! - [`test_sector`]: a sealed 2 KiB sector for tests and the demo.

pub mod admission;
pub mod aggregate;
pub mod atomic;
pub mod baseline;
pub mod c1;
pub mod c2;
pub mod cache;
mod error;
pub mod memory;
pub mod params;
pub mod partition;
pub mod pipeline;
pub mod proof_type;
pub mod synthesis_compare;
pub mod test_sector;
pub mod witness;

pub use error::C2Error;
