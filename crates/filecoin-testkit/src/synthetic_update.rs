//! SnapDeals statements of any sector size without sectors, for measuring
//! the host's side of an update partition at production shapes.
//!
//! As for PoRep ([`crate::synthetic_c1`]) and PoSt
//! ([`crate::synthetic_post`]), an update partition's circuit is decided by
//! its shape: the apex leaves, the challenges per partition, a binary TreeD
//! path and two TreeR paths (old and new replica) per challenge. The
//! circuit derives its challenges from `comm_r_new` and the partition
//! index and takes only the siblings of the vanilla paths, so random
//! siblings, leaves and commitments give the real circuit with a different
//! witness, as long as the two things it asserts (rather than constrains)
//! hold: each new replica leaf encodes the old one with the new data, and
//! every TreeD path shares the partition's top. Its paths lead to no common root, so it is not a provable
//! statement (`ProofKind::open` verifies the vanilla proofs and would
//! refuse it): it is built directly, for timing, memory, and checking the
//! witness generator against storage-proofs' circuit at full size.

use blstrs::Scalar as Fr;
use filecoin_hashers::Domain;
use filecoin_proofs::{with_shape, SectorUpdateConfig};
use filecoin_prover::compound::Statement;
use filecoin_prover::update::{UpdateProofType, UpdateScheme};
use filecoin_prover::update_witness::witness;
use filecoin_prover::C2Error;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use storage_proofs_core::merkle::{MerkleProof, MerkleTreeTrait};
use storage_proofs_update::constants::{
    TreeDArity, TreeDDomain, TreeDHasher, TreeRDomain, TreeRHasher,
};
use storage_proofs_update::vanilla::{phi, Rhos};
use storage_proofs_update::{
    ChallengeProof, Challenges, PartitionProof, PublicInputs, PublicParams,
};

use crate::synthetic_c1::{random_path, tree_arities, TreeProof};
use crate::witness_compare::{compare_witness, WitnessComparison};

/// A statement of partition 0 of an update of `proof_type`'s sector size,
/// over sectors of the shape `Tree`, its values drawn from `seed`.
pub fn synthetic_update_statement<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    proof_type: &UpdateProofType,
    seed: u64,
) -> Statement<UpdateScheme<Tree>> {
    let params = PublicParams::from_sector_size(proof_type.sector_size);
    let nodes = params.sector_nodes;
    let tree_r = tree_arities::<Tree>(nodes);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let inputs = PublicInputs {
        k: 0,
        comm_r_old: TreeRDomain::random(&mut rng),
        comm_d_new: TreeDDomain::random(&mut rng),
        comm_r_new: TreeRDomain::random(&mut rng),
        h: SectorUpdateConfig::from_porep_config(&proof_type.porep_config()).h,
    };
    // The circuit checks (with an assertion, not a constraint) that each
    // new replica leaf is the old one encoded with the new data,
    // `leaf_r_new = leaf_r_old + leaf_d_new · rho(challenge)`, and that
    // every TreeD path shares the partition's path above its subtree.
    let rhos = Rhos::new(
        &phi(&inputs.comm_d_new, &inputs.comm_r_old),
        inputs.h,
        nodes,
    );
    let below_partition = params.challenge_bit_len - params.partition_bit_len;
    let partition_path: Vec<(Vec<TreeDDomain>, usize)> =
        random_path(&mut rng, 0, &vec![2; params.partition_bit_len]);
    let challenge_proofs = Challenges::new(nodes, inputs.comm_r_new, inputs.k)
        .map(|challenge| {
            let node = u64::from(challenge);
            let tree_r_proof = |rng: &mut ChaCha8Rng, leaf| {
                TreeProof::<Tree>::from_parts(
                    leaf,
                    TreeRDomain::random(rng),
                    random_path(rng, node, &tree_r),
                )
            };
            let leaf_r_old = TreeRDomain::random(&mut rng);
            let leaf_d_new = TreeDDomain::random(&mut rng);
            let leaf_r_new: Fr =
                Fr::from(leaf_r_old) + Fr::from(leaf_d_new) * rhos.get(challenge as usize);
            let mut path_d = random_path(&mut rng, node, &vec![2; below_partition]);
            path_d.extend(partition_path.iter().cloned());
            ChallengeProof {
                proof_r_old: tree_r_proof(&mut rng, leaf_r_old),
                proof_d_new: MerkleProof::<TreeDHasher, TreeDArity>::from_parts(
                    leaf_d_new,
                    TreeDDomain::random(&mut rng),
                    path_d,
                ),
                proof_r_new: tree_r_proof(&mut rng, leaf_r_new.into()),
            }
        })
        .collect();
    let vanilla = PartitionProof {
        comm_c: TreeRDomain::random(&mut rng),
        apex_leafs: (0..params.apex_leaf_count)
            .map(|_| TreeDDomain::random(&mut rng))
            .collect(),
        challenge_proofs,
    };
    Statement {
        inputs,
        params,
        partitions: vec![(0, vanilla)],
    }
}

/// A [`synthetic_update_statement`] of `proof_type`, its witness compared
/// both ways ([`compare_witness`]), with its number of challenges.
pub fn compare_update_witness(
    proof_type: &UpdateProofType,
    rounds: usize,
) -> Result<(WitnessComparison, usize), C2Error> {
    with_shape!(proof_type.sector_size, compare_shape, proof_type, rounds)
}

fn compare_shape<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    proof_type: &UpdateProofType,
    rounds: usize,
) -> Result<(WitnessComparison, usize), C2Error> {
    let statement = synthetic_update_statement::<Tree>(proof_type, 0);
    let challenges = statement.params.challenge_count;
    let copy = |statement: &Statement<UpdateScheme<Tree>>, i| {
        witness(statement.circuit(i)?).map_err(|source| C2Error::Synthesis {
            partition: i,
            source,
        })
    };
    Ok((compare_witness(&statement, rounds, copy)?, challenges))
}
