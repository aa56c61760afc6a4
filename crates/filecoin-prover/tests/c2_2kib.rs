//! C2 end to end on a real 2 KiB sector: the proof passes filecoin-proofs'
//! `verify_seal`, equals bellperson's proof of the same partition circuits
//! with the same r and s, and the lotus-bench wrapper of the same C1 output
//! reads back to the same output.
//!
//! Test parameters are generated once per target directory
//! (`target/tmp/filecoin-proof-parameters`) and shared by every test run.

mod common;

use common::{bellperson, engine, random_r_s, shared_parameter_cache};
use filecoin_prover::c1::{lotus_bench_json, C1Format, C1Input};
use filecoin_prover::c2::{run, C2Options};
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::partition::partition_circuits;
use filecoin_testkit::test_sector::seal_2kib;
use groth16_prover::PROOF_BYTES;

#[test]
fn c2_of_a_2kib_sector_verifies_and_equals_bellperson() {
    shared_parameter_cache();
    let work = tempfile::tempdir().unwrap();
    let sector = seal_2kib(42, work.path()).unwrap();
    let c1_path = work.path().join("c1.json");
    std::fs::write(&c1_path, serde_json::to_vec(&sector.c1).unwrap()).unwrap();
    let input = C1Input::read(&c1_path, None).unwrap();
    assert_eq!(input.format, C1Format::FilecoinProofs);
    assert_eq!(input.proof_type.to_string(), "StackedDrg2KiBV1_1");
    let (files, _) = ensure_test_params(input.proof_type, 0, false).unwrap();

    let r_s = random_r_s(9, 1);
    let options = C2Options {
        engine: engine(&r_s),
        prover_id: Some(sector.prover_id),
        sector_id: Some(u64::from(sector.sector_id)),
        circuit_proofs: false,
    };
    let outcome = run(&input, &options).unwrap();
    assert_eq!(outcome.sector.proof.len(), PROOF_BYTES);
    assert!(
        outcome.sector.verify_seal.is_some(),
        "verify_seal ran and accepted the proof"
    );

    // bellperson on the same circuits, parameters and r, s.
    let circuits = partition_circuits::<filecoin_proofs::SectorShape2KiB>(
        &sector.config,
        input.phase1_output().unwrap(),
    )
    .unwrap();
    let expected_bytes = bellperson(&files, circuits, &r_s);
    assert_eq!(
        outcome.sector.proof, expected_bytes,
        "the proof differs from bellperson's with the same r and s"
    );

    // The lotus-bench wrapper of the same C1 output (filecoin-proofs-api JSON inside).
    let wrapper = lotus_bench_json(&sector.c1, input.proof_type, u64::from(sector.sector_id));
    let lotus_path = work.path().join("lotus-c1.json");
    std::fs::write(&lotus_path, serde_json::to_vec(&wrapper).unwrap()).unwrap();
    let lotus = C1Input::read(&lotus_path, None).unwrap();
    assert_eq!(lotus.format, C1Format::LotusBench);
    assert_eq!(lotus.proof_type, input.proof_type);
    assert_eq!(lotus.sector_num, Some(u64::from(sector.sector_id)));
    let from_lotus = serde_json::to_value(
        lotus
            .phase1_output::<filecoin_proofs::SectorShape2KiB>()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(from_lotus, serde_json::to_value(&sector.c1).unwrap());
    let lotus_outcome = run(
        &lotus,
        &C2Options {
            sector_id: None,
            ..options
        },
    )
    .unwrap();
    assert_eq!(
        lotus_outcome.sector.proof, outcome.sector.proof,
        "the wrapper proves the same (r, s fixed)"
    );
    assert!(
        lotus_outcome.sector.verify_seal.is_some(),
        "SectorNum from the wrapper enables verify_seal"
    );
}
