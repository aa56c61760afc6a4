//! `params gen`: insecure random parameters for tests (and, for
//! non-interactive PoRep, an insecure SnarkPack SRS).

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use filecoin_prover::aggregate::{ensure_test_srs, test_srs_size};
use filecoin_prover::circuits::{ProofCircuit, KINDS};
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::proof_type::{parse_sector_size, ProofType, Variant};

use crate::progress::step;

/// `params` subcommands.
#[derive(Subcommand)]
pub enum ParamsCommand {
    /// Write random Groth16 parameters for a circuit (PoRep by default;
    /// --kind for WindowPoSt, WinningPoSt or SnapDeals) into the parameter
    /// cache ($FIL_PROOFS_PARAMETER_CACHE, default
    /// /var/tmp/filecoin-proof-parameters).
    ///
    /// INSECURE, FOR TESTING ONLY: whoever generates them can forge proofs.
    /// Real sectors need the published parameters. Generated from the
    /// recorded circuit, much faster than filecoin-proofs' generator.
    ///
    /// The files are named as filecoin-proofs names them; non-interactive
    /// PoRep shares the circuit, and so the files, of the interactive PoRep
    /// of its sector size. With --non-interactive, an insecure SnarkPack SRS
    /// (v28-fil-inner-product-v1.srs, to aggregate the partition proofs) is
    /// also written when the cache has none; an existing one is never
    /// replaced.
    Gen(GenArgs),
}

/// Arguments of `params gen`.
#[derive(Args)]
pub struct GenArgs {
    /// Sector size: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
    #[arg(long, value_name = "SIZE")]
    sector_size: String,
    /// The proof kind whose circuit to generate parameters for.
    #[arg(long, default_value = "porep", value_parser = clap::builder::PossibleValuesParser::new(KINDS))]
    kind: String,
    /// For non-interactive PoRep: the same circuit parameters, and a test
    /// SnarkPack SRS if there is none.
    #[arg(long)]
    non_interactive: bool,
    /// Seed of the random toxic waste (the same seed gives the same files).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Overwrite parameters that already exist (never an existing SRS).
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
    let mut circuit = ProofCircuit::of_kind(&args.kind, &size.to_string())
        .with_context(|| format!("no {} circuit of {size} bytes", args.kind))?;
    if args.non_interactive {
        let ProofCircuit::Seal(interactive) = circuit else {
            bail!("--non-interactive is for PoRep (--kind porep)");
        };
        let proof_type = ProofType {
            variant: Variant::NonInteractive,
            ..interactive
        };
        eprintln!(
            "{proof_type} proves each partition with the circuit of {interactive}: \
             filecoin-proofs gives both the same parameter files"
        );
        circuit = proof_type.into();
    }
    eprintln!("generating INSECURE test parameters for {circuit}: for testing only, never for real sectors");
    let (files, generated) = step("recording the circuit and generating parameters", || {
        ensure_test_params(circuit, args.seed, args.force)
    })?;
    if !generated {
        eprintln!("parameters already exist (use --force to replace them)");
    }
    println!("{}", files.params.display());
    println!("{}", files.vk.display());
    if args.non_interactive {
        let (srs, written) = step("checking the SnarkPack SRS", || ensure_test_srs(args.seed))?;
        if written {
            eprintln!(
                "wrote an INSECURE test SnarkPack SRS ({} proofs at most, seed {}) to {}: \
                 for testing only, never for real sectors (the production SRS comes with the Filecoin proof parameters)",
                test_srs_size(),
                args.seed,
                srs.display()
            );
        } else {
            eprintln!(
                "SnarkPack SRS already exists, left as it is: {}",
                srs.display()
            );
        }
        println!("{}", srs.display());
    }
    Ok(ExitCode::SUCCESS)
}
