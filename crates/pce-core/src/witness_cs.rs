//! A constraint system that only records assigned values.
//!
//! Per proof, the constraints are already known (they are in the PCE), so
//! `enforce` does nothing: its linear-combination closures are never even
//! called, which is where most of the enforce-time cost goes.

use bellpepper_core::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;

use crate::synthesis::{root_without_namespaces, CountInputs, Witness};

/// Stores the values of allocated variables; enforces nothing.
///
/// Unlike bellpepper's `WitnessCS`, `new()` allocates nothing: like
/// bellperson's prover, the caller allocates ONE (storage-proofs allocates a
/// "temp ONE" in every sub-system it later passes to `extend`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WitnessCS {
    inputs: Vec<Scalar>,
    aux: Vec<Scalar>,
}

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

impl CountInputs for WitnessCS {
    fn num_inputs(&self) -> usize {
        self.inputs.len()
    }
}

impl ConstraintSystem<Scalar> for WitnessCS {
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
        self.aux.push(f()?);
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs.push(f()?);
        Ok(Variable::new_unchecked(Index::Input(self.inputs.len() - 1)))
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
        self.inputs
            .extend_from_slice(other.inputs.get(1..).unwrap_or_default());
        self.aux.extend_from_slice(&other.aux);
    }
}
