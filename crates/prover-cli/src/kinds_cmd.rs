//! `window-post`, `winning-post` and `snap-prove`: the SNARKs of the other
//! proof kinds, from the vanilla proofs the proving pipelines hand over.
//!
//! Each reads one vanilla proof per file (the bytes filecoin-proofs-api's
//! `generate_single_vanilla_proof` or `generate_partition_proofs` return,
//! as lotus and Curio keep them), or several from a JSON array of base64
//! strings (Curio's file of a sector's SnapDeals proofs), proves through the same engine and
//! backends as `c2`, and writes what filecoin-proofs-api returns for the
//! same input, after filecoin-proofs' own verifier accepted it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::circuits::ProofCircuit;
use filecoin_prover::compound::{KindResult, KindRun};
use filecoin_prover::post::{self, PoStInput, PoStKind, PoStProofType};
use filecoin_prover::proof_type::parse_sector_size;
use filecoin_prover::update::{self, UpdateCommitments, UpdateInput, UpdateProofType};
use filecoin_prover::vanilla::VanillaBytes;
use prover_daemon::proto::{ProofKind, SubmitProofRequest};
use proving_engine::{chain, EngineOptions, Event, LoadedCircuit, Observer};
use serde_json::json;

use crate::c2_cmd::{parse_hex32, ProveArgs};
use crate::daemon_cmd::prove_remotely;
use crate::output::{
    check_writable, encode_proof, peak_rss_bytes, plan_json, write_output, write_proof, Format,
};
use crate::progress::{partitions_bar, step};

/// Options every kind shares.
#[derive(Args)]
pub struct KindArgs {
    /// Vanilla proof files, one per sector (PoSt) or per partition
    /// (SnapDeals), in order: the bincode bytes filecoin-proofs-api returns;
    /// or a JSON array of them in base64, as Curio stores a sector's
    /// SnapDeals proofs (its elements in order).
    #[arg(long, value_name = "FILE", required = true, num_args = 1..)]
    vanilla: Vec<PathBuf>,
    /// Sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB): selects the current
    /// proof type of that size. Or give --proof-type (not both).
    #[arg(
        long,
        value_name = "SIZE",
        required_unless_present = "proof_type",
        conflicts_with = "proof_type"
    )]
    sector_size: Option<String>,
    /// Registered proof type, by name (StackedDrgWindow32GiBV1_2) or
    /// numeric id as Lotus and Curio send it.
    #[arg(long, value_name = "NAME|ID")]
    proof_type: Option<String>,
    /// Where to write the proof (atomically).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Output encoding (json adds "partitions").
    #[arg(long, value_enum, default_value_t = Format::Raw)]
    format: Format,
    #[command(flatten)]
    prove: ProveArgs,
    /// Also write a JSON report (times per stage, peak memory, memory
    /// plan, backend and devices).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Send the vanilla proofs to a running `pce-prover serve` (host:port
    /// or unix:///path) as Curio does, and write the proof it answers with,
    /// instead of proving here: the daemon's backend and memory settings
    /// apply, and it verifies the proof before answering.
    #[arg(long, value_name = "ADDRESS", conflicts_with = "report")]
    daemon: Option<String>,
}

/// PoSt options.
#[derive(Args)]
pub struct PoStArgs {
    #[command(flatten)]
    kind: KindArgs,
    /// The challenge randomness, 64 hex digits.
    #[arg(long, value_name = "HEX")]
    randomness: String,
    /// Prover id as 64 hex digits.
    #[arg(
        long,
        value_name = "HEX",
        conflicts_with = "miner_id",
        required_unless_present = "miner_id"
    )]
    prover_id: Option<String>,
    /// Miner actor id (the N of f0N); the prover id is derived as lotus does.
    #[arg(long, value_name = "N")]
    miner_id: Option<u64>,
}

/// Arguments of `window-post`.
#[derive(Args)]
pub struct WindowArgs {
    #[command(flatten)]
    post: PoStArgs,
    /// Prove only this partition, whose sectors the vanilla proofs are
    /// (what Curio asks of a prover; the output is that partition's 192
    /// bytes, as generate_single_window_post_with_vanilla returns them).
    #[arg(long, value_name = "K")]
    partition: Option<usize>,
}

/// Arguments of `snap-prove`.
#[derive(Args)]
pub struct SnapArgs {
    #[command(flatten)]
    kind: KindArgs,
    /// The sector's replica commitment before the update, 64 hex digits.
    #[arg(long, value_name = "HEX")]
    comm_r_old: String,
    /// Its replica commitment after the update.
    #[arg(long, value_name = "HEX")]
    comm_r_new: String,
    /// The commitment of the new data.
    #[arg(long, value_name = "HEX")]
    comm_d_new: String,
}

impl KindArgs {
    /// The proof type: `--proof-type`, else `of_size(--sector-size)`.
    fn proof_type<T>(
        &self,
        from_name: impl Fn(&str) -> Option<T>,
        from_id: impl Fn(u64) -> Option<T>,
        of_size: impl Fn(u64) -> Option<T>,
    ) -> Result<T> {
        if let Some(text) = &self.proof_type {
            let parsed = match text.parse::<u64>() {
                Ok(id) => from_id(id),
                Err(_) => from_name(text),
            };
            return parsed.with_context(|| format!("{text:?} is not a proof type of this kind"));
        }
        let text = self.sector_size.as_deref().unwrap_or_default();
        parse_sector_size(text).and_then(of_size).with_context(|| {
            format!("unknown sector size {text:?} (2KiB, 8MiB, 512MiB, 32GiB or 64GiB)")
        })
    }

    /// With `--daemon`: has the daemon prove `request` (of a proof in
    /// `partitions` partitions) and writes its answer. `None` without.
    fn prove_on_daemon(
        &self,
        label: &str,
        partitions: usize,
        request: impl FnOnce() -> Result<SubmitProofRequest>,
    ) -> Result<Option<ExitCode>> {
        let Some(address) = &self.daemon else {
            return Ok(None);
        };
        let request = request()?;
        let inputs: Vec<&Path> = self.vanilla.iter().map(PathBuf::as_path).collect();
        check_writable(&[self.out.as_path()], &inputs)?;
        let proof = prove_remotely(address, request)?;
        write_proof(
            &self.out,
            &encode_proof(self.format, label, &proof, partitions, None),
        )?;
        eprintln!("{label}: proof written to {}", self.out.display());
        Ok(Some(ExitCode::SUCCESS))
    }

    fn vanilla(&self) -> Result<Vec<VanillaBytes>> {
        let mut proofs = Vec::new();
        for path in &self.vanilla {
            proofs.extend(VanillaBytes::read_all(path)?);
        }
        Ok(proofs)
    }
}

impl PoStArgs {
    fn input(&self, kind: PoStKind, partition: Option<usize>) -> Result<PoStInput> {
        let proof_type =
            self.kind
                .proof_type(PoStProofType::from_name, PoStProofType::from_id, |size| {
                    PoStProofType::current(kind, size)
                })?;
        if proof_type.kind != kind {
            bail!("{proof_type} is not a {kind:?}PoSt proof type");
        }
        let prover_id = match (&self.prover_id, self.miner_id) {
            (Some(hex_text), _) => parse_hex32(hex_text, "--prover-id")?,
            (None, Some(miner)) => prover_id_of_miner(miner),
            (None, None) => unreachable!("clap requires --prover-id or --miner-id"),
        };
        Ok(PoStInput {
            proof_type,
            randomness: parse_hex32(&self.randomness, "--randomness")?,
            prover_id,
            vanilla_proofs: self.kind.vanilla()?,
            partition,
        })
    }

    /// The request Curio would send for `input`: one WindowPoSt partition
    /// (`partition`) or a WinningPoSt.
    fn request(
        &self,
        input: &PoStInput,
        kind: ProofKind,
        partition: usize,
    ) -> Result<SubmitProofRequest> {
        let miner = self
            .miner_id
            .context("--daemon needs --miner-id: requests name the miner, not the prover id")?;
        Ok(SubmitProofRequest {
            request_id: format!(
                "{}-{miner}-{partition}-{}",
                kind.as_str_name().to_lowercase(),
                hex::encode(&input.randomness[..4])
            ),
            proof_kind: kind.into(),
            registered_proof: input.proof_type.id(),
            sector_size: input.proof_type.sector_size,
            vanilla_proofs: request_vanilla(&input.vanilla_proofs),
            miner_id: miner,
            randomness: input.randomness.to_vec(),
            partition_index: u32::try_from(partition).context("--partition is too large")?,
            ..Default::default()
        })
    }
}

/// The vanilla proofs as a request carries them.
fn request_vanilla(proofs: &[VanillaBytes]) -> Vec<Vec<u8>> {
    proofs.iter().map(|proof| proof.bytes.clone()).collect()
}

/// `pce-prover window-post`.
pub fn window_post(args: WindowArgs) -> Result<ExitCode> {
    let input = args.post.input(PoStKind::Window, args.partition)?;
    let label = input.proof_type.to_string();
    let on_daemon = args.post.kind.prove_on_daemon(&label, 1, || {
        let partition = args.partition.context(
            "--daemon proves one partition, as Curio asks a prover to: pass --partition K",
        )?;
        args.post
            .request(&input, ProofKind::WindowPostPartition, partition)
    })?;
    if let Some(done) = on_daemon {
        return Ok(done);
    }
    run_kind(
        &args.post.kind,
        input.proof_type.into(),
        &label,
        input.num_partitions(),
        |c, e, o, d| post::prove(c, None, std::slice::from_ref(&input), e, o, d),
    )
}

/// `pce-prover winning-post`.
pub fn winning_post(args: PoStArgs) -> Result<ExitCode> {
    let input = args.input(PoStKind::Winning, None)?;
    let label = input.proof_type.to_string();
    let on_daemon = args.kind.prove_on_daemon(&label, 1, || {
        args.request(&input, ProofKind::WinningPost, 0)
    })?;
    if let Some(done) = on_daemon {
        return Ok(done);
    }
    run_kind(
        &args.kind,
        input.proof_type.into(),
        &label,
        1,
        |c, e, o, d| post::prove(c, None, std::slice::from_ref(&input), e, o, d),
    )
}

/// `pce-prover snap-prove`.
pub fn snap_prove(args: SnapArgs) -> Result<ExitCode> {
    let proof_type = args.kind.proof_type(
        UpdateProofType::from_name,
        UpdateProofType::from_id,
        UpdateProofType::of_size,
    )?;
    let input = UpdateInput {
        proof_type,
        commitments: UpdateCommitments {
            comm_r_old: parse_hex32(&args.comm_r_old, "--comm-r-old")?,
            comm_r_new: parse_hex32(&args.comm_r_new, "--comm-r-new")?,
            comm_d_new: parse_hex32(&args.comm_d_new, "--comm-d-new")?,
        },
        vanilla_proofs: args.kind.vanilla()?,
    };
    input.check_count()?;
    // As --proof-type takes it, like the other kinds' (the JSON output's
    // "proof_type").
    let label = proof_type.to_string();
    let on_daemon = args
        .kind
        .prove_on_daemon(&label, proof_type.partitions(), || {
            let UpdateCommitments {
                comm_r_old,
                comm_r_new,
                comm_d_new,
            } = input.commitments;
            Ok(SubmitProofRequest {
                request_id: format!("snap-{}", hex::encode(&comm_r_new[..8])),
                proof_kind: ProofKind::SnapDealsUpdate.into(),
                registered_proof: proof_type.id(),
                sector_size: proof_type.sector_size,
                vanilla_proofs: request_vanilla(&input.vanilla_proofs),
                comm_r_old: comm_r_old.to_vec(),
                comm_r_new: comm_r_new.to_vec(),
                comm_d_new: comm_d_new.to_vec(),
                ..Default::default()
            })
        })?;
    if let Some(done) = on_daemon {
        return Ok(done);
    }
    run_kind(
        &args.kind,
        proof_type.into(),
        &label,
        proof_type.partitions(),
        |c, e, o, d| update::prove(c, None, std::slice::from_ref(&input), e, o, d),
    )
}

/// Loads `circuit`, proves with `prove` under a progress bar, then writes
/// the proof and the report.
fn run_kind(
    args: &KindArgs,
    circuit: ProofCircuit,
    label: &str,
    partitions: usize,
    prove: impl FnOnce(
        &LoadedCircuit,
        &EngineOptions,
        Observer<'_>,
        &mut dyn FnMut(usize, &KindResult),
    ) -> Result<KindRun, filecoin_prover::C2Error>,
) -> Result<ExitCode> {
    let outputs: Vec<&Path> = std::iter::once(&args.out)
        .chain(&args.report)
        .map(PathBuf::as_path)
        .collect();
    let inputs: Vec<&Path> = args.vanilla.iter().map(PathBuf::as_path).collect();
    check_writable(&outputs, &inputs)?;
    let options = args.prove.options(None, None, false).engine;
    // Checked before minutes of recording or decoding.
    options.check_backends()?;
    let start = Instant::now();
    let loaded = step(&format!("loading the {circuit} circuit"), || {
        circuit.load(partitions > 1)
    })?;
    let bar = partitions_bar(partitions as u64);
    let observe = |event: Event<'_>| {
        if let Event::PartitionProven { .. } = event {
            bar.inc(1)
        }
    };
    let run = prove(&loaded, &options, &observe, &mut |_, _| {});
    bar.finish_and_clear();
    let mut run = run?;
    let proven = run
        .results
        .remove(0)
        .map_err(|e| anyhow::anyhow!("{label}: {}", chain(&e)))?;
    let proof = &proven.output;
    let verified = match proof.verify {
        Some(_) => "filecoin-proofs' verifier accepted the proof",
        None => "no filecoin-proofs verifier takes a single partition",
    };
    eprintln!(
        "{label}: {} partition(s), every one verified against public inputs derived from the input; {} bytes; {verified}",
        proof.partitions,
        proof.proof.len()
    );
    write_proof(
        &args.out,
        &encode_proof(args.format, label, &proof.proof, proof.partitions, None),
    )?;
    eprintln!("proof written to {}", args.out.display());
    if let Some(path) = &args.report {
        let secs = |d: std::time::Duration| d.as_secs_f64();
        let doc = json!({
            "proof_type": label,
            "partitions": proof.partitions,
            "backend": run.backend,
            "devices": run.devices.iter().map(|d| json!({"name": d.name, "partitions": d.partitions})).collect::<Vec<_>>(),
            "seconds": {
                "pce_load_or_record": secs(loaded.pce_time),
                "params_read": secs(loaded.params_time()),
                "witness": secs(proven.times.witness),
                "prove": secs(proven.times.prove),
                "finish": secs(proven.times.finish),
                "verify": proof.verify.map(secs),
                "wall": secs(start.elapsed()),
            },
            "memory": plan_json(&run.memory),
            "peak_rss_bytes": peak_rss_bytes(),
        });
        let text = serde_json::to_string_pretty(&doc).expect("serialisable") + "\n";
        write_output(path, text.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
