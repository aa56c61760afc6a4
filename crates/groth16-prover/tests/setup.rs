//! Parameters from the PCE-based generator are valid Groth16 parameters:
//! bellperson proves with them and its verifier accepts, on a SHA-256
//! circuit and on random circuits.

use bellpepper_core::Circuit;
use bellperson::groth16::{create_proof_batch, prepare_verifying_key, verify_proof};
use blstrs::Scalar;
use ff::Field;
use groth16_prover::setup::generate_random_parameters;
use pce_core::{synthesize_witness, PrecompiledCircuit};
use pce_testkit::random::random_circuit;
use pce_testkit::sha256::Sha256Circuit;
use pce_testkit::squares::Squares;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn bellperson_accepts<C: Circuit<Scalar> + Clone + Send>(circuit: C, seed: u64) -> bool {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pce = PrecompiledCircuit::extract(circuit.clone()).unwrap();
    let params = generate_random_parameters(&pce, &mut rng).unwrap();
    let inputs = synthesize_witness(circuit.clone()).unwrap().inputs;
    let r = Scalar::random(&mut rng);
    let s = Scalar::random(&mut rng);
    let proof = create_proof_batch(vec![circuit], &params, vec![r], vec![s])
        .unwrap()
        .remove(0);
    verify_proof(&prepare_verifying_key(&params.vk), &proof, &inputs[1..]).unwrap()
}

#[test]
fn sha256_parameters_prove_and_verify_with_bellperson() {
    assert!(bellperson_accepts(
        Sha256Circuit {
            preimage: b"fixed-base tables".to_vec()
        },
        11
    ));
}

/// Down to a domain of one element (ONE's input constraint alone).
#[test]
fn the_smallest_circuits_parameters_prove_and_verify() {
    for constraints in [0, 1, 2] {
        assert!(
            bellperson_accepts(Squares { constraints }, 5),
            "{constraints}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn random_circuit_parameters_prove_and_verify(circuit in random_circuit(16), seed in any::<u64>()) {
        prop_assert!(bellperson_accepts(circuit, seed));
    }
}
