//! Random satisfiable circuits.
//!
//! A circuit is a list of operations. Every constraint `A · B = C` takes
//! random linear combinations over the variables allocated so far and adds
//! one fresh "slack" variable to C with the value that makes it hold, so
//! every random circuit is satisfied and can be proven. A final constraint
//! uses every variable, so none is unconstrained (bellperson's parameter
//! generator refuses those).

use bellpepper_core::{Circuit, ConstraintSystem, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A term of a linear combination: an earlier variable (by index modulo
/// the number allocated) and a coefficient.
#[derive(Debug, Clone)]
pub struct Term {
    variable: usize,
    coefficient: Coefficient,
}

/// The kinds of coefficient the PCE encodes differently.
#[derive(Debug, Clone)]
pub enum Coefficient {
    /// +1.
    One,
    /// −1.
    MinusOne,
    /// 0 (dropped by bellperson's evaluation).
    Zero,
    /// A small integer.
    Small(u64),
    /// A random field element, from a seed.
    Random(u64),
}

impl Coefficient {
    fn value(&self) -> Scalar {
        match self {
            Coefficient::One => Scalar::ONE,
            Coefficient::MinusOne => -Scalar::ONE,
            Coefficient::Zero => Scalar::ZERO,
            Coefficient::Small(v) => Scalar::from(*v),
            Coefficient::Random(seed) => Scalar::random(ChaCha8Rng::seed_from_u64(*seed)),
        }
    }
}

/// One step of a random circuit.
#[derive(Debug, Clone)]
pub enum Op {
    /// Allocate an aux variable with this value.
    Aux(u64),
    /// Allocate an input with this value.
    Input(u64),
    /// Enforce `A · B = C + slack` for random A, B, C.
    Enforce([Vec<Term>; 3]),
    /// Run these operations inside a namespace.
    Namespace(Vec<Op>),
}

/// A random circuit: operations on the main system, then sub-circuits
/// synthesized separately and merged with `extend` when the constraint
/// system supports it (as storage-proofs' parallel synthesis does).
#[derive(Debug, Clone)]
pub struct RandomCircuit {
    /// Operations on the main constraint system.
    pub main: Vec<Op>,
    /// Operation lists of the sub-circuits.
    pub parts: Vec<Vec<Op>>,
}

/// A variable and its value.
type Assigned = (Variable, Scalar);

fn combination(terms: &[Term], vars: &[Assigned]) -> (LinearCombination<Scalar>, Scalar) {
    let mut lc = LinearCombination::zero();
    let mut value = Scalar::ZERO;
    for term in terms {
        let (var, var_value) = vars[term.variable % vars.len()];
        let coefficient = term.coefficient.value();
        lc = lc + (coefficient, var);
        value += coefficient * var_value;
    }
    (lc, value)
}

fn run<CS: ConstraintSystem<Scalar>>(
    cs: &mut CS,
    ops: &[Op],
    vars: &mut Vec<Assigned>,
) -> Result<(), SynthesisError> {
    for op in ops {
        match op {
            Op::Aux(v) => {
                let value = Scalar::from(*v);
                vars.push((cs.alloc(|| "aux", || Ok(value))?, value));
            }
            Op::Input(v) => {
                let value = Scalar::from(*v);
                vars.push((cs.alloc_input(|| "input", || Ok(value))?, value));
            }
            Op::Enforce([a, b, c]) => {
                let (a, a_value) = combination(a, vars);
                let (b, b_value) = combination(b, vars);
                let (c, c_value) = combination(c, vars);
                let slack_value = a_value * b_value - c_value;
                let slack = cs.alloc(|| "slack", || Ok(slack_value))?;
                vars.push((slack, slack_value));
                cs.enforce(
                    || "constraint",
                    |lc| lc + &a,
                    |lc| lc + &b,
                    |lc| lc + &c + slack,
                );
            }
            Op::Namespace(inner) => run(&mut cs.namespace(|| "namespace"), inner, vars)?,
        }
    }
    Ok(())
}

/// Enforces `(Σ vars) · 1 = Σ vars`, so every variable is constrained.
fn close<CS: ConstraintSystem<Scalar>>(cs: &mut CS, vars: &[Assigned]) {
    let sum = vars
        .iter()
        .fold(LinearCombination::zero(), |lc, (var, _)| lc + *var);
    cs.enforce(
        || "every variable",
        |lc| lc + &sum,
        |lc| lc + CS::one(),
        |lc| lc + &sum,
    );
}

impl Circuit<Scalar> for RandomCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut vars = vec![(CS::one(), Scalar::ONE)];
        run(cs, &self.main, &mut vars)?;
        close(cs, &vars);
        for part in &self.parts {
            // Like storage-proofs: a separate system merged with `extend`
            // where supported, the same operations inline otherwise; both
            // give the same numbering.
            if CS::is_extensible() {
                let mut sub = CS::new();
                let one = sub.alloc_input(|| "temp ONE", || Ok(Scalar::ONE))?;
                let mut vars = vec![(one, Scalar::ONE)];
                run(&mut sub, part, &mut vars)?;
                close(&mut sub, &vars);
                cs.extend(&sub);
            } else {
                let mut vars = vec![(CS::one(), Scalar::ONE)];
                run(cs, part, &mut vars)?;
                close(cs, &vars);
            }
        }
        Ok(())
    }
}

fn coefficient() -> impl Strategy<Value = Coefficient> {
    prop_oneof![
        4 => Just(Coefficient::One),
        2 => Just(Coefficient::MinusOne),
        1 => Just(Coefficient::Zero),
        1 => (2u64..8).prop_map(Coefficient::Small),
        2 => any::<u64>().prop_map(Coefficient::Random),
    ]
}

fn term() -> impl Strategy<Value = Term> {
    (any::<usize>(), coefficient()).prop_map(|(variable, coefficient)| Term {
        variable,
        coefficient,
    })
}

fn ops(depth: u32, max_len: usize) -> BoxedStrategy<Vec<Op>> {
    let lc = || prop::collection::vec(term(), 0..5);
    let leaf = prop_oneof![
        3 => any::<u64>().prop_map(|v| Op::Aux(v % 4)),
        1 => any::<u64>().prop_map(Op::Input),
        4 => [lc(), lc(), lc()].prop_map(Op::Enforce),
    ];
    if depth == 0 {
        prop::collection::vec(leaf, 0..max_len).boxed()
    } else {
        let op = prop_oneof![8 => leaf, 1 => ops(depth - 1, max_len).prop_map(Op::Namespace)];
        prop::collection::vec(op, 0..max_len).boxed()
    }
}

/// Random circuits of up to about `max_len` operations per list.
pub fn random_circuit(max_len: usize) -> impl Strategy<Value = RandomCircuit> {
    (
        ops(2, max_len),
        prop::collection::vec(ops(1, max_len), 0..4),
    )
        .prop_map(|(main, parts)| RandomCircuit { main, parts })
}
