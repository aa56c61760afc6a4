//! C2 of a non-interactive 2 KiB sector (13 partitions): the output is the
//! SnarkPack aggregate filecoin-proofs' `seal_commit_phase2` returns. It
//! passes `verify_seal`, and equals, byte for byte, filecoin-proofs'
//! `aggregate_seal_commit_proofs` over the same partition proofs (which is
//! what `seal_commit_phase2` returns for them; aggregation is deterministic),
//! each of which verifies against `get_seal_inputs`. Aggregated with
//! `commit_aggregate` (FIP-0092), alone it gives the same bytes, and with a
//! second sector an aggregate filecoin-proofs' verifier accepts.
//!
//! The parameters are those of the interactive 2 KiB circuit (shared
//! through `target/tmp/filecoin-proof-parameters`, generated once); the
//! insecure test SnarkPack SRS is written there too.

use std::path::PathBuf;
use std::time::Instant;

use bellperson::groth16::{prepare_verifying_key, verify_proof, Proof};
use blstrs::{Bls12, Scalar};
use ff::Field;
use filecoin_proofs::{
    aggregate_seal_commit_proofs, get_seal_inputs, verify_aggregate_seal_commit_proofs,
    verify_seal, SealCommitOutput, SectorShape2KiB,
};
use filecoin_prover::aggregate::{self, ensure_test_srs};
use filecoin_prover::c1::{C1Format, C1Input};
use filecoin_prover::c2::{run, C2Options};
use filecoin_prover::commit_aggregate::{aggregate_sectors, SectorToAggregate};
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::partition::PartitionCircuits;
use filecoin_prover::proof_type::{ProofType, Variant};
use filecoin_prover::C2Error;
use filecoin_testkit::test_sector::seal_2kib_with;
use groth16_prover::PROOF_BYTES;
use proving_engine::EngineOptions;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn c2_of_a_non_interactive_2kib_sector_is_filecoin_proofs_aggregate() {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-proof-parameters");
    std::fs::create_dir_all(&cache).unwrap();
    // Read once by filecoin-proofs' settings: set before any other call.
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &cache);
    let interactive = ProofType::interactive(2048).unwrap();
    let ni = ProofType {
        variant: Variant::NonInteractive,
        ..interactive
    };
    let (files, _) = ensure_test_params(interactive, 0, false).unwrap();
    let (ni_files, generated) = ensure_test_params(ni, 0, false).unwrap();
    assert!(!generated, "the interactive circuit's parameters serve");
    assert_eq!(ni_files.params, files.params);
    ensure_test_srs(0).unwrap();

    let work = tempfile::tempdir().unwrap();
    let prover_id = [3u8; 32];
    let config = ni.config();
    let sector = seal_2kib_with(config.clone(), 21, work.path(), prover_id).unwrap();
    let c1_path = work.path().join("c1.json");
    std::fs::write(&c1_path, serde_json::to_vec(&sector.c1).unwrap()).unwrap();
    let input = C1Input::read(&c1_path, None).unwrap();
    assert_eq!(input.format, C1Format::FilecoinProofs);
    assert_eq!(input.proof_type, ni, "13 partitions: non-interactive");
    assert_eq!(input.num_partitions(), 13);

    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let r_s: Vec<(Scalar, Scalar)> = (0..13)
        .map(|_| (Scalar::random(&mut rng), Scalar::random(&mut rng)))
        .collect();
    let options = C2Options {
        engine: EngineOptions {
            randomness: Some(r_s),
            ..EngineOptions::first_device("cpu")
        },
        prover_id: Some(prover_id),
        sector_id: Some(u64::from(sector.sector_id)),
        circuit_proofs: false,
    };
    let start = Instant::now();
    let outcome = run(&input, &options).unwrap();
    eprintln!(
        "13 partitions proven and aggregated in {:.1} s (aggregation {:?}, verify_seal {:?})",
        start.elapsed().as_secs_f64(),
        outcome.sector.aggregate,
        outcome.sector.verify_seal
    );
    assert_eq!(outcome.sector.partitions, 13);
    assert_eq!(outcome.sector.partition_proofs.len(), 13 * PROOF_BYTES);
    assert!(outcome.sector.aggregate.is_some(), "aggregated");
    assert!(
        outcome.sector.verify_seal.is_some(),
        "verify_seal ran and accepted"
    );
    assert_ne!(outcome.sector.proof, outcome.sector.partition_proofs);

    // filecoin-proofs' verify_seal accepts the output, not the bare
    // partition proofs.
    let c1 = &sector.c1;
    let verify = |bytes: &[u8]| {
        verify_seal::<SectorShape2KiB>(
            &config,
            c1.comm_r,
            c1.comm_d,
            prover_id,
            sector.sector_id,
            c1.ticket,
            c1.seed,
            bytes,
        )
    };
    assert!(verify(&outcome.sector.proof).unwrap());
    assert!(!matches!(
        verify(&outcome.sector.partition_proofs),
        Ok(true)
    ));

    // Each partition proof verifies against the public inputs filecoin-proofs
    // derives from the ids: they are what seal_commit_phase2_circuit_proofs
    // would return with these r and s ...
    let inputs = get_seal_inputs::<SectorShape2KiB>(
        &config,
        c1.comm_r,
        c1.comm_d,
        prover_id,
        sector.sector_id,
        c1.ticket,
        c1.seed,
    )
    .unwrap();
    let pvk = prepare_verifying_key(
        &bellperson::groth16::VerifyingKey::<Bls12>::read(std::fs::File::open(&files.vk).unwrap())
            .unwrap(),
    );
    for (k, (bytes, public)) in outcome
        .sector
        .partition_proofs
        .chunks(PROOF_BYTES)
        .zip(&inputs)
        .enumerate()
    {
        let proof = Proof::<Bls12>::read(bytes).unwrap();
        assert!(verify_proof(&pvk, &proof, public).unwrap(), "partition {k}");
    }
    // ... and seal_commit_phase2 aggregates them into exactly our output.
    let expected = aggregate_seal_commit_proofs::<SectorShape2KiB>(
        &config,
        &[c1.comm_r],
        &[c1.seed],
        &[SealCommitOutput {
            proof: outcome.sector.partition_proofs.clone(),
        }],
        aggregate::VERSION,
    )
    .unwrap();
    assert_eq!(
        outcome.sector.proof, expected,
        "the output differs from filecoin-proofs' aggregate of the same partition proofs"
    );

    // Without the ids the aggregate is checked against the C1 output's
    // public inputs (what the pipeline does then): they agree with the ids'
    // inputs, and inputs in the wrong order are refused.
    let circuits =
        PartitionCircuits::<SectorShape2KiB>::new(&config, input.phase1_output().unwrap()).unwrap();
    let mut from_c1: Vec<Vec<Scalar>> = (0..13)
        .map(|k| circuits.public_inputs(k).unwrap())
        .collect();
    assert_eq!(from_c1, inputs);
    let check = |public: Vec<Vec<Scalar>>| {
        aggregate::verify::<SectorShape2KiB>(
            &config,
            c1.comm_r,
            c1.seed,
            &outcome.sector.proof,
            public,
        )
        .unwrap()
    };
    assert!(check(from_c1.clone()));
    from_c1.swap(0, 1);
    assert!(!check(from_c1));

    // FIP-0092 aggregation of non-interactive sectors (`aggregate_sectors`):
    // this sector alone gives exactly seal_commit_phase2's output, ...
    let mut sealed = input.sealed_sector().unwrap();
    sealed.sector_num = Some(u64::from(sector.sector_id));
    let one = SectorToAggregate {
        sector: sealed,
        proof_path: c1_path.with_extension("proof"),
        partition_proofs: outcome.sector.partition_proofs.clone(),
    };
    let alone = aggregate_sectors(std::slice::from_ref(&one), Some(prover_id)).unwrap();
    assert_eq!((alone.proofs, alone.padded_to), (13, 16));
    assert_eq!(alone.proof, outcome.sector.proof);
    // ... two sectors (this one twice) give an aggregate filecoin-proofs'
    // verifier accepts with the chain's inputs of both, ...
    let twice = aggregate_sectors(&[one.clone(), one.clone()], Some(prover_id)).unwrap();
    assert_eq!((twice.proofs, twice.padded_to), (26, 32));
    assert!(verify_aggregate_seal_commit_proofs::<SectorShape2KiB>(
        &config,
        twice.proof,
        &[c1.comm_r; 2],
        &[c1.seed; 2],
        [inputs.clone(), inputs].concat(),
        aggregate::VERSION,
    )
    .unwrap());
    // ... a sector's c2 output is refused as what it is, and FIP-0092's
    // bound of 65 sectors holds.
    let already = SectorToAggregate {
        partition_proofs: outcome.sector.proof.clone(),
        ..one.clone()
    };
    let error = aggregate_sectors(&[one.clone(), already], None)
        .unwrap_err()
        .to_string();
    assert!(error.contains("this is a SnarkPack aggregate"), "{error}");
    assert!(matches!(
        aggregate_sectors(&vec![one; 66], None),
        Err(C2Error::AggregateCount { sectors: 66, .. })
    ));
}
