//! Reading commit-phase-1 outputs, whatever produced them.
//!
//! Three JSON shapes are recognised:
//!
//! - filecoin-proofs' `SealCommitPhase1Output` (`vanilla_proofs` is a list
//!   of partitions): the sector size is read off the depth of the comm_d
//!   inclusion proofs, the variant off the number of partitions;
//! - filecoin-proofs-api's (`registered_proof` names the proof type, and
//!   `vanilla_proofs` is wrapped in an object keyed like `StackedDrg2KiBV1`);
//! - lotus-bench's `c1.json`: `{"SectorNum", "Phase1Out", "SectorSize"}`
//!   with `Phase1Out` the base64 of the filecoin-proofs-api JSON
//!   ([`lotus_bench_json`] writes it).

use std::path::{Path, PathBuf};

use base64::Engine;
use filecoin_proofs::SealCommitPhase1Output;
use serde_json::{json, Map, Value};
use storage_proofs_core::merkle::MerkleTreeTrait;

use crate::proof_type::{ProofType, Variant};

/// Why a C1 file could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {what}")]
pub struct C1Error {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub what: String,
}

/// Which program wrote the C1 file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum C1Format {
    /// filecoin-proofs' `SealCommitPhase1Output`.
    FilecoinProofs,
    /// filecoin-proofs-api's `SealCommitPhase1Output`.
    FilecoinProofsApi,
    /// lotus-bench's `c1.json` wrapper.
    LotusBench,
}

/// A parsed C1 file.
#[derive(Debug, Clone)]
pub struct C1Input {
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: C1Format,
    /// The proof type, given or detected.
    pub proof_type: ProofType,
    /// lotus-bench's sector number, when present.
    pub sector_num: Option<u64>,
    /// Number of partitions (of vanilla proofs) in the output.
    partitions: usize,
    /// filecoin-proofs' `SealCommitPhase1Output` as JSON text: parsed into
    /// a tree of values, a 32 GiB sector's output would take about ten
    /// times its size (every byte of a path a 32-byte number), held for as
    /// long as the input is queued.
    output: Vec<u8>,
}

/// The fields of a C1 output that name its sector ([`SealedSector`]).
#[derive(serde::Deserialize)]
struct SectorIds {
    comm_r: [u8; 32],
    comm_d: [u8; 32],
    replica_id: [u8; 32],
    seed: [u8; 32],
    ticket: [u8; 32],
}

fn partitions(output: &Map<String, Value>) -> Option<&Vec<Value>> {
    output.get("vanilla_proofs")?.as_array()
}

/// The sector size of raw vanilla proofs: comm_d's binary tree has one
/// leaf per 32 bytes, so its inclusion path length is log2(size / 32).
fn sector_size_of(output: &Map<String, Value>) -> Option<u64> {
    let proof = partitions(output)?.first()?.as_array()?.first()?;
    let depth = proof
        .pointer("/comm_d_proofs/data/Single/path/path")?
        .as_array()?
        .len();
    (depth < 58).then(|| 32u64 << depth)
}

/// The largest C1 output file read. An interactive 32 GiB sector's is
/// about 50 MB (10 partitions), a 64 GiB sector's somewhat more; a
/// non-interactive one has 126 partitions, so about 0.5–0.7 GB, and a
/// third more in lotus-bench's base64 wrapper. A file above it (a sealed
/// sector named by mistake) is refused before it is read. Parsing holds
/// up to about sixteen bytes per byte of JSON (an array of small
/// numbers), so the limit also bounds that: 16 GiB at worst, a few GB for
/// the largest real outputs.
pub const MAX_C1_BYTES: u64 = 1 << 30;

impl C1Input {
    /// Reads and recognises `path` (at most [`MAX_C1_BYTES`]). `proof_type`
    /// overrides detection for filecoin-proofs' format, which does not name
    /// its proof type.
    pub fn read(path: &Path, proof_type: Option<ProofType>) -> Result<Self, C1Error> {
        let text =
            crate::bounded_read::read_at_most(path, MAX_C1_BYTES).map_err(|what| C1Error {
                path: path.to_owned(),
                what,
            })?;
        Self::parse(path, &text, proof_type)
    }

    /// Recognises `text`, a C1 output received rather than read (a daemon's
    /// request); `path` names it in errors.
    pub fn parse(path: &Path, text: &[u8], proof_type: Option<ProofType>) -> Result<Self, C1Error> {
        let fail = |what: String| C1Error {
            path: path.to_owned(),
            what,
        };
        let json: Value =
            serde_json::from_slice(text).map_err(|e| fail(format!("not valid JSON: {e}")))?;
        let Value::Object(mut object) = json else {
            return Err(fail(
                "expected a JSON object (a C1 output or a lotus-bench c1.json)".into(),
            ));
        };
        let (format, sector_num, expected_size) = if let Some(wrapped) = object.get("Phase1Out") {
            let encoded = wrapped
                .as_str()
                .ok_or_else(|| fail("Phase1Out is not a string".into()))?;
            let inner = base64::engine::general_purpose::STANDARD
                .decode(encoded.trim())
                .map_err(|e| fail(format!("Phase1Out is not base64: {e}")))?;
            let sector_num = object.get("SectorNum").and_then(Value::as_u64);
            let size = object.get("SectorSize").and_then(Value::as_u64);
            let inner: Value = serde_json::from_slice(&inner)
                .map_err(|e| fail(format!("Phase1Out is not JSON: {e}")))?;
            object = match inner {
                Value::Object(inner) => inner,
                _ => return Err(fail("Phase1Out does not hold a JSON object".into())),
            };
            (C1Format::LotusBench, sector_num, size)
        } else if object.contains_key("registered_proof") {
            (C1Format::FilecoinProofsApi, None, None)
        } else {
            (C1Format::FilecoinProofs, None, None)
        };

        let proof_type = match format {
            C1Format::FilecoinProofs => match proof_type {
                Some(given) => given,
                None => Self::detect(&object).map_err(fail)?,
            },
            _ => {
                let name = object
                    .get("registered_proof")
                    .and_then(Value::as_str)
                    .ok_or_else(|| fail("missing registered_proof".into()))?;
                let named = ProofType::from_name(name)
                    .ok_or_else(|| fail(format!("unknown registered_proof {name:?}")))?;
                if let Some(given) = proof_type.filter(|&given| given != named) {
                    return Err(fail(format!(
                        "registered_proof is {named}, where the proof type given is {given}"
                    )));
                }
                // Unwrap {"StackedDrg2KiBV1": [[...]]} into the raw partitions.
                let wrapped = object
                    .remove("vanilla_proofs")
                    .ok_or_else(|| fail("missing vanilla_proofs".into()))?;
                let Value::Object(mut wrapped) = wrapped else {
                    return Err(fail("vanilla_proofs is not keyed by proof type".into()));
                };
                let raw = (wrapped.len() == 1)
                    .then(|| wrapped.values_mut().next().map(Value::take))
                    .flatten()
                    .ok_or_else(|| {
                        fail("vanilla_proofs must hold exactly one proof type".into())
                    })?;
                object.insert("vanilla_proofs".into(), raw);
                named
            }
        };
        if let Some(size) = expected_size.filter(|&s| s != proof_type.sector_size) {
            return Err(fail(format!(
                "SectorSize {size} differs from the proof type {proof_type}"
            )));
        }
        if let Some(found) = sector_size_of(&object).filter(|&s| s != proof_type.sector_size) {
            return Err(fail(format!(
                "the vanilla proofs are for {found}-byte sectors, not for {proof_type}"
            )));
        }
        // Checked here, before anything is sized by it: a request's count
        // of partitions sizes the engine's state for the job.
        let found = partitions(&object).map_or(0, Vec::len);
        if let Some(expected) = proof_type
            .partitions()
            .filter(|&expected| expected != found)
        {
            return Err(fail(format!(
                "{found} partition(s) of vanilla proofs, where {proof_type} has {expected}"
            )));
        }
        // As filecoin-proofs' `seal_commit_phase2`: a proof made with a
        // seed never drawn verifies here and is rejected by the chain.
        for field in ["comm_d", "comm_r", "seed"] {
            let all_zeros = object
                .get(field)
                .and_then(Value::as_array)
                .is_some_and(|bytes| {
                    !bytes.is_empty() && bytes.iter().all(|b| b.as_u64() == Some(0))
                });
            if all_zeros {
                return Err(fail(format!(
                    "{field} is all zeros, which filecoin-proofs' seal_commit_phase2 refuses{}",
                    if field == "seed" {
                        " (was this C1 output made before the sector's seed was drawn?)"
                    } else {
                        ""
                    }
                )));
            }
        }
        Ok(Self {
            path: path.to_owned(),
            format,
            proof_type,
            sector_num,
            partitions: found,
            output: serde_json::to_vec(&object).expect("JSON values serialise"),
        })
    }

    fn detect(output: &Map<String, Value>) -> Result<ProofType, String> {
        let size = sector_size_of(output)
            .ok_or("no vanilla proofs with a comm_d inclusion path: not a C1 output")?;
        let interactive = ProofType::interactive(size)
            .ok_or(format!("{size}-byte sectors have no registered seal proof"))?;
        let count = partitions(output).map_or(0, Vec::len);
        let non_interactive = ProofType {
            variant: Variant::NonInteractive,
            ..interactive
        };
        if count == usize::from(interactive.config().partitions) {
            Ok(interactive)
        } else if count == usize::from(non_interactive.config().partitions) {
            Ok(non_interactive)
        } else {
            Err(format!(
                "{count} partitions fit no registered proof type of {size}-byte sectors"
            ))
        }
    }

    /// Number of partitions (of vanilla proofs) in the C1 output.
    pub fn num_partitions(&self) -> usize {
        self.partitions
    }

    /// The C1 output as filecoin-proofs' type for the sector shape `Tree`.
    pub fn phase1_output<Tree: 'static + MerkleTreeTrait>(
        &self,
    ) -> Result<SealCommitPhase1Output<Tree>, C1Error> {
        serde_json::from_slice(&self.output).map_err(|e| C1Error {
            path: self.path.clone(),
            what: format!("not a {} C1 output: {e}", self.proof_type),
        })
    }
}

/// What a C1 output says about its sector besides the vanilla proofs: all
/// that checking a proof of the sector needs, small enough to keep for
/// hundreds of sectors (the vanilla proofs of one 32 GiB sector are tens of
/// megabytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedSector {
    /// The C1 file.
    pub path: PathBuf,
    /// Its proof type.
    pub proof_type: ProofType,
    /// lotus-bench's sector number, when present.
    pub sector_num: Option<u64>,
    /// Number of partitions of its vanilla proofs.
    pub partitions: usize,
    /// The replica commitment.
    pub comm_r: [u8; 32],
    /// The data commitment.
    pub comm_d: [u8; 32],
    /// The replica id, as the sector's hasher encodes it.
    pub replica_id: [u8; 32],
    /// The interactive challenge seed.
    pub seed: [u8; 32],
    /// The sealing ticket.
    pub ticket: [u8; 32],
}

impl C1Input {
    /// The sector's commitments and ids, without its vanilla proofs.
    pub fn sealed_sector(&self) -> Result<SealedSector, C1Error> {
        let ids: SectorIds = serde_json::from_slice(&self.output).map_err(|e| C1Error {
            path: self.path.clone(),
            what: format!("its commitments and ids: {e}"),
        })?;
        Ok(SealedSector {
            path: self.path.clone(),
            proof_type: self.proof_type,
            sector_num: self.sector_num,
            partitions: self.num_partitions(),
            comm_r: ids.comm_r,
            comm_d: ids.comm_d,
            replica_id: ids.replica_id,
            seed: ids.seed,
            ticket: ids.ticket,
        })
    }
}

/// `c1` as lotus-bench writes it: `{"SectorNum", "Phase1Out", "SectorSize"}`
/// with `Phase1Out` the base64 of filecoin-proofs-api's JSON (the proof type
/// named, the vanilla proofs keyed by their sector shape). Curio sends the
/// same wrapper to a proving daemon.
pub fn lotus_bench_json<Tree: 'static + MerkleTreeTrait>(
    c1: &SealCommitPhase1Output<Tree>,
    proof_type: ProofType,
    sector_num: u64,
) -> Value {
    let raw = serde_json::to_value(c1).expect("C1 outputs serialise");
    wrap(raw, proof_type, sector_num)
}

impl C1Input {
    /// This input in lotus-bench's and Curio's wrapper ([`lotus_bench_json`]),
    /// whatever format it was read in; `sector_num` when it carried none.
    pub fn to_lotus_bench_json(&self, sector_num: u64) -> Value {
        let raw = serde_json::from_slice(&self.output).expect("serialised from a JSON value");
        wrap(raw, self.proof_type, self.sector_num.unwrap_or(sector_num))
    }
}

/// filecoin-proofs' C1 JSON `raw` wrapped as lotus-bench does.
fn wrap(mut api: Value, proof_type: ProofType, sector_num: u64) -> Value {
    let raw = api["vanilla_proofs"].take();
    // filecoin-proofs-api keys the proofs by the V1 name of the sector size.
    let shape_key = ProofType {
        variant: Variant::V1,
        ..proof_type
    }
    .to_string();
    api["vanilla_proofs"] = json!({ shape_key: raw });
    api["registered_proof"] = json!(proof_type.to_string());
    let encoded = base64::engine::general_purpose::STANDARD
        .encode(serde_json::to_vec(&api).expect("JSON values serialise"));
    json!({ "SectorNum": sector_num, "Phase1Out": encoded, "SectorSize": proof_type.sector_size })
}
