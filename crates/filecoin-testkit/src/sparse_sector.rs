//! Provable PoSt statements of sectors of any size, 32 GiB included,
//! without the sector.
//!
//! A PoSt proves that the leaves its challenges pick are in the sector's
//! TreeR, whose root (`comm_r_last`) and TreeC's (`comm_c`) hash to the
//! `comm_r` on chain. Which leaves are challenged depends only on the
//! randomness and the sector number, and nothing checks the other leaves.
//! A TreeR whose challenged leaves hold random values and every other leaf
//! zero is therefore as good a sector as any, and it needs no data: an
//! all-zero subtree of a level hashes to one value, computed once per
//! level, so the root and each challenged leaf's path cost a few hashes per
//! challenge and level, whatever the sector size.
//!
//! Unlike [`crate::synthetic_post`] (random paths, no common root: for
//! timing only), the vanilla proofs made here are valid: the prover's
//! checks accept them, and a proof of them passes filecoin-proofs'
//! verifier for the sector's `comm_r`.

use std::collections::HashMap;

use filecoin_hashers::{Domain, HashFunction, Hasher};
use filecoin_proofs::{generate_fallback_sector_challenges, FallbackPoStSectorProof};
use merkletree::hash::Algorithm;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use storage_proofs_core::merkle::{base_path_length, MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_core::sector::SectorId;
use storage_proofs_post::fallback::{Proof, SectorProof};

use filecoin_prover::post::PoStProofType;
use filecoin_prover::C2Error;

use crate::synthetic_c1::{tree_arities, TreeProof};
use crate::vanilla::bincode_of;

type TreeDomain<Tree> = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;

/// A TreeR of the shape `Tree` whose leaves are zero but for a few.
pub struct SparseTree<Tree: MerkleTreeTrait> {
    /// Per level from the leaves up: its arity and, for the hash, its
    /// height within its part of the tree (base, sub-tree, top).
    levels: Vec<(usize, usize)>,
    /// Per level from the leaves up to the root: the nodes that are not
    /// the hash of an all-zero subtree, by index.
    nodes: Vec<HashMap<u64, TreeDomain<Tree>>>,
    /// Per level: the node over an all-zero subtree.
    zeros: Vec<TreeDomain<Tree>>,
}

impl<Tree: MerkleTreeTrait> SparseTree<Tree> {
    /// The tree over `leaves` leaves, those in `set` (index, value) set and
    /// the others zero.
    pub fn new(leaves: usize, set: impl IntoIterator<Item = (u64, TreeDomain<Tree>)>) -> Self {
        let arities = tree_arities::<Tree>(leaves);
        let base_levels =
            base_path_length::<Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>(leaves);
        // The sub-tree and top levels are one level each, their height 0.
        let levels: Vec<(usize, usize)> = arities
            .iter()
            .enumerate()
            .map(|(level, &arity)| (arity, if level < base_levels { level } else { 0 }))
            .collect();
        let mut nodes = vec![set.into_iter().collect::<HashMap<_, _>>()];
        let mut zeros = vec![TreeDomain::<Tree>::default()];
        for &(arity, height) in &levels {
            let (below, zero) = (nodes.last().expect("the leaves"), *zeros.last().expect("0"));
            let mut above = HashMap::new();
            for parent in below.keys().map(|&child| child / arity as u64) {
                above.entry(parent).or_insert_with(|| {
                    let children = Self::children(below, zero, parent, arity);
                    hash::<Tree>(&children, height)
                });
            }
            nodes.push(above);
            zeros.push(hash::<Tree>(&vec![zero; arity], height));
        }
        Self {
            levels,
            nodes,
            zeros,
        }
    }

    /// The `arity` children of node `parent` of the level above `below`.
    fn children(
        below: &HashMap<u64, TreeDomain<Tree>>,
        zero: TreeDomain<Tree>,
        parent: u64,
        arity: usize,
    ) -> Vec<TreeDomain<Tree>> {
        (0..arity as u64)
            .map(|i| *below.get(&(parent * arity as u64 + i)).unwrap_or(&zero))
            .collect()
    }

    /// The root (`comm_r_last`).
    pub fn root(&self) -> TreeDomain<Tree> {
        let top = self.nodes.last().expect("a root level");
        *top.get(&0).unwrap_or(self.zeros.last().expect("a root"))
    }

    /// The inclusion proof of leaf `leaf`.
    pub fn proof(&self, leaf: u64) -> TreeProof<Tree> {
        let mut node = leaf;
        let path = self
            .levels
            .iter()
            .enumerate()
            .map(|(level, &(arity, _))| {
                let digit = (node % arity as u64) as usize;
                let parent = node / arity as u64;
                let mut siblings =
                    Self::children(&self.nodes[level], self.zeros[level], parent, arity);
                siblings.remove(digit);
                node = parent;
                (siblings, digit)
            })
            .collect();
        let value = self.nodes[0].get(&leaf).copied().unwrap_or_default();
        TreeProof::<Tree>::from_parts(value, self.root(), path)
    }
}

/// A node over `children`, as the tree's own hashing makes it.
fn hash<Tree: MerkleTreeTrait>(children: &[TreeDomain<Tree>], height: usize) -> TreeDomain<Tree> {
    <Tree::Hasher as Hasher>::Function::default().multi_node(children, height)
}

/// A WindowPoSt or WinningPoSt vanilla proof of one sector of the shape
/// `Tree` (numbered `sector_id`, of `prover_id`) for `randomness`, as
/// `generate_single_vanilla_proof` returns it (bincode), with the sector's
/// `comm_r`: its challenged leaves random (from `seed`), its other leaves
/// zero, its `comm_c` random. Its challenges are those of the first
/// sector of a proof: right for a WinningPoSt, and for any sector of a
/// WindowPoSt of API version 1.2 (earlier versions number challenges by
/// the sector's position).
pub fn sparse_post_vanilla_proof<Tree: 'static + MerkleTreeTrait>(
    proof_type: PoStProofType,
    sector_id: u64,
    prover_id: [u8; 32],
    randomness: [u8; 32],
    seed: u64,
) -> Result<(Vec<u8>, [u8; 32]), C2Error> {
    let config = proof_type.config();
    let sector_id = SectorId::from(sector_id);
    let challenges =
        generate_fallback_sector_challenges::<Tree>(&config, &randomness, &[sector_id], prover_id)
            .map_err(C2Error::filecoin("generate_fallback_sector_challenges"))?;
    let challenges = &challenges[&sector_id];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let leaves = (u64::from(config.sector_size) / 32) as usize;
    let set = challenges
        .iter()
        .map(|&leaf| (leaf, TreeDomain::<Tree>::random(&mut rng)));
    let tree = SparseTree::<Tree>::new(leaves, set);
    let inclusion_proofs: Vec<_> = challenges.iter().map(|&leaf| tree.proof(leaf)).collect();
    assert!(
        inclusion_proofs.iter().all(|proof| proof.verify()),
        "a path of the sparse TreeR does not lead to its root"
    );
    let comm_c = TreeDomain::<Tree>::random(&mut rng);
    let comm_r_last = tree.root();
    let comm_r = <Tree::Hasher as Hasher>::Function::hash2(&comm_c, &comm_r_last);
    let proof = FallbackPoStSectorProof::<Tree> {
        sector_id,
        comm_r,
        vanilla_proof: Proof {
            sectors: vec![SectorProof {
                inclusion_proofs,
                comm_c,
                comm_r_last,
            }],
        },
    };
    let bytes = bincode_of(&proof);
    let mut comm_r_bytes = [0; 32];
    comm_r_bytes.copy_from_slice(comm_r.as_ref());
    Ok((bytes, comm_r_bytes))
}
