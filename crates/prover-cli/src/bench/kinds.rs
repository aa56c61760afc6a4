//! `bench kinds`: WindowPoSt, WinningPoSt and SnapDeals at 2 KiB, and a
//! WinningPoSt at 32 GiB (the production circuit, of a sector with no data
//! behind it: `filecoin_testkit::sparse_sector`), each against
//! filecoin-proofs on the same vanilla proofs and parameters.
//!
//! Per kind: the synthesis of every partition by bellperson's enforce-time
//! path against the PCE path (checked equal), and the whole proof from
//! vanilla proofs to verified bytes, `--rounds` times each, with
//! filecoin-proofs' `generate_*_with_vanilla` and with this prover. Both
//! sides are warm: parameters in memory (filecoin-proofs' cache, this
//! prover's resident circuit), PCE loaded; each side's first proof is run
//! and not counted. WinningPoSt's row is its latency.
//!
//! With `--against PLUGIN` the table compares two backends instead: this
//! prover's whole proof with each, alternated round by round so that a
//! machine's drift falls on both (a plugin A/B; filecoin-proofs and the
//! synthesis comparison are left out).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use filecoin_prover::circuits::ProofCircuit;
use filecoin_prover::compound::KindRun;
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::post::PoStInput;
use filecoin_prover::update::UpdateInput;
use filecoin_prover::{post, update, C2Error};
use filecoin_testkit::baseline::{filecoin_post, filecoin_update};
use filecoin_testkit::kinds::{compare_post, compare_update, inputs_2kib, winning_32gib};
use proving_engine::{chain, EngineOptions, LoadedCircuit};

use crate::params_cmd::insecure_parameters_allowed;
use crate::progress::step;

/// Arguments of `bench kinds`.
#[derive(Args)]
pub struct BenchKindsArgs {
    /// Proofs per side and kind (after one warm-up proof each).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Backend of this prover's side.
    #[arg(long, default_value = "cpu")]
    backend: String,
    /// A second backend (name or path of a plugin) to time against
    /// `--backend`, alternated, instead of filecoin-proofs.
    #[arg(long, value_name = "PLUGIN")]
    against: Option<String>,
    /// Write insecure test parameters for the 32 GiB WinningPoSt circuit
    /// where the cache has none (as `params gen
    /// --insecure-production-size`): give the run a cache of its own
    /// (FIL_PROOFS_PARAMETER_CACHE=DIR), since proofs made with them are
    /// rejected by the chain. Without it, that circuit's published
    /// parameters must be in the cache.
    #[arg(long)]
    insecure_production_size: bool,
}

/// The median of `times`.
fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// `work` once to warm up, then `rounds` times; the median.
fn timed(rounds: usize, mut work: impl FnMut() -> Result<()>) -> Result<Duration> {
    work()?;
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        work()?;
        times.push(start.elapsed());
    }
    Ok(median(times))
}

/// `first` and `second` once each to warm up, then `rounds` times each,
/// alternated; their medians.
fn alternated(
    rounds: usize,
    mut first: impl FnMut() -> Result<()>,
    mut second: impl FnMut() -> Result<()>,
) -> Result<(Duration, Duration)> {
    first()?;
    second()?;
    let (mut firsts, mut seconds) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        for (work, times) in [
            (&mut first as &mut dyn FnMut() -> Result<()>, &mut firsts),
            (&mut second, &mut seconds),
        ] {
            let start = Instant::now();
            work()?;
            times.push(start.elapsed());
        }
    }
    Ok((median(firsts), median(seconds)))
}

/// Checks that a run of one input proved it.
fn proved(run: Result<KindRun, C2Error>) -> Result<()> {
    let mut run = run.map_err(|e| anyhow::anyhow!(chain(&e)))?;
    run.results
        .remove(0)
        .map_err(|e| anyhow::anyhow!(chain(&e)))?;
    Ok(())
}

/// A PoSt proof of `input` with `engine`, checked proved.
fn prove_post(circuit: &LoadedCircuit, input: &PoStInput, engine: &EngineOptions) -> Result<()> {
    proved(post::prove(
        circuit,
        None,
        std::slice::from_ref(input),
        engine,
        &|_| {},
        &mut |_, _| {},
    ))
}

/// A SnapDeals proof of `input` with `engine`, checked proved.
fn prove_update(
    circuit: &LoadedCircuit,
    input: &UpdateInput,
    engine: &EngineOptions,
) -> Result<()> {
    proved(update::prove(
        circuit,
        None,
        std::slice::from_ref(input),
        engine,
        &|_| {},
        &mut |_, _| {},
    ))
}

fn post_name(input: &PoStInput) -> String {
    format!("{} ({}p)", input.proof_type, input.num_partitions())
}

fn update_name(input: &UpdateInput) -> String {
    format!(
        "SnapDeals {} ({}p)",
        input.proof_type,
        input.proof_type.partitions()
    )
}

fn ms(time: Duration) -> String {
    format!("{:.1} ms", time.as_secs_f64() * 1e3)
}

/// How many times faster `fast` is than `slow`.
fn ratio(slow: Duration, fast: Duration) -> String {
    format!("{:.2}x", slow.as_secs_f64() / fast.as_secs_f64())
}

/// `pce-prover bench kinds`.
pub fn bench_kinds(args: BenchKindsArgs) -> Result<ExitCode> {
    let winning_32g_circuit =
        ProofCircuit::of_kind("winning-post", "32GiB").context("no 32 GiB WinningPoSt circuit")?;
    let files = winning_32g_circuit.files()?;
    if !files.params.exists() && !files.vk.exists() {
        insecure_parameters_allowed(winning_32g_circuit, args.insecure_production_size)?;
    }
    let work = tempfile::tempdir()?;
    let inputs = step(
        "sealing three 2 KiB sectors and making vanilla proofs",
        || inputs_2kib(work.path(), 1),
    )?;
    let winning_32g = step("a 32 GiB WinningPoSt of a sparse sector", || {
        winning_32gib(1)
    })?;
    let posts = [&inputs.window, &inputs.winning, &winning_32g];
    let engine = EngineOptions::first_device(&args.backend);
    let load = |circuit: ProofCircuit| -> Result<LoadedCircuit> {
        step(&format!("test parameters and PCE of {circuit}"), || {
            ensure_test_params(circuit, 0, false)?;
            let loaded = circuit.load(true)?;
            loaded.decode()?;
            Ok::<_, C2Error>(loaded)
        })
        .with_context(|| format!("loading {circuit}"))
    };
    if let Some(against) = &args.against {
        let other = EngineOptions {
            backend: against.clone(),
            ..engine.clone()
        };
        return against_table(&args, &posts, &inputs.snap, &engine, &other, load);
    }
    println!(
        "{:<28} {:>11} {:>10} {:>10} {:>7} {:>14} {:>12} {:>7}",
        "kind", "constraints", "enforce", "PCE", "ratio", "filecoin-proofs", "pce-prover", "ratio"
    );
    let row = |name: &str,
               circuit: &LoadedCircuit,
               synthesis: (Duration, Duration),
               whole: (Duration, Duration)| {
        println!(
            "{:<28} {:>11} {:>10} {:>10} {:>7} {:>14} {:>12} {:>7}",
            name,
            circuit.pce.num_constraints(),
            ms(synthesis.0),
            ms(synthesis.1),
            ratio(synthesis.0, synthesis.1),
            ms(whole.0),
            ms(whole.1),
            ratio(whole.0, whole.1),
        );
    };
    for input in posts {
        let circuit = load(input.proof_type.into())?;
        let synthesis = compare_post(input, &circuit.pce)?;
        let theirs = timed(args.rounds, || Ok(filecoin_post(input).map(drop)?))?;
        let ours = timed(args.rounds, || prove_post(&circuit, input, &engine))?;
        row(&post_name(input), &circuit, synthesis, (theirs, ours));
    }
    let input = &inputs.snap;
    let circuit = load(input.proof_type.into())?;
    let synthesis = compare_update(input, &circuit.pce)?;
    let theirs = timed(args.rounds, || Ok(filecoin_update(input).map(drop)?))?;
    let ours = timed(args.rounds, || prove_update(&circuit, input, &engine))?;
    row(&update_name(input), &circuit, synthesis, (theirs, ours));
    println!(
        "synthesis: every partition, enforce-time (bellperson's path) against witness + MatVec, a, b, c checked equal; \
         whole proof: median of {} after a warm-up, vanilla proofs to verified bytes (this prover's time includes opening the backend)",
        args.rounds
    );
    Ok(ExitCode::SUCCESS)
}

/// `bench kinds --against`: each kind's whole proof with `engine`'s backend
/// and with `other`'s, alternated.
fn against_table(
    args: &BenchKindsArgs,
    posts: &[&PoStInput],
    snap: &UpdateInput,
    engine: &EngineOptions,
    other: &EngineOptions,
    load: impl Fn(ProofCircuit) -> Result<LoadedCircuit>,
) -> Result<ExitCode> {
    println!(
        "{:<28} {:>14} {:>14} {:>7}",
        "kind", "--backend", "--against", "ratio"
    );
    let row = |name: &str, (ours, theirs): (Duration, Duration)| {
        println!(
            "{name:<28} {:>14} {:>14} {:>7}",
            ms(ours),
            ms(theirs),
            ratio(theirs, ours)
        );
    };
    let both = |prove: &dyn Fn(&EngineOptions) -> Result<()>| {
        alternated(args.rounds, || prove(engine), || prove(other))
    };
    for input in posts {
        let circuit = load(input.proof_type.into())?;
        let times = both(&|engine| prove_post(&circuit, input, engine))?;
        row(&post_name(input), times);
    }
    let input = snap;
    let circuit = load(input.proof_type.into())?;
    let times = both(&|engine| prove_update(&circuit, input, engine))?;
    row(&update_name(input), times);
    println!(
        "whole proof, vanilla proofs to verified bytes: median of {} per backend after a warm-up each, \
         the two backends alternated; ratio = --against / --backend (above 1: --backend is faster)",
        args.rounds
    );
    Ok(ExitCode::SUCCESS)
}
