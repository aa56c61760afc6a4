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
//! The first partition of a shape a process proves is assembled from
//! sub-witnesses of their own, which is where the sizes are learned
//! ([`Layout`]); every later one is synthesized in place, each
//! one-challenge circuit writing its values into its slot of the whole
//! ([`PlacedWitnessCS`]; the shared part each repeats is kept aside and
//! checked against the one placed). That saves a copy of the witness, a
//! fresh vector and the sub-witnesses' release (`docs/benchmarks.md`).
//!
//! A one-challenge witness comes from [`crate::porep_witness`], our copy of
//! storage-proofs' circuit with native SHA-256 witnesses (about twice as
//! fast), unless [`CIRCUIT_WITNESS_ENV`] asks for storage-proofs' own
//! circuit (to rule the copy out, should a proof ever fail to verify).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Instant;

use blstrs::Scalar;
use pce_core::{
    synthesize_witness_in, PlacedWitnessCS, Placement, Witness, WitnessCS, WitnessTarget,
};
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

/// Where a one-challenge witness's values go in the whole, of one kind of
/// variable: `shared` values every one-challenge witness repeats, then
/// `per_challenge` of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Split {
    shared: usize,
    per_challenge: usize,
}

impl Split {
    /// The split of `whole` values among `challenges` one-challenge
    /// witnesses of `sub` values each; `None` when there is none.
    fn of(whole: usize, sub: usize, challenges: usize) -> Option<Self> {
        let shared = shared_len(whole, sub, challenges)?;
        Some(Self {
            shared,
            per_challenge: sub - shared,
        })
    }

    /// Slots of `values` (the whole) for each challenge: the first takes
    /// the shared part and its own values, each other its own values only
    /// (its shared part kept aside).
    fn placements(self, values: &mut [Scalar]) -> Vec<Placement<'_>> {
        let (first, rest) = values.split_at_mut(self.shared + self.per_challenge);
        std::iter::once(Placement {
            skip: 0,
            slot: first,
        })
        .chain(rest.chunks_mut(self.per_challenge).map(|slot| Placement {
            skip: self.shared,
            slot,
        }))
        .collect()
    }
}

/// How a partition's witness splits into its one-challenge witnesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    inputs: Split,
    aux: Split,
}

/// A partition's inputs, aux variables and challenges.
type Shape = (usize, usize, usize);

/// The layouts learned so far, by the partition's shape: a circuit's
/// layout follows from its shape, and the partitions of a sector, and every
/// sector of one size, share it.
fn learned() -> MutexGuard<'static, HashMap<Shape, Layout>> {
    static LEARNED: OnceLock<Mutex<HashMap<Shape, Layout>>> = OnceLock::new();
    // A map of plain values stays whole if a holder panicked.
    LEARNED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One-challenge circuit `j` of partition `k` synthesized into `cs`: our
/// copy of the circuit, or storage-proofs' own ([`CIRCUIT_WITNESS_ENV`]).
fn synthesize_challenge<Tree: 'static + MerkleTreeTrait, T: WitnessTarget>(
    circuits: &PartitionCircuits<Tree>,
    k: usize,
    j: usize,
    cs: T,
) -> Result<T::Output, C2Error> {
    if storage_proofs_circuit() {
        cs.synthesize(circuits.challenge_circuit(k, j)?)
            .map_err(synthesis(k))
    } else {
        porep_witness::challenge_witness(circuits, k, j, cs)
    }
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
    if let Some(witness) = placed_partition_witness(circuits, k, num_inputs, num_aux)? {
        return Ok(witness);
    }
    let shape = (num_inputs, num_aux, challenges);
    let (witness, layout) = assembled_witness(circuits, k, challenges, shape)?;
    learned().insert(shape, layout);
    Ok(witness)
}

/// [`partition_witness`] by the in-place path alone: `None` when the
/// process has not yet learned the partition's layout (from a partition of
/// the same shape assembled before), or when the one-challenge witnesses
/// do not have its sizes. For tests and benchmarks; the prover calls
/// [`partition_witness`], which falls back on the assembly.
pub fn placed_partition_witness<Tree: 'static + MerkleTreeTrait>(
    circuits: &PartitionCircuits<Tree>,
    k: usize,
    num_inputs: usize,
    num_aux: usize,
) -> Result<Option<Witness>, C2Error> {
    let challenges = circuits.num_challenges(k);
    let shape = (num_inputs, num_aux, challenges);
    let layout = learned().get(&shape).copied();
    match layout {
        Some(layout) if challenges >= 2 => placed_witness(circuits, k, challenges, shape, layout),
        _ => Ok(None),
    }
}

/// The error of a partition whose one-challenge witnesses do not make it.
fn layout_error(partition: usize) -> impl Fn(String) -> C2Error {
    move |what| C2Error::WitnessLayout { partition, what }
}

/// The witness of partition `k` synthesized in place by `layout`; `None`
/// when a one-challenge witness does not have the layout's size (then
/// nothing of it is kept).
fn placed_witness<Tree: 'static + MerkleTreeTrait>(
    circuits: &PartitionCircuits<Tree>,
    k: usize,
    challenges: usize,
    (num_inputs, num_aux, _): Shape,
    layout: Layout,
) -> Result<Option<Witness>, C2Error> {
    if layout.inputs.per_challenge == 0 || layout.aux.per_challenge == 0 {
        return Ok(None);
    }
    let start = Instant::now();
    let mut inputs = large_buffers::zeroed(num_inputs);
    let mut aux = large_buffers::zeroed(num_aux);
    let placed = layout
        .inputs
        .placements(&mut inputs)
        .into_par_iter()
        .zip(layout.aux.placements(&mut aux))
        .enumerate()
        .map(|(j, (input_slot, aux_slot))| {
            let mut cs = PlacedWitnessCS::new_placed(input_slot, aux_slot);
            synthesize_challenge(circuits, k, j, &mut cs)?;
            Ok(cs.finish())
        })
        .collect::<Result<Vec<_>, C2Error>>()?;
    debug_assert_eq!(placed.len(), challenges);
    let sub = |split: Split| split.shared + split.per_challenge;
    if placed.iter().any(|(placed_inputs, placed_aux)| {
        placed_inputs.total != sub(layout.inputs) || placed_aux.total != sub(layout.aux)
    }) {
        return Ok(None);
    }
    for (j, (placed_inputs, placed_aux)) in placed.iter().enumerate().skip(1) {
        if placed_inputs.kept != inputs[..layout.inputs.shared]
            || placed_aux.kept != aux[..layout.aux.shared]
        {
            return Err(layout_error(k)(format!(
                "challenge {j} does not repeat the shared part"
            )));
        }
    }
    debug!(partition = k, challenges, elapsed = ?start.elapsed(), "witness synthesized in place");
    Ok(Some(Witness { inputs, aux }))
}

/// The witness of partition `k` assembled from one-challenge witnesses of
/// their own, and the layout they showed.
fn assembled_witness<Tree: 'static + MerkleTreeTrait>(
    circuits: &PartitionCircuits<Tree>,
    k: usize,
    challenges: usize,
    (num_inputs, num_aux, _): Shape,
) -> Result<(Witness, Layout), C2Error> {
    // A one-challenge circuit has a challenge's share of the variables and
    // the shared part, which is small: room for that share and a 64th of
    // the whole (unwritten room costs nothing; too little only reallocates).
    let capacity = |whole: usize| whole / challenges + whole / 64;
    let start = Instant::now();
    let parts = (0..challenges)
        .into_par_iter()
        .map(|j| {
            let cs = WitnessCS::with_capacity(capacity(num_inputs), capacity(num_aux));
            synthesize_challenge(circuits, k, j, cs)
        })
        .collect::<Result<Vec<Witness>, C2Error>>()?;
    debug!(partition = k, challenges, elapsed = ?start.elapsed(), "one-challenge witnesses");

    let mismatch = layout_error(k);
    let first = &parts[0];
    let split_inputs = Split::of(num_inputs, first.inputs.len(), challenges);
    let split_aux = Split::of(num_aux, first.aux.len(), challenges);
    let (Some(split_inputs), Some(split_aux)) = (split_inputs, split_aux) else {
        return Err(mismatch(format!(
            "{challenges} one-challenge witnesses of {} inputs and {} aux cannot make {num_inputs} inputs and {num_aux} aux",
            first.inputs.len(),
            first.aux.len()
        )));
    };
    let (shared_inputs, shared_aux) = (split_inputs.shared, split_aux.shared);
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
    let layout = Layout {
        inputs: split_inputs,
        aux: split_aux,
    };
    Ok((witness, layout))
}
