//! What a job proves: each proof kind's request as Curio sends it, checked
//! before it is queued and opened when a worker claims it, and the circuit
//! it is proven with.
//!
//! | kind | Curio sends | the answer is what filecoin-proofs-api's … returns |
//! |---|---|---|
//! | PoRep C2 | the C1 wrapper, miner, sector | `seal_commit_phase2` |
//! | WindowPoSt | one partition's per-sector vanilla proofs, its index, randomness, miner | `generate_single_window_post_with_vanilla` |
//! | WinningPoSt | the sector's vanilla proof, randomness, miner | `generate_winning_post_with_vanilla` |
//! | SnapDeals | one vanilla proof per partition, three commitments | `generate_empty_sector_update_proof_with_vanilla` |
//!
//! Circuits are named as cuzk names them (`porep-32g`, `wpost-32g`,
//! `winning-32g`, `snap-32g`), or by proof type name.

use std::path::PathBuf;

use filecoin_prover::c1::C1Input;
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::circuits::ProofCircuit;
use filecoin_prover::post::{PoStInput, PoStKind, PoStProofType};
use filecoin_prover::proof_type::{ProofType, Variant, SECTOR_SIZES};
use filecoin_prover::update::{UpdateCommitments, UpdateInput, UpdateProofType};
use filecoin_prover::vanilla::VanillaBytes;

use crate::porep::PorepRequest;

/// Proof kind names, as queues and metrics show them.
pub const KIND_POREP: &str = "porep";
/// See [`KIND_POREP`].
pub const KIND_SNAP: &str = "snap";
/// See [`KIND_POREP`].
pub const KIND_WINDOW_POST: &str = "wpost";
/// See [`KIND_POREP`].
pub const KIND_WINNING_POST: &str = "winning";

/// What a job proves.
#[derive(Debug, Clone)]
pub enum Request {
    /// A PoRep C2.
    Porep(PorepRequest),
    /// One WindowPoSt partition, or a WinningPoSt.
    PoSt(PoStInput),
    /// A SnapDeals update.
    Snap(UpdateInput),
}

impl crate::jobs::InputBytes for Request {
    fn input_bytes(&self) -> u64 {
        let vanilla = |proofs: &[VanillaBytes]| proofs.iter().map(|p| p.bytes.len() as u64).sum();
        match self {
            Self::Porep(request) => request.c1.len() as u64,
            Self::PoSt(input) => vanilla(&input.vanilla_proofs),
            Self::Snap(input) => vanilla(&input.vanilla_proofs),
        }
    }
}

/// A request's input, parsed.
pub enum Opened {
    /// A commit-phase-1 output, and the ids its proof is checked with.
    Porep {
        /// The output.
        input: C1Input,
        /// The miner's actor id.
        miner_id: u64,
        /// The sector's number.
        sector_number: u64,
    },
    /// PoSt vanilla proofs (decoded and verified by the job).
    PoSt(PoStInput),
    /// SnapDeals vanilla proofs (decoded and verified by the job).
    Snap(UpdateInput),
}

impl Request {
    /// The proof kind's name in queues and metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Porep(_) => KIND_POREP,
            Self::PoSt(input) if input.proof_type.kind == PoStKind::Winning => KIND_WINNING_POST,
            Self::PoSt(_) => KIND_WINDOW_POST,
            Self::Snap(_) => KIND_SNAP,
        }
    }

    /// Parses and checks the input; a commit-phase-1 output is parsed
    /// here, vanilla proofs when the job opens them.
    pub fn open(&self) -> Result<Opened, String> {
        match self {
            Self::Porep(request) => request.open().map(|input| Opened::Porep {
                input,
                miner_id: request.miner_id,
                sector_number: request.sector_number,
            }),
            Self::PoSt(input) => Ok(Opened::PoSt(input.clone())),
            Self::Snap(input) => Ok(Opened::Snap(input.clone())),
        }
    }

    /// The circuit it is proven with.
    pub fn circuit(&self) -> ProofCircuit {
        match self {
            Self::Porep(request) => ProofCircuit::Seal(request.proof_type),
            Self::PoSt(input) => ProofCircuit::PoSt(input.proof_type),
            Self::Snap(input) => ProofCircuit::Update(input.proof_type),
        }
    }
}

/// The request's vanilla proofs, named for error messages: at least one,
/// and no more than `most`, what its proof type takes (each proof is
/// copied and named, so their number is bounded before that).
fn vanilla_of(id: &str, proofs: &[Vec<u8>], most: usize) -> Result<Vec<VanillaBytes>, String> {
    if proofs.is_empty() {
        return Err("vanilla_proofs is empty".into());
    }
    if proofs.len() > most {
        return Err(format!(
            "vanilla_proofs has {} entries; its proof type takes at most {most}",
            proofs.len()
        ));
    }
    Ok(proofs
        .iter()
        .enumerate()
        .map(|(i, bytes)| VanillaBytes {
            source: PathBuf::from(format!("request {id}: vanilla_proofs[{i}]")),
            bytes: bytes.clone(),
        })
        .collect())
}

/// `bytes` as the 32 bytes `name` must be.
fn bytes32(bytes: &[u8], name: &str) -> Result<[u8; 32], String> {
    bytes
        .try_into()
        .map_err(|_| format!("{name} must be 32 bytes, got {}", bytes.len()))
}

/// Checks the sector size a request states, if any, against its proof type's.
fn check_size(stated: u64, actual: u64, registered_proof: u64, name: &str) -> Result<(), String> {
    match stated {
        0 => Ok(()),
        size if size == actual => Ok(()),
        size => Err(format!(
            "sector_size {size} does not match registered_proof {registered_proof} ({name})"
        )),
    }
}

/// The fields of a PoSt request.
pub struct PoStFields<'a> {
    /// The request id.
    pub id: &'a str,
    /// WindowPoSt or WinningPoSt, by the request's kind.
    pub kind: PoStKind,
    /// Numeric `RegisteredPoStProof`.
    pub registered_proof: u64,
    /// Stated sector size (0: unstated).
    pub sector_size: u64,
    /// Per-sector vanilla proofs.
    pub vanilla_proofs: &'a [Vec<u8>],
    /// The miner actor id.
    pub miner_id: u64,
    /// The challenge randomness.
    pub randomness: &'a [u8],
    /// WindowPoSt: the partition.
    pub partition_index: u32,
}

/// A WindowPoSt partition or WinningPoSt request, checked as far as it can
/// be without decoding the vanilla proofs.
pub fn post_request(fields: PoStFields<'_>) -> Result<Request, String> {
    let PoStFields {
        id,
        kind,
        registered_proof,
        ..
    } = fields;
    let proof_type = PoStProofType::from_id(registered_proof)
        .filter(|t| t.kind == kind)
        .ok_or_else(|| {
            format!("registered_proof {registered_proof} is not a {kind:?}PoSt proof type")
        })?;
    let name = proof_type.to_string();
    check_size(
        fields.sector_size,
        proof_type.sector_size,
        registered_proof,
        &name,
    )?;
    Ok(Request::PoSt(PoStInput {
        proof_type,
        randomness: bytes32(fields.randomness, "randomness")?,
        prover_id: prover_id_of_miner(fields.miner_id),
        vanilla_proofs: vanilla_of(
            id,
            fields.vanilla_proofs,
            proof_type.sectors_per_partition(),
        )?,
        partition: match kind {
            PoStKind::Window => Some(fields.partition_index as usize),
            PoStKind::Winning => None,
        },
    }))
}

/// A SnapDeals request, checked as far as it can be without decoding the
/// vanilla proofs.
pub fn snap_request(
    id: &str,
    registered_proof: u64,
    sector_size: u64,
    vanilla_proofs: &[Vec<u8>],
    [comm_r_old, comm_r_new, comm_d_new]: [&[u8]; 3],
) -> Result<Request, String> {
    let proof_type = UpdateProofType::from_id(registered_proof).ok_or_else(|| {
        format!("registered_proof {registered_proof} is not an update proof type")
    })?;
    let name = proof_type.to_string();
    check_size(sector_size, proof_type.sector_size, registered_proof, &name)?;
    let input = UpdateInput {
        proof_type,
        commitments: UpdateCommitments {
            comm_r_old: bytes32(comm_r_old, "comm_r_old")?,
            comm_r_new: bytes32(comm_r_new, "comm_r_new")?,
            comm_d_new: bytes32(comm_d_new, "comm_d_new")?,
        },
        vanilla_proofs: vanilla_of(id, vanilla_proofs, proof_type.partitions())?,
    };
    input.check_count().map_err(|e| e.to_string())?;
    Ok(Request::Snap(input))
}

/// `32g` for 32 GiB: cuzk's size suffix.
fn size_suffix(sector_size: u64) -> String {
    SECTOR_SIZES
        .iter()
        .find(|&&(size, _)| size == sector_size)
        .map(|&(_, name)| {
            name.trim_end_matches('B')
                .trim_end_matches('i')
                .to_lowercase()
        })
        .unwrap_or_else(|| sector_size.to_string())
}

/// The registry name of a circuit, in cuzk's style (`porep-32g`,
/// `wpost-32g`, `winning-32g`, `snap-32g`). Interactive and
/// non-interactive PoRep of one size share their circuit, so they share
/// the name; older variants carry their proof type name.
pub fn circuit_name(circuit: ProofCircuit) -> String {
    match circuit {
        ProofCircuit::Seal(t) => match t.variant {
            Variant::V1_1 | Variant::NonInteractive => {
                format!("porep-{}", size_suffix(t.sector_size))
            }
            _ => format!("porep-{}-{t}", size_suffix(t.sector_size)),
        },
        ProofCircuit::PoSt(t) => match (t.kind, t.v1_2) {
            (PoStKind::Winning, _) => format!("winning-{}", size_suffix(t.sector_size)),
            (PoStKind::Window, true) => format!("wpost-{}", size_suffix(t.sector_size)),
            (PoStKind::Window, false) => format!("wpost-{}-{t}", size_suffix(t.sector_size)),
        },
        ProofCircuit::Update(t) => format!("snap-{}", size_suffix(t.sector_size)),
    }
}

/// The circuit `name` designates: a registry name (`porep-32g`,
/// `wpost-32g`, ...) or a seal or PoSt proof type name
/// (`StackedDrg32GiBV1_1`, `StackedDrgWindow32GiBV1_2`).
pub fn circuit_named(name: &str) -> Result<ProofCircuit, String> {
    if let Some(t) = ProofType::from_name(name) {
        return Ok(ProofCircuit::Seal(t));
    }
    if let Some(t) = PoStProofType::from_name(name) {
        return Ok(ProofCircuit::PoSt(t));
    }
    SECTOR_SIZES
        .iter()
        .flat_map(|&(size, _)| {
            [
                ProofType::interactive(size).map(ProofCircuit::Seal),
                PoStProofType::current(PoStKind::Window, size).map(ProofCircuit::PoSt),
                PoStProofType::current(PoStKind::Winning, size).map(ProofCircuit::PoSt),
                UpdateProofType::of_size(size).map(ProofCircuit::Update),
            ]
        })
        .flatten()
        .find(|&circuit| circuit_name(circuit) == name)
        .ok_or_else(|| {
            format!(
                "unknown circuit {name:?}: expected porep-, wpost-, winning- or snap- followed by 2k, 8m, 512m, 32g or 64g, or a proof type name such as StackedDrg32GiBV1_1"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circuit_names_follow_cuzk() {
        let p32 = ProofCircuit::Seal(ProofType::interactive(32 << 30).unwrap());
        assert_eq!(circuit_name(p32), "porep-32g");
        let ni = ProofCircuit::Seal(ProofType::from_id(15).unwrap());
        assert_eq!(circuit_name(ni), "porep-2k");
        assert_eq!(circuit_named("porep-32g").unwrap(), p32);
        assert_eq!(circuit_named("StackedDrg32GiBV1_1").unwrap(), p32);
        for name in ["wpost-32g", "winning-2k", "snap-64g", "porep-8m"] {
            assert_eq!(circuit_name(circuit_named(name).unwrap()), name);
        }
        let window_v1 = circuit_named("StackedDrgWindow32GiBV1").unwrap();
        assert_eq!(circuit_name(window_v1), "wpost-32g-StackedDrgWindow32GiBV1");
        assert!(circuit_named("porep-3g")
            .unwrap_err()
            .contains("unknown circuit"));
    }

    #[test]
    fn post_and_snap_requests_are_checked_before_they_are_queued() {
        let fields = |registered_proof, randomness: &'static [u8]| PoStFields {
            id: "r",
            kind: PoStKind::Window,
            registered_proof,
            sector_size: 2048,
            vanilla_proofs: &[],
            miner_id: 1000,
            randomness,
            partition_index: 0,
        };
        let err = post_request(fields(10, &[0; 32])).unwrap_err();
        assert!(err.contains("vanilla_proofs is empty"), "{err}");
        let err = post_request(fields(0, &[0; 32])).unwrap_err();
        assert!(err.contains("not a WindowPoSt"), "{err}");
        let ok = post_request(PoStFields {
            vanilla_proofs: &[vec![1]],
            ..fields(10, &[0; 32])
        })
        .unwrap();
        assert_eq!(ok.kind(), KIND_WINDOW_POST);
        let err = post_request(PoStFields {
            vanilla_proofs: &[vec![1]],
            ..fields(10, &[0; 31])
        })
        .unwrap_err();
        assert!(err.contains("randomness must be 32 bytes"), "{err}");
        // A 2 KiB WindowPoSt partition holds 2 sectors, a WinningPoSt 1.
        let three = [vec![1], vec![2], vec![3]];
        let err = post_request(PoStFields {
            vanilla_proofs: &three,
            ..fields(10, &[0; 32])
        })
        .unwrap_err();
        assert!(
            err.contains("has 3 entries; its proof type takes at most 2"),
            "{err}"
        );
        let err = post_request(PoStFields {
            kind: PoStKind::Winning,
            vanilla_proofs: &three[..2],
            ..fields(0, &[0; 32])
        })
        .unwrap_err();
        assert!(err.contains("at most 1"), "{err}");
        let commitments: [&[u8]; 3] = [&[1; 32], &[2; 32], &[3; 16]];
        let err = snap_request("r", 0, 2048, &[vec![1]], commitments).unwrap_err();
        assert!(err.contains("comm_d_new must be 32 bytes"), "{err}");
        let err = snap_request("r", 3, 2048, &[vec![1]], commitments).unwrap_err();
        assert!(err.contains("does not match"), "{err}");
        let commitments: [&[u8]; 3] = [&[1; 32]; 3];
        let err = snap_request("r", 0, 2048, &three, commitments).unwrap_err();
        assert!(err.contains("takes at most 1"), "{err}");
        // A 32 GiB update has 16 partitions: one proof each, not fewer.
        let err = snap_request("r", 3, 0, &three, commitments).unwrap_err();
        assert!(
            err.contains("3 vanilla proof(s) given") && err.contains("16 partition(s)"),
            "{err}"
        );
    }
}
