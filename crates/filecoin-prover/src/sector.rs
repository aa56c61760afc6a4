//! One sealed sector as a proving job, and its proof as the chain takes it.
//!
//! The engine proves the sector's partitions; this module says what they
//! are (the partition circuits of the C1 output, their public inputs
//! derived from the C1 output's commitments) and what becomes of their
//! proofs: concatenated, as `seal_commit_phase2` returns them, or for
//! non-interactive PoRep aggregated with SnarkPack; then checked whole
//! with filecoin-proofs' `verify_seal` when the prover and sector ids are
//! known (an aggregate is otherwise checked against the C1 output's public
//! inputs, which its partition proofs were verified with).

use std::marker::PhantomData;
use std::time::{Duration, Instant};

use filecoin_proofs::{verify_seal, PoRepConfig};
use groth16_prover::PROOF_BYTES;
use pce_core::PrecompiledCircuit;
use proving_engine::{Assignment, Job, PartitionProof};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;
use storage_proofs_porep::stacked::generate_replica_id;
use tracing::info;

use crate::aggregate;
use crate::c1::C1Input;
use crate::partition::PartitionCircuits;
use crate::witness::partition_witness;
use crate::C2Error;

/// A sector's proof and how it was assembled and checked.
#[derive(Debug, Clone)]
pub struct SectorProof {
    /// What filecoin-proofs' `seal_commit_phase2` returns: the partition
    /// proofs, or their SnarkPack aggregate for non-interactive PoRep
    /// (the partition proofs again when only those were asked for).
    pub proof: Vec<u8>,
    /// The partition proofs, [`PROOF_BYTES`] each in partition order (as
    /// `seal_commit_phase2_circuit_proofs` returns them); for interactive
    /// PoRep the same bytes as `proof`.
    pub partition_proofs: Vec<u8>,
    /// Number of partitions.
    pub partitions: usize,
    /// SnarkPack aggregation (non-interactive PoRep only).
    pub aggregate: Option<Duration>,
    /// Check of the aggregate against the C1 output's public inputs, when
    /// `verify_seal` could not run (non-interactive PoRep only).
    pub verify_aggregate: Option<Duration>,
    /// Whole-proof check with filecoin-proofs' `verify_seal`, when it ran.
    pub verify_seal: Option<Duration>,
}

/// The C2 of one sector, for the engine.
pub struct SectorJob<'a, Tree> {
    input: &'a C1Input,
    config: &'a PoRepConfig,
    prover_id: Option<[u8; 32]>,
    sector_id: Option<u64>,
    /// The partition proofs alone, not aggregated (non-interactive PoRep).
    circuit_proofs: bool,
    tree: PhantomData<fn() -> Tree>,
}

impl<'a, Tree: 'static + MerkleTreeTrait> SectorJob<'a, Tree> {
    /// The job of `input`, whose proof type has the configuration `config`;
    /// with both ids the whole proof goes through `verify_seal`. With
    /// `circuit_proofs`, a non-interactive sector's partition proofs are
    /// its result, not their aggregate.
    pub fn new(
        input: &'a C1Input,
        config: &'a PoRepConfig,
        prover_id: Option<[u8; 32]>,
        sector_id: Option<u64>,
        circuit_proofs: bool,
    ) -> Self {
        Self {
            input,
            config,
            prover_id,
            sector_id,
            circuit_proofs,
            tree: PhantomData,
        }
    }

    /// Refuses ids that do not derive the C1 output's replica id (as
    /// `verify_seal` derives it), before anything is proven: with them no
    /// proof of this sector would pass `verify_seal`.
    fn check_ids(&self, circuits: &PartitionCircuits<Tree>) -> Result<(), C2Error> {
        let (Some(prover_id), Some(sector_id)) = (self.prover_id, self.sector_id) else {
            return Ok(());
        };
        let c1 = circuits.c1();
        let derived = generate_replica_id::<Tree::Hasher, _>(
            &prover_id,
            sector_id,
            &c1.ticket,
            c1.comm_d,
            &self.config.porep_id,
        );
        match derived == c1.replica_id {
            true => Ok(()),
            false => Err(C2Error::IdsMismatch {
                sector_id,
                hint: match self.input.sector_num {
                    Some(named) if named != sector_id => format!("; the file names sector {named}"),
                    _ => String::new(),
                },
            }),
        }
    }

    /// `verify_seal` on `proof`, when the ids are known.
    fn verify_seal(
        &self,
        circuits: &PartitionCircuits<Tree>,
        proof: &[u8],
    ) -> Result<Option<Duration>, C2Error> {
        let (Some(prover_id), Some(sector_id)) = (self.prover_id, self.sector_id) else {
            return Ok(None);
        };
        let start = Instant::now();
        let c1 = circuits.c1();
        let valid = verify_seal::<Tree>(
            self.config,
            c1.comm_r,
            c1.comm_d,
            prover_id,
            SectorId::from(sector_id),
            c1.ticket,
            c1.seed,
            proof,
        )
        .map_err(C2Error::filecoin("verify_seal"))?;
        match valid {
            true => Ok(Some(start.elapsed())),
            false => Err(C2Error::VerifySealRejected),
        }
    }
}

impl<Tree: 'static + MerkleTreeTrait> Job for SectorJob<'_, Tree> {
    type Statement = PartitionCircuits<Tree>;
    type Output = SectorProof;
    type Error = C2Error;

    fn partitions(&self) -> usize {
        self.input.num_partitions()
    }

    fn label(&self) -> String {
        self.input.path.display().to_string()
    }

    fn open(&self) -> Result<Self::Statement, C2Error> {
        let circuits = PartitionCircuits::new(self.config, self.input.phase1_output::<Tree>()?)?;
        let expected = usize::from(self.config.partitions);
        if circuits.num_partitions() != expected {
            return Err(C2Error::PartitionCount {
                proof_type: self.input.proof_type.to_string(),
                expected,
                found: circuits.num_partitions(),
            });
        }
        circuits.verify_vanilla()?;
        self.check_ids(&circuits)?;
        Ok(circuits)
    }

    fn assign(
        &self,
        circuits: &Self::Statement,
        partition: usize,
        pce: &PrecompiledCircuit,
    ) -> Result<Assignment, C2Error> {
        Ok(Assignment {
            witness: partition_witness(circuits, partition, pce.num_inputs(), pce.num_aux())?,
            public_inputs: circuits.public_inputs(partition)?,
        })
    }

    fn finish(
        &self,
        circuits: Self::Statement,
        proofs: Vec<PartitionProof>,
    ) -> Result<SectorProof, C2Error> {
        let mut partition_proofs = Vec::with_capacity(PROOF_BYTES * proofs.len());
        for proven in &proofs {
            proven
                .proof
                .write(&mut partition_proofs)
                .expect("writing to memory");
        }
        let partitions = proofs.len();
        let c1 = circuits.c1();
        let non_interactive = self.input.proof_type.is_non_interactive();
        if !non_interactive || self.circuit_proofs {
            // Each partition proof was verified when proven; `verify_seal`
            // takes a non-interactive sector's aggregate only.
            let verify_seal = match non_interactive {
                true => None,
                false => self.verify_seal(&circuits, &partition_proofs)?,
            };
            return Ok(SectorProof {
                proof: partition_proofs.clone(),
                partition_proofs,
                partitions,
                aggregate: None,
                verify_aggregate: None,
                verify_seal,
            });
        }
        let start = Instant::now();
        let aggregated =
            aggregate::aggregate::<Tree>(self.config, c1.comm_r, c1.seed, &partition_proofs)?;
        let aggregate_time = start.elapsed();
        info!(
            sector = %self.label(),
            bytes = aggregated.len(),
            elapsed = ?aggregate_time,
            "partition proofs aggregated (SnarkPack)"
        );
        let verify_seal = self.verify_seal(&circuits, &aggregated)?;
        let verify_aggregate = match verify_seal {
            Some(_) => None,
            None => {
                let start = Instant::now();
                let public_inputs = proofs.into_iter().map(|p| p.public_inputs).collect();
                let valid = aggregate::verify::<Tree>(
                    self.config,
                    c1.comm_r,
                    c1.seed,
                    &aggregated,
                    public_inputs,
                )?;
                if !valid {
                    return Err(C2Error::AggregateRejected);
                }
                Some(start.elapsed())
            }
        };
        Ok(SectorProof {
            proof: aggregated,
            partitions,
            partition_proofs,
            aggregate: Some(aggregate_time),
            verify_aggregate,
            verify_seal,
        })
    }
}
