//! `bench c2`: this prover against filecoin-proofs on the same C1 output,
//! each in its own child process; and the hidden `bench filecoin-c2`, the
//! filecoin-proofs side.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use filecoin_prover::c1::C1Input;
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_testkit::baseline::filecoin_seal_commit_phase2;
use serde_json::json;

use super::child::child;
use crate::output::{peak_rss_bytes, write_output};

/// Arguments of `bench c2`.
#[derive(Args)]
pub struct BenchC2Args {
    /// Commit-phase-1 output (any supported format).
    #[arg(long, value_name = "FILE")]
    c1: PathBuf,
    /// Miner actor id (filecoin-proofs needs the prover id).
    #[arg(long, value_name = "N")]
    miner_id: u64,
    /// Sector number (taken from lotus-bench files when omitted).
    #[arg(long, value_name = "N")]
    sector_id: Option<u64>,
    /// Backend of this prover.
    #[arg(long, default_value = "cpu")]
    backend: String,
    /// Run both provers this many times, alternated, and report every
    /// round's ratio and their median (on a machine whose speed drifts, a
    /// single pair can mislead).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    rounds: u32,
}

/// Arguments of the hidden `bench filecoin-c2`.
#[derive(Args)]
pub struct FilecoinC2Args {
    #[arg(long)]
    c1: PathBuf,
    #[arg(long)]
    miner_id: u64,
    #[arg(long)]
    sector_id: u64,
    #[arg(long)]
    report: PathBuf,
}

/// `pce-prover bench c2`.
pub fn bench_c2(args: BenchC2Args) -> Result<ExitCode> {
    let input = C1Input::read(&args.c1, None)?;
    let sector_id = args
        .sector_id
        .or(input.sector_num)
        .context("--sector-id is needed (filecoin-proofs verifies its proof with it)")?;
    let dir = tempfile::tempdir()?;
    let c1 = args.c1.to_str().context("C1 path is not UTF-8")?;
    let (miner, sector) = (args.miner_id.to_string(), sector_id.to_string());
    let out = dir.path().join("proof.bin");
    let ours_report = dir.path().join("ours.json");
    let ours_args = [
        "c2",
        "--c1",
        c1,
        "--out",
        out.to_str().expect("UTF-8 temp path"),
        "--backend",
        &args.backend,
        "--miner-id",
        &miner,
        "--sector-id",
        &sector,
    ];
    let theirs_report = dir.path().join("filecoin.json");
    let theirs_args = [
        "bench",
        "filecoin-c2",
        "--c1",
        c1,
        "--miner-id",
        &miner,
        "--sector-id",
        &sector,
    ];
    let mut rounds = Vec::new();
    for round in 1..=args.rounds {
        eprintln!(
            "round {round} of {}: running pce-prover c2 ...",
            args.rounds
        );
        let ours = child(&ours_args, &ours_report)?;
        eprintln!(
            "round {round} of {}: running filecoin-proofs seal_commit_phase2 ...",
            args.rounds
        );
        let theirs = child(&theirs_args, &theirs_report)?;
        rounds.push((ours, theirs));
    }

    let rss = |report: &serde_json::Value| report["peak_rss_bytes"].as_u64().unwrap_or(0) as f64;
    let gb = |bytes: f64| bytes / 1e9;
    println!(
        "C2 of {} ({}), backend {}:",
        input.proof_type,
        args.c1.display(),
        args.backend
    );
    let mut speedups = Vec::new();
    for (round, ((ours_wall, ours), (theirs_wall, theirs))) in rounds.iter().enumerate() {
        if rounds.len() > 1 {
            println!("  round {}:", round + 1);
        }
        println!(
            "  pce-prover c2:                    {:>7.1} s wall, {:>5.2} GB peak RSS",
            ours_wall.as_secs_f64(),
            gb(rss(ours))
        );
        println!(
            "  filecoin-proofs seal_commit_phase2: {:>5.1} s wall, {:>5.2} GB peak RSS",
            theirs_wall.as_secs_f64(),
            gb(rss(theirs))
        );
        let speedup = theirs_wall.as_secs_f64() / ours_wall.as_secs_f64();
        println!(
            "  speedup {speedup:.2}x (wall time), memory {:.2}x of filecoin-proofs' peak RSS",
            rss(ours) / rss(theirs)
        );
        println!("  pce-prover stages (s): {}", ours["seconds"]);
        speedups.push(speedup);
    }
    if speedups.len() > 1 {
        speedups.sort_by(f64::total_cmp);
        println!(
            "  speedup over {} alternated rounds: median {:.2}x, from {:.2}x to {:.2}x",
            speedups.len(),
            (speedups[(speedups.len() - 1) / 2] + speedups[speedups.len() / 2]) / 2.0,
            speedups[0],
            speedups[speedups.len() - 1]
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `pce-prover bench filecoin-c2`.
pub fn filecoin_c2(args: FilecoinC2Args) -> Result<ExitCode> {
    let input = C1Input::read(&args.c1, None)?;
    let start = Instant::now();
    let proof =
        filecoin_seal_commit_phase2(&input, prover_id_of_miner(args.miner_id), args.sector_id)?;
    let report = json!({
        "proof_bytes": proof.len(),
        "seconds": start.elapsed().as_secs_f64(),
        "peak_rss_bytes": peak_rss_bytes(),
    });
    write_output(&args.report, report.to_string().as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
