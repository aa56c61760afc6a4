//! The witness of storage-proofs' Merkle inclusion gadgets for any tree,
//! with each level's hash computed natively.
//!
//! Every proof kind checks Merkle paths: PoRep in TreeD (SHA-256), TreeR and
//! TreeC (Poseidon), the PoSts in TreeR, SnapDeals in TreeD and both
//! TreeRs. storage-proofs-core 19.1's gadgets walk a path the same way
//! whatever the tree: per level, the node's index among its siblings as
//! bits, the siblings, `insert` (the node put among them by those bits),
//! then the level's hash. They differ in who allocates the bits and
//! siblings:
//!
//! - [`inclusion`] mirrors `PoRCircuit::synthesize` (`gadgets/por.rs`)
//!   with an allocated leaf and root, private (as PoRep's
//!   `enforce_inclusion` and PoSt's sector circuit call it): each level
//!   allocates its index bits and siblings itself, and the bits are packed
//!   into public inputs at the end;
//! - [`without_challenge_input`] mirrors `por_no_challenge_input`, whose
//!   caller has allocated the challenge's bits and the siblings (SnapDeals).
//!
//! The hash is the caller's: [`poseidon_nodes`] for Poseidon trees,
//! `sha256_tree_witness::hash_nodes` for SHA-256 ones, both allocating
//! what `hash_multi_leaf_circuit` allocates without its linear
//! combinations. `insert` is storage-proofs' own. The root is only
//! constrained by these gadgets, so it is not needed here; like the hashes,
//! these functions are only valid in a constraint system that records
//! values and ignores constraints, such as [`pce_core::WitnessCS`]. The
//! tests of each kind's witness (`tests/porep_witness.rs`,
//! `tests/update_witness.rs`, `tests/post_witness.rs`) compare it with the
//! real circuit's, value for value.

use std::any::TypeId;

use bellpepper_core::boolean::{AllocatedBit, Boolean};
use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{ConstraintSystem, SynthesisError};
use bellperson::gadgets::multipack;
use blstrs::Scalar as Fr;
use filecoin_hashers::poseidon::PoseidonHasher;
use filecoin_hashers::{
    POSEIDON_CONSTANTS_11, POSEIDON_CONSTANTS_2, POSEIDON_CONSTANTS_4, POSEIDON_CONSTANTS_8,
};
use pce_core::poseidon_witness::poseidon_hash;
use storage_proofs_core::gadgets::insertion::insert;
use storage_proofs_core::merkle::MerkleTreeTrait;

/// A Merkle path as storage-proofs' `MerkleProofTrait::as_options` gives
/// it: each level's siblings and the node's index among them, from the
/// leaf up (base levels, then the sub-tree's and top tree's, if any).
pub(crate) type Path = Vec<(Vec<Option<Fr>>, Option<usize>)>;
/// A [`Path`] borrowed.
pub(crate) type PathOptions = [(Vec<Option<Fr>>, Option<usize>)];

/// `PoseidonFunction::hash_multi_leaf_circuit` of a tree level (arity 2, 4
/// or 8) and `hash2_circuit` (two nodes), with the constants
/// filecoin-hashers gives that arity; also a PoRep column's hash
/// (`hash_single_column`: 2 or 11 labels). Allocates what neptune's gadget
/// allocates ([`pce_core::poseidon_witness`]).
pub(crate) fn poseidon_nodes<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    nodes: &[AllocatedNum<Fr>],
) -> Result<AllocatedNum<Fr>, SynthesisError> {
    match nodes.len() {
        2 => poseidon_hash(cs, nodes, &*POSEIDON_CONSTANTS_2),
        4 => poseidon_hash(cs, nodes, &*POSEIDON_CONSTANTS_4),
        8 => poseidon_hash(cs, nodes, &*POSEIDON_CONSTANTS_8),
        11 => poseidon_hash(cs, nodes, &*POSEIDON_CONSTANTS_11),
        n => panic!("no Poseidon hash of {n} nodes in storage-proofs' circuits"),
    }
}

/// Whether `Tree` hashes with Poseidon, as every sector shape Filecoin
/// registers does (the copies of the circuits assume it for TreeR and
/// TreeC; a tree of another hasher goes through storage-proofs' circuit).
pub(crate) fn hashes_with_poseidon<Tree: MerkleTreeTrait>() -> bool {
    TypeId::of::<Tree::Hasher>() == TypeId::of::<PoseidonHasher>()
}

/// `PoRCircuit::synthesize` with an allocated leaf and root, private: per
/// level the index bits (`log2(arity)`, least significant first), the
/// siblings, then [`level`]; then all index bits packed into inputs.
pub(crate) fn inclusion<CS, H>(
    cs: &mut CS,
    path: &PathOptions,
    leaf: &AllocatedNum<Fr>,
    mut hash: H,
) -> Result<(), SynthesisError>
where
    CS: ConstraintSystem<Fr>,
    H: FnMut(&mut CS, &[AllocatedNum<Fr>]) -> Result<AllocatedNum<Fr>, SynthesisError>,
{
    let mut node = leaf.clone();
    let mut path_bits = Vec::new();
    for (siblings, index) in path {
        let bits = (0..index_bits(siblings.len()))
            .map(|i| {
                let bit = index.map(|index| (index >> i) & 1 == 1);
                AllocatedBit::alloc(&mut *cs, bit).map(Boolean::from)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let siblings = siblings
            .iter()
            .map(|sibling| {
                AllocatedNum::alloc(&mut *cs, || {
                    sibling.ok_or(SynthesisError::AssignmentMissing)
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        node = level(cs, &node, &bits, &siblings, &mut hash)?;
        path_bits.extend(bits);
    }
    multipack::pack_into_inputs(cs, &path_bits)
}

/// `por_no_challenge_input`: the challenge's bits (least significant
/// first) and each level's siblings already allocated by the caller; per
/// level, [`level`] with the next `log2(arity)` bits. Every bit must be
/// used.
pub(crate) fn without_challenge_input<CS, H>(
    cs: &mut CS,
    challenge_bits: Vec<AllocatedBit>,
    leaf: AllocatedNum<Fr>,
    path: Vec<Vec<AllocatedNum<Fr>>>,
    mut hash: H,
) -> Result<(), SynthesisError>
where
    CS: ConstraintSystem<Fr>,
    H: FnMut(&mut CS, &[AllocatedNum<Fr>]) -> Result<AllocatedNum<Fr>, SynthesisError>,
{
    let mut node = leaf;
    let mut bits = challenge_bits.into_iter().map(Boolean::from);
    for siblings in &path {
        let index: Vec<Boolean> = bits.by_ref().take(index_bits(siblings.len())).collect();
        assert_eq!(
            index.len(),
            index_bits(siblings.len()),
            "no challenge bits remaining"
        );
        node = level(cs, &node, &index, siblings, &mut hash)?;
    }
    assert!(
        bits.next().is_none(),
        "challenge bit-length and tree arity do not agree"
    );
    Ok(())
}

/// Bits of a node's index among itself and `siblings` others (the arity
/// is a power of two).
fn index_bits(siblings: usize) -> usize {
    let arity = siblings + 1;
    assert!(arity.is_power_of_two(), "a tree level of arity {arity}");
    arity.trailing_zeros() as usize
}

/// One level: `node` inserted among `siblings` at the place `bits` say
/// (storage-proofs' `insert`), then hashed.
fn level<CS, H>(
    cs: &mut CS,
    node: &AllocatedNum<Fr>,
    bits: &[Boolean],
    siblings: &[AllocatedNum<Fr>],
    hash: &mut H,
) -> Result<AllocatedNum<Fr>, SynthesisError>
where
    CS: ConstraintSystem<Fr>,
    H: FnMut(&mut CS, &[AllocatedNum<Fr>]) -> Result<AllocatedNum<Fr>, SynthesisError>,
{
    let nodes = insert(cs, node, bits, siblings)?;
    hash(cs, &nodes)
}
