//! Proofs through the CPU plugin (loaded from its shared library) are
//! byte-identical to bellperson's `create_proof_batch` with the same r and
//! s, on random circuits and on a SHA-256 gadget circuit. The parameters are
//! bellperson's random parameters, written to a `.params` file and read
//! back by this crate's reader.

use backend_api::Backend;
use bellpepper_core::Circuit;
use bellperson::groth16::{create_proof_batch, generate_random_parameters, Proof};
use blstrs::{Bls12, Scalar};
use ff::Field;
use groth16_prover::{Bases, Prover, Srs, SrsFile};
use pce_core::{synthesize_witness, PrecompiledCircuit};
use pce_testkit::random::random_circuit;
use pce_testkit::sha256::Sha256Circuit;
use pce_testkit::squares::Squares;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn bytes(proof: &Proof<Bls12>) -> Vec<u8> {
    let mut out = Vec::new();
    proof.write(&mut out).unwrap();
    out
}

/// Proves `circuits` (one shape, any values) with bellperson and with the
/// prover on the CPU plugin, and returns both proof lists as bytes.
fn prove_both<C: Circuit<Scalar> + Clone + Send>(
    circuits: Vec<C>,
    seed: u64,
) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let params = generate_random_parameters::<Bls12, _, _>(circuits[0].clone(), &mut rng).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test.params");
    params.write(std::fs::File::create(&path).unwrap()).unwrap();
    let srs = Srs::read(&path).unwrap();
    let file = SrsFile::open(&path).unwrap();

    let r_s: Vec<Scalar> = circuits.iter().map(|_| Scalar::random(&mut rng)).collect();
    let s_s: Vec<Scalar> = circuits.iter().map(|_| Scalar::random(&mut rng)).collect();
    let expected = create_proof_batch(circuits.clone(), &params, r_s.clone(), s_s.clone()).unwrap();

    let backend = Backend::load("cpu").unwrap();
    let device = backend.open(0).unwrap();
    let pce = PrecompiledCircuit::extract(circuits[0].clone()).unwrap();
    let witnesses: Vec<_> = circuits
        .into_iter()
        .map(|c| synthesize_witness(c).unwrap())
        .collect();
    // The circuits' own inputs are the statements proven.
    let public_inputs: Vec<&[Scalar]> = witnesses.iter().map(|w| &w.inputs[1..]).collect();
    let resident = Prover::new(&device, Bases::Resident(&srs)).unwrap();
    let proofs = resident
        .prove_batch(&pce, &witnesses, &public_inputs, &r_s, &s_s)
        .unwrap();
    let streamed = Prover::new(&device, Bases::Streamed(&file)).unwrap();
    let streamed_proofs = streamed
        .prove_batch(&pce, &witnesses, &public_inputs, &r_s, &s_s)
        .unwrap();
    assert_eq!(
        proofs, streamed_proofs,
        "streamed and resident bases prove alike"
    );
    (
        expected.iter().map(bytes).collect(),
        proofs.iter().map(bytes).collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_circuits_prove_like_bellperson(circuit in random_circuit(24), seed in any::<u64>()) {
        let (expected, ours) = prove_both(vec![circuit], seed);
        prop_assert_eq!(expected, ours);
    }
}

#[test]
fn sha256_batch_proves_like_bellperson() {
    let circuits = vec![
        Sha256Circuit {
            preimage: b"pce-prover: the same proof, faster".to_vec(),
        },
        Sha256Circuit {
            preimage: b"PCE-PROVER: THE SAME PROOF, FASTER".to_vec(),
        },
    ];
    let (expected, ours) = prove_both(circuits, 7);
    assert_eq!(expected.len(), 2);
    assert_eq!(expected, ours);
}

/// The smallest circuits: one row (ONE's input constraint alone, a domain
/// of one element and an empty H query), two rows and three.
#[test]
fn the_smallest_circuits_prove_like_bellperson() {
    for constraints in [0, 1, 2] {
        let (expected, ours) = prove_both(vec![Squares { constraints }], 7);
        assert_eq!(expected, ours, "{constraints} constraint(s)");
    }
}
