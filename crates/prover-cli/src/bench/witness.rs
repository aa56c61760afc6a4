//! `bench witness`: a PoSt or SnapDeals partition's witness at a
//! production shape, from storage-proofs' circuit and from this prover's
//! copy of it.
//!
//! No test machine can make a 32 GiB sector, so the partition is a
//! synthetic one (`filecoin_testkit::synthetic_post`, `synthetic_update`):
//! the real circuit (every sector and challenge of a full partition, the
//! real tree shapes) with random values. Both witnesses are computed in
//! each round, alternated, and checked equal value for value, so the run is
//! also a check of the copy at full size. (A PoRep partition's witness is
//! timed by `bench pce --synthetic`, with its MatVec.)

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use filecoin_prover::post::{PoStKind, PoStProofType};
use filecoin_prover::proof_type::parse_sector_size;
use filecoin_prover::update::UpdateProofType;
use filecoin_testkit::synthetic_post::compare_post_witness;
use filecoin_testkit::synthetic_update::compare_update_witness;
use filecoin_testkit::witness_compare::WitnessComparison;

use crate::progress::step;

/// Which proof.
#[derive(Clone, Copy, ValueEnum)]
enum KindArg {
    /// WindowPoSt (V1_2): a full partition of the size's sectors.
    WindowPost,
    /// WinningPoSt: one sector.
    WinningPost,
    /// SnapDeals (an empty sector update): one of the sector's partitions.
    Snap,
}

/// Arguments of `bench witness`.
#[derive(Args)]
pub struct BenchWitnessArgs {
    /// The proof.
    #[arg(long, value_enum)]
    kind: KindArg,
    /// Sector size, e.g. 32GiB.
    #[arg(long, default_value = "32GiB")]
    sector_size: String,
    /// Rounds, each computing the witness both ways.
    #[arg(long, default_value_t = 2)]
    rounds: usize,
}

/// `pce-prover bench witness`.
pub fn bench_witness(args: BenchWitnessArgs) -> Result<ExitCode> {
    let size = parse_sector_size(&args.sector_size);
    let not_a_size = || format!("--sector-size {:?}: not a sector size", args.sector_size);
    let post_kind = match args.kind {
        KindArg::WindowPost => Some(PoStKind::Window),
        KindArg::WinningPost => Some(PoStKind::Winning),
        KindArg::Snap => None,
    };
    let (name, shape, measured) = match post_kind {
        Some(kind) => {
            let proof_type = size
                .and_then(|size| PoStProofType::current(kind, size))
                .with_context(not_a_size)?;
            let (measured, shape) = step(
                &format!("{proof_type}: a synthetic partition's witness both ways"),
                || compare_post_witness(&proof_type, args.rounds),
            )?;
            let shape = format!(
                "{} sectors of {} challenges",
                shape.sectors, shape.challenges
            );
            (proof_type.to_string(), shape, measured)
        }
        None => {
            let proof_type = size
                .and_then(UpdateProofType::of_size)
                .with_context(not_a_size)?;
            let (measured, challenges) = step(
                &format!("{proof_type}: a synthetic partition's witness both ways"),
                || compare_update_witness(&proof_type, args.rounds),
            )?;
            let shape = format!("{challenges} challenges");
            (proof_type.to_string(), shape, measured)
        }
    };
    print_table(&name, &shape, &measured);
    Ok(ExitCode::SUCCESS)
}

fn print_table(name: &str, shape: &str, measured: &WitnessComparison) {
    println!(
        "{name}, one synthetic partition ({shape}): {} inputs, {} aux values ({}), {} thread(s)",
        measured.inputs,
        measured.aux,
        gib(measured.aux as u64 * 32),
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    println!("peak: the process's peak resident memory during that witness, above what it held before it (the copy runs first)");
    println!("round   storage-proofs' circuit        this prover's copy            speedup");
    for (i, round) in measured.rounds.iter().enumerate() {
        println!(
            "{:<7} {:>9.3} s, peak {:>10}   {:>9.3} s, peak {:>10}   {:>7.2}x",
            i + 1,
            round.circuit.time.as_secs_f64(),
            gib(round.circuit.peak_above_start),
            round.copy.time.as_secs_f64(),
            gib(round.copy.peak_above_start),
            round.circuit.time.as_secs_f64() / round.copy.time.as_secs_f64()
        );
    }
    println!("every round: the two witnesses equal, value for value");
}

fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}
