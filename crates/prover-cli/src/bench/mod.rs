//! `bench`: measurements that must be right.
//!
//! - `bench c2`: this prover against filecoin-proofs on the same C1 output,
//!   each side in its own child process (this executable, with `c2` or the
//!   hidden `bench filecoin-c2`), so each peak RSS is its own;
//! - `bench pce`: enforce-time against PCE synthesis ([`pce`]);
//! - `bench pipeline`: N proofs at J at a time ([`pipeline`]);
//! - `bench daemon`: proofs through `serve` against `c2` processes ([`daemon`]);
//! - `bench circuit`: a circuit's size and memory, recorded blank ([`circuit`]);
//! - `bench kinds`: WindowPoSt, WinningPoSt and SnapDeals against
//!   filecoin-proofs ([`kinds`]);
//! - `bench backend`: one plugin against another (`backend_cmd`);
//! - `bench partition`: one partition's device work at a production shape
//!   ([`partition`]).
//!
//! Children are run by [`child`].

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

mod c2;
mod child;
mod circuit;
mod daemon;
mod kinds;
mod partition;
mod pce;
mod pipeline;
mod witness;

/// `bench` subcommands.
#[derive(Subcommand)]
pub enum BenchCommand {
    /// Run this prover's C2 and filecoin-proofs' seal_commit_phase2 on the
    /// same C1 output and parameters, each in its own process, and print
    /// wall times, peak memory and ratios.
    C2(c2::BenchC2Args),
    /// Time a backend's MSMs and NTTs against another backend's (default:
    /// the CPU backend) in one run, and print both with their ratio and
    /// whether their results are the same (exit status 1 if any differs).
    Backend(crate::backend_cmd::BenchBackendArgs),
    /// Time one partition's device work (the QAP step and the H, L, A,
    /// B G1 and B G2 MSMs) at the real shape of a 32 GiB PoRep partition
    /// (or of any circuit `bench circuit --json` recorded), on random
    /// inputs, without a sector or parameters: each step's time, the
    /// device memory in use and the host's peak RSS, as a table and JSON.
    Partition(partition::BenchPartitionArgs),
    /// Enforce-time synthesis (bellperson's path) against the PCE path
    /// (witness, then A·w, B·w, C·w) on the partitions of a C1 output, or
    /// of a synthetic one of any size (`--synthetic 32GiB`): times, ratio
    /// and the peak RSS of each phase. The a, b, c of both paths are
    /// compared by digest, so only one path's vectors are in memory at a
    /// time.
    Pce(pce::BenchPceArgs),
    /// Prove N sectors, J partitions at a time, with one PCE and one SRS:
    /// per-proof and wall times, throughput, and the resident memory at
    /// every stage (malloc_trim after each proof); optionally the same
    /// proofs with filecoin-proofs one after another.
    Pipeline(pipeline::BenchPipelineArgs),
    /// Prove one C1 output N times with `pce-prover c2` (a process each)
    /// and N times through `pce-prover serve` (circuit preloaded once);
    /// print the time per proof of each, their ratio, and how fast the
    /// daemon answers GetStatus meanwhile.
    Daemon(daemon::BenchDaemonArgs),
    /// WindowPoSt, WinningPoSt and SnapDeals of 2 KiB test sectors, and a
    /// 32 GiB WinningPoSt (production circuit, sector with no data): PCE
    /// against enforce-time synthesis, and the whole proof (warm, load
    /// excluded) against filecoin-proofs' generate_*_with_vanilla on the
    /// same vanilla proofs and parameters. Generates insecure test
    /// parameters in the parameter cache when they are missing.
    Kinds(kinds::BenchKindsArgs),
    /// A WindowPoSt, WinningPoSt or SnapDeals partition's witness at a
    /// production size (synthetic values, the real circuit): storage-proofs'
    /// circuit against this prover's copy of it, alternated, checked equal
    /// value for value; times and peak memory of each.
    Witness(witness::BenchWitnessArgs),
    /// Record a circuit (any kind, any sector size; no sector needed) and
    /// print its constraints, variables, non-zeros, PCE size, parameter
    /// shape and memory model.
    Circuit(circuit::BenchCircuitArgs),
    /// (internal) filecoin-proofs' seal_commit_phase2 in this process.
    #[command(hide = true)]
    FilecoinC2(c2::FilecoinC2Args),
}

/// `pce-prover bench ...`.
pub fn bench(command: BenchCommand) -> Result<ExitCode> {
    match command {
        BenchCommand::C2(args) => c2::bench_c2(args),
        BenchCommand::Backend(args) => crate::backend_cmd::bench(args),
        BenchCommand::Partition(args) => partition::bench_partition(args),
        BenchCommand::Pce(args) => pce::bench_pce(args),
        BenchCommand::Pipeline(args) => pipeline::bench_pipeline(args),
        BenchCommand::Daemon(args) => daemon::bench_daemon(args),
        BenchCommand::Kinds(args) => kinds::bench_kinds(args),
        BenchCommand::Witness(args) => witness::bench_witness(args),
        BenchCommand::Circuit(args) => circuit::bench_circuit(args),
        BenchCommand::FilecoinC2(args) => c2::filecoin_c2(args),
    }
}
