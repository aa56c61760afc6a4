//! `demo`: a real C2 proof on a freshly sealed 2 KiB sector.

use std::process::ExitCode;

use anyhow::{Context, Result};
use porep_c2::c1::C1Input;
use porep_c2::params::ensure_test_params;
use porep_c2::test_sector::seal_2kib;

use crate::c2_cmd::{prove_and_summarise, report, ProveArgs};
use crate::progress::step;

/// `pce-prover demo`.
pub fn demo(args: ProveArgs) -> Result<ExitCode> {
    let dir = tempfile::tempdir().context("creating a temporary directory")?;
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
    let options = args.options(Some(sector.prover_id), Some(u64::from(sector.sector_id)));
    let outcome = prove_and_summarise(&input, &options)?;
    println!(
        "proof ({}, {} bytes): {}",
        outcome.proof_type,
        outcome.proof.len(),
        hex::encode(&outcome.proof)
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&report(&outcome)).expect("serialisable")
    );
    Ok(ExitCode::SUCCESS)
}
