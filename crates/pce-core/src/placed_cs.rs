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
//! Sub-systems that a circuit creates with `new()` and merges with `extend`
//! (storage-proofs' parallel synthesis) hold their values in vectors of
//! their own, like [`crate::WitnessCS`]; `extend` places their values.

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use blstrs::Scalar;

use crate::synthesis::{root_without_namespaces, synthesize_as_prover, CountInputs, WitnessTarget};

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

/// The values of one kind.
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

impl<'a> Sink<'a> {
    fn placed(placement: Placement<'a>) -> Self {
        Sink::Placed {
            kept: Vec::with_capacity(placement.skip),
            skip: placement.skip,
            slot: placement.slot,
            written: 0,
            dropped: 0,
        }
    }

    /// Appends `value`; returns its index.
    #[inline]
    fn push(&mut self, value: Scalar) -> usize {
        match self {
            Sink::Owned(values) => {
                values.push(value);
                values.len() - 1
            }
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
        match self {
            Sink::Owned(values) => values.len(),
            Sink::Placed {
                kept,
                written,
                dropped,
                ..
            } => kept.len() + written + dropped,
        }
    }

    /// The values held, in order, as at most two slices. Only sub-systems
    /// are extended into others, and they hold every value; a placed
    /// system's dropped values are not among them.
    fn slices(&self) -> [&[Scalar]; 2] {
        match self {
            Sink::Owned(values) => [values, &[]],
            Sink::Placed {
                kept,
                slot,
                written,
                ..
            } => [kept, &slot[..*written]],
        }
    }

    fn extend(&mut self, values: &[Scalar]) {
        match self {
            Sink::Owned(own) => own.extend_from_slice(values),
            _ => {
                for value in values {
                    self.push(*value);
                }
            }
        }
    }

    fn finish(self) -> Placed {
        let total = self.len();
        let kept = match self {
            Sink::Owned(values) => values,
            Sink::Placed { kept, .. } => kept,
        };
        Placed { kept, total }
    }
}

/// Records assigned values into the caller's slots; enforces nothing.
#[derive(Debug)]
pub struct PlacedWitnessCS<'a> {
    inputs: Sink<'a>,
    aux: Sink<'a>,
}

impl<'a> PlacedWitnessCS<'a> {
    /// A system that places its inputs and aux values as `inputs` and
    /// `aux` say.
    pub fn new_placed(inputs: Placement<'a>, aux: Placement<'a>) -> Self {
        Self {
            inputs: Sink::placed(inputs),
            aux: Sink::placed(aux),
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

impl CountInputs for PlacedWitnessCS<'_> {
    fn num_inputs(&self) -> usize {
        self.inputs.len()
    }
}

impl ConstraintSystem<Scalar> for PlacedWitnessCS<'_> {
    type Root = Self;

    fn new() -> Self {
        Self {
            inputs: Sink::Owned(Vec::new()),
            aux: Sink::Owned(Vec::new()),
        }
    }

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        Ok(Variable::new_unchecked(Index::Aux(self.aux.push(f()?))))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        Ok(Variable::new_unchecked(Index::Input(
            self.inputs.push(f()?),
        )))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
    }

    root_without_namespaces!();

    /// Appends `other`, whose input 0 is its temporary ONE and is dropped.
    fn extend(&mut self, other: &Self) {
        let [first, second] = other.inputs.slices();
        let (first, second) = match first.split_first() {
            Some((_one, rest)) => (rest, second),
            None => (first, second.get(1..).unwrap_or_default()),
        };
        self.inputs.extend(first);
        self.inputs.extend(second);
        for values in other.aux.slices() {
            self.aux.extend(values);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{synthesize_witness, Witness};
    use bellpepper_core::num::AllocatedNum;

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
