//! `porep_witness::challenge_witness`, our mirror of storage-proofs'
//! one-challenge PoRep circuit, against the real circuit
//! (`synthesize_witness_in(circuits.challenge_circuit(k, j)?, …)`), value
//! for value: on sealed 2 KiB, 16 KiB (the 32 GiB tree shape, 8-8-0) and
//! 32 KiB (the 64 GiB one, 8-8-2) sectors, and on synthetic C1 outputs of
//! 2 KiB, 32 GiB and 64 GiB sectors (random values, production shapes:
//! 11 layers, 30-level trees).

mod common;

use common::{assert_same, TEST_POREP_ID};
use filecoin_proofs::{
    PoRepConfig, SectorShape16KiB, SectorShape2KiB, SectorShape32GiB, SectorShape32KiB,
    SectorShape64GiB, SECTOR_SIZE_16_KIB, SECTOR_SIZE_32_GIB, SECTOR_SIZE_32_KIB,
    SECTOR_SIZE_64_GIB,
};
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::partition::PartitionCircuits;
use filecoin_prover::porep_witness::challenge_witness;
use filecoin_prover::proof_type::ProofType;
use filecoin_testkit::synthetic_c1::synthetic_phase1_output;
use filecoin_testkit::test_sector::{config_2kib, seal_2kib, seal_shape};
use pce_core::{synthesize_witness_in, WitnessCS};
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::merkle::MerkleTreeTrait;

/// The mirror's witness of each `(k, j)` is the real circuit's.
fn check<Tree: 'static + MerkleTreeTrait>(
    name: &str,
    circuits: &PartitionCircuits<Tree>,
    pairs: &[(usize, usize)],
) {
    for &(k, j) in pairs {
        let real = synthesize_witness_in(
            circuits.challenge_circuit(k, j).unwrap(),
            WitnessCS::default(),
        )
        .unwrap();
        let mirror = challenge_witness(circuits, k, j, WitnessCS::default()).unwrap();
        let what = |vector| format!("{name}, partition {k}, challenge {j}: {vector}");
        assert_same(&what("inputs"), &real.inputs, &mirror.inputs);
        assert_same(&what("aux"), &real.aux, &mirror.aux);
        assert!(
            real.aux.len() > 100_000,
            "{name}: a whole challenge was compared"
        );
    }
}

/// Every challenge of a sealed 2 KiB sector.
#[test]
fn sealed_2kib() {
    let dir = tempfile::tempdir().unwrap();
    let sector = seal_2kib(2027, dir.path()).unwrap();
    let circuits = PartitionCircuits::new(&sector.config, sector.c1).unwrap();
    let pairs: Vec<_> = (0..circuits.num_partitions())
        .flat_map(|k| (0..circuits.num_challenges(k)).map(move |j| (k, j)))
        .collect();
    assert!(pairs.len() > 1);
    check("sealed 2 KiB", &circuits, &pairs);
}

/// A sealed sector of the shape `Tree`: its first and last challenge.
fn check_sealed_shape<Tree: 'static + MerkleTreeTrait>(name: &str, sector_size: u64) {
    let dir = tempfile::tempdir().unwrap();
    let config = PoRepConfig::new_groth16(sector_size, TEST_POREP_ID, ApiVersion::V1_2_0);
    let sector = seal_shape::<Tree>(config, 22, dir.path(), prover_id_of_miner(1000)).unwrap();
    let circuits = PartitionCircuits::new(&sector.config, sector.c1).unwrap();
    let last = circuits.num_partitions() - 1;
    let pairs = [(0, 0), (last, circuits.num_challenges(last) - 1)];
    check(name, &circuits, &pairs);
}

#[test]
fn sealed_16kib_of_the_32gib_tree_shape() {
    check_sealed_shape::<SectorShape16KiB>("sealed 16 KiB", SECTOR_SIZE_16_KIB);
}

#[test]
fn sealed_32kib_of_the_64gib_tree_shape() {
    check_sealed_shape::<SectorShape32KiB>("sealed 32 KiB", SECTOR_SIZE_32_KIB);
}

/// A synthetic C1 output of `partitions` partitions of `config`.
fn synthetic<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    partitions: usize,
    seed: u64,
) -> PartitionCircuits<Tree> {
    let c1 = synthetic_phase1_output::<Tree>(config, partitions, seed).unwrap();
    PartitionCircuits::new(config, c1).unwrap()
}

#[test]
fn synthetic_2kib() {
    let circuits = synthetic::<SectorShape2KiB>(&config_2kib(), 1, 11);
    let pairs: Vec<_> = (0..circuits.num_challenges(0)).map(|j| (0, j)).collect();
    check("synthetic 2 KiB", &circuits, &pairs);
}

#[test]
fn synthetic_32gib() {
    let config = ProofType::interactive(SECTOR_SIZE_32_GIB).unwrap().config();
    let circuits = synthetic::<SectorShape32GiB>(&config, 2, 12);
    let last = circuits.num_challenges(1) - 1;
    check("synthetic 32 GiB", &circuits, &[(0, 0), (1, last)]);
}

#[test]
fn synthetic_64gib() {
    let config = ProofType::interactive(SECTOR_SIZE_64_GIB).unwrap().config();
    let circuits = synthetic::<SectorShape64GiB>(&config, 1, 13);
    check("synthetic 64 GiB", &circuits, &[(0, 3)]);
}
