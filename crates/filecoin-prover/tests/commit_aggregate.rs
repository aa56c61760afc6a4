//! Several 2 KiB sectors' proofs aggregated into one, checked against
//! filecoin-proofs: the aggregate equals `aggregate_seal_commit_proofs` of
//! the same proofs and passes `verify_aggregate_seal_commit_proofs` with the
//! public inputs `get_seal_inputs` derives from the ids (what the chain
//! checks). Wrong inputs are refused naming the file. (Non-interactive
//! sectors: `ni_2kib.rs`, which proves one already.)
//!
//! The parameters are the interactive 2 KiB circuit's (shared through
//! `target/tmp/filecoin-proof-parameters`, generated once), with the
//! insecure test SnarkPack SRS.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use filecoin_proofs::{
    aggregate_seal_commit_proofs, get_seal_inputs, verify_aggregate_seal_commit_proofs,
    SealCommitOutput, SectorShape2KiB,
};
use filecoin_prover::aggregate::{ensure_test_srs, VERSION};
use filecoin_prover::c1::{lotus_bench_json, C1Input};
use filecoin_prover::c2::{run, C2Options};
use filecoin_prover::commit_aggregate::{aggregate_sectors, SectorToAggregate};
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::proof_type::{ProofType, Variant};
use filecoin_prover::C2Error;
use filecoin_testkit::test_sector::{seal_2kib_with, TestSector};
use groth16_prover::PROOF_BYTES;
use proving_engine::EngineOptions;

static SETUP: Mutex<()> = Mutex::new(());

fn interactive() -> ProofType {
    ProofType::interactive(2048).unwrap()
}

fn non_interactive() -> ProofType {
    ProofType {
        variant: Variant::NonInteractive,
        ..interactive()
    }
}

/// The shared parameter cache with the 2 KiB parameters and a test SRS.
fn setup() {
    let _guard = SETUP.lock().unwrap();
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-proof-parameters");
    std::fs::create_dir_all(&cache).unwrap();
    // Read once by filecoin-proofs' settings: set before any other call.
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &cache);
    ensure_test_params(interactive(), 0, false).unwrap();
    ensure_test_srs(0).unwrap();
}

/// A sealed interactive sector, its lotus-bench c1.json (which names its
/// number) and its partition proofs.
struct Proven {
    sealed: TestSector,
    c1: PathBuf,
    partition_proofs: Vec<u8>,
}

fn seal_and_prove(seed: u64, dir: &Path, prover_id: [u8; 32]) -> Proven {
    let proof_type = interactive();
    let work = dir.join(format!("sector-{seed}"));
    std::fs::create_dir_all(&work).unwrap();
    let sealed = seal_2kib_with(proof_type.config(), seed, &work, prover_id).unwrap();
    let c1 = work.join("c1.json");
    let json = lotus_bench_json(&sealed.c1, proof_type, u64::from(sealed.sector_id));
    std::fs::write(&c1, serde_json::to_vec(&json).unwrap()).unwrap();
    let input = C1Input::read(&c1, None).unwrap();
    assert_eq!(input.proof_type, proof_type);
    let options = C2Options {
        engine: EngineOptions::first_device("cpu"),
        prover_id: Some(prover_id),
        sector_id: Some(u64::from(sealed.sector_id)),
        circuit_proofs: false,
    };
    let outcome = run(&input, &options).unwrap();
    assert!(outcome.sector.verify_seal.is_some());
    Proven {
        sealed,
        c1,
        partition_proofs: outcome.sector.partition_proofs,
    }
}

fn to_aggregate(proven: &Proven, proofs: &[u8]) -> SectorToAggregate {
    SectorToAggregate {
        sector: C1Input::read(&proven.c1, None)
            .unwrap()
            .sealed_sector()
            .unwrap(),
        proof_path: proven.c1.with_extension("proof"),
        partition_proofs: proofs.to_vec(),
    }
}

/// filecoin-proofs' verifier, with the inputs it derives from the ids.
fn chain_accepts(proof_type: ProofType, sectors: &[&Proven], aggregate: &[u8]) -> bool {
    let config = proof_type.config();
    let mut inputs = Vec::new();
    for proven in sectors {
        let (s, c1) = (&proven.sealed, &proven.sealed.c1);
        inputs.extend(
            get_seal_inputs::<SectorShape2KiB>(
                &config,
                c1.comm_r,
                c1.comm_d,
                s.prover_id,
                s.sector_id,
                c1.ticket,
                c1.seed,
            )
            .unwrap(),
        );
    }
    let comm_rs: Vec<_> = sectors.iter().map(|p| p.sealed.c1.comm_r).collect();
    let seeds: Vec<_> = sectors.iter().map(|p| p.sealed.c1.seed).collect();
    verify_aggregate_seal_commit_proofs::<SectorShape2KiB>(
        &config,
        aggregate.to_vec(),
        &comm_rs,
        &seeds,
        inputs,
        VERSION,
    )
    .unwrap()
}

fn filecoin_proofs_aggregate(proof_type: ProofType, sectors: &[&Proven]) -> Vec<u8> {
    let comm_rs: Vec<_> = sectors.iter().map(|p| p.sealed.c1.comm_r).collect();
    let seeds: Vec<_> = sectors.iter().map(|p| p.sealed.c1.seed).collect();
    let outputs: Vec<_> = sectors
        .iter()
        .map(|p| SealCommitOutput {
            proof: p.partition_proofs.clone(),
        })
        .collect();
    aggregate_seal_commit_proofs::<SectorShape2KiB>(
        &proof_type.config(),
        &comm_rs,
        &seeds,
        &outputs,
        VERSION,
    )
    .unwrap()
}

fn message(result: Result<impl std::fmt::Debug, C2Error>) -> String {
    let error = result.unwrap_err();
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        text += &format!(": {cause}");
        source = cause.source();
    }
    text
}

#[test]
fn three_interactive_sectors_make_filecoin_proofs_aggregate() {
    setup();
    let dir = tempfile::tempdir().unwrap();
    let prover_id = [5u8; 32];
    let proven: Vec<Proven> = (1..=3)
        .map(|seed| seal_and_prove(seed, dir.path(), prover_id))
        .collect();
    let all: Vec<&Proven> = proven.iter().collect();
    let sectors: Vec<SectorToAggregate> = proven
        .iter()
        .map(|p| to_aggregate(p, &p.partition_proofs))
        .collect();

    let aggregate = aggregate_sectors(&sectors, Some(prover_id)).unwrap();
    assert!(aggregate.chain_inputs);
    assert_eq!((aggregate.proofs, aggregate.padded_to), (3, 4));
    assert_eq!(
        aggregate.proof,
        filecoin_proofs_aggregate(interactive(), &all),
        "not filecoin-proofs' aggregate of the same proofs"
    );
    assert!(chain_accepts(interactive(), &all, &aggregate.proof));
    // The order is the chain's: the same proofs in another order do not
    // verify as this order's aggregate.
    assert!(!chain_accepts(
        interactive(),
        &[all[1], all[0], all[2]],
        &aggregate.proof
    ));

    // Without the prover id: the C1 outputs' own inputs, the same bytes.
    let without_ids = aggregate_sectors(&sectors, None).unwrap();
    assert!(!without_ids.chain_inputs);
    assert_eq!(without_ids.proof, aggregate.proof);

    // A proof given with another sector's C1 output is named.
    let mut swapped = sectors.clone();
    swapped[1].partition_proofs = proven[2].partition_proofs.clone();
    let text = message(aggregate_sectors(&swapped, Some(prover_id)));
    for expected in [
        swapped[1].proof_path.to_str().unwrap(),
        proven[1].c1.to_str().unwrap(),
        "partition 0's proof does not verify",
    ] {
        assert!(text.contains(expected), "{expected:?} not in {text}");
    }

    // Another miner's prover id: refused before anything is aggregated.
    let text = message(aggregate_sectors(&sectors, Some([6u8; 32])));
    assert!(text.contains("do not derive the replica id"), "{text}");

    // A truncated proof, and bytes that are not a proof.
    let mut truncated = sectors.clone();
    truncated[2].partition_proofs.pop();
    let text = message(aggregate_sectors(&truncated, None));
    assert!(
        text.contains(&format!("{} bytes", PROOF_BYTES - 1)),
        "{text}"
    );
    let mut garbage = sectors.clone();
    garbage[0].partition_proofs = vec![0x55; PROOF_BYTES];
    let text = message(aggregate_sectors(&garbage, None));
    assert!(text.contains("is not a Groth16 proof"), "{text}");

    assert!(matches!(
        aggregate_sectors(&[], None),
        Err(C2Error::NoInputs)
    ));
    // Above the miner actor's 819 sectors: refused before any proof is
    // checked (the chain would refuse the aggregate).
    let many: Vec<SectorToAggregate> = sectors.iter().cycle().take(820).cloned().collect();
    assert!(matches!(
        aggregate_sectors(&many, None),
        Err(C2Error::AggregateCount { sectors: 820, .. })
    ));

    // One proof type per aggregate (refused before any proof is read).
    let work = dir.path().join("non-interactive");
    std::fs::create_dir_all(&work).unwrap();
    let other = seal_2kib_with(non_interactive().config(), 4, &work, prover_id).unwrap();
    let c1 = work.join("c1.json");
    let json = lotus_bench_json(&other.c1, non_interactive(), u64::from(other.sector_id));
    std::fs::write(&c1, serde_json::to_vec(&json).unwrap()).unwrap();
    let mut mixed = sectors.clone();
    mixed[1].sector = C1Input::read(&c1, None).unwrap().sealed_sector().unwrap();
    let text = message(aggregate_sectors(&mixed, None));
    assert!(
        text.contains(c1.to_str().unwrap()) && text.contains("NonInteractive"),
        "{text}"
    );
}
