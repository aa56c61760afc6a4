//! `c2`: prove a sector from its commit-phase-1 output.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use base64::Engine;
use clap::{Args, ValueEnum};
use porep_c2::c1::C1Input;
use porep_c2::c2::{prover_id_of_miner, run, C2Options, C2Outcome};
use porep_c2::proof_type::ProofType;
use serde_json::json;

use crate::progress::step;

/// How the proof is written.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    /// The bytes filecoin-proofs returns (192 per partition).
    Raw,
    /// Those bytes as hexadecimal text.
    Hex,
    /// Those bytes as base64 text.
    Base64,
    /// {"proof_type", "partitions", "proof" (base64)}.
    Json,
}

/// Arguments of `c2`.
#[derive(Args)]
pub struct C2Args {
    /// Commit-phase-1 output: filecoin-proofs JSON, filecoin-proofs-api JSON,
    /// or lotus-bench's c1.json (detected automatically).
    #[arg(long, value_name = "FILE")]
    c1: PathBuf,
    /// Where to write the proof (written atomically).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Output encoding.
    #[arg(long, value_enum, default_value_t = Format::Raw)]
    format: Format,
    #[command(flatten)]
    prove: ProveArgs,
    /// Prover id as 64 hex digits, to check the proof with verify_seal.
    #[arg(long, value_name = "HEX", conflicts_with = "miner_id")]
    prover_id: Option<String>,
    /// Miner actor id (the N of f0N); the prover id is derived as lotus does.
    #[arg(long, value_name = "N")]
    miner_id: Option<u64>,
    /// Sector number, to check the proof with verify_seal (lotus-bench's
    /// SectorNum is used when present).
    #[arg(long, value_name = "N")]
    sector_id: Option<u64>,
    /// Proof type, for filecoin-proofs JSON whose variant cannot be detected
    /// (e.g. StackedDrg2KiBV1_1_Feat_SyntheticPoRep).
    #[arg(long, value_name = "NAME")]
    proof_type: Option<String>,
    /// Also write a JSON report (times per stage, peak memory, backend).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
}

/// Backend and pipeline options shared by `c2` and `demo`.
#[derive(Args, Clone)]
pub struct ProveArgs {
    /// Backend: cpu, opencl, cuda, or the path of a plugin library.
    #[arg(long, default_value = "cpu")]
    pub backend: String,
    /// Device index of the backend (see `pce-prover devices BACKEND`).
    #[arg(long, default_value_t = 0)]
    pub device: u32,
    /// Partitions whose witnesses may be in memory at once (witness
    /// generation runs ahead of proving by this many partitions).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    pub partitions_in_flight: u64,
}

impl ProveArgs {
    /// Options for [`porep_c2::c2::run`].
    pub fn options(&self, prover_id: Option<[u8; 32]>, sector_id: Option<u64>) -> C2Options {
        C2Options {
            backend: self.backend.clone(),
            device: self.device,
            partitions_in_flight: self.partitions_in_flight as usize,
            prover_id,
            sector_id,
            randomness: None,
        }
    }
}

fn parse_prover_id(hex_text: &str) -> Result<[u8; 32]> {
    let bytes =
        hex::decode(hex_text.trim_start_matches("0x")).context("--prover-id is not hexadecimal")?;
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| anyhow::anyhow!("--prover-id must be 32 bytes, got {}", b.len()))
}

/// Peak resident memory of this process, from /proc/self/status.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

fn encode(format: Format, outcome: &C2Outcome) -> Vec<u8> {
    let b64 = || base64::engine::general_purpose::STANDARD.encode(&outcome.proof);
    match format {
        Format::Raw => outcome.proof.clone(),
        Format::Hex => (hex::encode(&outcome.proof) + "\n").into_bytes(),
        Format::Base64 => (b64() + "\n").into_bytes(),
        Format::Json => {
            let doc = json!({"proof_type": outcome.proof_type, "partitions": outcome.partitions, "proof": b64()});
            (serde_json::to_string_pretty(&doc).expect("serialisable") + "\n").into_bytes()
        }
    }
}

/// The JSON report of a run.
pub fn report(outcome: &C2Outcome) -> serde_json::Value {
    let secs = |d: std::time::Duration| d.as_secs_f64();
    json!({
        "proof_type": outcome.proof_type,
        "partitions": outcome.partitions,
        "backend": outcome.backend,
        "device": outcome.device,
        "seconds": {
            "pce_load_or_record": secs(outcome.pce_time),
            "params_read": secs(outcome.params_time),
            "witness": secs(outcome.stages.witness),
            "prove": secs(outcome.stages.prove),
            "verify_partitions": secs(outcome.stages.verify),
            "verify_seal": outcome.verify_seal.map(secs),
        },
        "peak_rss_bytes": peak_rss_bytes(),
    })
}

/// Writes `bytes` to `path` atomically.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    porep_c2::atomic::write_atomically(path, |out| std::io::Write::write_all(out, bytes))
        .with_context(|| format!("writing {}", path.display()))
}

/// Proves `input` and prints a summary; shared with `demo`.
pub fn prove_and_summarise(input: &C1Input, options: &C2Options) -> Result<C2Outcome> {
    let outcome = step(
        &format!("proving {} ({})", input.path.display(), input.proof_type),
        || run(input, options),
    )?;
    let verified = match outcome.verify_seal {
        Some(_) => "every partition verified; verify_seal accepted the proof",
        None => "every partition verified against the C1 public inputs (pass --prover-id/--miner-id and --sector-id to also run verify_seal)",
    };
    eprintln!(
        "{} partition(s), {} bytes: {verified}",
        outcome.partitions,
        outcome.proof.len()
    );
    Ok(outcome)
}

/// `pce-prover c2`.
pub fn c2(args: C2Args) -> Result<ExitCode> {
    let proof_type = match &args.proof_type {
        Some(name) => Some(
            ProofType::from_name(name).with_context(|| format!("unknown proof type {name:?}"))?,
        ),
        None => None,
    };
    let prover_id = match (&args.prover_id, args.miner_id) {
        (Some(hex_text), _) => Some(parse_prover_id(hex_text)?),
        (None, Some(miner)) => Some(prover_id_of_miner(miner)),
        (None, None) => None,
    };
    let input = C1Input::read(&args.c1, proof_type)?;
    if input.proof_type.is_non_interactive() {
        eprintln!(
            "warning: {}: the output is the partition proofs, as filecoin-proofs' seal_commit_phase2_circuit_proofs returns them; \
             the chain takes them aggregated (SnarkPack), which this prover does not do yet",
            input.proof_type
        );
    }
    let outcome = prove_and_summarise(&input, &args.prove.options(prover_id, args.sector_id))?;
    write_output(&args.out, &encode(args.format, &outcome))?;
    eprintln!("proof written to {}", args.out.display());
    if let Some(path) = &args.report {
        let text = serde_json::to_string_pretty(&report(&outcome)).expect("serialisable") + "\n";
        write_output(path, text.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
