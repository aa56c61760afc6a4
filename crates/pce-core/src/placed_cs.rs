//! A witness synthesized straight into its place in a larger one.
//!
//! A PoRep partition's witness is `shared ‖ challenge_0 ‖ … ‖ challenge_{n−1}`
//! and is generated as n one-challenge witnesses `shared ‖ challenge_j`, in
//! parallel. Assembling the whole from n vectors of their own costs a fresh
//! vector as large as the witness, a copy of every value and the release of
//! the n vectors: at 32 GiB, about as long as a third of the synthesis.
//! A [`PlacedWitnessCS`] writes each value where the whole needs it
//! instead: of each kind (inputs, aux), it keeps the first `skip` values
//! aside (the shared part, which every one-challenge circuit repeats; the
//! caller checks them against the copy that was placed) and writes the
//! rest in order into a slot of the caller's vector.
//!
//! It is the witness system of [`crate::witness_cs`] over a store that
//! places values; sub-systems that a circuit creates with `new()` and
//! merges with `extend` (storage-proofs' parallel synthesis) hold their
//! values in vectors of their own, like [`crate::WitnessCS`], and `extend`
//! places them.

use bellpepper_core::{Circuit, SynthesisError};
use blstrs::Scalar;

use crate::synthesis::{synthesize_as_prover, WitnessTarget};
use crate::witness_cs::{ValueStore, WitnessSystem};

/// Where a system's values of one kind go: the first `skip` into a vector
/// kept aside, the rest into `slot`, in order.
#[derive(Debug)]
pub struct Placement<'a> {
    /// Values kept aside before the slot is written.
    pub skip: usize,
    /// Where the values after them go.
    pub slot: &'a mut [Scalar],
}

/// What a placed system wrote of one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The values kept aside (at most `skip` of them).
    pub kept: Vec<Scalar>,
    /// Values the circuit allocated in all: kept, written, and any beyond
    /// the slot's end (which were dropped, so a total other than
    /// `skip + slot.len()` means the slot did not fit the circuit).
    pub total: usize,
}

/// A placed system's values of one kind: the store behind
/// [`PlacedWitnessCS`].
#[derive(Debug)]
pub struct PlacedValues<'a>(Sink<'a>);

#[derive(Debug)]
enum Sink<'a> {
    /// In a vector of its own (a sub-system made by `new()`).
    Owned(Vec<Scalar>),
    /// Kept aside, then placed in the caller's slot.
    Placed {
        kept: Vec<Scalar>,
        skip: usize,
        slot: &'a mut [Scalar],
        written: usize,
        dropped: usize,
    },
}

impl Default for PlacedValues<'_> {
    fn default() -> Self {
        Self(Sink::Owned(Vec::new()))
    }
}

impl<'a> PlacedValues<'a> {
    fn new(placement: Placement<'a>) -> Self {
        Self(Sink::Placed {
            kept: Vec::with_capacity(placement.skip),
            skip: placement.skip,
            slot: placement.slot,
            written: 0,
            dropped: 0,
        })
    }

    fn finish(self) -> Placed {
        let total = self.len();
        let kept = match self.0 {
            Sink::Owned(values) => values,
            Sink::Placed { kept, .. } => kept,
        };
        Placed { kept, total }
    }
}

impl ValueStore for PlacedValues<'_> {
    #[inline]
    fn push(&mut self, value: Scalar) -> usize {
        match &mut self.0 {
            Sink::Owned(values) => ValueStore::push(values, value),
            Sink::Placed {
                kept,
                skip,
                slot,
                written,
                dropped,
            } => {
                let index = kept.len() + *written + *dropped;
                if kept.len() < *skip {
                    kept.push(value);
                } else if let Some(place) = slot.get_mut(*written) {
                    *place = value;
                    *written += 1;
                } else {
                    *dropped += 1;
                }
                index
            }
        }
    }

    fn len(&self) -> usize {
        match &self.0 {
            Sink::Owned(values) => values.len(),
            Sink::Placed {
                kept,
                written,
                dropped,
                ..
            } => kept.len() + written + dropped,
        }
    }

    /// A placed store's dropped values are not among the slices.
    fn slices(&self) -> [&[Scalar]; 2] {
        match &self.0 {
            Sink::Owned(values) => [values, &[]],
            Sink::Placed {
                kept,
                slot,
                written,
                ..
            } => [kept, &slot[..*written]],
        }
    }
}

/// Records assigned values into the caller's slots; enforces nothing.
/// Sub-systems it makes with `new()` hold their values in vectors of their
/// own until `extend` places them.
pub type PlacedWitnessCS<'a> = WitnessSystem<PlacedValues<'a>>;

impl<'a> PlacedWitnessCS<'a> {
    /// A system that places its inputs and aux values as `inputs` and
    /// `aux` say.
    pub fn new_placed(inputs: Placement<'a>, aux: Placement<'a>) -> Self {
        Self {
            inputs: PlacedValues::new(inputs),
            aux: PlacedValues::new(aux),
        }
    }

    /// What was written of the inputs and of the aux values.
    pub fn finish(self) -> (Placed, Placed) {
        (self.inputs.finish(), self.aux.finish())
    }
}

/// Synthesizes `circuit` as bellperson's prover does (ONE first, the input
/// constraints last) into `cs`.
pub fn synthesize_placed<C: Circuit<Scalar>>(
    circuit: C,
    cs: &mut PlacedWitnessCS<'_>,
) -> Result<(), SynthesisError> {
    synthesize_as_prover(circuit, cs)
}

impl WitnessTarget for &mut PlacedWitnessCS<'_> {
    type Output = ();
    fn synthesize<C: Circuit<Scalar>>(self, circuit: C) -> Result<(), SynthesisError> {
        synthesize_placed(circuit, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{synthesize_witness, Witness};
    use bellpepper_core::num::AllocatedNum;
    use bellpepper_core::ConstraintSystem;

    /// A circuit of `shared` aux values, then `own` aux values and an input
    /// of its own, some of them through a sub-system merged by `extend`.
    struct Part {
        shared: u64,
        own: u64,
        seed: u64,
    }

    impl Circuit<Scalar> for Part {
        fn synthesize<CS: ConstraintSystem<Scalar>>(
            self,
            cs: &mut CS,
        ) -> Result<(), SynthesisError> {
            for i in 0..self.shared {
                AllocatedNum::alloc(cs.namespace(|| "shared"), || Ok(Scalar::from(1000 + i)))?;
            }
            AllocatedNum::alloc_input(cs.namespace(|| "input"), || Ok(Scalar::from(self.seed)))?;
            let half = self.own / 2;
            for i in 0..half {
                AllocatedNum::alloc(cs.namespace(|| "own"), || {
                    Ok(Scalar::from(self.seed * 100 + i))
                })?;
            }
            let mut sub = CS::new();
            sub.alloc_input(|| "temp ONE", || Ok(Scalar::from(7)))?;
            for i in half..self.own {
                sub.alloc(|| "sub", || Ok(Scalar::from(self.seed * 100 + i)))?;
            }
            cs.extend(&sub);
            Ok(())
        }
    }

    #[test]
    fn placed_values_land_in_their_slots_and_the_shared_ones_are_kept() {
        let (shared, own, parts) = (5u64, 9u64, 3u64);
        // The whole, as one-challenge witnesses assembled: shared ‖ own_0 ‖ ….
        let witnesses: Vec<Witness> = (0..parts)
            .map(|seed| synthesize_witness(Part { shared, own, seed }).unwrap())
            .collect();
        let per = own as usize;
        let mut aux = vec![Scalar::from(99); shared as usize + parts as usize * per];
        let mut inputs = vec![Scalar::from(99); 1 + parts as usize];
        let (aux_first, mut aux_rest) = aux.split_at_mut(shared as usize + per);
        let (inputs_first, mut inputs_rest) = inputs.split_at_mut(2);
        let mut results = Vec::new();
        for seed in 0..parts {
            let (input_slot, aux_slot, skip_inputs, skip_aux) = if seed == 0 {
                (&mut *inputs_first, &mut *aux_first, 0, 0)
            } else {
                let (input_slot, after) = std::mem::take(&mut inputs_rest).split_at_mut(1);
                inputs_rest = after;
                let (aux_slot, after) = std::mem::take(&mut aux_rest).split_at_mut(per);
                aux_rest = after;
                (input_slot, aux_slot, 1, shared as usize)
            };
            let mut cs = PlacedWitnessCS::new_placed(
                Placement {
                    skip: skip_inputs,
                    slot: input_slot,
                },
                Placement {
                    skip: skip_aux,
                    slot: aux_slot,
                },
            );
            synthesize_placed(Part { shared, own, seed }, &mut cs).unwrap();
            results.push(cs.finish());
        }
        for (seed, (placed_inputs, placed_aux)) in results.iter().enumerate() {
            let witness = &witnesses[seed];
            assert_eq!(placed_inputs.total, witness.inputs.len());
            assert_eq!(placed_aux.total, witness.aux.len());
            if seed > 0 {
                assert_eq!(placed_inputs.kept, witness.inputs[..1]);
                assert_eq!(placed_aux.kept, witness.aux[..shared as usize]);
            }
        }
        let mut expected_aux = witnesses[0].aux.clone();
        let mut expected_inputs = witnesses[0].inputs.clone();
        for witness in &witnesses[1..] {
            expected_aux.extend_from_slice(&witness.aux[shared as usize..]);
            expected_inputs.extend_from_slice(&witness.inputs[1..]);
        }
        assert_eq!(aux, expected_aux);
        assert_eq!(inputs, expected_inputs);
    }

    #[test]
    fn values_beyond_the_slot_are_counted_not_written() {
        let mut slot = vec![Scalar::from(0); 3];
        let mut inputs = vec![Scalar::from(0); 4];
        let mut cs = PlacedWitnessCS::new_placed(
            Placement {
                skip: 0,
                slot: &mut inputs,
            },
            Placement {
                skip: 2,
                slot: &mut slot,
            },
        );
        synthesize_placed(
            Part {
                shared: 4,
                own: 4,
                seed: 1,
            },
            &mut cs,
        )
        .unwrap();
        let (_, aux) = cs.finish();
        assert_eq!(aux.total, 8, "every value counted");
        assert_eq!(aux.kept, [Scalar::from(1000), Scalar::from(1001)]);
        assert_eq!(
            slot,
            [Scalar::from(1002), Scalar::from(1003), Scalar::from(100)]
        );
    }
}
