//! Several sectors' PoRep proofs in one SnarkPack aggregate.
//!
//! A storage provider that commits many sectors at once sends the chain one
//! aggregate instead of each sector's proof: `ProveCommitAggregate` for
//! interactive PoRep, and FIP-0092's aggregation of 1 to 65
//! non-interactive sectors. filecoin-proofs' `aggregate_seal_commit_proofs`
//! makes it from every sector's partition proofs, in sector order, padded
//! to a power of two with copies of the last; its Fiat–Shamir transcript
//! binds each sector's comm_r (and, for interactive PoRep, its seed), so
//! the same proofs in the same order always give the same bytes.
//!
//! That function checks nothing: a proof of another sector, or one made
//! with other parameters, gives an aggregate that fails verification with
//! no word of which sector is wrong. So each sector's partition proofs are
//! first verified against its own public inputs, naming the file of any
//! that fails, and the aggregate is verified whole with filecoin-proofs'
//! `verify_aggregate_seal_commit_proofs` before it is returned.
//!
//! The public inputs come from each C1 output's commitments. Given the
//! prover id, they are derived as the chain derives them instead
//! (`get_seal_inputs`: the replica id from the prover id, the sector
//! number, the ticket and comm_d), and a sector sealed for another miner or
//! number is refused.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bellperson::groth16::aggregate::AggregateProof;
use bellperson::groth16::{prepare_verifying_key, verify_proof, PreparedVerifyingKey, Proof};
use blstrs::{Bls12, Scalar};
use filecoin_proofs::constants::{
    FIP92_MAX_NI_POREP_AGGREGATION_PROOFS, FIP92_MIN_NI_POREP_AGGREGATION_PROOFS,
};
use filecoin_proofs::{
    aggregate_seal_commit_proofs, get_seal_inputs, verify_aggregate_seal_commit_proofs, with_shape,
    PoRepConfig, SealCommitOutput,
};
use groth16_prover::srs::read_verifying_key;
use groth16_prover::PROOF_BYTES;
use proving_engine::chain;
use rayon::prelude::*;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;
use tracing::{info, warn};

use crate::aggregate::{self, check_srs, VERSION};
use crate::c1::{C1Error, SealedSector};
use crate::cache::CircuitFiles;
use crate::partition::SealPublicInputs;
use crate::C2Error;

/// One sector to aggregate: what its C1 output says, and its proof.
#[derive(Debug, Clone)]
pub struct SectorToAggregate {
    /// The sector, from its C1 output.
    pub sector: SealedSector,
    /// The file its proof was read from, named in errors.
    pub proof_path: PathBuf,
    /// Its partition proofs, [`PROOF_BYTES`] each, in partition order (what
    /// `seal_commit_phase2` returns for interactive PoRep, and
    /// `seal_commit_phase2_circuit_proofs` for non-interactive).
    pub partition_proofs: Vec<u8>,
}

/// An aggregate of several sectors' proofs and how it was made.
#[derive(Debug, Clone)]
pub struct SectorsAggregate {
    /// What filecoin-proofs' `aggregate_seal_commit_proofs` returns.
    pub proof: Vec<u8>,
    /// Partition proofs aggregated, before padding.
    pub proofs: usize,
    /// The power of two they were padded to.
    pub padded_to: usize,
    /// Whether the public inputs were derived from the prover id and
    /// sector numbers, as the chain derives them.
    pub chain_inputs: bool,
    /// Verifying every sector's partition proofs.
    pub check: Duration,
    /// SnarkPack aggregation.
    pub aggregate: Duration,
    /// Verifying the aggregate.
    pub verify: Duration,
}

/// The most sectors the miner actor's ProveCommitAggregate takes (its
/// policy's `max_aggregated_sectors`).
pub const MAX_AGGREGATED_SECTORS: usize = 819;

/// The fewest sectors it takes (`min_aggregated_sectors`).
pub const MIN_AGGREGATED_SECTORS: usize = 4;

/// Aggregates `sectors`' proofs, in the order given, into one SnarkPack
/// proof (version 2, as lotus and Curio aggregate), after checking each
/// sector's proofs; with `prover_id`, every sector must name its sector
/// number (lotus-bench's c1.json does) and the public inputs are derived
/// from the ids. Needs the verifying key and SnarkPack's SRS of the proof
/// type in the parameter cache (not the Groth16 parameters).
pub fn aggregate_sectors(
    sectors: &[SectorToAggregate],
    prover_id: Option<[u8; 32]>,
) -> Result<SectorsAggregate, C2Error> {
    let first = &sectors.first().ok_or(C2Error::NoInputs)?.sector;
    if let Some(other) = sectors
        .iter()
        .find(|s| s.sector.proof_type != first.proof_type)
    {
        return Err(C2Error::MixedProofTypes {
            path: other.sector.path.clone(),
            found: other.sector.proof_type.to_string(),
            expected: first.proof_type.to_string(),
        });
    }
    let count = sectors.len();
    if first.proof_type.is_non_interactive() {
        let bounds = FIP92_MIN_NI_POREP_AGGREGATION_PROOFS..=FIP92_MAX_NI_POREP_AGGREGATION_PROOFS;
        if !bounds.contains(&count) {
            return Err(C2Error::AggregateCount {
                sectors: count,
                what: format!(
                    "FIP-0092 aggregates {} to {} non-interactive sectors",
                    bounds.start(),
                    bounds.end()
                ),
            });
        }
    } else if count > MAX_AGGREGATED_SECTORS {
        return Err(C2Error::AggregateCount {
            sectors: count,
            what: format!(
                "the miner actor's ProveCommitAggregate takes at most {MAX_AGGREGATED_SECTORS} \
                 sectors"
            ),
        });
    } else if count < MIN_AGGREGATED_SECTORS {
        // A valid aggregate, which tests and tools use; only the chain
        // refuses it.
        warn!(
            sectors = count,
            "the miner actor's ProveCommitAggregate refuses fewer than \
             {MIN_AGGREGATED_SECTORS} sectors: submit these proofs one by one"
        );
    }
    let config = first.proof_type.config();
    with_shape!(
        first.proof_type.sector_size,
        aggregate_shape,
        &config,
        sectors,
        prover_id
    )
}

fn aggregate_shape<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    sectors: &[SectorToAggregate],
    prover_id: Option<[u8; 32]>,
) -> Result<SectorsAggregate, C2Error> {
    let proof_type = sectors[0].sector.proof_type.to_string();
    let partitions = usize::from(config.partitions);
    let proofs = partitions * sectors.len();
    if aggregate::powers_needed(proofs) > aggregate::SRS_READ_LIMIT {
        return Err(C2Error::AggregateCount {
            sectors: sectors.len(),
            what: format!(
                "their {proofs} partition proofs are more than SnarkPack's SRS can aggregate \
                 (filecoin-proofs reads {} of its powers, enough for {})",
                aggregate::SRS_READ_LIMIT,
                aggregate::SRS_READ_LIMIT / 2
            ),
        });
    }
    check_srs(&proof_type, proofs)?;
    let files = CircuitFiles::of::<Tree>(config)?;
    if !files.vk.exists() {
        return Err(C2Error::MissingParameters {
            path: files.vk,
            proof_type,
        });
    }
    let pvk = prepare_verifying_key(
        &read_verifying_key(&files.vk).map_err(|e| C2Error::Engine(e.into()))?,
    );
    let derive = SealPublicInputs::<Tree>::new(config)?;

    // Sectors are checked in parallel (a verification is a few pairings;
    // an aggregate of 819 sectors at 32 GiB has 8,190 of them).
    let start = Instant::now();
    // The first failing sector in order is reported, whichever failed first.
    let checked: Vec<Result<Vec<Vec<Scalar>>, C2Error>> = sectors
        .par_iter()
        .map(|sector| check_sector::<Tree>(config, &derive, &pvk, sector, prover_id))
        .collect();
    let mut public_inputs = Vec::with_capacity(proofs);
    for inputs in checked {
        public_inputs.extend(inputs?);
    }
    let check = start.elapsed();

    let start = Instant::now();
    let comm_rs: Vec<[u8; 32]> = sectors.iter().map(|s| s.sector.comm_r).collect();
    let seeds: Vec<[u8; 32]> = sectors.iter().map(|s| s.sector.seed).collect();
    let outputs: Vec<SealCommitOutput> = sectors
        .iter()
        .map(|s| SealCommitOutput {
            proof: s.partition_proofs.clone(),
        })
        .collect();
    let proof = aggregate_seal_commit_proofs::<Tree>(config, &comm_rs, &seeds, &outputs, VERSION)
        .map_err(C2Error::filecoin("SnarkPack aggregation"))?;
    let aggregate = start.elapsed();
    info!(sectors = sectors.len(), proofs, bytes = proof.len(), elapsed = ?aggregate, "sectors aggregated (SnarkPack)");

    let start = Instant::now();
    let valid = verify_aggregate_seal_commit_proofs::<Tree>(
        config,
        proof.clone(),
        &comm_rs,
        &seeds,
        public_inputs,
        VERSION,
    )
    .map_err(C2Error::filecoin("verifying the SnarkPack aggregate"))?;
    if !valid {
        return Err(C2Error::Rejected {
            verifier: "verify_aggregate_seal_commit_proofs",
        });
    }
    Ok(SectorsAggregate {
        proof,
        proofs,
        padded_to: aggregate::target_len(proofs),
        chain_inputs: prover_id.is_some(),
        check,
        aggregate,
        verify: start.elapsed(),
    })
}

/// Verifies the partition proofs of one sector; returns their public
/// inputs, in partition order.
fn check_sector<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    derive: &SealPublicInputs<Tree>,
    pvk: &PreparedVerifyingKey<Bls12>,
    to_aggregate: &SectorToAggregate,
    prover_id: Option<[u8; 32]>,
) -> Result<Vec<Vec<Scalar>>, C2Error> {
    let sector = &to_aggregate.sector;
    let proof_type = sector.proof_type;
    let partitions = usize::from(config.partitions);
    if sector.partitions != partitions {
        return Err(C2Error::C1(C1Error {
            path: sector.path.clone(),
            what: format!(
                "{} partitions of vanilla proofs, and {proof_type} has {partitions}",
                sector.partitions
            ),
        }));
    }
    let bad = |what: String| C2Error::AggregateInput {
        path: to_aggregate.proof_path.clone(),
        c1: sector.path.clone(),
        what,
    };
    let inputs = derive.of(sector).map_err(|e| bad(chain(&e)))?;
    let inputs = match prover_id {
        None => inputs,
        Some(prover_id) => chain_inputs::<Tree>(config, sector, prover_id, inputs).map_err(bad)?,
    };
    let bytes = &to_aggregate.partition_proofs;
    if bytes.len() != partitions * PROOF_BYTES {
        return Err(bad(format!(
            "{} bytes, and {proof_type}'s partition proofs are {partitions} of {PROOF_BYTES} bytes{}",
            bytes.len(),
            match is_aggregate(bytes) {
                true => ": this is a SnarkPack aggregate (a non-interactive sector's c2 output), \
                         and aggregates are made of partition proofs, which `c2 --format json` \
                         writes next to the aggregate",
                false => "",
            }
        )));
    }
    for (k, (proof, inputs)) in bytes.chunks(PROOF_BYTES).zip(&inputs).enumerate() {
        let proof = Proof::<Bls12>::read(proof)
            .map_err(|e| bad(format!("partition {k}'s proof is not a Groth16 proof: {e}")))?;
        let valid = verify_proof(pvk, &proof, inputs)
            .map_err(|e| bad(format!("partition {k}'s proof cannot be verified: {e}")))?;
        if !valid {
            return Err(bad(format!(
                "partition {k}'s proof does not verify against the sector's public inputs \
                 (a proof of another sector, or made with other parameters)"
            )));
        }
    }
    Ok(inputs)
}

/// The public inputs of `sector` as the chain derives them from the ids,
/// once they are known to equal `from_c1`, those of its C1 output; else
/// what is wrong.
fn chain_inputs<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    sector: &SealedSector,
    prover_id: [u8; 32],
    from_c1: Vec<Vec<Scalar>>,
) -> Result<Vec<Vec<Scalar>>, String> {
    let sector_id = sector.sector_num.ok_or(
        "its C1 output names no sector number, and with the prover id the public inputs are \
         derived from both, as the chain derives them (lotus-bench's c1.json carries SectorNum; \
         without --prover-id/--miner-id the proofs are checked against the C1 outputs' own inputs)",
    )?;
    let inputs = get_seal_inputs::<Tree>(
        config,
        sector.comm_r,
        sector.comm_d,
        prover_id,
        SectorId::from(sector_id),
        sector.ticket,
        sector.seed,
    )
    .map_err(|e| format!("deriving the chain's public inputs: {e:#}"))?;
    match inputs == from_c1 {
        true => Ok(inputs),
        false => Err(format!(
            "the prover id and sector number {sector_id} do not derive the replica id of its C1 \
             output (it was sealed for another miner or sector number): the chain would reject \
             the aggregate"
        )),
    }
}

/// Whether `bytes` are a SnarkPack aggregate (a non-interactive sector's
/// `c2` output) rather than partition proofs.
fn is_aggregate(bytes: &[u8]) -> bool {
    AggregateProof::<Bls12>::read(std::io::Cursor::new(bytes)).is_ok()
}
