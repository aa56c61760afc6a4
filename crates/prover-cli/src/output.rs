//! What the commands write: proof encodings, JSON reports, atomic files,
//! and the input lists they read.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use base64::Engine;
use clap::ValueEnum;
use filecoin_prover::c2::C2Outcome;
use filecoin_prover::sector::SectorProof;
use proving_engine::process::ProcessMemory;
use proving_engine::MemoryPlan;
use serde_json::json;

/// How the proof is written.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    /// The bytes filecoin-proofs returns.
    Raw,
    /// Those bytes as hexadecimal text.
    Hex,
    /// Those bytes as base64 text.
    Base64,
    /// A JSON object: "proof_type", "proof" (base64), and what the command
    /// says it adds.
    Json,
}

/// `sector`'s proof, of `proof_type`, in `format`.
pub fn encode(format: Format, proof_type: &str, sector: &SectorProof) -> Vec<u8> {
    let partition_proofs = sector.aggregate.map(|_| &sector.partition_proofs[..]);
    encode_proof(
        format,
        proof_type,
        &sector.proof,
        sector.partitions,
        partition_proofs,
    )
}

/// `proof` (of `partitions` partitions, aggregated from `partition_proofs`
/// when given) in `format`.
pub fn encode_proof(
    format: Format,
    proof_type: &str,
    proof: &[u8],
    partitions: usize,
    partition_proofs: Option<&[u8]>,
) -> Vec<u8> {
    let mut fields = json!({"proof_type": proof_type, "partitions": partitions});
    if let Some(partition_proofs) = partition_proofs {
        fields["partition_proofs"] = base64_of(partition_proofs).into();
    }
    encode_with(format, proof, fields)
}

/// `proof` in `format`; as JSON, the object `fields` with the proof added
/// as "proof" (base64).
pub fn encode_with(format: Format, proof: &[u8], mut fields: serde_json::Value) -> Vec<u8> {
    match format {
        Format::Raw => proof.to_vec(),
        Format::Hex => (hex::encode(proof) + "\n").into_bytes(),
        Format::Base64 => (base64_of(proof) + "\n").into_bytes(),
        Format::Json => {
            fields["proof"] = base64_of(proof).into();
            (serde_json::to_string_pretty(&fields).expect("serialisable") + "\n").into_bytes()
        }
    }
}

fn base64_of(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// What was proven and checked, in one line.
pub fn summary(sector: &SectorProof) -> String {
    let aggregated = match sector.aggregate {
        Some(_) => ", aggregated (SnarkPack) as filecoin-proofs' seal_commit_phase2 does",
        None => "",
    };
    let checked = match (sector.verify_seal, sector.verify_aggregate) {
        (Some(_), _) => "verify_seal accepted the proof",
        (None, Some(_)) => "the aggregate verified against the C1 public inputs (pass --prover-id/--miner-id and --sector-id to also run verify_seal)",
        (None, None) => "verify_seal did not run (it needs --prover-id/--miner-id and --sector-id, and a non-interactive sector's aggregate)",
    };
    format!(
        "{} partition(s), every one verified against the C1 public inputs{aggregated}; {} bytes; {checked}",
        sector.partitions,
        sector.proof.len()
    )
}

/// Peak resident memory of this process, from /proc/self/status.
pub fn peak_rss_bytes() -> Option<u64> {
    Some(ProcessMemory::now().peak).filter(|&peak| peak > 0)
}

/// The JSON report of a sector's proof.
pub fn report(outcome: &C2Outcome) -> serde_json::Value {
    let secs = |d: std::time::Duration| d.as_secs_f64();
    let sector = &outcome.sector;
    json!({
        "proof_type": outcome.proof_type,
        "partitions": sector.partitions,
        "backend": outcome.backend,
        "device": outcome.device,
        "seconds": {
            "pce_load_or_record": secs(outcome.pce_time),
            "params_read": secs(outcome.params_time),
            "witness": secs(outcome.stages.witness),
            "prove": secs(outcome.stages.prove),
            "finish": secs(outcome.stages.finish),
            "aggregate": sector.aggregate.map(secs),
            "verify_aggregate": sector.verify_aggregate.map(secs),
            "verify_seal": sector.verify_seal.map(secs),
        },
        "peak_rss_bytes": peak_rss_bytes(),
    })
}

/// The memory plan of a run as JSON.
pub fn plan_json(plan: &MemoryPlan) -> serde_json::Value {
    let model = plan.model;
    json!({
        "budget_bytes": plan.budget,
        "margin_bytes": model.margin(),
        "static_bytes": model.static_bytes(),
        "per_partition_bytes": model.per_partition(),
        "model": {
            "process": model.process,
            "pce": model.pce,
            "srs": model.srs,
            "ntt": model.ntt,
            "devices": model.devices,
            "fallback": model.fallback,
            "witness": model.witness,
            "proving": model.proving,
        },
        "partitions_admitted": plan.admitted,
        "partitions_in_flight_limit": plan.slots,
        "partitions_in_flight_peak": plan.peak_in_flight,
    })
}

/// Writes `bytes` to `path` atomically.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    atomic_write::write_atomically(path, |out| std::io::Write::write_all(out, bytes))
        .with_context(|| format!("writing {}", path.display()))
}

/// Largest proof whose bytes an error message carries.
const PROOF_IN_ERROR: usize = 64 << 10;

/// Writes a proof to `path` atomically. A proof can cost minutes of a GPU:
/// when it cannot be written (a full disk, a file size limit), the error
/// carries it in base64, so it is not lost with the process.
pub fn write_proof(path: &Path, bytes: &[u8]) -> Result<()> {
    write_output(path, bytes).map_err(|e| match bytes.len() <= PROOF_IN_ERROR {
        true => e.context(format!(
            "the proof ({} bytes, base64): {}",
            bytes.len(),
            base64::engine::general_purpose::STANDARD.encode(bytes)
        )),
        false => e,
    })
}

/// `dir/<name>.proof`: where `c2 --out-dir dir` writes the proof of the C1
/// output `input`, and where `aggregate` looks for it. The name is the
/// input's less its last extension only (`c1.42.json` gives
/// `c1.42.proof`), so inputs that differ before it never share a file.
pub fn proof_file(dir: &Path, input: &Path) -> Result<PathBuf> {
    let stem = input
        .file_stem()
        .with_context(|| format!("{}: no file name", input.display()))?;
    let mut name = stem.to_os_string();
    name.push(".proof");
    Ok(dir.join(name))
}

/// Checks that each of `paths` can be created (its directory exists and
/// takes new files) before anything is proven, so that a mistyped output
/// directory fails in milliseconds, not after the proof.
pub fn check_writable<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<()> {
    for path in paths {
        // A directory takes the temporary file, but not the rename onto it
        // after the proof.
        if path.is_dir() {
            bail!(
                "cannot write {}: it is a directory (name a file, or give directories with \
                 --out-dir where the command takes one)",
                path.display()
            );
        }
        // Dropped uncommitted: the temporary file is removed again.
        atomic_write::AtomicFile::create(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// The C1 files named by `paths`: files as given, directories replaced by
/// their `*.json` files in name order.
pub fn expand_inputs(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("listing {}", path.display()))?
            .map(|entry| entry.map(|e| e.path()))
            .collect::<std::io::Result<_>>()
            .with_context(|| format!("listing {}", path.display()))?;
        found.retain(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"));
        if found.is_empty() {
            bail!("{}: no .json files in this directory", path.display());
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_file_keeps_every_dot_of_its_inputs_name_but_the_last() {
        let dir = Path::new("out");
        let of = |input: &str| proof_file(dir, Path::new(input)).unwrap();
        assert_eq!(of("c1.42.json"), dir.join("c1.42.proof"));
        assert_eq!(of("in/c1.43.json"), dir.join("c1.43.proof"));
        assert_eq!(of("c1.json"), dir.join("c1.proof"));
        assert_eq!(of("c1"), dir.join("c1.proof"));
        assert!(proof_file(dir, Path::new("/")).is_err());
    }
}
