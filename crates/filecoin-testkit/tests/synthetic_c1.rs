//! Synthetic C1 outputs give the real circuit: their partitions' witnesses
//! fit the PCE recorded from the blank circuit (else the PCE path refuses
//! them), and the PCE path's a, b, c equal bellperson's enforce-time
//! synthesis of the same circuit, on every tree shape PoRep has (2 KiB's
//! single tree, 32 GiB's 8-8-0 at 16 KiB, 64 GiB's 8-8-2 at 32 KiB).

use std::path::PathBuf;

use filecoin_proofs::{
    PoRepConfig, SectorShape2KiB, SECTOR_SIZE_16_KIB, SECTOR_SIZE_2_KIB, SECTOR_SIZE_32_KIB,
};
use filecoin_prover::partition::PartitionCircuits;
use filecoin_prover::C2Error;
use filecoin_testkit::synthesis_compare::{compare_paths, Comparison, SectorSource};
use filecoin_testkit::synthetic_c1::synthetic_phase1_output;
use storage_proofs_core::api_version::ApiVersion;

/// A PoRep id for sizes with no registered proof.
const TEST_POREP_ID: [u8; 32] = [128; 32];

fn config(sector_size: u64) -> PoRepConfig {
    // The PCEs recorded here go to a cache of this test target's own.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("synthetic-c1-parameters");
    std::fs::create_dir_all(&dir).unwrap();
    // Read once by filecoin-proofs' settings; every test sets the same value.
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
    PoRepConfig::new_groth16(sector_size, TEST_POREP_ID, ApiVersion::V1_2_0)
}

fn compare(sector_size: u64, seed: u64) -> Comparison {
    let source = SectorSource::Synthetic {
        config: config(sector_size),
        partitions: 1,
        seed,
    };
    compare_paths(&source, 1).unwrap()
}

#[test]
fn synthetic_partitions_are_the_real_circuit_on_every_tree_shape() {
    for sector_size in [SECTOR_SIZE_2_KIB, SECTOR_SIZE_16_KIB, SECTOR_SIZE_32_KIB] {
        let comparison = compare(sector_size, 7);
        // compare_paths fails on a witness of another shape and on a, b, c
        // that differ between the two paths.
        assert_eq!(comparison.partitions.len(), 1, "{sector_size} bytes");
    }
}

#[test]
fn the_seed_decides_the_values() {
    let digest = |seed| compare(SECTOR_SIZE_2_KIB, seed).partitions[0].digest;
    let first = digest(1);
    assert_eq!(first, digest(1));
    assert_ne!(first, digest(2));
}

#[test]
fn a_synthetic_output_is_not_provable() {
    let config = config(SECTOR_SIZE_2_KIB);
    let c1 = synthetic_phase1_output::<SectorShape2KiB>(&config, 1, 3).unwrap();
    let circuits = PartitionCircuits::new(&config, c1).unwrap();
    assert!(matches!(
        circuits.verify_vanilla(),
        Err(C2Error::InvalidVanillaProofs)
    ));
}

#[test]
fn partitions_beyond_the_sectors_are_refused() {
    let config = config(SECTOR_SIZE_2_KIB);
    for partitions in [0, 2] {
        let error = synthetic_phase1_output::<SectorShape2KiB>(&config, partitions, 3)
            .expect_err("refused");
        assert!(
            matches!(error, C2Error::PartitionCount { expected: 1, found, .. } if found == partitions),
            "{error}"
        );
    }
}
