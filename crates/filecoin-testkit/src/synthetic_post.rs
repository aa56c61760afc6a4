//! PoSt statements of any sector size without sectors, for measuring the
//! host's side of a WindowPoSt or WinningPoSt partition at production
//! shapes.
//!
//! As for PoRep ([`crate::synthetic_c1`]), a PoSt partition's circuit is
//! decided by its shape: sectors per partition, challenges per sector and
//! the TreeR's arities. A statement whose vanilla proofs have a real
//! partition's shape (per sector: `comm_c`, `comm_r_last`, and per
//! challenge a TreeR path from a random leaf at a random node) with random
//! values gives the real circuit with a different witness. Its paths lead
//! to no common root and its `comm_r` are no hashes of anything, so it is
//! not a provable statement (`ProofKind::open` would refuse it): it is
//! built directly, for timing, memory, and checking a witness generator
//! against storage-proofs' circuit at full size.

use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::with_shape;
use filecoin_prover::compound::Statement;
use filecoin_prover::post::{public_params, PoStProofType, PoStScheme};
use filecoin_prover::post_witness::witness;
use filecoin_prover::C2Error;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;
use storage_proofs_post::fallback::{Proof, PublicInputs, PublicSector, SectorProof};

use crate::synthetic_c1::{random_path, tree_arities, TreeProof};
use crate::witness_compare::{compare_witness, WitnessComparison};

/// A statement of one full partition of `proof_type` over sectors of the
/// shape `Tree`, its values drawn from `seed`.
pub fn synthetic_post_statement<Tree: 'static + MerkleTreeTrait>(
    proof_type: &PoStProofType,
    seed: u64,
) -> Result<Statement<PoStScheme<Tree>>, C2Error> {
    type TreeDomain<Tree> = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;
    let params = public_params::<Tree>(proof_type)?;
    let nodes = (params.sector_size / 32) as usize;
    let arities = tree_arities::<Tree>(nodes);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sectors = (0..params.sector_count)
        .map(|_| {
            let comm_r_last = TreeDomain::<Tree>::random(&mut rng);
            let inclusion_proofs = (0..params.challenge_count)
                .map(|_| {
                    let node = rng.gen_range(0..nodes as u64);
                    TreeProof::<Tree>::from_parts(
                        TreeDomain::<Tree>::random(&mut rng),
                        comm_r_last,
                        random_path(&mut rng, node, &arities),
                    )
                })
                .collect();
            SectorProof {
                inclusion_proofs,
                comm_c: TreeDomain::<Tree>::random(&mut rng),
                comm_r_last,
            }
        })
        .collect();
    let inputs = PublicInputs {
        randomness: TreeDomain::<Tree>::random(&mut rng),
        prover_id: TreeDomain::<Tree>::random(&mut rng),
        sectors: (0..params.sector_count as u64)
            .map(|id| PublicSector {
                id: SectorId::from(id),
                comm_r: TreeDomain::<Tree>::random(&mut rng),
            })
            .collect(),
        k: None,
    };
    Ok(Statement {
        inputs,
        params,
        partitions: vec![(0, Proof { sectors })],
    })
}

/// A [`synthetic_post_statement`] of `proof_type`'s sector shape, its
/// witness compared both ways ([`compare_witness`]), with the partition's
/// sectors and challenges per sector.
pub fn compare_post_witness(
    proof_type: &PoStProofType,
    rounds: usize,
) -> Result<(WitnessComparison, PostShape), C2Error> {
    with_shape!(proof_type.sector_size, compare_shape, proof_type, rounds)
}

/// A PoSt partition's shape.
#[derive(Debug, Clone, Copy)]
pub struct PostShape {
    /// Sectors in the partition.
    pub sectors: usize,
    /// Challenges per sector.
    pub challenges: usize,
}

fn compare_shape<Tree: 'static + MerkleTreeTrait>(
    proof_type: &PoStProofType,
    rounds: usize,
) -> Result<(WitnessComparison, PostShape), C2Error> {
    let statement = synthetic_post_statement::<Tree>(proof_type, 0)?;
    let shape = PostShape {
        sectors: statement.params.sector_count,
        challenges: statement.params.challenge_count,
    };
    Ok((compare_witness(&statement, rounds, witness)?, shape))
}
