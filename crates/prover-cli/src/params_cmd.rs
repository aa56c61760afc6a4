//! `params gen`: insecure random parameters for tests (and, for
//! non-interactive PoRep, an insecure SnarkPack SRS); `params record`:
//! circuits recorded into their PCE files ahead of proving.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use filecoin_prover::aggregate::{ensure_test_srs, srs_path, test_srs_size};
use filecoin_prover::circuits::{ProofCircuit, KINDS};
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::proof_type::{parse_sector_size, ProofType, Variant};
use proving_engine::memory::gib;

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
    /// Record circuits into their PCE files in the parameter cache, next
    /// to their parameters, ahead of proving.
    ///
    /// `c2`, `window-post`, `winning-post`, `snap-prove` and `serve` record
    /// a circuit the first time they need it: at 32 GiB that takes one to a
    /// few minutes and up to 14 GiB of memory a circuit (2 cores;
    /// docs/benchmarks.md), which a running daemon does not count in its
    /// memory budget. Recording them here first, when the machine is
    /// otherwise idle (as parameters are fetched before proving), leaves
    /// the daemon only PCE files to read, each counted before it is read.
    /// A PCE file that exists is read and checked (checksum and
    /// structure) and recorded again if it is unusable. Needs no
    /// parameters and no sector. Prints each PCE file's path.
    Record(RecordArgs),
}

/// Arguments of `params record`.
#[derive(Args)]
pub struct RecordArgs {
    /// Sector size: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
    #[arg(long, value_name = "SIZE")]
    sector_size: String,
    /// A proof kind whose circuit to record (repeat for several); every
    /// kind when none is named.
    #[arg(long = "kind", value_name = "KIND", value_parser = clap::builder::PossibleValuesParser::new(KINDS))]
    kinds: Vec<String>,
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
    /// Allow 32GiB and 64GiB, the sizes mainnet and calibnet prove with
    /// the published parameters: a cache holding insecure ones makes
    /// proofs the chain rejects. Point FIL_PROOFS_PARAMETER_CACHE at a
    /// directory of its own for them. With --non-interactive, also allows
    /// the insecure SnarkPack SRS (which serves every size) into a cache
    /// holding parameters of these sizes.
    #[arg(long)]
    insecure_production_size: bool,
}

/// The sector sizes the networks prove with the published parameters.
const PRODUCTION_SIZES: [u64; 2] = [32 << 30, 64 << 30];

/// An error unless insecure test parameters may be written for `circuit`:
/// only with `allowed` for the production sizes.
pub fn insecure_parameters_allowed(circuit: ProofCircuit, allowed: bool) -> Result<()> {
    let size = circuit.sector_size();
    if PRODUCTION_SIZES.contains(&size) && !allowed {
        let files = circuit.files()?;
        bail!(
            "refusing to write insecure test parameters for {} GiB sectors into {} without \
             --insecure-production-size: proofs made with them are rejected by the chain. \
             Give them a cache of their own (FIL_PROOFS_PARAMETER_CACHE=DIR)",
            size >> 30,
            files.params.parent().unwrap_or(&files.params).display()
        );
    }
    Ok(())
}

/// The parameter files of the production sizes (every kind) in the cache.
fn production_parameters_in_cache() -> Result<Vec<std::path::PathBuf>> {
    let mut found = Vec::new();
    for size in PRODUCTION_SIZES {
        for kind in KINDS {
            let files = circuit_of(kind, size)?.files()?;
            found.extend([files.params, files.vk].into_iter().filter(|f| f.exists()));
        }
    }
    Ok(found)
}

/// An error unless an insecure SnarkPack SRS may be written into the
/// cache, where there is none yet: the SRS serves every sector size, so
/// in a cache holding production parameters (a node's) it would be used
/// for real sectors, whose aggregates the chain rejects. Such a cache
/// takes it only with `allowed` (a cache of insecure production-size
/// parameters for tests).
fn insecure_srs_allowed(allowed: bool) -> Result<()> {
    let srs = srs_path();
    if allowed || srs.exists() {
        return Ok(());
    }
    let production = production_parameters_in_cache()?;
    if let Some(first) = production.first() {
        bail!(
            "refusing to write an insecure test SnarkPack SRS to {}: this cache holds parameters \
             of production sector sizes ({}{}), and the SRS serves every size, so real sectors' \
             aggregates would be made with it and rejected by the chain (the production SRS comes \
             with the Filecoin proof parameters). Give tests a cache of their own \
             (FIL_PROOFS_PARAMETER_CACHE=DIR), or pass --insecure-production-size if this one \
             holds only insecure parameters",
            srs.display(),
            first.display(),
            match production.len() - 1 {
                0 => String::new(),
                more => format!(" and {more} more"),
            }
        );
    }
    Ok(())
}

/// `pce-prover params ...`.
pub fn params(command: ParamsCommand) -> Result<ExitCode> {
    match command {
        ParamsCommand::Gen(args) => generate(args),
        ParamsCommand::Record(args) => record(args),
    }
}

/// The sector size `text` names, in bytes.
fn sector_size(text: &str) -> Result<u64> {
    parse_sector_size(text).with_context(|| {
        format!("unknown sector size {text:?} (2KiB, 8MiB, 512MiB, 32GiB or 64GiB)")
    })
}

/// The circuit of proof kind `kind` for sectors of `size` bytes.
fn circuit_of(kind: &str, size: u64) -> Result<ProofCircuit> {
    ProofCircuit::of_kind(kind, &size.to_string())
        .with_context(|| format!("no {kind} circuit of {size} bytes"))
}

/// `params record`.
fn record(args: RecordArgs) -> Result<ExitCode> {
    let size = sector_size(&args.sector_size)?;
    let kinds = if args.kinds.is_empty() {
        KINDS.iter().map(|kind| kind.to_string()).collect()
    } else {
        args.kinds
    };
    for kind in &kinds {
        let circuit = circuit_of(kind, size)?;
        let files = circuit.files()?;
        let message = if files.pce.exists() {
            format!("checking the {circuit} circuit's PCE (recorded again if unusable)")
        } else {
            format!("recording the {circuit} circuit")
        };
        // A recording that cannot be saved fails here: this command's work
        // is the file.
        let (pce, _) = step(&message, || circuit.pce_in_cache()).with_context(|| {
            format!(
                "the {circuit} circuit could not be recorded into {}: is the parameter cache \
                 writable?",
                files.pce.display()
            )
        })?;
        eprintln!(
            "{circuit}: {} constraints, {} non-zeros, {} in {}",
            pce.num_constraints(),
            pce.nnz(),
            gib(pce.size().held_bytes),
            files.pce.display()
        );
        println!("{}", files.pce.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `params gen`.
fn generate(args: GenArgs) -> Result<ExitCode> {
    let size = sector_size(&args.sector_size)?;
    let mut circuit = circuit_of(&args.kind, size)?;
    insecure_parameters_allowed(circuit, args.insecure_production_size)?;
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
        insecure_srs_allowed(args.insecure_production_size)?;
    }
    eprintln!("generating INSECURE test parameters for {circuit}: for testing only, never for real sectors");
    let (files, generated) = step("recording the circuit and generating parameters", || {
        ensure_test_params(circuit, args.seed, args.force)
    })?;
    if !generated {
        eprintln!(
            "parameters already exist: kept (a missing .vk is written from them; \
             --force generates new ones)"
        );
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
