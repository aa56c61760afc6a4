//! What the commands write: proof encodings, JSON reports, atomic files,
//! and the input lists they read.

use std::io::Write;
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

/// Where an output path is written.
#[derive(Debug, PartialEq, Eq)]
enum Destination {
    /// A regular file (or a name for a new one), replaced atomically: the
    /// path given or, through links, the file they name (the links stay).
    File(PathBuf),
    /// A device, a pipe or the process's own stream (`/dev/null`, a FIFO,
    /// `/dev/stdout`), written in place: a file renamed over it would
    /// replace it (as root, `/dev/null` itself).
    Special,
}

/// Where writing `path` goes; an error for a directory, or a name ending
/// in `/`, which no file can take.
fn destination(path: &Path) -> Result<Destination> {
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        bail!(
            "cannot write {}: a file name, not a directory, is needed here",
            path.display()
        );
    }
    // The process's own streams, whatever they are redirected to (a log
    // opened for appending must not be replaced).
    let streams = ["/dev/stdout", "/dev/stderr", "/dev/fd", "/proc/self/fd"];
    if streams.iter().any(|stream| path.starts_with(stream)) {
        return Ok(Destination::Special);
    }
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => bail!(
            "cannot write {}: it is a directory (name a file, or give directories with \
             --out-dir where the command takes one)",
            path.display()
        ),
        Ok(metadata) if metadata.is_file() => Ok(Destination::File(
            std::fs::canonicalize(path).with_context(|| format!("resolving {}", path.display()))?,
        )),
        Ok(_) => Ok(Destination::Special),
        // A new file, or a link to one not there yet.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut path = path.to_owned();
            for _ in 0..40 {
                let Ok(target) = std::fs::read_link(&path) else {
                    return Ok(Destination::File(path));
                };
                path = path.parent().unwrap_or(Path::new("")).join(target);
            }
            bail!("cannot write {}: too many levels of links", path.display())
        }
        Err(e) => Err(e).with_context(|| format!("cannot write {}", path.display())),
    }
}

/// Writes `bytes` to `path`: atomically to a file, in place to a device or
/// a pipe.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    let written = match destination(path)? {
        Destination::File(file) => {
            atomic_write::write_atomically(&file, |out| out.write_all(bytes))
        }
        Destination::Special => match path.to_str() {
            // Through the process's own handle, where what it prints
            // after goes too.
            Some("/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1") => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes).and_then(|()| out.flush())
            }
            Some("/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2") => {
                std::io::stderr().lock().write_all(bytes)
            }
            // Appending: a stream redirected to a file keeps what it holds.
            _ => std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .and_then(|mut out| out.write_all(bytes)),
        },
    };
    written.with_context(|| format!("writing {}", path.display()))
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

/// Checks, before anything is proven, that each of `outputs` can be
/// written (a file's directory exists and takes new files; devices, pipes
/// and the process's streams are taken as they are, since opening a pipe
/// waits for its reader), and that no two files among them, and none of
/// them and an input, are the same file: a mistyped output directory fails in milliseconds,
/// not after the proof, and a report is never written over the proof, nor
/// a proof over its input.
pub fn check_writable(outputs: &[&Path], inputs: &[&Path]) -> Result<()> {
    let mut files: Vec<(PathBuf, &Path)> = Vec::new();
    for &path in outputs {
        match destination(path)? {
            Destination::File(file) => {
                // Dropped uncommitted: the temporary file is removed again.
                atomic_write::AtomicFile::create(&file)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                let same = same_file_as(&file);
                if let Some((_, other)) = files.iter().find(|(seen, _)| *seen == same) {
                    bail!(
                        "{} and {} are the same file: one output would replace the other",
                        other.display(),
                        path.display()
                    );
                }
                files.push((same, path));
            }
            // Not opened for writing here: a pipe's open waits for its reader.
            Destination::Special => {}
        }
    }
    for &input in inputs {
        let same = same_file_as(input);
        if let Some((_, output)) = files.iter().find(|(seen, _)| *seen == same) {
            bail!(
                "{} is both an input and an output: the output would replace it",
                output.display()
            );
        }
    }
    Ok(())
}

/// `path` resolved so that two names of one file compare equal: through
/// links, and through its directory where the file does not exist yet.
fn same_file_as(path: &Path) -> PathBuf {
    if let Ok(resolved) = std::fs::canonicalize(path) {
        return resolved;
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            std::fs::canonicalize(dir)
                .map(|dir| dir.join(name))
                .unwrap_or_else(|_| path.to_owned())
        }
        _ => path.to_owned(),
    }
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

    /// Links are written through (they stay links, the file they name is
    /// replaced or created), pipes and devices in place (a file renamed
    /// over `/dev/null` would replace it), and a name that needs a
    /// directory is refused before anything is written.
    #[test]
    fn outputs_through_links_and_into_pipes_stay_what_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.bin");
        let link = dir.path().join("link.bin");
        std::os::unix::fs::symlink("target.bin", &link).unwrap();
        write_output(&link, b"created").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"created");
        write_output(&link, b"replaced").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"replaced");
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());

        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_output(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(std::os::unix::fs::FileTypeExt::is_fifo(
            &fifo.metadata().unwrap().file_type()
        ));

        let missing = dir.path().join("missing/");
        let error = write_output(&missing, b"x").unwrap_err();
        assert!(format!("{error:#}").contains("a file name, not a directory"));
        assert!(!dir.path().join("missing").exists());
    }

    /// Two names of one file among the outputs, or an output that is an
    /// input, are refused; devices may take several outputs.
    #[test]
    fn outputs_that_are_one_file_or_an_input_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let proof = dir.path().join("proof.bin");
        let input = dir.path().join("c1.json");
        std::fs::write(&input, b"{}").unwrap();
        let via_dot = dir.path().join(".").join("proof.bin");
        let clash = check_writable(&[&proof, &via_dot], &[]).unwrap_err();
        assert!(
            format!("{clash:#}").contains("are the same file"),
            "{clash:#}"
        );
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let over_input = check_writable(&[&link], &[&input]).unwrap_err();
        assert!(
            format!("{over_input:#}").contains("is both an input and an output"),
            "{over_input:#}"
        );
        let null = Path::new("/dev/null");
        check_writable(&[&proof, null, null], &[&input]).unwrap();
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "nothing left"
        );
    }

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
