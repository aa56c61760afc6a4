//! Whole proofs through a backend, compared with a reference backend.
//!
//! The operations can each pass their checks and still be wired wrongly
//! (an NTT direction, a coset, a batch or an offset the prover relies on),
//! so this check proves real circuits end to end: random circuits of
//! growing size and a SHA-256 circuit, with random parameters from our own
//! generator, the same r and s, once through the backend under test and
//! once through the reference (normally the CPU plugin), which also takes
//! the MSMs the backend declines as unsupported, as the prover's fallback
//! device does. The proofs must be byte-identical, and both are verified.

use backend_api::Device;
use bellpepper_core::Circuit;
use bellperson::groth16::{Parameters, Proof};
use blstrs::{Bls12, Scalar};
use ff::Field;
use groth16_prover::setup::generate_random_parameters;
use groth16_prover::{Bases, Prover, Srs};
use pce_core::{synthesize_witness, PrecompiledCircuit};
use pce_testkit::random::random_circuit;
use pce_testkit::sha256::Sha256Circuit;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Seed of every random choice, so runs on different machines prove the
/// same statements.
const SEED: u64 = 0x5043_452d_4752_3136;

/// The proving key of `params`, as the prover reads it from a file.
fn srs(params: Parameters<Bls12>) -> Srs {
    Srs {
        vk: params.vk,
        h: params.h.to_vec(),
        l: params.l.to_vec(),
        a: params.a.to_vec(),
        b_g1: params.b_g1.to_vec(),
        b_g2: params.b_g2.to_vec(),
    }
}

fn encode(proof: &Proof<Bls12>) -> Vec<u8> {
    let mut bytes = Vec::new();
    proof.write(&mut bytes).expect("writing to memory");
    bytes
}

/// Proves `circuit` through both devices; whether the proofs are identical.
fn compare<C: Circuit<Scalar> + Clone>(
    device: &Device,
    reference: &Device,
    circuit: C,
    rng: &mut ChaCha8Rng,
) -> Result<bool, String> {
    let pce = PrecompiledCircuit::extract(circuit.clone()).map_err(|e| e.to_string())?;
    let params = generate_random_parameters(&pce, rng).map_err(|e| e.to_string())?;
    let srs = srs(params);
    let witness = synthesize_witness(circuit).map_err(|e| e.to_string())?;
    let (r, s) = (Scalar::random(&mut *rng), Scalar::random(&mut *rng));
    let prove = |device: &Device, fallback: Option<&Device>| -> Result<Vec<u8>, String> {
        let mut prover = Prover::new(device, Bases::Resident(&srs)).map_err(|e| e.to_string())?;
        if let Some(fallback) = fallback {
            prover = prover.with_fallback(fallback);
        }
        let proof = prover
            .prove(&pce, &witness, &witness.inputs[1..], r, s)
            .map_err(|e| e.to_string())?;
        Ok(encode(&proof))
    };
    let expected = prove(reference, None).map_err(|e| format!("reference backend: {e}"))?;
    // As the prover runs it: an MSM the device declines as unsupported
    // goes to the reference, as it goes to the CPU backend behind a GPU.
    Ok(prove(device, Some(reference))? == expected)
}

/// Proves `random` random circuits and one SHA-256 circuit through
/// `device` and `reference`, one row each.
pub fn check(
    device: &Device,
    reference: &Device,
    random: usize,
    record: &mut dyn FnMut(String, Result<bool, String>),
) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &SEED.to_le_bytes().repeat(4)),
    );
    for k in 0..random {
        let size = 8 << k.min(4);
        let circuit = random_circuit(size)
            .new_tree(&mut runner)
            .expect("random circuits always generate")
            .current();
        let outcome = compare(device, reference, circuit, &mut rng);
        record(
            format!("proof: random circuit {k} (up to {size} ops per list)"),
            outcome,
        );
    }
    let circuit = Sha256Circuit {
        preimage: b"pce-prover proves the same on every backend".to_vec(),
    };
    let outcome = compare(device, reference, circuit, &mut rng);
    record("proof: SHA-256 circuit".to_owned(), outcome);
}
