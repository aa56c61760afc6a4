//! Bounded mutation fuzzing of the prover's inputs.
//!
//! Every file and message the prover reads comes from somewhere it does
//! not control: a C1 output from a sealing pipeline, vanilla proofs from
//! Curio, a PCE cache or a `.params` file on a disk that can fill up or
//! rot, a plugin written by a third party. For each, any input must end in
//! a result or a clear error: no panic, no abort, and no allocation sized
//! by a length field nobody checked (a 4-byte count must not allocate
//! 4 GiB).
//!
//! A *campaign* ([`Campaign`]) replays the target's corpus (the files under
//! `corpus/<target>/` in this crate: inputs that once went wrong, kept as
//! regressions), then mutates seed inputs ([`Mutator`]: bit flips,
//! interesting integers, truncations, splices, and for JSON, whole values
//! swapped for hostile ones) for a bounded number of cases, catching
//! panics and watching allocations ([`CappedAllocator`]). A finding is
//! saved with the seed and case that made it, so a failure reproduces.
//!
//! The mutation is blind (no coverage feedback: cargo-fuzz needs a nightly
//! compiler, and AFL an instrumented build CI cannot afford), so the
//! targets start from real, valid inputs and mutate a few bytes or values
//! at a time: most cases get past the first checks and reach the
//! structural ones. `PCE_FUZZ_CASES` runs longer campaigns on demand and
//! `PCE_FUZZ_SEED` other random streams.

mod alloc;
mod campaign;
mod mutate;

pub use alloc::CappedAllocator;
pub use campaign::{Campaign, Report};
pub use mutate::Mutator;
