//! `bench pce`: enforce-time against PCE synthesis on the same circuits.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use filecoin_prover::c1::C1Input;
use filecoin_testkit::synthesis_compare::{compare_paths, PhaseMeasure};
use proving_engine::memory::gib;
use serde_json::json;

use crate::output::write_output;
use crate::progress::step;

/// Arguments of `bench pce`.
#[derive(Args)]
pub struct BenchPceArgs {
    /// Commit-phase-1 output (any supported format); every partition is measured.
    #[arg(long, value_name = "FILE")]
    c1: PathBuf,
    /// Repetitions of each partition.
    #[arg(long, value_name = "N", default_value_t = 1)]
    reps: usize,
    /// Also write the measurements as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

fn phase_json(phase: &PhaseMeasure) -> serde_json::Value {
    json!({
        "seconds": phase.time.as_secs_f64(),
        "peak_rss_bytes": phase.peak_rss,
        "start_rss_bytes": phase.start_rss,
    })
}

/// `pce-prover bench pce`.
pub fn bench_pce(args: BenchPceArgs) -> Result<ExitCode> {
    let input = C1Input::read(&args.c1, None)?;
    let comparison = step(
        &format!("synthesising {} both ways", input.path.display()),
        || compare_paths(&input, args.reps),
    )?;
    println!(
        "Synthesis of {} ({}): enforce-time vs PCE, {} thread(s)",
        input.proof_type,
        input.path.display(),
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    println!(
        "  circuit: {} constraints, PCE {} non-zeros in {} ({:.2} B/nnz), loaded in {:.3} s",
        comparison.constraints,
        comparison.nnz,
        gib(comparison.pce_bytes as u64),
        comparison.pce_bytes as f64 / comparison.nnz as f64,
        comparison.pce_load.as_secs_f64()
    );
    let mut rows = Vec::new();
    for p in &comparison.partitions {
        let ratio = p.enforce.time.as_secs_f64() / p.pce.time.as_secs_f64();
        println!(
            "  partition {}: enforce-time {:.3} s, peak RSS {} | PCE {:.3} s, peak RSS {} | speedup {ratio:.2}x | a, b, c digest {} (equal)",
            p.partition,
            p.enforce.time.as_secs_f64(),
            gib(p.enforce.peak_rss),
            p.pce.time.as_secs_f64(),
            gib(p.pce.peak_rss),
            hex::encode(p.digest)
        );
        rows.push(json!({
            "partition": p.partition,
            "enforce": phase_json(&p.enforce),
            "pce": phase_json(&p.pce),
            "speedup": ratio,
            "abc_digest": hex::encode(p.digest),
        }));
    }
    if let Some(path) = &args.json {
        let doc = json!({
            "proof_type": input.proof_type.to_string(),
            "c1": input.path,
            "constraints": comparison.constraints,
            "nnz": comparison.nnz,
            "pce_bytes": comparison.pce_bytes,
            "pce_load_seconds": comparison.pce_load.as_secs_f64(),
            "partitions": rows,
        });
        write_output(path, (doc.to_string() + "\n").as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
