//! `pce-prover`: the command-line front end.
//!
//! A thin layer over the libraries: argument parsing, logging, exit codes.
//! Each subcommand lives in its own module.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod aggregate_cmd;
mod backend_cmd;
mod bench;
mod c2_cmd;
mod daemon_cmd;
mod demo_cmd;
mod kinds_cmd;
mod output;
mod params_cmd;
mod progress;

/// Exit status when a backend has no driver or no device (e.g. the CUDA
/// backend on a machine without an NVIDIA driver).
pub const EXIT_BACKEND_UNAVAILABLE: u8 = 3;

/// A Groth16 prover for Filecoin's proofs: PoRep commit phase 2 (C2),
/// WindowPoSt, WinningPoSt and SnapDeals.
///
/// Give it the output of seal commit phase 1 and get the proof the chain
/// accepts: `pce-prover c2 --c1 c1.json --out proof.bin`; likewise
/// `window-post`, `winning-post` and `snap-prove` from vanilla proofs. Try
/// it first with `pce-prover demo`, which seals a 2 KiB sector and proves it.
///
/// Parameters are read from $FIL_PROOFS_PARAMETER_CACHE (default
/// /var/tmp/filecoin-proof-parameters), the same cache as filecoin-proofs;
/// the recorded circuit (PCE) is kept next to them. NTT and MSM run in a
/// backend plugin chosen with --backend: a name (cpu, opencl, cuda) looked
/// up in $PCE_BACKEND_DIR and next to this executable, or a path.
/// Set RUST_LOG=info (or debug) for details.
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
    /// bellperson's CPU implementation; then proves random circuits and a
    /// SHA-256 circuit through it and through the CPU backend, which must
    /// give identical proofs. Prints one row per case and exits
    /// with 0 if all pass, 1 if any fails (or the reference backend cannot
    /// be used), 3 if the backend has no driver or device, 4 if it cannot
    /// be loaded.
    BackendCheck(backend_cmd::CheckArgs),
    /// List the devices of a backend plugin.
    Devices(backend_cmd::DevicesArgs),
    /// Prove sectors: commit-phase-1 outputs in, C2 proofs out.
    ///
    /// One input: `c2 --c1 c1.json --out proof.bin`. Several (or a
    /// directory of .json files): `c2 --c1 DIR --out-dir OUT -j 2`; they
    /// share one recorded circuit and one parameter set in memory, J
    /// partitions are proven at once, and the witnesses of the next ones
    /// are generated meanwhile, as far as --memory-budget allows.
    ///
    /// Every partition proof is verified against the public inputs derived
    /// from the C1 output before anything is written; with the prover id
    /// and sector number, the whole proof is also checked with
    /// filecoin-proofs' verify_seal (not the partition proofs of a
    /// non-interactive sector that --circuit-proofs writes: `aggregate`
    /// checks those).
    ///
    /// The output is what filecoin-proofs' seal_commit_phase2 returns: for
    /// non-interactive PoRep, the SnarkPack aggregate of the partition
    /// proofs, which needs v28-fil-inner-product-v1.srs in the parameter
    /// cache (it comes with the Filecoin proof parameters).
    C2(c2_cmd::C2Args),
    /// Aggregate several sectors' C2 proofs into one SnarkPack proof.
    ///
    /// `aggregate --c1 C1_DIR --proof PROOF_DIR --miner-id N --out agg.bin`
    /// (PROOF_DIR as `c2 --c1 C1_DIR --out-dir PROOF_DIR` wrote it): what
    /// filecoin-proofs' aggregate_seal_commit_proofs returns, the proof of
    /// lotus' and Curio's ProveCommitAggregate (interactive PoRep) and of
    /// FIP-0092's aggregation of 1 to 65 non-interactive sectors. Every
    /// sector's proof is verified first (naming any that fails), the
    /// aggregate after, with filecoin-proofs' verifier. With the prover id
    /// (--prover-id or --miner-id) the public inputs are derived from it and
    /// each sector's number, as the chain derives them, so a sector sealed
    /// for another miner is refused; every C1 output must then name its
    /// sector number (lotus-bench's c1.json does). Needs the verifying key
    /// and v28-fil-inner-product-v1.srs in the parameter cache.
    Aggregate(aggregate_cmd::AggregateArgs),
    /// Prove a WindowPoSt from per-sector vanilla proofs.
    ///
    /// `window-post --vanilla s1.vp s2.vp --sector-size 32GiB --randomness HEX
    /// --miner-id N --out proof.bin`: the vanilla proofs are what
    /// filecoin-proofs-api's generate_single_vanilla_proof returned, one per
    /// sector, in any order (they are proven in sector-number order, as
    /// the chain lists them). The output is what
    /// generate_window_post_with_vanilla returns (192 bytes per partition),
    /// checked with filecoin-proofs' verify_window_post; with --partition K,
    /// that one partition's proof, as Curio asks for it.
    WindowPost(kinds_cmd::WindowArgs),
    /// Prove a WinningPoSt from the challenged sector's vanilla proof.
    ///
    /// The output is what generate_winning_post_with_vanilla returns,
    /// checked with filecoin-proofs' verify_winning_post.
    WinningPost(kinds_cmd::PoStArgs),
    /// Prove a SnapDeals update from its partition vanilla proofs.
    ///
    /// The vanilla proofs are what generate_partition_proofs returned, one
    /// per partition (16 at 32 GiB); the output is what
    /// generate_empty_sector_update_proof_with_vanilla returns, checked
    /// with verify_empty_sector_update_proof.
    SnapProve(kinds_cmd::SnapArgs),
    /// Seal a 2 KiB sector in a temporary directory and prove it: the
    /// quickest way to see the prover work (generates insecure test
    /// parameters the first time, about 1.5 minutes on 2 cores). With
    /// --reference, prove it with a second backend too, with the same r and
    /// s, and require identical proofs.
    Demo(demo_cmd::DemoArgs),
    /// Manage Groth16 parameters and the circuits recorded beside them (PCE files).
    #[command(subcommand)]
    Params(params_cmd::ParamsCommand),
    /// Run the proving daemon: Curio's cuzk gRPC protocol
    /// (cuzk.v1.ProvingEngine) on TCP or a unix socket.
    ///
    /// Point a Curio node at it with `[Cuzk] Address = "unix:///run/pce-prover/prover.sock"`
    /// (or host:port). One process keeps each circuit's PCE and parameters
    /// loaded for every job, proves on every device of the backend, holds
    /// all jobs to one memory budget, and verifies every proof before it
    /// answers. See docs/daemon.md.
    Serve(daemon_cmd::ServeArgs),
    /// Show a running daemon's devices, circuits, queues and totals.
    Status(daemon_cmd::StatusArgs),
    /// Send a commit-phase-1 output to a running daemon, as Curio does, and
    /// write the proof it returns (the other kinds: `window-post`,
    /// `winning-post` or `snap-prove` with `--daemon`).
    Prove(daemon_cmd::ProveArgs),
    /// Benchmarks: against filecoin-proofs, PCE against enforce-time
    /// synthesis, and many proofs at once under a memory budget.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

fn main() -> ExitCode {
    // A write past a file size limit (`ulimit -f`) then fails with EFBIG,
    // which names the file, instead of killing the process with SIGXFSZ.
    // SAFETY: setting a signal's disposition to "ignore" installs no
    // handler code; done first, before any thread exists.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::BackendCheck(args) => backend_cmd::check(args),
        Command::Devices(args) => backend_cmd::devices(args),
        Command::C2(args) => c2_cmd::c2(args),
        Command::Aggregate(args) => aggregate_cmd::aggregate(args),
        Command::WindowPost(args) => kinds_cmd::window_post(args),
        Command::WinningPost(args) => kinds_cmd::winning_post(args),
        Command::SnapProve(args) => kinds_cmd::snap_prove(args),
        Command::Demo(args) => demo_cmd::demo(args),
        Command::Serve(args) => daemon_cmd::serve(args),
        Command::Status(args) => daemon_cmd::status(args),
        Command::Prove(args) => daemon_cmd::prove(args),
        Command::Params(command) => params_cmd::params(command),
        Command::Bench(command) => bench::bench(command),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
