//! Witness generation of a partition with its challenges in parallel.
//!
//! storage-proofs synthesizes the challenges of a PoRep partition one after
//! the other, and witness generation, not the MatVec, is what a PCE proof
//! waits for. The partition circuit is a shared part (replica id,
//! commitments, their checks) followed by one identically shaped block per
//! challenge, so its witness can be assembled from the witnesses of
//! one-challenge circuits, computed in parallel:
//!
//! ```text
//! full      = shared ‖ challenge_0 ‖ challenge_1 ‖ … ‖ challenge_{n−1}
//! circuit j = shared ‖ challenge_j
//! ```
//!
//! (separately for inputs, ONE first, and aux variables). The sizes of the
//! shared part and of one challenge follow from the full shape (known from
//! the PCE) and one sub-witness; every sub-witness must have exactly that
//! shape and repeat the same shared part, or the assembly is refused.
//!
//! A one-challenge witness comes from [`crate::porep_witness`], our copy of
//! storage-proofs' circuit with native SHA-256 witnesses (about twice as
//! fast), unless [`CIRCUIT_WITNESS_ENV`] asks for storage-proofs' own
//! circuit (to rule the copy out, should a proof ever fail to verify).

use std::sync::OnceLock;
use std::time::Instant;

use blstrs::Scalar;
use pce_core::{synthesize_witness_in, Witness, WitnessCS};
use rayon::prelude::*;
use storage_proofs_core::merkle::MerkleTreeTrait;
use tracing::debug;

use crate::partition::PartitionCircuits;
use crate::porep_witness;
use crate::C2Error;

/// The environment variable that, set to `circuit`, computes PoRep and
/// SnapDeals witnesses with storage-proofs' own circuits instead of
/// [`crate::porep_witness`] and [`crate::update_witness`] (the name is
/// kept from when it applied to PoRep only).
pub const CIRCUIT_WITNESS_ENV: &str = "PCE_POREP_WITNESS";

/// Whether [`CIRCUIT_WITNESS_ENV`] asks for storage-proofs' circuits, for
/// PoRep and SnapDeals alike; read once per process.
pub(crate) fn storage_proofs_circuit() -> bool {
    static CIRCUIT: OnceLock<bool> = OnceLock::new();
    *CIRCUIT.get_or_init(|| std::env::var(CIRCUIT_WITNESS_ENV).as_deref() == Ok("circuit"))
}

/// Size of the shared part of one kind of variable (inputs or aux):
/// solves `full = shared + n·c` and `sub = shared + c`.
fn shared_len(full: usize, sub: usize, challenges: usize) -> Option<usize> {
    let extra = full.checked_sub(sub)?;
    let others = challenges - 1;
    if extra % others != 0 {
        return None;
    }
    sub.checked_sub(extra / others)
}

/// Wraps a synthesis error of partition `partition`.
fn synthesis(partition: usize) -> impl Fn(bellpepper_core::SynthesisError) -> C2Error {
    move |source| C2Error::Synthesis { partition, source }
}

/// The witness of partition `k`, whose circuit has `num_inputs` inputs
/// (ONE included) and `num_aux` aux variables.
pub fn partition_witness<Tree: 'static + MerkleTreeTrait>(
    circuits: &PartitionCircuits<Tree>,
    k: usize,
    num_inputs: usize,
    num_aux: usize,
) -> Result<Witness, C2Error> {
    let challenges = circuits.num_challenges(k);
    if challenges < 2 {
        let cs = WitnessCS::with_capacity(num_inputs, num_aux);
        return synthesize_witness_in(circuits.circuit(k)?, cs).map_err(synthesis(k));
    }
    // A one-challenge circuit has a challenge's share of the variables and
    // the shared part, which is small: room for that share and a 64th of
    // the whole (unwritten room costs nothing; too little only reallocates).
    let capacity = |whole: usize| whole / challenges + whole / 64;
    let start = Instant::now();
    let parts = (0..challenges)
        .into_par_iter()
        .map(|j| {
            let cs = WitnessCS::with_capacity(capacity(num_inputs), capacity(num_aux));
            if storage_proofs_circuit() {
                synthesize_witness_in(circuits.challenge_circuit(k, j)?, cs).map_err(synthesis(k))
            } else {
                porep_witness::challenge_witness(circuits, k, j, cs)
            }
        })
        .collect::<Result<Vec<Witness>, C2Error>>()?;
    debug!(partition = k, challenges, elapsed = ?start.elapsed(), "one-challenge witnesses");

    let mismatch = |what: String| C2Error::WitnessLayout { partition: k, what };
    let first = &parts[0];
    let shared_inputs = shared_len(num_inputs, first.inputs.len(), challenges);
    let shared_aux = shared_len(num_aux, first.aux.len(), challenges);
    let (Some(shared_inputs), Some(shared_aux)) = (shared_inputs, shared_aux) else {
        return Err(mismatch(format!(
            "{challenges} one-challenge witnesses of {} inputs and {} aux cannot make {num_inputs} inputs and {num_aux} aux",
            first.inputs.len(),
            first.aux.len()
        )));
    };
    for (j, part) in parts.iter().enumerate().skip(1) {
        if part.inputs.len() != first.inputs.len() || part.aux.len() != first.aux.len() {
            return Err(mismatch(format!(
                "challenge {j} has a different shape than challenge 0"
            )));
        }
        if part.inputs[..shared_inputs] != first.inputs[..shared_inputs]
            || part.aux[..shared_aux] != first.aux[..shared_aux]
        {
            return Err(mismatch(format!(
                "challenge {j} does not repeat the shared part"
            )));
        }
    }

    // Every part's values after the shared ones (all of the first part's)
    // copied in parallel into their place in the whole.
    let assemble = |whole: usize, shared: usize, part: fn(&Witness) -> &[Scalar]| {
        let mut values = large_buffers::zeroed(whole);
        let mut rest = values.as_mut_slice();
        let mut copies = Vec::with_capacity(parts.len());
        for (j, witness) in parts.iter().enumerate() {
            let source = &part(witness)[if j == 0 { 0 } else { shared }..];
            let (place, after) = std::mem::take(&mut rest).split_at_mut(source.len());
            copies.push((place, source));
            rest = after;
        }
        copies
            .into_par_iter()
            .for_each(|(place, source)| place.copy_from_slice(source));
        values
    };
    let start = Instant::now();
    let witness = Witness {
        inputs: assemble(num_inputs, shared_inputs, |w| &w.inputs),
        aux: assemble(num_aux, shared_aux, |w| &w.aux),
    };
    drop(parts);
    debug!(partition = k, elapsed = ?start.elapsed(), "witness assembled");
    Ok(witness)
}
