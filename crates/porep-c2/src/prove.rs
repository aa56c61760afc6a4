//! Proving a sector: its partitions through witness generation, the PCE
//! and a backend, one after another.
//!
//! Witnesses are generated on a separate thread, up to
//! `partitions_in_flight` ahead of the partition being proven, so witness
//! generation of the next partitions overlaps the NTTs and MSMs of the
//! current one; each witness and its a, b, c are freed as soon as its proof
//! is done. Every partition proof is verified against public inputs
//! derived from the C1 output itself before the sector proof is returned.

use std::sync::mpsc::sync_channel;
use std::time::{Duration, Instant};

use bellperson::groth16::{prepare_verifying_key, verify_proof, Proof};
use blstrs::{Bls12, Scalar};
use filecoin_proofs::{PoRepConfig, SealCommitPhase1Output};
use groth16_prover::Prover;
use pce_core::PrecompiledCircuit;
use storage_proofs_core::merkle::MerkleTreeTrait;
use tracing::info;

use crate::partition::PartitionCircuits;
use crate::witness::partition_witness;
use crate::C2Error;

/// Wall time per stage, summed over partitions.
#[derive(Debug, Clone, Default)]
pub struct StageTimes {
    /// Witness generation (on the producer thread, overlapping proving).
    pub witness: Duration,
    /// PCE evaluation, NTTs, MSMs and assembly.
    pub prove: Duration,
    /// Verification against the C1 output's public inputs.
    pub verify: Duration,
}

/// The proof of a sector.
pub struct SectorProof {
    /// One Groth16 proof per partition.
    pub proofs: Vec<Proof<Bls12>>,
    /// Their compressed encodings concatenated (192 bytes per partition),
    /// as filecoin-proofs' `seal_commit_phase2_circuit_proofs` returns them.
    pub bytes: Vec<u8>,
    /// Where the time went.
    pub times: StageTimes,
}

/// Proves every partition of the sector whose C1 output is `c1`, blinding
/// partition `k` with `randomness[k] = (r, s)`.
pub fn prove_sector<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    c1: &SealCommitPhase1Output<Tree>,
    pce: &PrecompiledCircuit,
    prover: &Prover<'_>,
    vk: &bellperson::groth16::VerifyingKey<Bls12>,
    partitions_in_flight: usize,
    randomness: &[(Scalar, Scalar)],
) -> Result<SectorProof, C2Error> {
    let circuits = PartitionCircuits::new(config, c1)?;
    let count = circuits.num_partitions();
    if randomness.len() != count {
        return Err(C2Error::Filecoin {
            step: "proving",
            message: format!("{} (r, s) pairs for {count} partitions", randomness.len()),
        });
    }
    let pvk = prepare_verifying_key(vk);
    let mut times = StageTimes::default();
    let mut proofs = Vec::with_capacity(count);
    std::thread::scope(|scope| -> Result<(), C2Error> {
        let (sender, receiver) = sync_channel(partitions_in_flight.saturating_sub(1));
        let circuits = &circuits;
        let producer = scope.spawn(move || -> Result<Duration, C2Error> {
            let mut spent = Duration::ZERO;
            for k in 0..count {
                let start = Instant::now();
                let witness = partition_witness(circuits, k, pce.num_inputs(), pce.num_aux())?;
                spent += start.elapsed();
                if sender.send((k, witness)).is_err() {
                    break; // the consumer stopped on an error
                }
            }
            Ok(spent)
        });
        for (k, witness) in receiver {
            let (r, s) = randomness[k];
            let start = Instant::now();
            let proof = prover.prove(pce, &witness, r, s)?;
            drop(witness);
            times.prove += start.elapsed();
            let start = Instant::now();
            let inputs = circuits.public_inputs(k)?;
            let valid = verify_proof(&pvk, &proof, &inputs).map_err(|e| C2Error::Filecoin {
                step: "verifying a partition proof",
                message: e.to_string(),
            })?;
            if !valid {
                return Err(C2Error::InvalidProof { partition: k });
            }
            times.verify += start.elapsed();
            info!(partition = k, "partition proven and verified");
            proofs.push(proof);
        }
        times.witness = producer
            .join()
            .expect("the witness thread does not panic")?;
        Ok(())
    })?;
    let mut bytes = Vec::with_capacity(192 * count);
    for proof in &proofs {
        proof.write(&mut bytes).expect("writing to memory");
    }
    Ok(SectorProof {
        proofs,
        bytes,
        times,
    })
}
