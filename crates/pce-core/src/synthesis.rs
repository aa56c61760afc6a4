//! Running a circuit the way bellperson's prover does.
//!
//! `synthesize_circuits_batch` in bellperson allocates input 0 = ONE, runs
//! the circuit, then appends `input_i · 0 = 0` for every input (this gives
//! the A query full density over inputs). Every constraint system of this
//! crate goes through [`synthesize_as_prover`] so the three stay numbered alike.

use bellpepper_core::{Circuit, ConstraintSystem, Index, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;

use crate::enforcing_cs::EnforcingCS;
use crate::witness_cs::WitnessCS;

/// A constraint system that knows how many inputs it has allocated.
pub(crate) trait CountInputs {
    /// Inputs allocated so far, ONE included.
    fn num_inputs(&self) -> usize;
}

/// The methods every constraint system of this crate shares: namespaces
/// mean nothing to proving, each system is its own root, and all of them
/// can be merged with `extend` (storage-proofs' parallel synthesis).
macro_rules! root_without_namespaces {
    () => {
        fn push_namespace<NR, N>(&mut self, _: N)
        where
            NR: Into<String>,
            N: FnOnce() -> NR,
        {
        }

        fn pop_namespace(&mut self) {}

        fn get_root(&mut self) -> &mut Self::Root {
            self
        }

        fn is_extensible() -> bool {
            true
        }
    };
}
pub(crate) use root_without_namespaces;

/// Allocates ONE, synthesizes `circuit`, and appends the input constraints.
pub(crate) fn synthesize_as_prover<CS, C>(circuit: C, cs: &mut CS) -> Result<(), SynthesisError>
where
    CS: ConstraintSystem<Scalar> + CountInputs,
    C: Circuit<Scalar>,
{
    cs.alloc_input(|| "ONE", || Ok(Scalar::ONE))?;
    circuit.synthesize(cs)?;
    for i in 0..cs.num_inputs() {
        cs.enforce(
            || "input · 0 = 0",
            |lc| lc + Variable::new_unchecked(Index::Input(i)),
            |lc| lc,
            |lc| lc,
        );
    }
    Ok(())
}

/// The full assignment of a circuit: `w = inputs ‖ aux`, `inputs[0] = 1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    /// Public inputs, ONE first.
    pub inputs: Vec<Scalar>,
    /// Auxiliary (private) variables.
    pub aux: Vec<Scalar>,
}

/// Computes only the witness of `circuit`: no linear combination is evaluated.
pub fn synthesize_witness<C: Circuit<Scalar>>(circuit: C) -> Result<Witness, SynthesisError> {
    synthesize_witness_in(circuit, WitnessCS::new())
}

/// [`synthesize_witness`] into `cs`, an empty system made with room for
/// the circuit ([`WitnessCS::with_capacity`]).
pub fn synthesize_witness_in<C: Circuit<Scalar>>(
    circuit: C,
    mut cs: WitnessCS,
) -> Result<Witness, SynthesisError> {
    synthesize_as_prover(circuit, &mut cs)?;
    Ok(cs.into_witness())
}

/// A witness-only constraint system a circuit can be synthesized into as
/// bellperson's prover does: code that picks the circuit (one of several
/// types) is written once for every system its values may go to.
pub trait WitnessTarget {
    /// What synthesis leaves.
    type Output;
    /// Synthesizes `circuit` into the system.
    fn synthesize<C: Circuit<Scalar>>(self, circuit: C) -> Result<Self::Output, SynthesisError>;
}

impl WitnessTarget for WitnessCS {
    type Output = Witness;
    fn synthesize<C: Circuit<Scalar>>(self, circuit: C) -> Result<Witness, SynthesisError> {
        synthesize_witness_in(circuit, self)
    }
}

/// Runs `circuit` through the enforce-time reference path (bellperson's
/// `ProvingAssignment`), evaluating every constraint as it is enforced.
pub fn synthesize_enforcing<C: Circuit<Scalar>>(circuit: C) -> Result<EnforcingCS, SynthesisError> {
    let mut cs = EnforcingCS::new();
    synthesize_as_prover(circuit, &mut cs)?;
    Ok(cs)
}
