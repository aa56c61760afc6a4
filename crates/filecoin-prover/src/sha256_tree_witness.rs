//! The witness of storage-proofs' SHA-256 circuits: a hash of tree nodes
//! (a level of TreeD, which [`crate::por_witness`] walks) and a number's
//! bits, without the gadgets' linear combinations.
//!
//! These mirror, allocation for allocation, filecoin-hashers 14.1's
//! `Sha256Function::hash_multi_leaf_circuit` and bellpepper's
//! `AllocatedNum::to_bits_le`, with bellperson's SHA-256 gadget replaced by
//! [`pce_core::sha256_witness`] (why: that module's documentation). They are only valid in a constraint
//! system that records values and ignores constraints, such as
//! [`pce_core::WitnessCS`]: the constraints are not enforced, and the
//! variables they would name are not tracked. `tests/porep_witness.rs`
//! compares the whole challenge witness they are part of with the real
//! circuit's.

use bellpepper_core::boolean::{field_into_allocated_bits_le, Boolean};
use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{ConstraintSystem, SynthesisError};
use blstrs::Scalar as Fr;
use pce_core::sha256_witness;

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
