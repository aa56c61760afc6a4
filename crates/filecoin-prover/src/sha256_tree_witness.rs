//! The witness of storage-proofs' SHA-256 circuits: a hash of tree nodes and
//! an inclusion proof in a binary SHA-256 tree (PoRep's comm_d path),
//! without the gadgets' linear combinations.
//!
//! These mirror, allocation for allocation, storage-proofs-core 19.1's
//! `PoRCircuit::synthesize` for `BinaryMerkleTree<Sha256Hasher>` and
//! filecoin-hashers 14.1's `Sha256Function::hash_multi_leaf_circuit`, with
//! bellperson's SHA-256 gadget replaced by [`pce_core::sha256_witness`]
//! (why: that module's documentation). They are only valid in a constraint
//! system that records values and ignores constraints, such as
//! [`pce_core::WitnessCS`]: the constraints are not enforced, and the
//! variables they would name are not tracked. `tests/porep_witness.rs`
//! compares the whole challenge witness they are part of with the real
//! circuit's.

use bellpepper_core::boolean::{field_into_allocated_bits_le, AllocatedBit, Boolean};
use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{ConstraintSystem, SynthesisError};
use bellperson::gadgets::multipack;
use blstrs::Scalar as Fr;
use pce_core::sha256_witness;
use storage_proofs_core::gadgets::insertion::insert;

/// A Merkle path as storage-proofs' `MerkleProofTrait::as_options` gives
/// it: each level's siblings and the node's index among them.
pub(crate) type PathOptions = [(Vec<Option<Fr>>, Option<usize>)];

/// `AllocatedNum::to_bits_le` without its packing constraint (whose
/// linear combination that function builds eagerly): the number's 255 bits,
/// least significant first, allocated.
pub(crate) fn bits_le<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    number: &AllocatedNum<Fr>,
) -> Result<Vec<Boolean>, SynthesisError> {
    Ok(field_into_allocated_bits_le(cs, number.get_value())?
        .into_iter()
        .map(Boolean::from)
        .collect())
}

/// `Sha256Function::hash_multi_leaf_circuit`: SHA-256 of the nodes' bytes
/// (each node's 255 bits allocated, padded to 32 bytes), the digest's first
/// 254 bits (little-endian within each byte) packed into one number.
pub(crate) fn hash_nodes<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    nodes: &[AllocatedNum<Fr>],
) -> Result<AllocatedNum<Fr>, SynthesisError> {
    let mut preimage = Vec::with_capacity(nodes.len() * 256);
    for node in nodes {
        let mut bits = bits_le(cs, node)?;
        bits.resize(bits.len().next_multiple_of(8), Boolean::Constant(false));
        preimage.extend(
            bits.chunks_exact(8)
                .flat_map(|byte| byte.iter().rev())
                .cloned(),
        );
    }
    let digest = sha256_witness::sha256(cs, &preimage)?;
    let little_endian: Vec<bool> = digest
        .chunks(8)
        .flat_map(|byte| byte.iter().rev())
        .copied()
        .collect();
    sha256_witness::pack_bits(cs, &little_endian)
}

/// `PoRCircuit::synthesize` of a binary SHA-256 tree with an allocated
/// leaf and root, private (`Root::Var` both, `private = true`, as PoRep's
/// `enforce_inclusion` calls it): per level the index bit, the sibling,
/// the ordered pair and its hash; then the index bits packed into inputs.
/// The root is only constrained, so it is not needed here.
pub(crate) fn inclusion<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    path: &PathOptions,
    leaf: &AllocatedNum<Fr>,
) -> Result<(), SynthesisError> {
    let mut node = leaf.clone();
    let mut index_bits = Vec::with_capacity(path.len());
    for (siblings, index) in path {
        let bit = Boolean::from(AllocatedBit::alloc(
            &mut *cs,
            index.map(|index| index & 1 == 1),
        )?);
        let siblings = siblings
            .iter()
            .map(|sibling| {
                AllocatedNum::alloc(&mut *cs, || {
                    sibling.ok_or(SynthesisError::AssignmentMissing)
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let pair = insert(cs, &node, std::slice::from_ref(&bit), &siblings)?;
        node = hash_nodes(cs, &pair)?;
        index_bits.push(bit);
    }
    multipack::pack_into_inputs(cs, &index_bits)
}
