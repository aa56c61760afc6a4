//! `serve`, `status` and `prove`: the proving daemon and two clients of it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use filecoin_prover::c1::C1Input;
use prover_daemon::client::connect;
use prover_daemon::config::Config;
use prover_daemon::proto::await_proof_response::Status as AwaitStatus;
use prover_daemon::proto::{GetStatusRequest, ProofKind, ProveRequest, SubmitProofRequest};

use crate::output::{check_writable, write_proof};

/// Arguments of `serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// TOML configuration (docs/daemon.example.toml documents every field);
    /// the flags below override it (--preload adds to its list).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Listen on host:port, or unix:///path/to.sock.
    #[arg(long, value_name = "ADDRESS")]
    listen: Option<String>,
    /// Backend: cpu, opencl, cuda, or the path of a plugin library.
    #[arg(long)]
    backend: Option<String>,
    /// Device to prove on; repeat for several. Default: every device.
    #[arg(long = "device", value_name = "INDEX")]
    devices: Vec<u32>,
    /// Jobs proven at once on each device.
    #[arg(long, value_name = "N")]
    workers_per_device: Option<usize>,
    /// Partitions of one job in memory at once: one proven while the
    /// others' witnesses are generated, one thread each (default 2).
    #[arg(long, value_name = "N")]
    partitions_in_flight: Option<usize>,
    /// Memory for circuits and jobs together, e.g. 64GiB (default: three
    /// quarters of physical memory, or of the container's limit where less).
    #[arg(long, value_name = "SIZE")]
    memory_budget: Option<String>,
    /// Filecoin parameter cache (default: $FIL_PROOFS_PARAMETER_CACHE).
    #[arg(long, value_name = "DIR")]
    param_cache: Option<PathBuf>,
    /// Circuit to load before listening (porep-2k ... porep-64g), besides
    /// those the configuration's preload names; repeat for several.
    #[arg(long, value_name = "CIRCUIT")]
    preload: Vec<String>,
    /// Seconds running jobs may take to finish after SIGTERM.
    #[arg(long, value_name = "SECONDS")]
    shutdown_grace: Option<u64>,
}

/// Runs the daemon until SIGTERM or SIGINT.
pub fn serve(args: ServeArgs) -> Result<ExitCode> {
    let mut config = match &args.config {
        Some(path) => Config::read(path)?,
        None => Config::default(),
    };
    let proving = &mut config.proving;
    if let Some(listen) = args.listen {
        config.server.listen = listen;
    }
    if let Some(backend) = args.backend {
        proving.backend = backend;
    }
    if !args.devices.is_empty() {
        proving.devices = args.devices;
    }
    if let Some(n) = args.workers_per_device {
        proving.workers_per_device = n;
    }
    if let Some(n) = args.partitions_in_flight {
        proving.partitions_in_flight = n;
    }
    if let Some(budget) = args.memory_budget {
        proving.memory_budget = Some(budget);
    }
    if let Some(cache) = args.param_cache {
        proving.param_cache = Some(cache);
    }
    proving.preload.extend(args.preload);
    if let Some(grace) = args.shutdown_grace {
        config.server.shutdown_grace_seconds = grace;
    }
    prover_daemon::server::run(config)?;
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `status`.
#[derive(Args)]
pub struct StatusArgs {
    /// The daemon: host:port or unix:///path.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:9820")]
    addr: String,
    /// Print the Prometheus metrics instead.
    #[arg(long)]
    metrics: bool,
}

/// Prints a daemon's status (or metrics).
pub fn status(args: StatusArgs) -> Result<ExitCode> {
    runtime()?.block_on(async {
        let mut client = connect(&args.addr, 16 << 20).await?;
        if args.metrics {
            let metrics = client
                .get_metrics(prover_daemon::proto::GetMetricsRequest {})
                .await?;
            print!("{}", metrics.into_inner().prometheus_text);
            return Ok(ExitCode::SUCCESS);
        }
        let status = client.get_status(GetStatusRequest {}).await?.into_inner();
        println!(
            "up {} s; {} proofs completed, {} failed; memory {} of {} bytes in use",
            status.uptime_seconds,
            status.total_proofs_completed,
            status.total_proofs_failed,
            status.pinned_memory_bytes,
            status.pinned_memory_limit_bytes
        );
        for gpu in &status.gpus {
            let job = match gpu.current_job_id.as_str() {
                "" => "idle".to_owned(),
                id => format!("proving {id} ({})", gpu.current_proof_kind),
            };
            println!(
                "device {} {}: {} of {} bytes free; {job}",
                gpu.ordinal, gpu.name, gpu.vram_free_bytes, gpu.vram_total_bytes
            );
        }
        for srs in &status.loaded_srs {
            println!(
                "circuit {}: {} bytes, used by {} jobs",
                srs.circuit_id, srs.size_bytes, srs.ref_count
            );
        }
        for queue in &status.queues {
            println!(
                "queue {}: {} waiting, {} running",
                queue.proof_kind, queue.pending, queue.in_progress
            );
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// Arguments of `prove`.
#[derive(Args)]
pub struct ProveArgs {
    /// The daemon: host:port or unix:///path.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:9820")]
    addr: String,
    /// Commit-phase-1 output (any format `c2` reads).
    #[arg(long, value_name = "FILE")]
    c1: PathBuf,
    /// Where to write the proof (the bytes seal_commit_phase2 returns).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Miner actor id: the daemon checks the proof with verify_seal
    /// against its prover id.
    #[arg(long, value_name = "N")]
    miner_id: u64,
    /// Sector number (lotus-bench's SectorNum when the file has one).
    #[arg(long, value_name = "N", alias = "sector-id")]
    sector_number: Option<u64>,
    /// Request id (default: porep-MINER-SECTOR, as Curio names them).
    #[arg(long, value_name = "ID")]
    request_id: Option<String>,
}

/// Sends a C1 output to a daemon as Curio does, and writes the proof.
pub fn prove(args: ProveArgs) -> Result<ExitCode> {
    let input = C1Input::read(&args.c1, None)?;
    check_writable(&[args.out.as_path()], &[args.c1.as_path()])?;
    let Some(sector) = args.sector_number.or(input.sector_num) else {
        bail!(
            "{}: no SectorNum in the file: pass --sector-number",
            args.c1.display()
        );
    };
    let wrapper = serde_json::to_vec(&input.to_lotus_bench_json(sector))?;
    let request = SubmitProofRequest {
        request_id: args
            .request_id
            .unwrap_or_else(|| format!("porep-{}-{sector}", args.miner_id)),
        proof_kind: ProofKind::PorepSealCommit.into(),
        sector_size: input.proof_type.sector_size,
        registered_proof: input.proof_type.id(),
        vanilla_proof: wrapper,
        sector_number: sector,
        miner_id: args.miner_id,
        ..Default::default()
    };
    let proof = prove_remotely(&args.addr, request)?;
    write_proof(&args.out, &proof)?;
    // On stderr: the proof may go to stdout.
    eprintln!("{} bytes written to {}", proof.len(), args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// Sends `request` to the daemon at `addr` with the Prove RPC, as Curio
/// does, and returns the proof it answers with (which the daemon verified
/// before answering); a job that did not complete is an error carrying the
/// daemon's message.
pub fn prove_remotely(addr: &str, request: SubmitProofRequest) -> Result<Vec<u8>> {
    let result = runtime()?.block_on(async {
        let mut client = connect(addr, 256 << 20).await?;
        let response = client
            .prove(ProveRequest {
                submit: Some(request),
            })
            .await?;
        anyhow::Ok(
            response
                .into_inner()
                .result
                .context("the daemon sent no result")?,
        )
    })?;
    match result.status() {
        AwaitStatus::Completed => {
            eprintln!(
                "job {}: {} bytes, {} ms in all, {} ms queued, {} ms proving",
                result.job_id,
                result.proof.len(),
                result.total_ms,
                result.queue_wait_ms,
                result.gpu_compute_ms
            );
            Ok(result.proof)
        }
        status => bail!(
            "job {}: {}: {}",
            result.job_id,
            status.as_str_name(),
            result.error_message
        ),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the client's runtime")
}
