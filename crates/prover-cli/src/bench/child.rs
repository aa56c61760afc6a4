//! Running this executable as a child process, so that what it measures
//! (its peak resident memory above all) is its own.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

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
    let what = || {
        format!(
            "reading the report of `pce-prover {}`, {}",
            args.join(" "),
            report.display()
        )
    };
    let report =
        serde_json::from_slice(&std::fs::read(report).with_context(what)?).with_context(what)?;
    Ok((wall, report))
}
