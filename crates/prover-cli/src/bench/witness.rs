//! `bench witness`: a PoSt partition's witness at a production shape,
//! from storage-proofs' circuit and from this prover's copy of it.
//!
//! No test machine can make a 32 GiB sector, so the partition is a
//! synthetic one (`filecoin_testkit::synthetic_post`): the real circuit
//! (every sector and challenge of a full partition, the real tree shape)
//! with random values. Both witnesses are computed in each round,
//! alternated, and checked equal value for value, so the run is also a
//! check of the copy at full size. (A PoRep partition's witness is timed by
//! `bench pce --synthetic`, with its MatVec.)

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use filecoin_prover::post::{PoStKind, PoStProofType};
use filecoin_prover::proof_type::parse_sector_size;
use filecoin_testkit::synthetic_post::compare_post_witness;

use crate::progress::step;

/// Which PoSt.
#[derive(Clone, Copy, ValueEnum)]
enum PoStArg {
    /// WindowPoSt (V1_2): a full partition of the size's sectors.
    WindowPost,
    /// WinningPoSt: one sector.
    WinningPost,
}

/// Arguments of `bench witness`.
#[derive(Args)]
pub struct BenchWitnessArgs {
    /// The proof.
    #[arg(long, value_enum)]
    kind: PoStArg,
    /// Sector size, e.g. 32GiB.
    #[arg(long, default_value = "32GiB")]
    sector_size: String,
    /// Rounds, each computing the witness both ways.
    #[arg(long, default_value_t = 2)]
    rounds: usize,
}

/// `pce-prover bench witness`.
pub fn bench_witness(args: BenchWitnessArgs) -> Result<ExitCode> {
    let kind = match args.kind {
        PoStArg::WindowPost => PoStKind::Window,
        PoStArg::WinningPost => PoStKind::Winning,
    };
    let proof_type = parse_sector_size(&args.sector_size)
        .and_then(|size| PoStProofType::current(kind, size))
        .with_context(|| format!("--sector-size {:?}: not a sector size", args.sector_size))?;
    let measured = step(
        &format!("{proof_type}: a synthetic partition's witness both ways"),
        || compare_post_witness(&proof_type, args.rounds),
    )?;
    println!(
        "{proof_type}, one synthetic partition ({} sectors of {} challenges): {} inputs, {} aux values, {} thread(s)",
        measured.sectors,
        measured.challenges,
        measured.inputs,
        measured.aux,
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    println!("round   storage-proofs' circuit   this prover's copy   speedup");
    for (i, round) in measured.rounds.iter().enumerate() {
        println!(
            "{:<7} {:>20.3} s {:>18.3} s {:>8.2}x",
            i + 1,
            round.circuit.as_secs_f64(),
            round.copy.as_secs_f64(),
            round.circuit.as_secs_f64() / round.copy.as_secs_f64()
        );
    }
    println!("every round: the two witnesses equal, value for value");
    Ok(ExitCode::SUCCESS)
}
