//! A constraint system that only records assigned values.
//!
//! Per proof, the constraints are already known (they are in the PCE), so
//! `enforce` does nothing: its linear-combination closures are never even
//! called, which is where most of the enforce-time cost goes.
//!
//! Where the values go is the system's one parameter, a [`ValueStore`] per
//! kind (inputs, aux): a vector of its own ([`WitnessCS`]), or a slot of a
//! larger witness ([`crate::PlacedWitnessCS`]). The constraint-system
//! logic (numbering, `extend`) is written once, here, for both.

use bellpepper_core::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;

use crate::synthesis::{root_without_namespaces, CountInputs, Witness};

/// Where a witness system keeps the values of one kind, in allocation
/// order. `Default` is the storage of a sub-system made by `new()`, which
/// a circuit merges into its parent with `extend`.
pub trait ValueStore: Default + Send {
    /// Appends `value`; returns its index among the values of its kind.
    fn push(&mut self, value: Scalar) -> usize;
    /// Values appended so far.
    fn len(&self) -> usize;
    /// Whether no value was appended.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The values held, in order, as at most two slices (a store need not
    /// hold every value it counted; only sub-systems, which do, are
    /// extended into others).
    fn slices(&self) -> [&[Scalar]; 2];
    /// Appends `values` in order.
    fn extend_from_slice(&mut self, values: &[Scalar]) {
        for value in values {
            self.push(*value);
        }
    }
}

impl ValueStore for Vec<Scalar> {
    #[inline]
    fn push(&mut self, value: Scalar) -> usize {
        Vec::push(self, value);
        Vec::len(self) - 1
    }

    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn slices(&self) -> [&[Scalar]; 2] {
        [self, &[]]
    }

    fn extend_from_slice(&mut self, values: &[Scalar]) {
        Vec::extend_from_slice(self, values)
    }
}

/// Stores the values of allocated variables in `S`; enforces nothing.
///
/// Like bellperson's prover (and unlike bellpepper's `WitnessCS`), `new()`
/// allocates nothing: the caller allocates ONE (storage-proofs allocates a
/// "temp ONE" in every sub-system it later passes to `extend`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WitnessSystem<S> {
    pub(crate) inputs: S,
    pub(crate) aux: S,
}

/// The witness system whose values are vectors of its own.
pub type WitnessCS = WitnessSystem<Vec<Scalar>>;

impl WitnessCS {
    /// An empty system with room for `inputs` and `aux` values, in huge
    /// pages: a circuit of about known size is synthesized without
    /// reallocating and copying its values as they grow (a 32 GiB PoRep
    /// partition has 130M of them). Room never written costs no memory.
    pub fn with_capacity(inputs: usize, aux: usize) -> Self {
        Self {
            inputs: large_buffers::with_capacity(inputs),
            aux: large_buffers::with_capacity(aux),
        }
    }

    /// The assignment recorded so far.
    pub fn into_witness(self) -> Witness {
        Witness {
            inputs: self.inputs,
            aux: self.aux,
        }
    }
}

impl<S: ValueStore> CountInputs for WitnessSystem<S> {
    fn num_inputs(&self) -> usize {
        self.inputs.len()
    }
}

impl<S: ValueStore> ConstraintSystem<Scalar> for WitnessSystem<S> {
    type Root = Self;

    fn new() -> Self {
        Self::default()
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
        self.inputs.extend_from_slice(first);
        self.inputs.extend_from_slice(second);
        for values in other.aux.slices() {
            self.aux.extend_from_slice(values);
        }
    }
}
