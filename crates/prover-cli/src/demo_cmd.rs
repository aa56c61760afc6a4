//! `demo`: a real C2 proof on a freshly sealed 2 KiB sector, and on a new
//! backend the first check that matters: its proof equals a trusted
//! backend's, byte for byte, with the same r and s.

use std::process::ExitCode;
use std::sync::{Mutex, PoisonError};

use anyhow::{bail, Context, Result};
use clap::Args;
use filecoin_prover::c1::C1Input;
use filecoin_prover::c2::{C2Options, C2Outcome};
use filecoin_prover::params::ensure_test_params;
use filecoin_testkit::test_sector::seal_2kib;
use proving_engine::pipeline::fresh_randomness;
use proving_engine::{Devices, EngineOptions, Event};

use crate::c2_cmd::{prove_and_summarise, prove_observed, ProveArgs};
use crate::output::report;
use crate::progress::step;

/// Arguments of `demo`.
#[derive(Args)]
pub struct DemoArgs {
    #[command(flatten)]
    prove: ProveArgs,
    /// Also prove the sector with this backend (device 0), with the same r
    /// and s: the two proofs must be identical byte for byte, e.g.
    /// `demo --backend cuda --reference cpu` on a new GPU. The reference
    /// then stands in only for the MSMs the backend declines as
    /// unsupported (a G1-only backend's G2 MSMs, or a GPU's whose G2
    /// kernels failed their self-test), as the prover's fallback does; a
    /// partition the backend fails fails the demo, instead of being proven
    /// by the reference and compared with itself (so --fallback is refused
    /// with it).
    #[arg(long, value_name = "BACKEND")]
    reference: Option<String>,
}

/// Proves `input` again on `reference` with the r and s of `options`, and
/// fails unless the proof equals `outcome`'s.
fn compare_with(
    reference: &str,
    input: &C1Input,
    options: &C2Options,
    outcome: &C2Outcome,
) -> Result<()> {
    let options = C2Options {
        engine: EngineOptions {
            backend: reference.to_owned(),
            devices: Devices::One(0),
            ..options.engine.clone()
        },
        ..options.clone()
    };
    let expected = prove_and_summarise(input, &options)
        .with_context(|| format!("proving with the reference backend {reference}"))?;
    if expected.sector.proof != outcome.sector.proof {
        bail!(
            "the proofs of {} and of the reference {} differ with the same r and s, though each verified",
            outcome.backend,
            expected.backend
        );
    }
    eprintln!(
        "identical, byte for byte, to the proof of the reference backend {} (same r and s)",
        expected.backend
    );
    Ok(())
}

/// Proves `input` as [`prove_and_summarise`] does, but fails if any
/// partition had to be proven again on `options`' fallback backend (the
/// reference): the demo checks the backend's own proofs.
fn prove_on_the_backend_itself(input: &C1Input, options: &C2Options) -> Result<C2Outcome> {
    let proven_again = Mutex::new(Vec::new());
    let observer = |event: Event<'_>| {
        if let Event::FallingBack {
            partition, error, ..
        } = event
        {
            let mut proven_again = proven_again.lock().unwrap_or_else(PoisonError::into_inner);
            proven_again.push(format!("partition {partition}: {error}"));
        }
    };
    let outcome = prove_observed(input, options, &observer);
    let proven_again = proven_again
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    if !proven_again.is_empty() {
        bail!(
            "the {} backend failed {} partition(s), which the reference then proved: {}",
            options.engine.backend,
            proven_again.len(),
            proven_again.join("; ")
        );
    }
    outcome
}

/// What the names of `demo`'s working directories start with, followed by
/// the process id: a directory whose process is gone was left by a run
/// that died (a crashing plugin, SIGKILL) and is removed by a later run.
const WORK_DIR_PREFIX: &str = "pce-prover-demo-";

/// How long a directory must have been left unmodified before it is taken
/// for a dead run's: a process id means nothing to a demo of another pid
/// namespace (a container) sharing the temporary directory.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// A fresh working directory in the system's temporary directory, removed
/// when dropped, after removing those that dead runs left there (their
/// process gone, unmodified for [`STALE_AFTER`]).
fn work_dir() -> Result<tempfile::TempDir> {
    let parent = std::env::temp_dir();
    if let Ok(entries) = std::fs::read_dir(&parent) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|name| name.strip_prefix(WORK_DIR_PREFIX))
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<libc::pid_t>().ok())
            else {
                continue;
            };
            let unmodified = entry
                .metadata()
                .and_then(|metadata| metadata.modified())
                .ok()
                .and_then(|modified| modified.elapsed().ok());
            if !process_exists(pid) && unmodified.is_some_and(|age| age > STALE_AFTER) {
                match std::fs::remove_dir_all(entry.path()) {
                    Ok(()) => {
                        tracing::info!(path = %entry.path().display(), "removed the working directory of a demo that died")
                    }
                    Err(error) => {
                        tracing::warn!(path = %entry.path().display(), %error, "could not remove the working directory of a demo that died")
                    }
                }
            }
        }
    }
    tempfile::Builder::new()
        .prefix(&format!("{WORK_DIR_PREFIX}{}-", std::process::id()))
        .tempdir_in(&parent)
        .with_context(|| format!("creating a working directory in {}", parent.display()))
}

/// Whether process `pid` exists (a process of another user counts).
fn process_exists(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 sends nothing; kill only checks that the process
    // exists and may be signalled.
    let status = unsafe { libc::kill(pid, 0) };
    status == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// `pce-prover demo`.
pub fn demo(args: DemoArgs) -> Result<ExitCode> {
    let DemoArgs {
        prove: args,
        reference,
    } = args;
    if reference.is_some() && args.fallback.as_deref().is_some_and(|f| f != "none") {
        bail!(
            "--fallback cannot be used with --reference: the demo checks the backend's own proofs"
        );
    }
    let dir = work_dir()?;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let sector = step("sealing a 2 KiB sector (pre-commit 1, 2, commit 1)", || {
        seal_2kib(seed, dir.path())
    })?;
    let c1_path = dir.path().join("c1.json");
    std::fs::write(
        &c1_path,
        serde_json::to_vec(&sector.c1).context("encoding the C1 output")?,
    )
    .with_context(|| format!("writing {}", c1_path.display()))?;
    let input = C1Input::read(&c1_path, None)?;
    let (files, generated) = step(
        "checking test parameters (generated once, insecure)",
        || ensure_test_params(input.proof_type, 0, false),
    )?;
    if generated {
        eprintln!(
            "generated INSECURE test parameters in {}",
            files.params.display()
        );
    }
    let mut options = args.options(
        Some(sector.prover_id),
        Some(u64::from(sector.sector_id)),
        false,
    );
    let outcome = match &reference {
        None => prove_and_summarise(&input, &options)?,
        Some(reference) => {
            options.engine.randomness = Some(fresh_randomness(input.num_partitions()));
            options.engine.fallback = Some(reference.clone());
            let outcome = prove_on_the_backend_itself(&input, &options)?;
            compare_with(reference, &input, &options, &outcome)?;
            outcome
        }
    };
    println!(
        "proof ({}, {} bytes): {}",
        outcome.proof_type,
        outcome.sector.proof.len(),
        hex::encode(&outcome.sector.proof)
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&report(&outcome)).expect("serialisable")
    );
    Ok(ExitCode::SUCCESS)
}
