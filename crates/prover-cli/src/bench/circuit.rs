//! `bench circuit`: what one partition of a circuit is, at any sector size,
//! without a sector: the blank circuit recorded into a PCE and measured.
//!
//! Constraints, variables, non-zeros, the PCE's bytes, the parameters'
//! shape (read from the parameter file when the cache has it, else the
//! shape bellperson gives that circuit) and the memory model's static and
//! per-partition bytes. Recording a 32 GiB circuit takes minutes and the
//! PCE's size in memory again while it is recorded.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use filecoin_prover::circuits::{ProofCircuit, KINDS};
use proving_engine::memory::{
    domain_size, expected_shape, gib, parameter_shape, BackendMemory, MemoryModel,
};
use proving_engine::process::ProcessMemory;
use serde_json::json;

use crate::output::write_output;
use crate::progress::step;

/// Arguments of `bench circuit`.
#[derive(Args)]
pub struct BenchCircuitArgs {
    /// The proof kind.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(KINDS))]
    kind: String,
    /// Sector size: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
    #[arg(long, value_name = "SIZE")]
    sector_size: String,
    /// Also write the figures as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<std::path::PathBuf>,
}

/// `pce-prover bench circuit`.
pub fn bench_circuit(args: BenchCircuitArgs) -> Result<ExitCode> {
    let circuit = ProofCircuit::of_kind(&args.kind, &args.sector_size)
        .with_context(|| format!("no {} circuit of size {:?}", args.kind, args.sector_size))?;
    let files = circuit.files()?;
    let start = Instant::now();
    let pce = step(&format!("recording the blank {circuit} circuit"), || {
        circuit.record()
    })?;
    let record_time = start.elapsed();
    let peak = ProcessMemory::now().peak;
    let (shape, shape_from) = match parameter_shape(&files.params) {
        Some(shape) => (shape, "parameter file"),
        None => (expected_shape(&pce), "expected (no parameter file)"),
    };
    let model = MemoryModel::new(pce.size(), shape, true, 0, BackendMemory::default());
    let nnz: Vec<usize> = pce.matrices().iter().map(|m| m.nnz()).collect();
    let bytes_per_nnz = pce.matrix_bytes() as f64 / pce.nnz() as f64;
    println!("circuit            {circuit} ({})", files.id);
    println!("constraints        {}", pce.num_constraints());
    println!(
        "domain             2^{}",
        domain_size(&pce).trailing_zeros()
    );
    println!("inputs, aux        {}, {}", pce.num_inputs(), pce.num_aux());
    println!("non-zeros A, B, C  {}, {}, {}", nnz[0], nnz[1], nnz[2]);
    println!(
        "PCE                {} ({bytes_per_nnz:.2} B per non-zero)",
        gib(model.pce)
    );
    println!(
        "parameters         h {}, l {}, a {}, b {} ({shape_from})",
        shape.h, shape.l, shape.a, shape.b_g1
    );
    println!(
        "memory model       static {} (PCE, SRS {}, NTT tables {}); per partition {}",
        gib(model.static_bytes()),
        gib(model.srs),
        gib(model.ntt),
        gib(model.per_partition())
    );
    println!(
        "recording          {:.1} s, peak RSS {}",
        record_time.as_secs_f64(),
        gib(peak)
    );
    if let Some(path) = &args.json {
        let doc = json!({
            "circuit": circuit.to_string(),
            "id": files.id,
            "constraints": pce.num_constraints(),
            "domain_log2": domain_size(&pce).trailing_zeros(),
            "inputs": pce.num_inputs(),
            "aux": pce.num_aux(),
            "nnz": {"a": nnz[0], "b": nnz[1], "c": nnz[2]},
            "pce_bytes": model.pce,
            "srs_shape": {"h": shape.h, "l": shape.l, "a": shape.a, "b_g1": shape.b_g1, "b_g2": shape.b_g2, "from": shape_from},
            "model": {"static_bytes": model.static_bytes(), "srs": model.srs, "ntt": model.ntt, "per_partition_bytes": model.per_partition()},
            "record_seconds": record_time.as_secs_f64(),
            "peak_rss_bytes": peak,
        });
        let text = serde_json::to_string_pretty(&doc).expect("serialisable") + "\n";
        write_output(path, text.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
