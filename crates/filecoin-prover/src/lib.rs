//! Filecoin's proofs on the PCE proving engine.
//!
//! This crate knows the Filecoin side of the prover and nothing of how
//! proofs are computed (that is [`proving_engine`]'s): how a
//! commit-phase-1 (C1) output becomes one Groth16 circuit per partition,
//! what the blank circuit of a sector size is (the one the PCE is recorded
//! from), where filecoin-proofs keeps parameters, and what the chain
//! accepts as a sector's proof.
//!
//! Follow one proof: [`c1`] reads the input, [`c2`] loads the circuit
//! ([`cache`]) and hands the sector to the engine as a job ([`sector`]),
//! whose partitions come from [`partition`] and [`witness`]; when they are
//! proven, [`sector`] assembles the proof (aggregated with [`aggregate`] for
//! non-interactive PoRep) and checks it with filecoin-proofs' `verify_seal`.
//!
//! Several sectors' proofs become one with [`commit_aggregate`] (the
//! chain's `ProveCommitAggregate`, FIP-0092's non-interactive aggregation).
//!
//! The other proof kinds are storage-proofs compound proofs, proven by the
//! generic [`compound`] job: [`post`] (WindowPoSt, WinningPoSt) and
//! [`update`] (SnapDeals), from the [`vanilla`] proofs the proving
//! pipelines hand over.
//!
//! - [`proof_type`]: registered proof types, sector sizes, variants;
//! - [`circuits`]: the circuit of any proof type, for callers that handle
//!   every kind;
//! - [`params`]: random (insecure) test parameters in the cache;
//! - [`porep_witness`]: a PoRep challenge's witness computed without the
//!   gadgets' linear combinations;
//! - [`update_witness`]: the same for a SnapDeals partition.

pub mod aggregate;
pub mod bounded_read;
pub mod c1;
pub mod c2;
pub mod cache;
pub mod circuits;
pub mod commit_aggregate;
pub mod compound;
mod error;
pub mod params;
pub mod partition;
mod por_witness;
pub mod porep_witness;
pub mod post;
mod post_fault;
pub mod post_witness;
pub mod proof_type;
pub mod sector;
mod sha256_tree_witness;
pub mod update;
pub mod update_witness;
pub mod vanilla;
pub mod witness;

pub use error::C2Error;
