//! `bench`: measurements that must be right.
//!
//! - `bench c2`: this prover against filecoin-proofs on the same C1 output,
//!   each side in its own child process (this executable, with `c2` or the
//!   hidden `bench filecoin-c2`), so each peak RSS is its own;
//! - `bench pce`: enforce-time against PCE synthesis (`pce_bench`);
//! - `bench pipeline`: N proofs at J at a time (`pipeline_bench`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use porep_c2::baseline::filecoin_seal_commit_phase2;
use porep_c2::c1::C1Input;
use porep_c2::c2::prover_id_of_miner;
use serde_json::json;

use crate::c2_cmd::{peak_rss_bytes, write_output};
use crate::{pce_bench, pipeline_bench};

/// `bench` subcommands.
#[derive(Subcommand)]
pub enum BenchCommand {
    /// Run this prover's C2 and filecoin-proofs' seal_commit_phase2 on the
    /// same C1 output and parameters, each in its own process, and print
    /// wall times, peak memory and ratios.
    C2(BenchC2Args),
    /// Time a backend's MSMs and NTTs against another backend's (default:
    /// the CPU backend) in one run, and print both with their ratio.
    Backend(crate::backend_cmd::BenchBackendArgs),
    /// Enforce-time synthesis (bellperson's path) against the PCE path
    /// (witness, then A·w, B·w, C·w) on the partitions of a C1 output:
    /// times, ratio and the peak RSS of each phase. The a, b, c of both
    /// paths are compared by digest, so only one path's vectors are in
    /// memory at a time.
    Pce(pce_bench::BenchPceArgs),
    /// Prove N sectors, J partitions at a time, with one PCE and one SRS:
    /// per-proof and wall times, throughput, and the resident memory at
    /// every stage (malloc_trim after each proof); optionally the same
    /// proofs with filecoin-proofs one after another.
    Pipeline(pipeline_bench::BenchPipelineArgs),
    /// (internal) filecoin-proofs' seal_commit_phase2 in this process.
    #[command(hide = true)]
    FilecoinC2(FilecoinC2Args),
}

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

/// Runs this executable with `args`; returns the wall time and the report it wrote.
pub fn child(args: &[&str], report: &Path) -> Result<(Duration, serde_json::Value)> {
    let exe = std::env::current_exe().context("locating this executable")?;
    let start = Instant::now();
    let status = Command::new(exe)
        .args(args)
        .arg("--report")
        .arg(report)
        .status()
        .context("starting a child process")?;
    let wall = start.elapsed();
    if !status.success() {
        bail!("`pce-prover {}` failed ({status})", args.join(" "));
    }
    let report =
        serde_json::from_slice(&std::fs::read(report)?).context("reading the child's report")?;
    Ok((wall, report))
}

/// `pce-prover bench ...`.
pub fn bench(command: BenchCommand) -> Result<ExitCode> {
    match command {
        BenchCommand::C2(args) => bench_c2(args),
        BenchCommand::Backend(args) => crate::backend_cmd::bench(args),
        BenchCommand::Pce(args) => pce_bench::bench_pce(args),
        BenchCommand::Pipeline(args) => pipeline_bench::bench_pipeline(args),
        BenchCommand::FilecoinC2(args) => filecoin_c2(args),
    }
}

fn bench_c2(args: BenchC2Args) -> Result<ExitCode> {
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
    eprintln!("running pce-prover c2 ...");
    let (ours_wall, ours) = child(&ours_args, &ours_report)?;
    eprintln!("running filecoin-proofs seal_commit_phase2 ...");
    let theirs_report = dir.path().join("filecoin.json");
    let (theirs_wall, theirs) = child(
        &[
            "bench",
            "filecoin-c2",
            "--c1",
            c1,
            "--miner-id",
            &miner,
            "--sector-id",
            &sector,
        ],
        &theirs_report,
    )?;

    let rss = |report: &serde_json::Value| report["peak_rss_bytes"].as_u64().unwrap_or(0) as f64;
    let gb = |bytes: f64| bytes / 1e9;
    println!(
        "C2 of {} ({}), backend {}:",
        input.proof_type,
        args.c1.display(),
        args.backend
    );
    println!(
        "  pce-prover c2:                    {:>7.1} s wall, {:>5.2} GB peak RSS",
        ours_wall.as_secs_f64(),
        gb(rss(&ours))
    );
    println!(
        "  filecoin-proofs seal_commit_phase2: {:>5.1} s wall, {:>5.2} GB peak RSS",
        theirs_wall.as_secs_f64(),
        gb(rss(&theirs))
    );
    println!(
        "  speedup {:.2}x (wall time), memory {:.2}x of filecoin-proofs' peak RSS",
        theirs_wall.as_secs_f64() / ours_wall.as_secs_f64(),
        rss(&ours) / rss(&theirs)
    );
    println!("  pce-prover stages (s): {}", ours["seconds"]);
    Ok(ExitCode::SUCCESS)
}

fn filecoin_c2(args: FilecoinC2Args) -> Result<ExitCode> {
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
