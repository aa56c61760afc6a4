//! Fuzzing the C1 readers: filecoin-proofs' JSON, filecoin-proofs-api's,
//! and lotus-bench's (Curio's) base64 wrapper.
//!
//! Seeds are one real 2 KiB C1 output in the three formats. Half the cases
//! mutate the JSON values (inside the base64 wrapper for lotus-bench's
//! format), so they reach what comes after parsing: proof type detection,
//! the partition count, decoding into filecoin-proofs' types and the
//! vanilla proofs' verification, all of which `c2` runs before proving.
//! Errors of parsing must name the file; later ones are reported by the
//! engine under the job's label, which the target adds as the engine does.

use std::path::Path;

use base64::Engine;
use filecoin_proofs::SectorShape2KiB;
use filecoin_prover::c1::{lotus_bench_json, C1Input};
use filecoin_prover::proof_type::ProofType;
use filecoin_prover::sector::SectorJob;
use filecoin_prover::C2Error;
use input_fuzz::{Campaign, CappedAllocator, Mutator};
use proving_engine::Job;
use serde_json::Value;

#[global_allocator]
static ALLOC: CappedAllocator = CappedAllocator;

const PHASE1_OUT: &str = "Phase1Out";

/// The prover and sector ids `c2` is given with the seeds.
type Ids = ([u8; 32], u64);

fn seeds(workdir: &Path) -> (Vec<Vec<u8>>, Ids) {
    let sector = filecoin_testkit::test_sector::seal_2kib(11, workdir).unwrap();
    let sector_id = u64::from(sector.sector_id);
    let proof_type = ProofType::interactive(2048).unwrap();
    let raw = serde_json::to_vec(&sector.c1).unwrap();
    let lotus = lotus_bench_json(&sector.c1, proof_type, sector_id);
    let api = base64::engine::general_purpose::STANDARD
        .decode(lotus[PHASE1_OUT].as_str().unwrap())
        .unwrap();
    let seeds = vec![raw, api, serde_json::to_vec(&lotus).unwrap()];
    (seeds, (sector.prover_id, sector_id))
}

/// A JSON mutation, inside lotus-bench's wrapper half of the time.
fn mutate_json(m: &mut Mutator, seed: &[u8]) -> Vec<u8> {
    let mut doc: Value = serde_json::from_slice(seed).unwrap();
    let base64 = base64::engine::general_purpose::STANDARD;
    match doc.get(PHASE1_OUT).and_then(Value::as_str) {
        Some(inner) if m.one_in(2) => {
            let inner: Value = serde_json::from_slice(&base64.decode(inner).unwrap()).unwrap();
            let inner = serde_json::to_vec(&m.json(&inner)).unwrap();
            doc[PHASE1_OUT] = Value::String(base64.encode(inner));
        }
        _ => doc = m.json(&doc),
    }
    serde_json::to_vec(&doc).unwrap()
}

/// What `c2` does with a C1 file before proving it, given the sector's ids.
fn open(path: &Path, bytes: &[u8], (prover_id, sector_id): Ids) -> Result<(), String> {
    let input = C1Input::parse(path, bytes, None).map_err(|e| e.to_string())?;
    let config = input.proof_type.config();
    if input.proof_type.sector_size != 2048 {
        // Mutations cannot forge another size's vanilla proofs; were one
        // to claim it, the proof type would be named here.
        return Err(format!(
            "{}: detected as {}",
            path.display(),
            input.proof_type
        ));
    }
    let job =
        SectorJob::<SectorShape2KiB>::new(&input, &config, Some(prover_id), Some(sector_id), false);
    let labelled = |e: C2Error| match e.to_string() {
        named if named.starts_with(&job.label()) => named,
        unnamed => format!("{}: {unnamed}", job.label()),
    };
    let circuits = job.open().map_err(labelled)?;
    for k in 0..circuits.num_partitions() {
        circuits.public_inputs(k).map_err(labelled)?;
    }
    Ok(())
}

#[test]
fn c1_readers_survive_mutated_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let (seeds, ids) = seeds(dir.path());
    let path = Path::new("input.json");
    let report = Campaign::new("c1-output", 1500, Path::new(env!("CARGO_TARGET_TMPDIR")))
        .errors_must_mention("input.json")
        .run(
            &seeds,
            |m: &mut Mutator, seed, others| {
                if m.one_in(2) {
                    mutate_json(m, seed)
                } else {
                    m.bytes(seed, others)
                }
            },
            |bytes| open(path, bytes, ids),
        );
    eprintln!("{report}");
    report.assert_clean();
    assert!(
        report
            .refusals
            .keys()
            .any(|k| k.contains("vanilla proofs do not verify")),
        "no case reached the vanilla proofs' verification:\n{report}"
    );
}
