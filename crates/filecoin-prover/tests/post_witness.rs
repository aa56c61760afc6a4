//! `post_witness::witness`, our copy of storage-proofs' `FallbackPoStCircuit`
//! with native Poseidon values, against the real circuit
//! (`synthesize_witness(statement.circuit(i))`), value for value, for every
//! partition of WindowPoSts and WinningPoSts of sectors sealed with
//! filecoin-proofs: three 2 KiB sectors (a WindowPoSt of two partitions,
//! the second padded with its last sector; TreeR 8-0-0), and a 16 KiB and a
//! 32 KiB sector (the TreeR shapes of 32 GiB and 64 GiB sectors: 8-8-0 and
//! 8-8-2). Production partitions differ only in their number of sectors and
//! challenges.

mod common;

use std::path::Path;

use common::{assert_same, vanilla, TEST_POREP_ID};
use filecoin_proofs::{
    PoRepConfig, SectorShape16KiB, SectorShape2KiB, SectorShape32KiB, SECTOR_SIZE_16_KIB,
    SECTOR_SIZE_2_KIB, SECTOR_SIZE_32_KIB,
};
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::compound::ProofKind;
use filecoin_prover::post::{PoStInput, PoStJob, PoStKind, PoStProofType};
use filecoin_prover::post_witness::witness;
use filecoin_testkit::synthetic_post::synthetic_post_statement;
use filecoin_testkit::test_sector::{config_2kib, seal_shape, TestSector};
use filecoin_testkit::vanilla::{post_vanilla_proofs, randomness};
use pce_core::synthesize_witness;
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::merkle::MerkleTreeTrait;

/// `count` sectors of the shape `Tree` sealed with `config` in `work`.
fn sealed<Tree: 'static + MerkleTreeTrait>(
    config: PoRepConfig,
    count: u64,
    work: &Path,
) -> Vec<TestSector<Tree>> {
    (0..count)
        .map(|i| {
            let dir = work.join(format!("sector-{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            seal_shape::<Tree>(config.clone(), 40 + i, &dir, prover_id_of_miner(1000)).unwrap()
        })
        .collect()
}

/// A PoSt of `kind` over `sectors`; the copy's witness of every partition
/// is the real circuit's.
fn check<Tree: 'static + MerkleTreeTrait>(
    name: &str,
    kind: PoStKind,
    sectors: &[TestSector<Tree>],
    partitions: usize,
) {
    let sector_size = u64::from(sectors[0].config.sector_size);
    // Not `PoStProofType::current`: 16 and 32 KiB are no registered size.
    let proof_type = PoStProofType {
        kind,
        sector_size,
        v1_2: kind == PoStKind::Window,
    };
    let all: Vec<&TestSector<Tree>> = sectors.iter().collect();
    let input = PoStInput {
        proof_type,
        randomness: randomness(9),
        prover_id: sectors[0].prover_id,
        vanilla_proofs: vanilla(
            "post",
            &post_vanilla_proofs(proof_type, &all, randomness(9)).unwrap(),
        ),
        partition: None,
    };
    let statement = PoStJob::<Tree>::new(&input).open().unwrap();
    assert_eq!(statement.partitions.len(), partitions, "{name}");
    for i in 0..partitions {
        let real = synthesize_witness(statement.circuit(i).unwrap()).unwrap();
        let copy = witness(&statement, i).unwrap();
        let what = |vector| format!("{name}, partition {i}: {vector}");
        assert_same(&what("inputs"), &real.inputs, &copy.inputs);
        assert_same(&what("aux"), &real.aux, &copy.aux);
        assert!(
            real.aux.len() > 10_000,
            "{name}: a whole partition was compared"
        );
    }
}

#[test]
fn window_and_winning_post_of_2kib_sectors() {
    let work = tempfile::tempdir().unwrap();
    let sectors = sealed::<SectorShape2KiB>(config_2kib(), 3, work.path());
    assert_eq!(u64::from(sectors[0].config.sector_size), SECTOR_SIZE_2_KIB);
    check(
        "WindowPoSt, 3 sectors of 2 KiB",
        PoStKind::Window,
        &sectors,
        2,
    );
    check("WinningPoSt, 2 KiB", PoStKind::Winning, &sectors[..1], 1);
}

#[test]
fn post_of_the_32gib_and_64gib_tree_shapes() {
    let work = tempfile::tempdir().unwrap();
    let config = PoRepConfig::new_groth16(SECTOR_SIZE_16_KIB, TEST_POREP_ID, ApiVersion::V1_2_0);
    let sectors = sealed::<SectorShape16KiB>(config, 1, &work.path().join("16"));
    check("WindowPoSt, 16 KiB", PoStKind::Window, &sectors, 1);
    check("WinningPoSt, 16 KiB", PoStKind::Winning, &sectors, 1);
    let config = PoRepConfig::new_groth16(SECTOR_SIZE_32_KIB, TEST_POREP_ID, ApiVersion::V1_2_0);
    let sectors = sealed::<SectorShape32KiB>(config, 1, &work.path().join("32"));
    check("WindowPoSt, 32 KiB", PoStKind::Window, &sectors, 1);
    check("WinningPoSt, 32 KiB", PoStKind::Winning, &sectors, 1);
}

#[test]
fn a_sector_whose_paths_are_not_the_partitions_is_refused() {
    let proof_type = PoStProofType::current(PoStKind::Window, SECTOR_SIZE_2_KIB).unwrap();
    let mut statement =
        synthetic_post_statement::<SectorShape2KiB>(&proof_type, 3).expect("a 2 KiB statement");
    witness(&statement, 0).expect("the statement as built");
    let sectors = &mut statement.partitions[0].1.sectors;
    assert!(sectors.len() > 1, "a partition of more than one sector");
    sectors[1].inclusion_proofs.pop();
    let error = witness(&statement, 0).unwrap_err().to_string();
    assert!(error.contains("sector 1 of the partition has"), "{error}");
}
