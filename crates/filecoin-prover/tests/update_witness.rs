//! `update_witness::witness`, our mirror of storage-proofs'
//! `EmptySectorUpdateCircuit` with native SHA-256 values, against the real
//! circuit (`synthesize_witness(circuit)`), value for value, for every
//! partition of SnapDeals updates made with filecoin-proofs: of a 2 KiB
//! sector (one partition, TreeR 8-0-0), and of 16 KiB and 32 KiB sectors
//! (two partitions, so a path from the apex root to comm_d, and the TreeR
//! shapes of 32 GiB and 64 GiB sectors: 8-8-0 and 8-8-2). Production sizes
//! (`h` other than 1, 86 challenges) are not covered: no test can update
//! such a sector.

mod common;

use common::{assert_same, snap_input, TEST_POREP_ID};
use filecoin_proofs::{
    DefaultTreeHasher, PoRepConfig, SectorShape16KiB, SectorShape2KiB, SectorShape32KiB,
    SECTOR_SIZE_16_KIB, SECTOR_SIZE_32_KIB,
};
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::compound::ProofKind;
use filecoin_prover::update::UpdateJob;
use filecoin_prover::update_witness::witness;
use filecoin_testkit::test_sector::{config_2kib, seal_shape};
use pce_core::synthesize_witness;
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::merkle::MerkleTreeTrait;

/// A sector of the shape `Tree` sealed with `config`, updated with new
/// data; the mirror's witness of every partition is the real circuit's.
fn check<Tree: 'static + MerkleTreeTrait<Hasher = DefaultTreeHasher>>(
    name: &str,
    config: PoRepConfig,
    partitions: usize,
) {
    let work = tempfile::tempdir().unwrap();
    let sector = seal_shape::<Tree>(config, 23, work.path(), prover_id_of_miner(1000)).unwrap();
    let input = snap_input(&sector, work.path());
    let statement = UpdateJob::<Tree>::new(&input).open().unwrap();
    assert_eq!(statement.partitions.len(), partitions, "{name}");
    for i in 0..partitions {
        let real = synthesize_witness(statement.circuit(i).unwrap()).unwrap();
        let mirror = witness(statement.circuit(i).unwrap()).unwrap();
        let what = |vector| format!("{name}, partition {i}: {vector}");
        assert_same(&what("inputs"), &real.inputs, &mirror.inputs);
        assert_same(&what("aux"), &real.aux, &mirror.aux);
        assert!(
            real.aux.len() > 100_000,
            "{name}: a whole partition was compared"
        );
    }
}

#[test]
fn updated_2kib() {
    check::<SectorShape2KiB>("updated 2 KiB", config_2kib(), 1);
}

#[test]
fn updated_16kib_of_the_32gib_tree_shape() {
    let config = PoRepConfig::new_groth16(SECTOR_SIZE_16_KIB, TEST_POREP_ID, ApiVersion::V1_2_0);
    check::<SectorShape16KiB>("updated 16 KiB", config, 2);
}

#[test]
fn updated_32kib_of_the_64gib_tree_shape() {
    let config = PoRepConfig::new_groth16(SECTOR_SIZE_32_KIB, TEST_POREP_ID, ApiVersion::V1_2_0);
    check::<SectorShape32KiB>("updated 32 KiB", config, 2);
}
