//! `pce-prover`: the command-line front end.
//!
//! A thin layer over the libraries: argument parsing, logging, exit codes.
//! Each subcommand lives in its own module.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod backend_cmd;

/// Exit status when a backend has no driver or no device (e.g. the CUDA
/// backend on a machine without an NVIDIA driver).
pub const EXIT_BACKEND_UNAVAILABLE: u8 = 3;

/// A Groth16 prover for Filecoin Proof-of-Replication commit phase 2.
///
/// Proving itself is not available yet; this build checks and lists
/// backend plugins. Backends are shared libraries chosen with a name (cpu,
/// opencl, cuda) or a path; names are looked up in $PCE_BACKEND_DIR, then
/// next to this executable. Set RUST_LOG=debug for details.
#[derive(Parser)]
#[command(name = "pce-prover", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a backend plugin against reference NTT and MSM implementations.
    ///
    /// Runs NTTs of sizes 2^1..2^N (forward, inverse, coset, batches) and
    /// G1/G2 MSMs with zero, one and r-1 scalars, points at infinity,
    /// repeated points, batches and offsets, comparing each with
    /// bellperson's CPU implementation. Prints one row per case and exits
    /// with 0 if all pass, 1 if any fails, 3 if the backend has no driver or
    /// device, 4 if it cannot be loaded.
    BackendCheck(backend_cmd::CheckArgs),
    /// List the devices of a backend plugin.
    Devices(backend_cmd::DevicesArgs),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::BackendCheck(args) => backend_cmd::check(args),
        Command::Devices(args) => backend_cmd::devices(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
