//! The PCE against the enforce-time evaluation of bellperson's prover, on
//! random circuits: random linear combinations (repeated variables, zero
//! and arbitrary coefficients), inputs allocated between aux variables,
//! namespaces, and sub-circuits synthesized separately and merged through
//! `extend` as storage-proofs does.

use bellpepper_core::{Circuit, ConstraintSystem, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;
use pce_core::{synthesize_enforcing, synthesize_witness, PrecompiledCircuit};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A term of a linear combination: which earlier variable and which coefficient.
#[derive(Debug, Clone)]
struct Term {
    variable: usize,
    coefficient: Coefficient,
}

#[derive(Debug, Clone)]
enum Coefficient {
    One,
    MinusOne,
    Zero,
    Small(u64),
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

#[derive(Debug, Clone)]
enum Op {
    Aux(u64),
    Input(u64),
    Enforce([Vec<Term>; 3]),
    Namespace(Vec<Op>),
}

/// A circuit given by a list of operations, optionally some of them run in
/// sub-systems merged with `extend`.
#[derive(Debug, Clone)]
struct RandomCircuit {
    main: Vec<Op>,
    parts: Vec<Vec<Op>>,
}

fn linear_combination(
    mut lc: LinearCombination<Scalar>,
    terms: &[Term],
    vars: &[Variable],
) -> LinearCombination<Scalar> {
    for term in terms {
        lc = lc + (term.coefficient.value(), vars[term.variable % vars.len()]);
    }
    lc
}

fn run<CS: ConstraintSystem<Scalar>>(
    cs: &mut CS,
    ops: &[Op],
    vars: &mut Vec<Variable>,
) -> Result<(), SynthesisError> {
    for op in ops {
        match op {
            Op::Aux(v) => vars.push(cs.alloc(|| "aux", || Ok(Scalar::from(*v)))?),
            Op::Input(v) => vars.push(cs.alloc_input(|| "input", || Ok(Scalar::from(*v)))?),
            Op::Enforce(lcs) => {
                cs.enforce(
                    || "c",
                    |lc| linear_combination(lc, &lcs[0], vars),
                    |lc| linear_combination(lc, &lcs[1], vars),
                    |lc| linear_combination(lc, &lcs[2], vars),
                );
            }
            Op::Namespace(inner) => {
                let mut ns = cs.namespace(|| "ns");
                run(&mut ns, inner, vars)?;
            }
        }
    }
    Ok(())
}

impl Circuit<Scalar> for RandomCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut vars = vec![CS::one()];
        run(cs, &self.main, &mut vars)?;
        if CS::is_extensible() {
            for part in &self.parts {
                let mut sub = CS::new();
                let one = sub.alloc_input(|| "temp ONE", || Ok(Scalar::ONE))?;
                run(&mut sub, part, &mut vec![one])?;
                cs.extend(&sub);
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

fn ops(depth: u32) -> BoxedStrategy<Vec<Op>> {
    let lc = || prop::collection::vec(term(), 0..5);
    let leaf = prop_oneof![
        3 => any::<u64>().prop_map(|v| Op::Aux(v % 4)),
        1 => any::<u64>().prop_map(Op::Input),
        4 => [lc(), lc(), lc()].prop_map(Op::Enforce),
    ];
    if depth == 0 {
        prop::collection::vec(leaf, 0..40).boxed()
    } else {
        let op = prop_oneof![8 => leaf, 1 => ops(depth - 1).prop_map(Op::Namespace)];
        prop::collection::vec(op, 0..40).boxed()
    }
}

fn circuit() -> impl Strategy<Value = RandomCircuit> {
    (ops(2), prop::collection::vec(ops(1), 0..4))
        .prop_map(|(main, parts)| RandomCircuit { main, parts })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn pce_matches_enforce_time_evaluation(circuit in circuit()) {
        let reference = synthesize_enforcing(circuit.clone()).unwrap();
        let pce = PrecompiledCircuit::extract(circuit.clone()).unwrap();
        let witness = synthesize_witness(circuit).unwrap();

        prop_assert_eq!(&witness, &reference.witness());
        prop_assert_eq!(pce.num_constraints(), reference.a.len());
        let eval = pce.evaluate(&witness).unwrap();
        prop_assert_eq!(&eval.a, &reference.a);
        prop_assert_eq!(&eval.b, &reference.b);
        prop_assert_eq!(&eval.c, &reference.c);
        prop_assert_eq!(pce.a_aux_density(), &reference.a_aux_density);
        prop_assert_eq!(pce.b_input_density(), &reference.b_input_density);
        prop_assert_eq!(pce.b_aux_density(), &reference.b_aux_density);
    }
}

#[test]
fn wrong_witness_shape_is_an_error() {
    let circuit = RandomCircuit {
        main: vec![Op::Aux(1), Op::Input(2)],
        parts: vec![],
    };
    let pce = PrecompiledCircuit::extract(circuit.clone()).unwrap();
    let mut witness = synthesize_witness(circuit).unwrap();
    witness.aux.push(Scalar::ONE);
    let err = pce.evaluate(&witness).unwrap_err();
    assert!(
        err.to_string().contains("witness has 2 inputs and 2 aux"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn pce_file_round_trip_and_damage(circuit in circuit(), flip in any::<prop::sample::Index>(), bit in 0u8..8) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("circuit.pce");
        let pce = PrecompiledCircuit::extract(circuit).unwrap();
        pce.save(&path).unwrap();
        prop_assert_eq!(&PrecompiledCircuit::load(&path).unwrap(), &pce);

        let bytes = std::fs::read(&path).unwrap();
        let mut damaged = bytes.clone();
        damaged[flip.index(bytes.len())] ^= 1 << bit;
        std::fs::write(&path, &damaged).unwrap();
        prop_assert!(PrecompiledCircuit::load(&path).is_err());

        std::fs::write(&path, &bytes[..flip.index(bytes.len())]).unwrap();
        let err = PrecompiledCircuit::load(&path).unwrap_err().to_string();
        prop_assert!(err.contains("truncated") && err.contains("circuit.pce"), "{}", err);
    }
}
