//! One Groth16 circuit per partition, from a C1 output.
//!
//! This mirrors `seal_commit_phase2_circuit_proofs` in filecoin-proofs: the
//! public inputs come from the C1 output (replica id, comm_d, comm_r, seed),
//! the public parameters from the PoRep configuration, and storage-proofs'
//! `StackedCompound::circuit` builds the circuit of each partition's vanilla
//! proofs. The blank circuit (no values) has the same structure and is what
//! the PCE is recorded from.

use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::parameters::setup_params;
use filecoin_proofs::{
    DefaultPieceDomain, DefaultPieceHasher, PoRepConfig, SealCommitPhase1Output,
};
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_porep::stacked::{self, StackedCircuit, StackedCompound, StackedDrg};

use crate::c1::SealedSector;
use crate::C2Error;

/// The circuit type of one PoRep partition.
pub type PartitionCircuit<Tree> = StackedCircuit<Tree, DefaultPieceHasher>;

type Compound<Tree> = StackedCompound<Tree, DefaultPieceHasher>;
type Vanilla<'a, Tree> = StackedDrg<'a, Tree, DefaultPieceHasher>;

fn public_params<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
) -> Result<stacked::PublicParams<Tree>, C2Error> {
    let setup = compound_proof::SetupParams {
        vanilla_params: setup_params(config)
            .map_err(C2Error::filecoin("PoRep setup parameters"))?,
        partitions: Some(usize::from(config.partitions)),
        priority: false,
    };
    let params = <Compound<Tree> as CompoundProof<Vanilla<'_, Tree>, _>>::setup(&setup)
        .map_err(C2Error::filecoin("PoRep public parameters"))?;
    Ok(params.vanilla_params)
}

/// The vanilla public inputs of a sector: what its partitions' Groth16
/// public inputs are derived from.
type SectorStatement<Tree> = stacked::PublicInputs<
    <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain,
    <DefaultPieceHasher as Hasher>::Domain,
>;

fn sector_statement<Tree: 'static + MerkleTreeTrait>(
    replica_id: <Tree::Hasher as Hasher>::Domain,
    comm_d: &[u8; 32],
    comm_r: &[u8; 32],
    seed: [u8; 32],
) -> Result<SectorStatement<Tree>, C2Error> {
    let comm_r = <Tree::Hasher as Hasher>::Domain::try_from_bytes(comm_r)
        .map_err(C2Error::filecoin("comm_r of the C1 output"))?;
    let comm_d = DefaultPieceDomain::try_from_bytes(comm_d)
        .map_err(C2Error::filecoin("comm_d of the C1 output"))?;
    Ok(stacked::PublicInputs {
        replica_id,
        tau: Some(stacked::Tau { comm_d, comm_r }),
        k: None,
        seed: Some(seed),
    })
}

fn partition_public_inputs<Tree: 'static + MerkleTreeTrait>(
    statement: &SectorStatement<Tree>,
    params: &stacked::PublicParams<Tree>,
    k: usize,
) -> Result<Vec<blstrs::Scalar>, C2Error> {
    <Compound<Tree> as CompoundProof<Vanilla<'_, Tree>, _>>::generate_public_inputs(
        statement,
        params,
        Some(k),
    )
    .map_err(C2Error::filecoin("deriving public inputs"))
}

/// Derives the public inputs of sectors' partitions from their
/// commitments alone, without their vanilla proofs (to check proofs made
/// earlier, e.g. before aggregating them).
pub struct SealPublicInputs<Tree: 'static + MerkleTreeTrait> {
    params: stacked::PublicParams<Tree>,
}

impl<Tree: 'static + MerkleTreeTrait> SealPublicInputs<Tree> {
    /// The derivation for sectors of `config`.
    pub fn new(config: &PoRepConfig) -> Result<Self, C2Error> {
        Ok(Self {
            params: public_params::<Tree>(config)?,
        })
    }

    /// The public inputs of each of `sector`'s partitions, in order.
    pub fn of(&self, sector: &SealedSector) -> Result<Vec<Vec<blstrs::Scalar>>, C2Error> {
        let replica_id = <Tree::Hasher as Hasher>::Domain::try_from_bytes(&sector.replica_id)
            .map_err(C2Error::filecoin("replica_id of the C1 output"))?;
        let statement =
            sector_statement::<Tree>(replica_id, &sector.comm_d, &sector.comm_r, sector.seed)?;
        (0..sector.partitions)
            .map(|k| partition_public_inputs(&statement, &self.params, k))
            .collect()
    }
}

/// Builds the circuits of one sealed sector from its C1 output.
pub struct PartitionCircuits<Tree: 'static + MerkleTreeTrait> {
    c1: SealCommitPhase1Output<Tree>,
    public_inputs: SectorStatement<Tree>,
    params: stacked::PublicParams<Tree>,
}

impl<Tree: 'static + MerkleTreeTrait> PartitionCircuits<Tree> {
    /// Prepares the public inputs and parameters of the sector.
    pub fn new(config: &PoRepConfig, c1: SealCommitPhase1Output<Tree>) -> Result<Self, C2Error> {
        Ok(Self {
            public_inputs: sector_statement::<Tree>(
                c1.replica_id,
                &c1.comm_d,
                &c1.comm_r,
                c1.seed,
            )?,
            params: public_params::<Tree>(config)?,
            c1,
        })
    }

    /// Checks the C1 output's vanilla proofs against its replica id,
    /// commitments and seed, as filecoin-proofs' `seal_commit_phase2` does
    /// before proving: an output that cannot give a valid proof (corrupted,
    /// or of another proof type or porep id) is refused in seconds instead
    /// of after its partitions are proven.
    pub fn verify_vanilla(&self) -> Result<(), C2Error> {
        let valid = C2Error::unless_malformed(
            || "C1 output's vanilla proofs".into(),
            || {
                Vanilla::<Tree>::verify_all_partitions(
                    &self.params,
                    &self.public_inputs,
                    &self.c1.vanilla_proofs,
                )
                .map_err(C2Error::filecoin("verifying the vanilla proofs"))
            },
        )?;
        match valid {
            true => Ok(()),
            false => Err(C2Error::InvalidVanillaProofs),
        }
    }

    /// The C1 output the circuits are built from.
    pub fn c1(&self) -> &SealCommitPhase1Output<Tree> {
        &self.c1
    }

    /// Number of partitions.
    pub fn num_partitions(&self) -> usize {
        self.c1.vanilla_proofs.len()
    }

    /// Number of challenges of partition `k`.
    pub fn num_challenges(&self, k: usize) -> usize {
        self.c1.vanilla_proofs[k].len()
    }

    /// The vanilla proof of challenge `j` of partition `k`: what the
    /// one-challenge circuit [`Self::challenge_circuit`] is built from.
    pub(crate) fn vanilla_proof(
        &self,
        k: usize,
        j: usize,
    ) -> &stacked::Proof<Tree, DefaultPieceHasher> {
        &self.c1.vanilla_proofs[k][j]
    }

    /// The sector's statement (replica id, comm_d, comm_r, seed) the
    /// circuits take their replica id and commitments from.
    pub(crate) fn statement(&self) -> &SectorStatement<Tree> {
        &self.public_inputs
    }

    /// The public inputs of partition `k`, derived from the C1 output's
    /// replica id, commitments and seed (not from any witness).
    pub fn public_inputs(&self, k: usize) -> Result<Vec<blstrs::Scalar>, C2Error> {
        partition_public_inputs(&self.public_inputs, &self.params, k)
    }

    /// The circuit of partition `k`.
    pub fn circuit(&self, k: usize) -> Result<PartitionCircuit<Tree>, C2Error> {
        self.build(k, &self.c1.vanilla_proofs[k])
    }

    /// The circuit of partition `k` reduced to its challenge `j`: the same
    /// shared part (replica id, commitments) followed by that one challenge.
    pub fn challenge_circuit(&self, k: usize, j: usize) -> Result<PartitionCircuit<Tree>, C2Error> {
        self.build(k, &[self.c1.vanilla_proofs[k][j].clone()])
    }

    fn build(
        &self,
        k: usize,
        vanilla_proofs: &[stacked::Proof<Tree, DefaultPieceHasher>],
    ) -> Result<PartitionCircuit<Tree>, C2Error> {
        Compound::<Tree>::circuit(
            &self.public_inputs,
            (),
            &vanilla_proofs.to_vec(),
            &self.params,
            Some(k),
        )
        .map_err(C2Error::filecoin("building a partition circuit"))
    }
}

/// The circuit of every partition of the sector whose C1 output is `c1`.
pub fn partition_circuits<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    c1: SealCommitPhase1Output<Tree>,
) -> Result<Vec<PartitionCircuit<Tree>>, C2Error> {
    let circuits = PartitionCircuits::new(config, c1)?;
    (0..circuits.num_partitions())
        .map(|k| circuits.circuit(k))
        .collect()
}

/// The circuit of one partition with no values: the structure every
/// partition of this configuration shares.
pub fn blank_circuit<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
) -> Result<PartitionCircuit<Tree>, C2Error> {
    let params = public_params::<Tree>(config)?;
    Ok(<Compound<Tree> as CompoundProof<Vanilla<'_, Tree>, _>>::blank_circuit(&params))
}
