//! The tree shapes of the sectors storage providers seal, at sizes a test
//! can seal. A 32 GiB sector's TreeR (and TreeC) is eight sub-trees under
//! one root (shape 8-8-0), a 64 GiB sector's two such trees under a top
//! node (8-8-2); the 2 KiB and 8 MiB sectors of the other tests have single
//! trees (8-0-0), so only these shapes put sub-tree and top-tree inclusion
//! proofs into the PoRep and PoSt circuits, their recorded PCE and the
//! challenge-parallel witness. filecoin-proofs seals 16 KiB sectors with the
//! 32 GiB shape and 32 KiB sectors with the 64 GiB one (sizes with no
//! registered proof, for tests). For each: a sector sealed with
//! filecoin-proofs, its C2 (through `verify_seal`, and equal to
//! bellperson's proof with the same r and s), a WinningPoSt and a
//! WindowPoSt of it and a SnapDeals update of another (each through
//! filecoin-proofs' verifier, and equal to bellperson's). The updates are
//! ignored by default: their test parameters alone take CI's time.

mod common;

use std::path::Path;

use common::{
    bellperson, check_post, check_update, engine, random_r_s, shared_parameter_cache, snap_input,
    vanilla, TEST_POREP_ID,
};
use filecoin_proofs::{
    DefaultTreeHasher, PoRepConfig, SectorShape16KiB, SectorShape32KiB, SECTOR_SIZE_16_KIB,
    SECTOR_SIZE_32_KIB,
};
use filecoin_prover::c1::C1Input;
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::cache::CircuitFiles;
use filecoin_prover::params::generate_test_params;
use filecoin_prover::partition::{partition_circuits, PartitionCircuits};
use filecoin_prover::post::{PoStInput, PoStKind, PoStProofType};
use filecoin_prover::proof_type::{ProofType, Variant};
use filecoin_prover::sector::SectorJob;
use filecoin_prover::C2Error;
use filecoin_testkit::test_sector::{seal_shape, TestSector};
use filecoin_testkit::vanilla::{post_vanilla_proofs, randomness};
use groth16_prover::PROOF_BYTES;
use proving_engine::LoadedCircuit;
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::merkle::MerkleTreeTrait;

#[test]
fn c2_and_post_on_the_32gib_tree_shape_at_16kib() {
    check_c2_and_post::<SectorShape16KiB>(SECTOR_SIZE_16_KIB);
    remove_cached_porep_and_post_files("-8-8-0-");
}

#[test]
fn c2_and_post_on_the_64gib_tree_shape_at_32kib() {
    check_c2_and_post::<SectorShape32KiB>(SECTOR_SIZE_32_KIB);
    remove_cached_porep_and_post_files("-8-8-2-");
}

/// Removes the PoRep and PoSt files (parameters, keys, PCEs) of the tree
/// shape whose circuit ids hold `shape` (`-8-8-0-`) from the shared
/// cache, once its test has passed: 1.6 GB per shape that no later test
/// reads, where CI machines have little disk to spare. The updates' files
/// stay, for the ignored test that may run beside.
fn remove_cached_porep_and_post_files(shape: &str) {
    let cache = shared_parameter_cache();
    for entry in std::fs::read_dir(&cache).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let kind = name.contains("stacked-proof-of-replication")
            || name.contains("proof-of-spacetime-fallback");
        if kind && name.contains(shape) {
            std::fs::remove_file(&path).unwrap();
        }
    }
}

#[test]
#[ignore = "about 20 minutes on 2 cores (2.5 GB of test parameters per shape): \
            cargo test -p filecoin-prover --test large_tree_shapes -- --ignored"]
fn snapdeals_on_the_32gib_and_64gib_tree_shapes() {
    check_update_of::<SectorShape16KiB>(SECTOR_SIZE_16_KIB);
    check_update_of::<SectorShape32KiB>(SECTOR_SIZE_32_KIB);
}

/// A sector of the shape `Tree` sealed with filecoin-proofs in `work`.
fn sealed<Tree: 'static + MerkleTreeTrait>(sector_size: u64, work: &Path) -> TestSector<Tree> {
    shared_parameter_cache();
    let config = PoRepConfig::new_groth16(sector_size, TEST_POREP_ID, ApiVersion::V1_2_0);
    seal_shape::<Tree>(config, 21, work, prover_id_of_miner(1000)).unwrap()
}

fn check_c2_and_post<Tree: 'static + MerkleTreeTrait>(sector_size: u64) {
    let work = tempfile::tempdir().unwrap();
    let sector = sealed::<Tree>(sector_size, work.path());
    check_c2(&sector, work.path());

    for (kind, seed) in [(PoStKind::Winning, 5), (PoStKind::Window, 6)] {
        let proof_type = PoStProofType {
            kind,
            sector_size,
            v1_2: kind == PoStKind::Window,
        };
        let input = PoStInput {
            proof_type,
            randomness: randomness(seed),
            prover_id: sector.prover_id,
            vanilla_proofs: vanilla(
                "post",
                &post_vanilla_proofs(proof_type, &[&sector], randomness(seed)).unwrap(),
            ),
            partition: None,
        };
        let proof = check_post::<Tree>(&input, seed);
        assert!(proof.verify.is_some(), "{proof_type}: its verifier ran");
    }
}

/// New data encoded into a fresh sector of the shape `Tree`, and the
/// update's proof.
fn check_update_of<Tree: 'static + MerkleTreeTrait<Hasher = DefaultTreeHasher>>(sector_size: u64) {
    let work = tempfile::tempdir().unwrap();
    let sector = sealed::<Tree>(sector_size, work.path());
    let input = snap_input(&sector, work.path());
    let proof = check_update::<Tree>(&input, 7);
    assert!(
        proof.verify.is_some(),
        "verify_empty_sector_update_proof ran"
    );
}

/// The sector's C2, from its C1 output as a file, on the CPU backend.
fn check_c2<Tree: 'static + MerkleTreeTrait>(sector: &TestSector<Tree>, work: &Path) {
    let c1_path = work.join("c1.json");
    std::fs::write(&c1_path, serde_json::to_vec(&sector.c1).unwrap()).unwrap();
    let proof_type = ProofType {
        sector_size: u64::from(sector.config.sector_size),
        variant: Variant::V1_1,
    };
    let input = C1Input::read(&c1_path, Some(proof_type)).unwrap();
    let partitions = input.num_partitions();
    assert_eq!(partitions, usize::from(sector.config.partitions));
    let statement =
        PartitionCircuits::<Tree>::new(&sector.config, input.phase1_output().unwrap()).unwrap();
    assert!(
        statement.num_challenges(0) > 1,
        "a partition of several challenges: its witness is assembled from one-challenge circuits"
    );

    let files = CircuitFiles::of::<Tree>(&sector.config).unwrap();
    let pce = files.load_or_extract_pce::<Tree>(&sector.config).unwrap();
    if !(files.params.exists() && files.vk.exists()) {
        generate_test_params(&files, &pce, 0).unwrap();
    }
    let circuit =
        LoadedCircuit::load(&files.id, || Ok::<_, C2Error>(pce), &files.params, false).unwrap();
    let job = SectorJob::<Tree>::new(
        &input,
        &sector.config,
        Some(sector.prover_id),
        Some(u64::from(sector.sector_id)),
        false,
    );
    let r_s = random_r_s(9, partitions);
    let run = proving_engine::run(&circuit, &[job], &engine(&r_s), &|_| {}, |_, _| {}).unwrap();
    let proof = run.results.into_iter().next().unwrap().unwrap().output;
    assert_eq!(proof.proof.len(), PROOF_BYTES * partitions);
    assert!(proof.verify_seal.is_some(), "verify_seal ran and accepted");
    assert!(sector.verify(&proof.proof).unwrap());

    let circuits =
        partition_circuits::<Tree>(&sector.config, input.phase1_output().unwrap()).unwrap();
    assert_eq!(
        proof.proof,
        bellperson(&files, circuits, &r_s),
        "{proof_type}: differs from bellperson's proof with the same r and s"
    );
}
