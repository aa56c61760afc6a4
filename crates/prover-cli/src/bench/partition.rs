//! `bench partition`: one partition's device work (the QAP step and the
//! five MSMs) at the real shape of a production circuit, on synthetic
//! inputs, without a sector or parameters ([`backend_check::partition`]
//! says what is synthetic and why the timings still hold).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use backend_check::partition::{
    run, Options, PartitionError, PartitionReport, PartitionShape, StepDone,
};
use clap::Args;
use serde_json::json;

use crate::backend_cmd::{load, open, unavailable};
use crate::output::write_output;

/// Partitions of the 32 GiB circuits, as `bench circuit --kind K
/// --sector-size 32GiB` records them (parameter shapes as bellperson gives
/// them; docs/benchmarks.md, "The circuits at 32 GiB and 64 GiB"): the
/// names `--shape` takes, what they are, and their shape.
const SHAPES: [(&[&str], &str, PartitionShape); 3] = [
    (
        &["32GiB", "porep-32GiB"],
        "32 GiB PoRep partition",
        PartitionShape {
            constraints: 130_278_869,
            l: 130_169_893,
            a: 129_753_620,
            b: 33_112_282,
        },
    ),
    (
        &["window-post-32GiB"],
        "32 GiB WindowPoSt partition (2349 sectors)",
        PartitionShape {
            constraints: 125_305_057,
            l: 126_902_376,
            a: 96_205_645,
            b: 91_925_767,
        },
    ),
    (
        &["snap-32GiB"],
        "32 GiB SnapDeals partition (1 of 16)",
        PartitionShape {
            constraints: 81_049_504,
            l: 80_978_488,
            a: 80_743_586,
            b: 20_983_608,
        },
    ),
];

/// Largest domain a circuit file may ask for: twice the 32 and 64 GiB
/// circuits' 2^27, and past it a, b, c alone would take 48 GiB.
const MAX_DOMAIN_LOG: u32 = 28;

/// Smallest domain worth timing (and one every backend takes).
const MIN_DOMAIN_LOG: u32 = 4;

/// Arguments of `bench partition`.
#[derive(Args)]
pub struct BenchPartitionArgs {
    /// The partition (at full size a 32 GiB one takes minutes and some
    /// 21 GiB of host memory on a CPU backend; `--shrink` for a quick try):
    /// `32GiB` (one partition of a 32 GiB PoRep sector:
    /// 130,278,869 constraints, domain 2^27; also `porep-32GiB`),
    /// `window-post-32GiB`, `snap-32GiB`, or the JSON file `bench circuit
    /// --json` wrote for any other circuit.
    #[arg(long, value_name = "SHAPE", default_value = "32GiB")]
    shape: String,
    /// Backend: a name (cpu, opencl, cuda, ...) or the path of a plugin library.
    #[arg(long, default_value = "cpu")]
    backend: String,
    /// Device index (see `pce-prover devices BACKEND`).
    #[arg(long, default_value_t = 0)]
    device: u32,
    /// Divide every size by 2^K: a quick rehearsal of the same proportions.
    #[arg(long, value_name = "K", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=20))]
    shrink: u32,
    /// Partitions timed one after another (the first one warms up).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=100))]
    runs: u64,
    /// Distinct G1 points: 2^N (G2: 2^(N-2)), repeated to each query's
    /// length and held once in memory on Linux (2^22: 576 MiB in all).
    /// Fewer than a query's length / 8192 are raised to that, each copy
    /// being one of the process's memory mappings.
    #[arg(long, value_name = "N", default_value_t = 22, value_parser = clap::value_parser!(u32).range(8..=26))]
    pool_log: u32,
    /// Also write every figure as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Backend that runs the MSMs the device declines as unsupported (a
    /// G1-only backend's G2 MSMs, or a GPU's whose G2 kernels failed their
    /// self-test), as the prover's fallback does; `none`: such a device
    /// fails the run.
    #[arg(long, value_name = "BACKEND", default_value = "cpu")]
    fallback: String,
}

/// The shape `--shape` names.
fn shape_of(spec: &str) -> Result<(String, PartitionShape)> {
    let named = SHAPES
        .iter()
        .find(|(names, _, _)| names.iter().any(|n| n.eq_ignore_ascii_case(spec)));
    if let Some((_, label, shape)) = named {
        return Ok(((*label).to_owned(), *shape));
    }
    let path = PathBuf::from(spec);
    if !path.is_file() {
        let names: Vec<&str> = SHAPES
            .iter()
            .flat_map(|(names, _, _)| names.iter().copied())
            .collect();
        bail!(
            "--shape {spec:?}: neither a known shape ({}) nor a file written by `bench circuit --json`",
            names.join(", ")
        );
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {spec}"))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{spec}: not JSON"))?;
    let field = |pointer: &str| -> Result<usize> {
        doc.pointer(pointer)
            .and_then(serde_json::Value::as_u64)
            .map(|v| v as usize)
            .with_context(|| {
                format!("{spec}: no number at {pointer} (not a `bench circuit --json` file)")
            })
    };
    let shape = PartitionShape {
        constraints: field("/constraints")?,
        l: field("/srs_shape/l")?,
        a: field("/srs_shape/a")?,
        b: field("/srs_shape/b_g1")?,
    };
    if shape.constraints == 0 || shape.l == 0 || shape.a == 0 || shape.b == 0 {
        bail!("{spec}: a circuit with an empty query cannot be timed");
    }
    if shape.constraints > 1 << MAX_DOMAIN_LOG || shape.l.max(shape.a).max(shape.b) > 1 << 32 {
        bail!(
            "{spec}: {} constraints and queries of up to {} points are beyond any circuit \
             proven here (domains up to 2^{MAX_DOMAIN_LOG}, queries up to 2^32)",
            shape.constraints,
            shape.l.max(shape.a).max(shape.b)
        );
    }
    let name = doc
        .pointer("/circuit")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("circuit")
        .to_owned();
    Ok((name, shape))
}

fn seconds(d: &Duration) -> f64 {
    d.as_secs_f64()
}

/// Bytes in GiB, or in MiB below one GiB (shrunk shapes are small).
fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

/// `pce-prover bench partition`.
pub fn bench_partition(args: BenchPartitionArgs) -> Result<ExitCode> {
    let (name, full) = shape_of(&args.shape)?;
    let shape = full.shrunk(args.shrink);
    if shape.domain_log() < MIN_DOMAIN_LOG {
        bail!(
            "{name} with every size / 2^{}: a domain of 2^{} is too small to time (at least 2^{MIN_DOMAIN_LOG})",
            args.shrink,
            shape.domain_log()
        );
    }
    let backend = match load(&args.backend) {
        Ok(backend) => backend,
        Err(code) => return Ok(code),
    };
    let device = match open(&backend, args.device) {
        Ok(device) => device,
        Err(code) => return Ok(code),
    };
    let device_name = backend
        .devices()
        .ok()
        .and_then(|list| list.into_iter().find(|d| d.index == args.device))
        .map(|d| d.name)
        .unwrap_or_default();
    let shrunk = match args.shrink {
        0 => String::new(),
        k => format!(", every size / 2^{k}"),
    };
    let [h, l, a, b] = shape.queries();
    println!(
        "{name}{shrunk}: {} constraints, domain 2^{}; points H {h}, L {l}, A {a}, B {b} (G1 and G2)",
        shape.constraints,
        shape.domain_log()
    );
    println!(
        "backend {} device {}: {device_name}",
        backend.name(),
        args.device
    );
    let options = Options {
        runs: args.runs as usize,
        pool_log: args.pool_log,
    };
    // Each step's figures as it ends, so that a run stopped early (a
    // borrowed machine's time limit) still says what it measured.
    let fallback = match args.fallback.as_str() {
        "none" => None,
        name => proving_engine::open_fallback(Some(name), backend.name())
            .with_context(|| format!("--fallback {name}"))?,
    };
    let fallback_device = fallback.as_ref().map(|(device, _)| device);
    let report = match run(
        &device,
        fallback_device,
        &shape,
        options,
        |done: &StepDone| {
            let memory = |bytes: Option<u64>| bytes.map(size).unwrap_or_else(|| "-".into());
            eprintln!(
                "{}: {:.3} s (device in use {}, host RSS {})",
                done.name,
                done.time.as_secs_f64(),
                memory(done.device_used),
                memory(done.host_rss)
            );
        },
    ) {
        Ok(report) => report,
        Err(PartitionError::Backend(error)) => return Ok(unavailable(error)),
        Err(error) => return Err(error.into()),
    };
    print_table(&report);
    if let (Some(reason), Some((_, name))) = (&report.g2_on_fallback, &fallback) {
        println!(
            "B G2 MSM: declined by the device, timed on the fallback {} ({name}): {reason}",
            args.fallback
        );
    }
    if let Some(path) = &args.json {
        let doc = json!({
            "shape": {
                "name": name,
                "shrink": args.shrink,
                "constraints": shape.constraints,
                "domain_log2": shape.domain_log(),
                "points": {"h": h, "l": l, "a": a, "b": b},
            },
            "backend": backend.name(),
            "device": device_name,
            "setup_seconds": report.setup.iter().map(|s| (s.name.to_owned(), seconds(&s.times[0]).into())).collect::<serde_json::Map<_, _>>(),
            "runs": (0..report.totals.len()).map(|run| {
                report.steps.iter().map(|s| (s.name.to_owned(), seconds(&s.times[run]).into())).collect::<serde_json::Map<_, _>>()
            }).collect::<Vec<_>>(),
            "total_seconds": report.totals.iter().map(seconds).collect::<Vec<_>>(),
            "device_memory": report.device_memory.map(|(before, total)| json!({
                "total_bytes": total,
                "in_use_before_bytes": before,
                "in_use_after_step_bytes": report.setup.iter().chain(&report.steps).map(|s| (s.name.to_owned(), s.device_used.into())).collect::<serde_json::Map<_, _>>(),
            })),
            "host_peak_rss_bytes": report.host_peak_rss,
            "pool_bytes": report.pool_bytes,
            "g2_on_fallback": report.g2_on_fallback,
        });
        let text = serde_json::to_string_pretty(&doc).expect("serialisable") + "\n";
        write_output(path, text.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The steps as a table: a column per run, the device memory after each.
fn print_table(report: &PartitionReport) {
    let runs = report.totals.len();
    let mut header = format!("{:<28}", "step");
    for run in 1..=runs {
        header += &format!(" {:>10}", format!("run {run}"));
    }
    println!("{header} {:>14}", "device in use");
    let memory = |used: Option<u64>| used.map(size).unwrap_or_else(|| "-".into());
    for step in &report.setup {
        let mut line = format!(
            "{:<28} {:>8.3} s",
            format!("{} (once)", step.name),
            seconds(&step.times[0])
        );
        line += &" ".repeat(11 * (runs - 1));
        println!("{line} {:>14}", memory(step.device_used));
    }
    for step in &report.steps {
        let mut line = format!("{:<28}", step.name);
        for time in &step.times {
            line += &format!(" {:>8.3} s", seconds(time));
        }
        println!("{line} {:>14}", memory(step.device_used));
    }
    let mut line = format!("{:<28}", "partition");
    for total in &report.totals {
        line += &format!(" {:>8.3} s", seconds(total));
    }
    println!("{line}");
    if let Some((before, total)) = report.device_memory {
        let peak = report
            .setup
            .iter()
            .chain(&report.steps)
            .filter_map(|s| s.device_used)
            .max()
            .unwrap_or(before);
        println!(
            "device memory: {} in use before, at most {} after a step, of {}",
            size(before),
            size(peak),
            size(total)
        );
    }
    match report.host_peak_rss {
        Some(peak) => println!(
            "host peak RSS: {} (sampled every 20 ms; the point pools, {}, counted once)",
            size(peak),
            size(report.pool_bytes)
        ),
        None => println!("host peak RSS: not available here (no /proc)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_shapes_and_circuit_files() {
        let (label, porep) = shape_of("32gib").unwrap();
        assert_eq!(label, "32 GiB PoRep partition");
        assert_eq!(porep.domain_log(), 27);
        assert_eq!(porep.queries()[0], (1 << 27) - 1);
        assert_eq!(shape_of("window-post-32GiB").unwrap().1.b, 91_925_767);

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("circuit.json");
        let doc = json!({
            "circuit": "StackedDrg2KiBV1_1",
            "constraints": 2_687_961,
            "srs_shape": {"h": 4_194_303, "l": 2_685_673, "a": 2_685_713, "b_g1": 700_000, "b_g2": 700_000},
        });
        std::fs::write(&file, doc.to_string()).unwrap();
        let (label, shape) = shape_of(file.to_str().unwrap()).unwrap();
        assert_eq!(label, "StackedDrg2KiBV1_1");
        assert_eq!(
            (shape.domain_log(), shape.l, shape.a, shape.b),
            (22, 2_685_673, 2_685_713, 700_000)
        );

        let error = shape_of("64GiB").unwrap_err().to_string();
        assert!(error.contains("window-post-32GiB"), "{error}");
        std::fs::write(&file, r#"{"constraints": 5}"#).unwrap();
        let error = shape_of(file.to_str().unwrap()).unwrap_err().to_string();
        assert!(error.contains("/srs_shape/l"), "{error}");
        let huge = json!({"constraints": 1u64 << 40, "srs_shape": {"l": 1, "a": 1, "b_g1": 1}});
        std::fs::write(&file, huge.to_string()).unwrap();
        let error = shape_of(file.to_str().unwrap()).unwrap_err().to_string();
        assert!(error.contains("beyond any circuit"), "{error}");
    }
}
