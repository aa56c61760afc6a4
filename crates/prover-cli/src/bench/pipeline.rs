//! `bench pipeline`: N proofs, J at a time, with the memory at every stage.
//!
//! The C1 inputs are cycled until N proofs are queued and proven in one
//! run (one PCE, one SRS). At every pipeline event the resident memory is
//! read from /proc/self/status; after each proof, `malloc_trim` returns
//! freed memory first, so the figure after a proof is what is still in
//! use. With `--compare-old`, the same proofs then go through
//! filecoin-proofs' `seal_commit_phase2` one after another, each in its
//! own child process, after this run's results are gone.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use filecoin_prover::c1::C1Input;
use filecoin_prover::c2::prove_sectors;
use filecoin_prover::c2::prover_id_of_miner;
use proving_engine::chain;
use proving_engine::memory::gib;
use proving_engine::process::{release_free_memory, ProcessMemory, ProcessResources};
use proving_engine::{Event, StageTimes};
use serde_json::json;

use super::child::child;
use crate::c2_cmd::ProveArgs;
use crate::output::{expand_inputs, plan_json, write_output};
use crate::progress::partitions_bar;

/// Arguments of `bench pipeline`.
#[derive(Args)]
pub struct BenchPipelineArgs {
    /// Commit-phase-1 outputs (files or directories of *.json), one proof
    /// type; cycled through until --num-proofs proofs are queued.
    #[arg(long, value_name = "FILE|DIR", required = true, num_args = 1..)]
    c1: Vec<PathBuf>,
    /// Proofs to make.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    num_proofs: u64,
    #[command(flatten)]
    prove: ProveArgs,
    /// Miner actor id: every proof of an input that carries its sector
    /// number (lotus-bench c1.json) is then checked with verify_seal, the
    /// others' partition proofs only (needed by --compare-old, as
    /// filecoin-proofs verifies its proofs).
    #[arg(long, value_name = "N")]
    miner_id: Option<u64>,
    /// Then prove the same sectors with filecoin-proofs' seal_commit_phase2,
    /// one after another in child processes, and print the ratios
    /// (needs --miner-id and lotus-bench c1.json inputs, which carry the
    /// sector number).
    #[arg(long, requires = "miner_id")]
    compare_old: bool,
    /// Also write everything measured as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// One reading of the process's memory.
struct Sample {
    seconds: f64,
    stage: String,
    memory: ProcessMemory,
    resources: ProcessResources,
}

/// The process after a proof, in the order proofs finished.
const AFTER_PROOF: &str = ": after malloc_trim";
/// The proof (in finishing order) a soak compares the last one with:
/// early enough, after the caches and pools of the first proofs are set.
const SETTLED_AFTER: usize = 4;

/// `pce-prover bench pipeline`.
pub fn bench_pipeline(args: BenchPipelineArgs) -> Result<ExitCode> {
    let files = expand_inputs(&args.c1)?;
    let distinct = files
        .iter()
        .map(|path| Ok(C1Input::read(path, None)?))
        .collect::<Result<Vec<_>>>()?;
    let inputs: Vec<C1Input> = distinct
        .iter()
        .cycle()
        .take(args.num_proofs as usize)
        .cloned()
        .collect();
    drop(distinct);
    if args.compare_old {
        if let Some(input) = inputs.iter().find(|i| i.sector_num.is_none()) {
            bail!(
                "{}: --compare-old needs the sector number, which only lotus-bench c1.json files carry",
                input.path.display()
            );
        }
    }
    let options = args
        .prove
        .options(args.miner_id.map(prover_id_of_miner), None, false);

    let start = Instant::now();
    let samples = Mutex::new(Vec::new());
    let mut finished: Vec<(usize, f64, Result<StageTimes, String>)> = Vec::new();
    let sample = |stage: String| {
        samples.lock().expect("samples poisoned").push(Sample {
            seconds: start.elapsed().as_secs_f64(),
            stage,
            memory: ProcessMemory::now(),
            resources: ProcessResources::now(),
        })
    };
    sample("start".into());
    let total: usize = inputs.iter().map(C1Input::num_partitions).sum();
    let bar = partitions_bar(total as u64);
    let observe = |event: Event<'_>| match event {
        Event::Ready { .. } => sample("PCE and SRS loaded".into()),
        Event::WitnessReady { job, partition } => {
            sample(format!("proof {job} partition {partition}: witness ready"))
        }
        Event::PartitionProven { job, partition, .. } => {
            bar.inc(1);
            sample(format!("proof {job} partition {partition}: proven"))
        }
        Event::FallingBack { job, partition, .. } => sample(format!(
            "proof {job} partition {partition}: on the fallback backend"
        )),
        Event::DeviceFailed { job, partition, .. } => sample(format!(
            "proof {job} partition {partition}: failed on its device"
        )),
    };
    let run = prove_sectors(&inputs, &options, &observe, &mut |sector, result| {
        sample(format!("proof {sector}: done"));
        release_free_memory();
        sample(format!("proof {sector}{AFTER_PROOF}"));
        finished.push((
            sector,
            start.elapsed().as_secs_f64(),
            result
                .as_ref()
                .map(|proven| proven.times.clone())
                .map_err(|e| chain(e)),
        ));
    })?;
    bar.finish_and_clear();
    let wall = start.elapsed().as_secs_f64();
    let peak = ProcessMemory::now().peak;
    let memory = run.memory;
    let failures: Vec<String> = run
        .outcomes
        .iter()
        .zip(&inputs)
        .filter_map(|(o, i)| {
            o.as_ref()
                .err()
                .map(|e| format!("{}: {}", i.path.display(), chain(e)))
        })
        .collect();
    drop(run);
    if !failures.is_empty() {
        bail!(
            "{} proof(s) failed: {}",
            failures.len(),
            failures.join("; ")
        );
    }

    let samples = samples.into_inner().expect("samples poisoned");
    finished.sort_by_key(|(sector, ..)| *sector);
    let throughput = inputs.len() as f64 / wall * 3600.0;
    println!(
        "Pipeline: {} proof(s) of {}, -j {}, {} partition(s) in flight at most ({} at the peak), budget {}",
        inputs.len(),
        inputs[0].proof_type,
        options.engine.jobs,
        memory.slots,
        memory.peak_in_flight,
        gib(memory.budget)
    );
    println!("  stage                                          t (s)   RSS        peak RSS");
    for s in &samples {
        println!(
            "  {:<45} {:>6.1}   {:>9}  {:>9}",
            s.stage,
            s.seconds,
            gib(s.memory.rss),
            gib(s.memory.peak)
        );
    }
    for (sector, done_at, stages) in &finished {
        let stages = stages.as_ref().expect("failures reported above");
        println!(
            "  proof {sector}: done at {done_at:.1} s (witness {:.1} s, prove and verify {:.1} s, finish {:.2} s)",
            stages.witness.as_secs_f64(),
            stages.prove.as_secs_f64(),
            stages.finish.as_secs_f64()
        );
    }
    println!(
        "  wall {wall:.1} s, throughput {throughput:.1} proofs/hour, peak RSS {} (model: static {} + {} per partition, margin {})",
        gib(peak),
        gib(memory.model.static_bytes()),
        gib(memory.model.per_partition()),
        gib(memory.model.margin())
    );

    // Growth from the settled state to the end: what a long run leaks.
    let after: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.stage.ends_with(AFTER_PROOF))
        .collect();
    // Compared at the same point of the pipeline's cycle (proofs finish
    // `jobs` at a time, some with the next ones in flight), before it
    // drains at the end.
    let jobs = options.engine.jobs.max(1);
    let settled_at = SETTLED_AFTER - 1;
    let last_at = after
        .len()
        .checked_sub(1 + 2 * jobs)
        .map(|end| end - (end.saturating_sub(settled_at)) % jobs)
        .filter(|&end| end > settled_at);
    let steadiness = last_at.map(|last_at| {
        let (settled, last) = (after[settled_at], after[last_at]);
        let growth = (last.memory.rss as f64 / settled.memory.rss as f64 - 1.0) * 100.0;
        println!(
            "  after proof {SETTLED_AFTER} and proof {} (finishing order, before the pipeline drains): RSS {} -> {} ({growth:+.1} %), threads {} -> {}, open files {} -> {}",
            last_at + 1,
            gib(settled.memory.rss),
            gib(last.memory.rss),
            settled.resources.threads,
            last.resources.threads,
            settled.resources.open_files,
            last.resources.open_files,
        );
        json!({
            "settled_after_proof": SETTLED_AFTER,
            "last_proof": last_at + 1,
            "rss_bytes": [settled.memory.rss, last.memory.rss],
            "rss_growth_percent": growth,
            "threads": [settled.resources.threads, last.resources.threads],
            "open_files": [settled.resources.open_files, last.resources.open_files],
        })
    });

    let old = if args.compare_old {
        Some(compare_old(
            &inputs,
            args.miner_id.expect("clap requires it"),
            wall,
            peak,
        )?)
    } else {
        None
    };
    if let Some(path) = &args.json {
        let doc = json!({
            "proof_type": inputs[0].proof_type.to_string(),
            "num_proofs": inputs.len(),
            "jobs": options.engine.jobs,
            "wall_seconds": wall,
            "throughput_proofs_per_hour": throughput,
            "peak_rss_bytes": peak,
            "memory": plan_json(&memory),
            "steadiness": steadiness,
            "proofs": finished.iter().map(|(sector, done_at, stages)| {
                let stages = stages.as_ref().expect("failures reported above");
                json!({
                    "proof": sector,
                    "c1": inputs[*sector].path,
                    "done_at_seconds": done_at,
                    "witness_seconds": stages.witness.as_secs_f64(),
                    "prove_seconds": stages.prove.as_secs_f64(),
                    "finish_seconds": stages.finish.as_secs_f64(),
                })
            }).collect::<Vec<_>>(),
            "stages": samples.iter().map(|s| json!({
                "stage": s.stage,
                "seconds": s.seconds,
                "rss_bytes": s.memory.rss,
                "peak_rss_bytes": s.memory.peak,
                "threads": s.resources.threads,
                "open_files": s.resources.open_files,
            })).collect::<Vec<_>>(),
            "old": old,
        });
        write_output(
            path,
            (serde_json::to_string_pretty(&doc)? + "\n").as_bytes(),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// filecoin-proofs' `seal_commit_phase2` on each input, one after another.
fn compare_old(
    inputs: &[C1Input],
    miner_id: u64,
    wall: f64,
    peak: u64,
) -> Result<serde_json::Value> {
    let dir = tempfile::tempdir().context("creating a temporary directory")?;
    let mut proofs = Vec::new();
    let (mut old_wall, mut old_peak) = (0.0, 0u64);
    for (i, input) in inputs.iter().enumerate() {
        eprintln!("filecoin-proofs seal_commit_phase2, proof {i} ...");
        let report = dir.path().join(format!("old-{i}.json"));
        let (time, doc) = child(
            &[
                "bench",
                "filecoin-c2",
                "--c1",
                input.path.to_str().context("C1 path is not UTF-8")?,
                "--miner-id",
                &miner_id.to_string(),
                "--sector-id",
                &input.sector_num.expect("checked").to_string(),
            ],
            &report,
        )?;
        let rss = doc["peak_rss_bytes"].as_u64().unwrap_or(0);
        old_wall += time.as_secs_f64();
        old_peak = old_peak.max(rss);
        println!(
            "  old path, proof {i}: {:.1} s, peak RSS {}",
            time.as_secs_f64(),
            gib(rss)
        );
        proofs.push(json!({"proof": i, "seconds": time.as_secs_f64(), "peak_rss_bytes": rss}));
    }
    let old_throughput = inputs.len() as f64 / old_wall * 3600.0;
    println!(
        "  old path (filecoin-proofs, one after another): wall {old_wall:.1} s, throughput {old_throughput:.1} proofs/hour, peak RSS {}",
        gib(old_peak)
    );
    println!(
        "  pipeline vs old: throughput {:.2}x, peak RSS {:.2}x",
        old_wall / wall,
        peak as f64 / old_peak.max(1) as f64
    );
    Ok(json!({
        "wall_seconds": old_wall,
        "throughput_proofs_per_hour": old_throughput,
        "peak_rss_bytes": old_peak,
        "proofs": proofs,
    }))
}
