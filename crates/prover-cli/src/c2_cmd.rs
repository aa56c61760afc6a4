//! `c2`: prove sectors from their commit-phase-1 outputs.
//!
//! One input is written to `--out`; several (files, or the `.json` files of
//! directories) to `--out-dir/<input stem>.proof`, each as soon as its
//! sector is proven. All inputs share one PCE and one SRS and are proven
//! `--jobs` partitions at a time under `--memory-budget`. What is written
//! is what filecoin-proofs' `seal_commit_phase2` returns: the partition
//! proofs, or for non-interactive PoRep their SnarkPack aggregate (with
//! `--circuit-proofs`, the partition proofs there too, as
//! `seal_commit_phase2_circuit_proofs` returns them).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use filecoin_prover::c1::C1Input;
use filecoin_prover::c2::{prove_sectors, prover_id_of_miner, C2Options, C2Outcome, C2Run};
use filecoin_prover::circuits::ProofCircuit;
use filecoin_prover::proof_type::ProofType;
use proving_engine::chain;
use proving_engine::memory::{gib, parse_size};
use proving_engine::{Devices, EngineOptions, Event, Observer};
use serde_json::json;

use crate::output::{
    check_writable, encode, expand_inputs, peak_rss_bytes, plan_json, proof_file, report, summary,
    write_output, write_proof, Format,
};
use crate::progress::{partitions_bar, step};

/// Arguments of `c2`.
#[derive(Args)]
#[command(group(clap::ArgGroup::new("output").required(true).args(["out", "out_dir"])))]
pub struct C2Args {
    /// Commit-phase-1 outputs: filecoin-proofs JSON, filecoin-proofs-api
    /// JSON, or lotus-bench's c1.json (detected automatically). Repeat the
    /// option or list several; a directory stands for its *.json files.
    /// All must be of one proof type.
    #[arg(long, value_name = "FILE|DIR", required = true, num_args = 1..)]
    c1: Vec<PathBuf>,
    /// Where to write the proof of a single input (written atomically).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Directory for the proofs of any number of inputs: the proof of
    /// IN.json (or any IN.ext) is written atomically to DIR/IN.proof as soon
    /// as its sector is done. Inputs with the same stem are refused.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Output encoding of the proof: 192 bytes per partition, or for
    /// non-interactive PoRep the SnarkPack aggregate (json adds
    /// "partitions" and, for non-interactive PoRep, "partition_proofs" in
    /// base64, what `aggregate` takes).
    #[arg(long, value_enum, default_value_t = Format::Raw)]
    format: Format,
    /// Write a non-interactive sector's partition proofs (192 bytes each),
    /// not their SnarkPack aggregate: what filecoin-proofs'
    /// seal_commit_phase2_circuit_proofs returns, for `aggregate` to put
    /// several sectors into one proof later. Needs no SnarkPack SRS. An
    /// interactive sector's proof is its partition proofs anyway.
    #[arg(long)]
    circuit_proofs: bool,
    #[command(flatten)]
    prove: ProveArgs,
    /// The prover id, to check the proof with verify_seal.
    #[command(flatten)]
    prover: ProverIdArgs,
    /// Sector number, to check the proof with verify_seal (lotus-bench's
    /// SectorNum is used when this is not given). Only with a single input.
    #[arg(long, value_name = "N")]
    sector_id: Option<u64>,
    /// Proof type, for filecoin-proofs JSON whose variant cannot be detected
    /// (e.g. StackedDrg2KiBV1_1_Feat_SyntheticPoRep); files that name
    /// their own (lotus-bench, Curio, filecoin-proofs-api) must agree.
    #[arg(long, value_name = "NAME")]
    proof_type: Option<String>,
    /// Also write a JSON report (times per stage, peak memory, memory
    /// plan, backend; with several inputs, one entry per sector).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
}

/// The miner's prover id, given or derived from its actor id.
#[derive(Args)]
pub struct ProverIdArgs {
    /// Prover id as 64 hex digits.
    #[arg(long, value_name = "HEX", conflicts_with = "miner_id")]
    prover_id: Option<String>,
    /// Miner actor id (the N of f0N); the prover id is derived as lotus does.
    #[arg(long, value_name = "N")]
    miner_id: Option<u64>,
}

impl ProverIdArgs {
    /// The prover id, when either option was given.
    pub fn prover_id(&self) -> Result<Option<[u8; 32]>> {
        Ok(match (&self.prover_id, self.miner_id) {
            (Some(hex_text), _) => Some(parse_hex32(hex_text, "--prover-id")?),
            (None, Some(miner)) => Some(prover_id_of_miner(miner)),
            (None, None) => None,
        })
    }
}

/// The proof type named by `--proof-type`, when given.
pub fn parse_proof_type(name: Option<&str>) -> Result<Option<ProofType>> {
    name.map(|name| {
        ProofType::from_name(name).with_context(|| format!("unknown proof type {name:?}"))
    })
    .transpose()
}

/// The CPU backend's name: the default backend and the default fallback.
const CPU_BACKEND: &str = "cpu";

/// Backend and pipeline options shared by `c2` and `demo`.
#[derive(Args, Clone)]
pub struct ProveArgs {
    /// Backend: cpu, opencl, cuda, or the path of a plugin library.
    #[arg(long, default_value = CPU_BACKEND)]
    pub backend: String,
    /// Device to prove on: an index (see `pce-prover devices BACKEND`), or
    /// `all` to spread the partitions over every device of the backend,
    /// each with its own --jobs provers and its own copy of the parameters.
    #[arg(long, value_name = "INDEX|all", default_value = "all", value_parser = parse_devices)]
    pub device: Devices,
    /// Partitions in memory at once: with --jobs J on D
    /// devices, at most J·D + N - 1, the witnesses of those not being
    /// proven generated meanwhile, one thread each. More keeps a many-core
    /// host's cores busy where one partition's witness uses few threads
    /// (a SnapDeals partition one, a 32 GiB PoRep partition one per
    /// challenge, 18).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    pub partitions_in_flight: u64,
    /// Partitions proven at once, from one sector or several (they share
    /// the PCE and the parameters; each adds its working set, see
    /// docs/memory.md).
    #[arg(short = 'j', long = "jobs", value_name = "J", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: u64,
    /// Memory the run may use, e.g. 16GiB or 12G (default: three quarters
    /// of physical memory, or of the container's limit where less).
    /// Partitions are admitted only while the memory model says they fit;
    /// a budget below what one partition needs is refused before any
    /// proving. The peak may exceed it by the stated
    /// margin (256 MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory_budget: Option<u64>,
    /// Backend that proves a partition again when --backend fails it (an
    /// error, or a proof that does not verify), or `none`. Default: `cpu`
    /// behind any other backend, so that a GPU fault costs time, not the
    /// proof; `none` with --backend cpu.
    #[arg(long, value_name = "BACKEND|none")]
    pub fallback: Option<String>,
}

/// `all` or a device index.
fn parse_devices(text: &str) -> Result<Devices, String> {
    match text {
        "all" => Ok(Devices::All),
        index => index
            .parse()
            .map(Devices::One)
            .map_err(|_| format!("{index:?} is neither a device index nor `all`")),
    }
}

impl ProveArgs {
    /// The fallback backend: as given (`none` for none), else the CPU's
    /// behind any other backend.
    fn fallback_backend(&self) -> Option<String> {
        match self.fallback.as_deref() {
            Some("none") => None,
            Some(backend) => Some(backend.to_owned()),
            None => (self.backend != CPU_BACKEND).then(|| CPU_BACKEND.to_owned()),
        }
    }

    /// Options for [`filecoin_prover::c2::run`].
    pub fn options(
        &self,
        prover_id: Option<[u8; 32]>,
        sector_id: Option<u64>,
        circuit_proofs: bool,
    ) -> C2Options {
        C2Options {
            engine: EngineOptions {
                backend: self.backend.clone(),
                devices: self.device,
                partitions_in_flight: self.partitions_in_flight as usize,
                jobs: self.jobs as usize,
                memory_budget: self.memory_budget,
                randomness: None,
                cancel: None,
                fallback: self.fallback_backend(),
                between_partitions: None,
            },
            prover_id,
            sector_id,
            circuit_proofs,
        }
    }
}

/// The 32 bytes of `hex_text` (64 hex digits, `0x` allowed), the value
/// of option `option`.
pub fn parse_hex32(hex_text: &str, option: &str) -> Result<[u8; 32]> {
    let bytes = hex::decode(hex_text.trim_start_matches("0x"))
        .with_context(|| format!("{option} is not hexadecimal"))?;
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| anyhow::anyhow!("{option} must be 32 bytes, got {}", b.len()))
}

/// `dir/<stem>.proof` for each input; two inputs with one stem are refused.
fn proof_paths(inputs: &[PathBuf], dir: &Path) -> Result<Vec<PathBuf>> {
    let mut seen: HashMap<PathBuf, &Path> = HashMap::new();
    inputs
        .iter()
        .map(|input| {
            let out = proof_file(dir, input)?;
            if let Some(other) = seen.insert(out.clone(), input) {
                bail!(
                    "{} and {} would both be written to {}; rename one",
                    other.display(),
                    input.display(),
                    out.display()
                );
            }
            Ok(out)
        })
        .collect()
}

/// Proves `input` and prints a summary; shared with `demo`.
pub fn prove_and_summarise(input: &C1Input, options: &C2Options) -> Result<C2Outcome> {
    prove_observed(input, options, &|_| {})
}

/// [`prove_and_summarise`], with `observer` watching the engine.
pub fn prove_observed(
    input: &C1Input,
    options: &C2Options,
    observer: Observer<'_>,
) -> Result<C2Outcome> {
    let outcome = step(
        &format!(
            "proving {} ({}) with the {} backend",
            input.path.display(),
            input.proof_type,
            options.engine.backend
        ),
        || {
            prove_sectors(
                std::slice::from_ref(input),
                options,
                observer,
                &mut |_, _| {},
            )
            .and_then(|mut run| run.outcomes.remove(0))
        },
    )?;
    eprintln!("{}", summary(&outcome.sector));
    Ok(outcome)
}

/// The value most often seen in `values`, the first seen of those seen as
/// often; `None` for none.
fn most_common<T: PartialEq + Copy>(values: impl IntoIterator<Item = T>) -> Option<T> {
    let mut counts: Vec<(T, usize)> = Vec::new();
    for value in values {
        match counts.iter_mut().find(|(seen, _)| *seen == value) {
            Some((_, count)) => *count += 1,
            None => counts.push((value, 1)),
        }
    }
    // `max_by_key` keeps the last of equal maxima: reversed, the first.
    counts
        .into_iter()
        .rev()
        .max_by_key(|&(_, count)| count)
        .map(|(value, _)| value)
}

/// `pce-prover c2`.
pub fn c2(args: C2Args) -> Result<ExitCode> {
    let proof_type = parse_proof_type(args.proof_type.as_deref())?;
    let prover_id = args.prover.prover_id()?;
    let paths = expand_inputs(&args.c1)?;
    let outs = match (&args.out, &args.out_dir) {
        (Some(out), _) if paths.len() == 1 => vec![out.clone()],
        (Some(_), _) => bail!(
            "--out takes the proof of one input, and {} were given: use --out-dir DIR",
            paths.len()
        ),
        (None, Some(dir)) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            proof_paths(&paths, dir)?
        }
        (None, None) => unreachable!("clap requires --out or --out-dir"),
    };
    if args.sector_id.is_some() && paths.len() > 1 {
        bail!("--sector-id names the sector of a single input; lotus-bench c1.json files carry their own");
    }
    // An input that cannot be read fails alone: the others are proven.
    let (mut read, mut unreadable) = (Vec::new(), Vec::new());
    for (path, out) in paths.iter().zip(outs) {
        match C1Input::read(path, proof_type) {
            Ok(input) => read.push((input, out)),
            Err(e) if paths.len() == 1 => return Err(e.into()),
            Err(e) => {
                eprintln!("error: {e}");
                unreadable.push(json!({"c1": path.display().to_string(), "error": e.to_string()}));
            }
        }
    }
    // One circuit per run: the proof type of most inputs (the first in
    // order of those as common), so that one stray file does not fail the
    // rest; an input of another type fails alone, as an unreadable one.
    let Some(proven) = most_common(read.iter().map(|(input, _)| input.proof_type)) else {
        bail!("none of the {} C1 outputs could be read", paths.len());
    };
    let (mut inputs, mut outs) = (Vec::new(), Vec::new());
    for (input, out) in read {
        if input.proof_type == proven {
            inputs.push(input);
            outs.push(out);
        } else {
            let error = format!(
                "{}: a {} sector, where this run proves {}, the proof type of most inputs (one proof type per run)",
                input.path.display(),
                input.proof_type,
                proven
            );
            eprintln!("error: {error}");
            unreadable.push(json!({"c1": input.path.display().to_string(), "error": error}));
        }
    }
    let outputs: Vec<&Path> = outs
        .iter()
        .chain(&args.report)
        .map(PathBuf::as_path)
        .collect();
    let read: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    check_writable(&outputs, &read)?;
    let options = args
        .prove
        .options(prover_id, args.sector_id, args.circuit_proofs);
    // Checked before minutes of recording or decoding.
    options.engine.check_backends()?;
    let circuit = ProofCircuit::from(inputs[0].proof_type);
    let pce = circuit.files()?.pce;
    if !pce.exists() {
        eprintln!(
            "recording the {circuit} circuit into {} first (once: at 32 GiB one to a few \
             minutes; `pce-prover params record` does it ahead)",
            pce.display()
        );
    }
    let start = Instant::now();
    let (run, unwritten) = prove_and_write(&inputs, &options, &outs, args.format)?;
    let write_errors = unwritten.iter().flatten().count();
    let wall = start.elapsed();
    let failed = run.outcomes.iter().filter(|o| o.is_err()).count() + unreadable.len();
    if run.devices.len() > 1 {
        let shares: Vec<String> = run
            .devices
            .iter()
            .map(|d| format!("{}: {}", d.name, d.partitions))
            .collect();
        eprintln!("partitions per device: {}", shares.join("; "));
    }
    if let Some(path) = &args.report {
        // A proof that could not be written is reported with why.
        let sector_report = |outcome, unwritten: &Option<String>| {
            let mut report = report(outcome);
            if let Some(error) = unwritten {
                report["write_error"] = json!(error);
            }
            report
        };
        let mut doc = match &run.outcomes[..] {
            [Ok(outcome)] if unreadable.is_empty() => sector_report(outcome, &unwritten[0]),
            outcomes => json!({
                "sectors": inputs.iter().zip(outcomes).zip(&unwritten).map(|((input, outcome), unwritten)| {
                    let c1 = input.path.display().to_string();
                    match outcome {
                        Ok(outcome) => json!({"c1": c1, "report": sector_report(outcome, unwritten)}),
                        Err(e) => json!({"c1": c1, "error": chain(e)}),
                    }
                }).chain(unreadable).collect::<Vec<_>>(),
                "wall_seconds": wall.as_secs_f64(),
                "peak_rss_bytes": peak_rss_bytes(),
            }),
        };
        doc["memory"] = plan_json(&run.memory);
        doc["devices"] = run
            .devices
            .iter()
            .map(|d| json!({"name": d.name, "partitions": d.partitions}))
            .collect();
        let text = serde_json::to_string_pretty(&doc).expect("serialisable") + "\n";
        write_output(path, text.as_bytes())?;
    }
    if failed + write_errors > 0 {
        bail!(
            "{failed} of {} sector(s) failed, {write_errors} proof(s) could not be written (see above)",
            paths.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Proves `inputs` with a progress bar, writing the proof of input `i` to
/// `outs[i]` on this thread as soon as it is done; returns the run and,
/// per input, why its proof could not be written.
fn prove_and_write(
    inputs: &[C1Input],
    options: &C2Options,
    outs: &[PathBuf],
    format: Format,
) -> Result<(C2Run, Vec<Option<String>>)> {
    let total: usize = inputs.iter().map(C1Input::num_partitions).sum();
    let bar = partitions_bar(total as u64);
    let mut unwritten = vec![None; inputs.len()];
    let say = |line: String| bar.suspend(|| eprintln!("{line}"));
    let observe = |event: Event<'_>| match event {
        Event::Ready { plan } => say(format!(
            "memory: budget {}, static {}, {} per partition; {} partition(s) in flight at most",
            gib(plan.budget),
            gib(plan.model.static_bytes()),
            gib(plan.model.per_partition()),
            plan.slots
        )),
        Event::PartitionProven { .. } => bar.inc(1),
        // The engine logs it as a warning, with the job and the error.
        Event::FallingBack { .. } | Event::DeviceFailed { .. } | Event::WitnessReady { .. } => {}
    };
    let run = prove_sectors(inputs, options, &observe, &mut |sector, result| {
        let input = &inputs[sector];
        match result {
            Ok(proven) => {
                let proof_type = input.proof_type.to_string();
                let written =
                    write_proof(&outs[sector], &encode(format, &proof_type, &proven.output));
                say(format!(
                    "{}: {}",
                    input.path.display(),
                    summary(&proven.output)
                ));
                match written {
                    Ok(()) => say(format!("proof written to {}", outs[sector].display())),
                    Err(e) => {
                        say(format!("error: {e:#}"));
                        unwritten[sector] = Some(format!("{e:#}"));
                    }
                }
            }
            Err(e) => say(format!("error: {}: {}", input.path.display(), chain(e))),
        }
    });
    bar.finish_and_clear();
    Ok((run?, unwritten))
}

#[cfg(test)]
mod tests {
    use super::most_common;

    #[test]
    fn the_most_common_value_wins_and_the_first_seen_breaks_ties() {
        assert_eq!(most_common([2, 1, 1, 3]), Some(1));
        assert_eq!(most_common([2, 1, 1, 2, 3]), Some(2));
        assert_eq!(most_common([3]), Some(3));
        assert_eq!(most_common(Vec::<u8>::new()), None);
    }
}
