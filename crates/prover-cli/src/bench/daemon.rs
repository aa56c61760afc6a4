//! `bench daemon`: what a long-running daemon saves per proof, and how
//! fast it answers status queries while it proves.
//!
//! The same C1 output is proven N times by `pce-prover c2` (a process per
//! proof, as a script or a task runner would call it: the PCE loaded and
//! the parameters read every time) and N times through `pce-prover serve`
//! (one process, the circuit preloaded once), one proof after another on
//! both sides. Meanwhile a second client calls `GetStatus` every 100 ms and
//! records how long each answer takes.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use filecoin_prover::c1::C1Input;
use filecoin_prover::circuits::ProofCircuit;
use prover_daemon::client::connect;
use prover_daemon::proto::await_proof_response::Status;
use prover_daemon::proto::{GetStatusRequest, ProofKind, ProveRequest, SubmitProofRequest};
use prover_daemon::requests::circuit_name;
use serde_json::json;

use super::child::child;

/// Arguments of `bench daemon`.
#[derive(Args)]
pub struct BenchDaemonArgs {
    /// Commit-phase-1 output to prove (any format `c2` reads).
    #[arg(long, value_name = "FILE")]
    c1: PathBuf,
    /// Miner actor id (the proofs are checked with verify_seal).
    #[arg(long, value_name = "N")]
    miner_id: u64,
    /// Sector number, when the file carries none.
    #[arg(long, value_name = "N")]
    sector_number: Option<u64>,
    /// Proofs on each side (at least 1).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..))]
    num_proofs: u64,
    /// Backend of both sides.
    #[arg(long, default_value = "cpu")]
    backend: String,
    /// Also write the results as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// Runs the comparison.
pub fn bench_daemon(args: BenchDaemonArgs) -> Result<ExitCode> {
    let input = C1Input::read(&args.c1, None)?;
    let Some(sector) = args.sector_number.or(input.sector_num) else {
        bail!(
            "{}: no SectorNum in the file: pass --sector-number",
            args.c1.display()
        );
    };
    let work = tempfile::tempdir()?;
    let c1 = args.c1.to_str().context("the C1 path is not UTF-8")?;
    let (miner, sector_text) = (args.miner_id.to_string(), sector.to_string());

    let mut c2_times = Vec::new();
    for n in 0..args.num_proofs {
        let out = work.path().join(format!("c2-{n}.proof"));
        let report = work.path().join(format!("c2-{n}.json"));
        let c2_args = [
            "c2",
            "--c1",
            c1,
            "--out",
            out.to_str().context("temp path")?,
            "--backend",
            &args.backend,
            "--miner-id",
            &miner,
            "--sector-id",
            &sector_text,
        ];
        let (wall, _) = child(&c2_args, &report)?;
        eprintln!(
            "c2 process {}/{}: {:.2} s",
            n + 1,
            args.num_proofs,
            wall.as_secs_f64()
        );
        c2_times.push(wall);
    }

    let started = Instant::now();
    let exe = std::env::current_exe().context("locating this executable")?;
    let mut daemon = Command::new(exe)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--backend",
            &args.backend,
        ])
        .args([
            "--preload",
            &circuit_name(ProofCircuit::Seal(input.proof_type)),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .context("starting pce-prover serve")?;
    let address = BufReader::new(daemon.stdout.take().context("the daemon's stdout")?)
        .lines()
        .map_while(Result::ok)
        .find_map(|line| {
            line.strip_prefix("pce-prover serve: ready on ")
                .map(str::to_owned)
        })
        .context("the daemon stopped before it was ready")?;
    let ready = started.elapsed();
    eprintln!(
        "daemon ready in {:.2} s (circuit preloaded)",
        ready.as_secs_f64()
    );

    let wrapper = serde_json::to_vec(&input.to_lotus_bench_json(sector))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let measured = runtime.block_on(async {
        let mut client = connect(&address, 256 << 20).await?;
        let mut poller = client.clone();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let polling = {
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let start = Instant::now();
                    poller.get_status(GetStatusRequest {}).await?;
                    latencies.push(start.elapsed());
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                anyhow::Ok(latencies)
            })
        };
        let mut daemon_times = Vec::new();
        for n in 0..args.num_proofs {
            let request = SubmitProofRequest {
                request_id: format!("bench-{n}"),
                proof_kind: ProofKind::PorepSealCommit.into(),
                sector_size: input.proof_type.sector_size,
                registered_proof: input.proof_type.id(),
                vanilla_proof: wrapper.clone(),
                sector_number: sector,
                miner_id: args.miner_id,
                ..Default::default()
            };
            let start = Instant::now();
            let result = client
                .prove(ProveRequest {
                    submit: Some(request),
                })
                .await?
                .into_inner()
                .result
                .context("no result")?;
            if result.status() != Status::Completed {
                bail!(
                    "daemon proof {n}: {:?}: {}",
                    result.status(),
                    result.error_message
                );
            }
            let wall = start.elapsed();
            eprintln!(
                "daemon proof {}/{}: {:.2} s",
                n + 1,
                args.num_proofs,
                wall.as_secs_f64()
            );
            daemon_times.push(wall);
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let latencies = polling.await??;
        anyhow::Ok((daemon_times, latencies))
    });
    let _ = daemon.kill();
    let _ = daemon.wait();
    let (daemon_times, mut latencies) = measured?;
    latencies.sort();

    let mean =
        |times: &[Duration]| times.iter().sum::<Duration>().as_secs_f64() / times.len() as f64;
    // Status polls while the daemon proved; none where it was too quick.
    let quantile = |q: f64| {
        let last = latencies.len().checked_sub(1)?;
        Some(latencies[(last as f64 * q).round() as usize].as_secs_f64() * 1e3)
    };
    let (c2_mean, daemon_mean) = (mean(&c2_times), mean(&daemon_times));
    println!(
        "{} proofs of {} ({}), backend {}",
        args.num_proofs, c1, input.proof_type, args.backend
    );
    println!("{:<34} {:>10}", "", "seconds");
    println!(
        "{:<34} {:>10.2}",
        "pce-prover c2, mean per process", c2_mean
    );
    println!(
        "{:<34} {:>10.2}",
        "daemon, mean per Prove call", daemon_mean
    );
    println!(
        "{:<34} {:>10.2}",
        "daemon start with preload (once)",
        ready.as_secs_f64()
    );
    println!(
        "per proof: daemon / c2 = {:.3} ({:.2} s saved per proof)",
        daemon_mean / c2_mean,
        c2_mean - daemon_mean
    );
    match (quantile(0.5), quantile(0.99), quantile(1.0)) {
        (Some(median), Some(p99), Some(max)) => println!(
            "GetStatus while proving: {} calls, median {median:.2} ms, p99 {p99:.2} ms, max {max:.2} ms",
            latencies.len(),
        ),
        _ => println!("GetStatus while proving: no calls (the proofs ended first)"),
    }
    if let Some(path) = &args.json {
        let secs = |t: &[Duration]| t.iter().map(Duration::as_secs_f64).collect::<Vec<_>>();
        let report = json!({
            "proof_type": input.proof_type.to_string(),
            "backend": args.backend,
            "c2_seconds": secs(&c2_times),
            "daemon_seconds": secs(&daemon_times),
            "daemon_ready_seconds": ready.as_secs_f64(),
            "ratio": daemon_mean / c2_mean,
            "get_status_ms": {"median": quantile(0.5), "p99": quantile(0.99), "max": quantile(1.0), "calls": latencies.len()},
        });
        crate::output::write_output(path, &serde_json::to_vec_pretty(&report)?)?;
    }
    Ok(ExitCode::SUCCESS)
}
