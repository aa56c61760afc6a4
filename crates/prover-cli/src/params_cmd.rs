//! `params gen`: insecure random parameters for tests.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use porep_c2::params::ensure_test_params;
use porep_c2::proof_type::{parse_sector_size, ProofType, Variant};

use crate::progress::step;

/// `params` subcommands.
#[derive(Subcommand)]
pub enum ParamsCommand {
    /// Write random Groth16 parameters for a PoRep circuit into the
    /// parameter cache ($FIL_PROOFS_PARAMETER_CACHE, default
    /// /var/tmp/filecoin-proof-parameters).
    ///
    /// INSECURE, FOR TESTING ONLY: whoever generates them can forge proofs.
    /// Real sectors need the published parameters. Generated from the
    /// recorded circuit, much faster than filecoin-proofs' generator.
    Gen(GenArgs),
}

/// Arguments of `params gen`.
#[derive(Args)]
pub struct GenArgs {
    /// Sector size: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
    #[arg(long, value_name = "SIZE")]
    sector_size: String,
    /// Parameters of the non-interactive PoRep circuit.
    #[arg(long)]
    non_interactive: bool,
    /// Seed of the random toxic waste (the same seed gives the same files).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Overwrite parameters that already exist.
    #[arg(long)]
    force: bool,
}

/// `pce-prover params ...`.
pub fn params(command: ParamsCommand) -> Result<ExitCode> {
    let ParamsCommand::Gen(args) = command;
    let size = parse_sector_size(&args.sector_size).with_context(|| {
        format!(
            "unknown sector size {:?} (2KiB, 8MiB, 512MiB, 32GiB or 64GiB)",
            args.sector_size
        )
    })?;
    let mut proof_type = ProofType::interactive(size).expect("registered size");
    if args.non_interactive {
        proof_type.variant = Variant::NonInteractive;
    }
    eprintln!("generating INSECURE test parameters for {proof_type}: for testing only, never for real sectors");
    let (files, generated) = step("recording the circuit and generating parameters", || {
        ensure_test_params(proof_type, args.seed, args.force)
    })?;
    if !generated {
        eprintln!("parameters already exist (use --force to replace them)");
    }
    println!("{}", files.params.display());
    println!("{}", files.vk.display());
    Ok(ExitCode::SUCCESS)
}
