//! The enforce-time path: bellperson's `ProvingAssignment`, ported.
//!
//! bellperson 0.27 evaluates `⟨A_i, w⟩`, `⟨B_i, w⟩`, `⟨C_i, w⟩` inside every
//! `enforce` and tracks densities as it goes (`lc::eval_with_trackers`:
//! zero coefficients are skipped and mark nothing, a coefficient of one is
//! not multiplied, inputs are not tracked in A). Its type is private to
//! bellperson, so this is a line-for-line port, kept as the reference the
//! PCE is tested against and as the baseline of the synthesis benchmark.

use bellpepper_core::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;

use crate::density::Density;
use crate::synthesis::{root_without_namespaces, CountInputs, Witness};

/// Evaluates every constraint as it is enforced, like bellperson's prover.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnforcingCS {
    /// Aux variables used in A.
    pub a_aux_density: Density,
    /// Inputs used in B.
    pub b_input_density: Density,
    /// Aux variables used in B.
    pub b_aux_density: Density,
    /// `⟨A_i, w⟩` for every constraint.
    pub a: Vec<Scalar>,
    /// `⟨B_i, w⟩` for every constraint.
    pub b: Vec<Scalar>,
    /// `⟨C_i, w⟩` for every constraint.
    pub c: Vec<Scalar>,
    /// Assigned inputs, ONE first.
    pub inputs: Vec<Scalar>,
    /// Assigned aux variables.
    pub aux: Vec<Scalar>,
}

impl EnforcingCS {
    /// The assignment recorded so far.
    pub fn witness(&self) -> Witness {
        Witness {
            inputs: self.inputs.clone(),
            aux: self.aux.clone(),
        }
    }
}

/// Adds the terms of one kind of variable (inputs or aux) to `acc`, marking
/// the variables used in `density` (bellperson's `eval_with_trackers`, one half).
fn accumulate<'a>(
    acc: &mut Scalar,
    terms: impl Iterator<Item = (&'a usize, &'a Scalar)>,
    values: &[Scalar],
    mut density: Option<&mut Density>,
) {
    for (&index, coeff) in terms {
        if !bool::from(coeff.is_zero()) {
            let mut term = values[index];
            if *coeff != Scalar::ONE {
                term *= coeff;
            }
            *acc += term;
            if let Some(density) = density.as_deref_mut() {
                density.inc(index);
            }
        }
    }
}

fn eval_with_trackers(
    lc: &LinearCombination<Scalar>,
    input_density: Option<&mut Density>,
    aux_density: Option<&mut Density>,
    inputs: &[Scalar],
    aux: &[Scalar],
) -> Scalar {
    let mut acc = Scalar::ZERO;
    accumulate(&mut acc, lc.iter_inputs(), inputs, input_density);
    accumulate(&mut acc, lc.iter_aux(), aux, aux_density);
    acc
}

impl CountInputs for EnforcingCS {
    fn num_inputs(&self) -> usize {
        self.inputs.len()
    }
}

impl ConstraintSystem<Scalar> for EnforcingCS {
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
        self.a_aux_density.add_element();
        self.b_aux_density.add_element();
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs.push(f()?);
        self.b_input_density.add_element();
        Ok(Variable::new_unchecked(Index::Input(self.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        let a = a(LinearCombination::zero());
        let b = b(LinearCombination::zero());
        let c = c(LinearCombination::zero());
        let (inputs, aux) = (&self.inputs, &self.aux);
        // Inputs have full density in A because of the `input · 0 = 0` constraints.
        let a = eval_with_trackers(&a, None, Some(&mut self.a_aux_density), inputs, aux);
        let b = eval_with_trackers(
            &b,
            Some(&mut self.b_input_density),
            Some(&mut self.b_aux_density),
            inputs,
            aux,
        );
        let c = eval_with_trackers(&c, None, None, inputs, aux);
        self.a.push(a);
        self.b.push(b);
        self.c.push(c);
    }

    root_without_namespaces!();

    fn extend(&mut self, other: &Self) {
        self.a_aux_density.extend(&other.a_aux_density, false);
        self.b_input_density.extend(&other.b_input_density, true);
        self.b_aux_density.extend(&other.b_aux_density, false);
        self.a.extend_from_slice(&other.a);
        self.b.extend_from_slice(&other.b);
        self.c.extend_from_slice(&other.c);
        self.inputs.extend_from_slice(&other.inputs[1..]);
        self.aux.extend_from_slice(&other.aux);
    }
}
