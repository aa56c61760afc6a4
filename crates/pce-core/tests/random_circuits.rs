//! The PCE against the enforce-time evaluation of bellperson's prover, on
//! the random circuits of `pce-testkit`: random linear combinations
//! (repeated variables, zero and arbitrary coefficients), inputs allocated
//! between aux variables, namespaces, and sub-circuits synthesized
//! separately and merged through `extend` as storage-proofs does.
//!
//! The reference, `synthesize_enforcing`, is pce-core's port of
//! bellperson's enforce-time evaluation and shares `synthesize_as_prover`
//! (the ONE input, the `input · 0 = 0` rows) with extraction and witness
//! generation: a fault there is invisible here. groth16-prover's
//! `bellperson_identical` covers it, comparing whole proofs with
//! bellperson's own `create_proof_batch`.

use blstrs::Scalar;
use ff::Field;
use pce_core::{synthesize_enforcing, synthesize_witness, PceSize, PrecompiledCircuit};
use pce_testkit::random::{random_circuit, Op, RandomCircuit};
use proptest::prelude::*;

fn circuit() -> impl Strategy<Value = RandomCircuit> {
    random_circuit(40)
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

#[test]
fn a_shape_the_sections_do_not_match_is_an_error_before_the_matrices_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("circuit.pce");
    let circuit = RandomCircuit {
        main: vec![Op::Aux(1), Op::Input(2), Op::Aux(3)],
        parts: vec![],
    };
    PrecompiledCircuit::extract(circuit)
        .unwrap()
        .save(&path)
        .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    // The shape's values follow the file's header (64 bytes) and the
    // section's (32): inputs, aux variables, constraints.
    for (at, what) in [(104, "dens.a_aux does not cover"), (112, "matrix A has")] {
        let mut damaged = bytes.clone();
        damaged[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
        std::fs::write(&path, &damaged).unwrap();
        let err = PceSize::of_file(&path).unwrap_err().to_string();
        assert!(err.contains(what) && err.contains("circuit.pce"), "{err}");
    }
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
        // What the file says the circuit holds, before its matrices are
        // read, is what it holds.
        prop_assert_eq!(PceSize::of_file(&path).unwrap(), pce.size());

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
