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
use filecoin_proofs::{DefaultPieceDomain, DefaultPieceHasher, PoRepConfig, SealCommitPhase1Output};
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_porep::stacked::{self, StackedCircuit, StackedCompound, StackedDrg};

use crate::C2Error;

/// The circuit type of one PoRep partition.
pub type PartitionCircuit<Tree> = StackedCircuit<Tree, DefaultPieceHasher>;

fn public_params<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
) -> Result<stacked::PublicParams<Tree>, C2Error> {
    let setup = compound_proof::SetupParams {
        vanilla_params: setup_params(config).map_err(C2Error::filecoin("PoRep setup parameters"))?,
        partitions: Some(usize::from(config.partitions)),
        priority: false,
    };
    let params = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
        StackedDrg<'_, Tree, DefaultPieceHasher>,
        _,
    >>::setup(&setup)
    .map_err(C2Error::filecoin("PoRep public parameters"))?;
    Ok(params.vanilla_params)
}

/// The circuit of every partition of the sector whose C1 output is `c1`.
pub fn partition_circuits<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    c1: &SealCommitPhase1Output<Tree>,
) -> Result<Vec<PartitionCircuit<Tree>>, C2Error> {
    let comm_r = <Tree::Hasher as Hasher>::Domain::try_from_bytes(&c1.comm_r)
        .map_err(C2Error::filecoin("comm_r of the C1 output"))?;
    let comm_d = DefaultPieceDomain::try_from_bytes(&c1.comm_d)
        .map_err(C2Error::filecoin("comm_d of the C1 output"))?;
    let public_inputs = stacked::PublicInputs {
        replica_id: c1.replica_id,
        tau: Some(stacked::Tau { comm_d, comm_r }),
        k: None,
        seed: Some(c1.seed),
    };
    let params = public_params::<Tree>(config)?;
    c1.vanilla_proofs
        .iter()
        .enumerate()
        .map(|(k, vanilla_proof)| {
            StackedCompound::<Tree, DefaultPieceHasher>::circuit(
                &public_inputs,
                Default::default(),
                vanilla_proof,
                &params,
                Some(k),
            )
            .map_err(C2Error::filecoin("building a partition circuit"))
        })
        .collect()
}

/// The circuit of one partition with no values: the structure every
/// partition of this configuration shares.
pub fn blank_circuit<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
) -> Result<PartitionCircuit<Tree>, C2Error> {
    let params = public_params::<Tree>(config)?;
    Ok(<StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
        StackedDrg<'_, Tree, DefaultPieceHasher>,
        _,
    >>::blank_circuit(&params))
}
