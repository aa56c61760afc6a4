//! `bench pce`: enforce-time against PCE synthesis on the same circuits.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use filecoin_prover::c1::C1Input;
use filecoin_prover::proof_type::{parse_sector_size, ProofType};
use filecoin_testkit::synthesis_compare::{compare_paths, PhaseMeasure, SectorSource};
use proving_engine::memory::gib;
use serde_json::json;

use crate::output::write_output;
use crate::progress::step;

/// Arguments of `bench pce`.
#[derive(Args)]
#[command(group(clap::ArgGroup::new("sector").required(true).args(["c1", "synthetic"])))]
pub struct BenchPceArgs {
    /// Commit-phase-1 output (any supported format); every partition is measured.
    #[arg(long, value_name = "FILE")]
    c1: Option<PathBuf>,
    /// Instead of a C1 output, a synthetic one of a sector of this size
    /// (e.g. 32GiB): vanilla proofs of the real shape with random values,
    /// so the circuit is the real one and only the values differ. For
    /// timing and memory at sizes no test machine can seal; such an input
    /// is not provable.
    #[arg(long, value_name = "SIZE")]
    synthetic: Option<String>,
    /// Partitions of the synthetic sector to measure.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "synthetic")]
    partitions: usize,
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
    let input = args
        .c1
        .as_deref()
        .map(|path| C1Input::read(path, None))
        .transpose()?;
    let (source, proof_type, origin) = match (&input, &args.synthetic) {
        (Some(input), _) => (
            SectorSource::C1(input),
            input.proof_type,
            input.path.display().to_string(),
        ),
        (None, Some(size)) => {
            let proof_type = parse_sector_size(size)
                .and_then(ProofType::interactive)
                .with_context(|| format!("--synthetic {size:?}: not a PoRep sector size"))?;
            let source = SectorSource::Synthetic {
                config: proof_type.config(),
                partitions: args.partitions,
                seed: 0,
            };
            let origin = format!("synthetic, {} partition(s)", args.partitions);
            (source, proof_type, origin)
        }
        (None, None) => unreachable!("clap requires --c1 or --synthetic"),
    };
    let comparison = step(&format!("synthesising {origin} both ways"), || {
        compare_paths(&source, args.reps)
    })?;
    println!(
        "Synthesis of {} ({origin}): enforce-time vs PCE, {} thread(s)",
        proof_type,
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
            "  partition {}: enforce-time {:.3} s, peak RSS {} | PCE {:.3} s (witness {:.3} s, A·w B·w C·w {:.3} s), peak RSS {} | speedup {ratio:.2}x | a, b, c digest {} (equal)",
            p.partition,
            p.enforce.time.as_secs_f64(),
            gib(p.enforce.peak_rss),
            p.pce.time.as_secs_f64(),
            p.pce_witness.as_secs_f64(),
            p.pce_products.as_secs_f64(),
            gib(p.pce.peak_rss),
            hex::encode(p.digest)
        );
        rows.push(json!({
            "partition": p.partition,
            "enforce": phase_json(&p.enforce),
            "pce": phase_json(&p.pce),
            "pce_witness_seconds": p.pce_witness.as_secs_f64(),
            "pce_products_seconds": p.pce_products.as_secs_f64(),
            "speedup": ratio,
            "abc_digest": hex::encode(p.digest),
        }));
    }
    if let Some(path) = &args.json {
        let doc = json!({
            "proof_type": proof_type.to_string(),
            "c1": input.as_ref().map(|input| &input.path),
            "synthetic_partitions": args.synthetic.is_some().then_some(args.partitions),
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
