//! What the end-to-end tests share: the parameter cache, fixed r and s,
//! bellperson's proofs to compare with, and proving a PoSt or an update.
// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::path::PathBuf;

use bellpepper_core::Circuit;
use bellperson::groth16::{create_proof_batch, Parameters};
use blstrs::{Bls12, Scalar};
use ff::Field;
use filecoin_proofs::DefaultTreeHasher;
use filecoin_prover::cache::CircuitFiles;
use filecoin_prover::circuits::ProofCircuit;
use filecoin_prover::compound::{KindProof, KindRun, ProofKind};
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::post::{self, PoStInput, PoStJob};
use filecoin_prover::update::{self, UpdateInput, UpdateJob};
use filecoin_prover::vanilla::VanillaBytes;
use filecoin_prover::C2Error;
use filecoin_testkit::test_sector::TestSector;
use filecoin_testkit::vanilla::snap_update;
use groth16_prover::PROOF_BYTES;
use proving_engine::EngineOptions;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use storage_proofs_core::merkle::MerkleTreeTrait;

/// The test parameters' cache (`target/tmp/filecoin-proof-parameters`),
/// generated once per target directory and shared by every test run.
pub fn shared_parameter_cache() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-proof-parameters");
    std::fs::create_dir_all(&dir).unwrap();
    // Read once by filecoin-proofs' settings: set before any other call.
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
    dir
}

/// The CPU backend, proving with `r_s` (one pair per partition).
pub fn engine(r_s: &[(Scalar, Scalar)]) -> EngineOptions {
    EngineOptions {
        randomness: Some(r_s.to_vec()),
        ..EngineOptions::first_device("cpu")
    }
}

/// `n` random (r, s) pairs from `seed`.
pub fn random_r_s(seed: u64, n: usize) -> Vec<(Scalar, Scalar)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| (Scalar::random(&mut rng), Scalar::random(&mut rng)))
        .collect()
}

/// Vanilla proofs as the prover receives them, named `named[i]`.
pub fn vanilla(named: &str, proofs: &[Vec<u8>]) -> Vec<VanillaBytes> {
    proofs
        .iter()
        .enumerate()
        .map(|(i, bytes)| VanillaBytes {
            source: format!("{named}[{i}]").into(),
            bytes: bytes.clone(),
        })
        .collect()
}

/// bellperson's proofs of `circuits` with `r_s` and the parameters in
/// `files`, concatenated.
pub fn bellperson<C: Circuit<Scalar> + Send>(
    files: &CircuitFiles,
    circuits: Vec<C>,
    r_s: &[(Scalar, Scalar)],
) -> Vec<u8> {
    let params =
        Parameters::<Bls12>::read(std::fs::File::open(&files.params).unwrap(), false).unwrap();
    let (r, s) = r_s.iter().copied().unzip();
    let proofs = create_proof_batch(circuits, &params, r, s).unwrap();
    let mut bytes = Vec::new();
    for proof in proofs {
        proof.write(&mut bytes).unwrap();
    }
    bytes
}

/// The single result of a run of one input.
pub fn only(run: Result<KindRun, C2Error>) -> Result<KindProof, C2Error> {
    let mut run = run?;
    assert_eq!(run.results.len(), 1);
    run.results.remove(0).map(|proven| proven.output)
}

/// `input` proven on the CPU backend with `r_s`.
pub fn prove_post(input: &PoStInput, r_s: &[(Scalar, Scalar)]) -> Result<KindProof, C2Error> {
    let circuit = input.proof_type.circuit()?.load("PoSt", false)?;
    only(post::prove(
        &circuit,
        None,
        std::slice::from_ref(input),
        &engine(r_s),
        &|_| {},
        &mut |_, _| {},
    ))
}

/// The partition circuits of `input`, a PoSt of sectors of the shape `Tree`.
fn post_circuits<Tree: 'static + MerkleTreeTrait>(
    input: &PoStInput,
) -> Vec<impl Circuit<Scalar> + Send> {
    let job = PoStJob::<Tree>::new(input);
    let statement = job.open().unwrap();
    (0..job.partitions())
        .map(|i| statement.circuit(i).unwrap())
        .collect()
}

/// Proves `input` (test parameters generated when missing) and checks the
/// proof equals bellperson's with the same r and s (from `seed`).
pub fn check_post<Tree: 'static + MerkleTreeTrait>(input: &PoStInput, seed: u64) -> KindProof {
    let circuit = ProofCircuit::PoSt(input.proof_type);
    let (files, _) = ensure_test_params(circuit, 0, false).unwrap();
    let r_s = random_r_s(seed, input.num_partitions());
    let proof = prove_post(input, &r_s).unwrap();
    assert_eq!(proof.proof.len(), PROOF_BYTES * input.num_partitions());
    assert_eq!(
        proof.proof,
        bellperson(&files, post_circuits::<Tree>(input), &r_s),
        "{}: differs from bellperson's proof with the same r and s",
        input.proof_type
    );
    proof
}

/// `input` proven on the CPU backend with `r_s`.
pub fn prove_update(input: &UpdateInput, r_s: &[(Scalar, Scalar)]) -> Result<KindProof, C2Error> {
    let circuit = ProofCircuit::Update(input.proof_type).load(false)?;
    only(update::prove(
        &circuit,
        None,
        std::slice::from_ref(input),
        &engine(r_s),
        &|_| {},
        &mut |_, _| {},
    ))
}

/// Proves `input`, an update of a sector of the shape `Tree` (test
/// parameters generated when missing), and checks the proof equals
/// bellperson's with the same r and s (from `seed`).
pub fn check_update<Tree: 'static + MerkleTreeTrait<Hasher = DefaultTreeHasher>>(
    input: &UpdateInput,
    seed: u64,
) -> KindProof {
    let circuit = ProofCircuit::Update(input.proof_type);
    let (files, _) = ensure_test_params(circuit, 0, false).unwrap();
    let partitions = input.proof_type.partitions();
    let r_s = random_r_s(seed, partitions);
    let proof = prove_update(input, &r_s).unwrap();
    let job = UpdateJob::<Tree>::new(input);
    let statement = job.open().unwrap();
    let circuits = (0..partitions)
        .map(|i| statement.circuit(i).unwrap())
        .collect();
    assert_eq!(
        proof.proof,
        bellperson(&files, circuits, &r_s),
        "{}: differs from bellperson's proof with the same r and s",
        input.proof_type
    );
    proof
}

/// Panics at the first value where `mirror` differs from `real`.
pub fn assert_same(what: &str, real: &[Scalar], mirror: &[Scalar]) {
    if let Some(i) = real.iter().zip(mirror).position(|(a, b)| a != b) {
        panic!(
            "{what}[{i}] differs: real circuit {:?}, mirror {:?} ({} and {} values)",
            real[i],
            mirror[i],
            real.len(),
            mirror.len()
        );
    }
    assert_eq!(
        real.len(),
        mirror.len(),
        "{what}: the real circuit has {} values, the mirror {} (equal up to the shorter)",
        real.len(),
        mirror.len()
    );
}

/// The PoRep id of the unregistered test sizes (16 KiB, 32 KiB).
pub const TEST_POREP_ID: [u8; 32] = [128; 32];

/// New data encoded into `sector` (under `work/update`) with
/// filecoin-proofs, as the input of its update proof.
pub fn snap_input<Tree: 'static + MerkleTreeTrait<Hasher = DefaultTreeHasher>>(
    sector: &TestSector<Tree>,
    work: &std::path::Path,
) -> UpdateInput {
    let update_dir = work.join("update");
    std::fs::create_dir_all(&update_dir).unwrap();
    let updated = snap_update(sector, 9, &update_dir).unwrap();
    UpdateInput {
        proof_type: updated.proof_type,
        commitments: updated.commitments,
        vanilla_proofs: vanilla("snap", &updated.vanilla_proofs),
    }
}
