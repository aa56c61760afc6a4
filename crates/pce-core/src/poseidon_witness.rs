//! The witness of neptune's Poseidon gadget, computed without the gadget.
//!
//! Filecoin's Merkle trees over replicas (TreeR, TreeC) hash with Poseidon,
//! and their circuits use neptune's legacy gadget (`neptune::circuit::
//! poseidon_hash`, which storage-proofs' `PoseidonFunction` calls). That
//! gadget carries every state element as a linear combination between
//! S-boxes, so even a constraint system that ignores `enforce` pays for the
//! combinations: in the partial rounds the elements other than the first
//! grow by a term per round (some sixty terms at arity 8), and every round's
//! matrix product scales and merges all of them. The values are a few
//! thousand field operations; the combinations several times that, plus
//! their allocations. A PoSt circuit is almost only Poseidon.
//!
//! What the gadget allocates, in order, for a preimage of `arity` numbers
//! (state width `t = arity + 1`, the first element the domain tag), with
//! `s(x) = x⁵`:
//!
//! - first full round, round keys `pre` and `post`: element 0 (the tag) is a
//!   constant and allocates nothing; each other element `x`, already
//!   allocated, allocates `(x + pre)²`, `(x + pre)⁴`, `s(x + pre) + post`;
//! - every other full round, for each element, and every partial round for
//!   element 0 alone: the element (a linear combination since the last
//!   matrix product) is allocated as `x`, then `x²`, `x⁴`, `s(x) + key`,
//!   the last full round having no key;
//! - after each round, the state times a matrix, which allocates nothing:
//!   the dense MDS matrix, its `pre_sparse_matrix` after the last initial
//!   full round and the sparse ones (`w_hat`, `v_rest`) after the partial
//!   rounds, as neptune's optimized constants arrange them;
//! - the result, element 1 of the final state, allocated once more.
//!
//! That is `3·arity + 4·t·(full_rounds − 1) + 4·partial_rounds + 1`
//! allocations (505 at arity 8). [`poseidon_hash`] allocates exactly these
//! values and nothing else, so it only serves a constraint system that
//! records values and ignores constraints, such as [`crate::WitnessCS`].
//! The tests compare every allocated value with the gadget's.

use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;
use neptune::hash_type::HashType;
use neptune::poseidon::{Arity, PoseidonConstants};

/// Allocates, through `cs.alloc`, exactly the values that
/// `neptune::circuit::poseidon_hash(cs, preimage, constants)` allocates, in
/// its order, and returns the hash as that gadget does (allocated).
///
/// Every number of `preimage` must have a value.
pub fn poseidon_hash<CS, A>(
    cs: &mut CS,
    preimage: &[AllocatedNum<Scalar>],
    constants: &PoseidonConstants<Scalar, A>,
) -> Result<AllocatedNum<Scalar>, SynthesisError>
where
    CS: ConstraintSystem<Scalar>,
    A: Arity<Scalar>,
{
    let width = constants.width();
    assert_eq!(
        preimage.len() + 1,
        width,
        "a preimage of the constants' arity"
    );
    if let HashType::ConstantLength(length) = constants.hash_type {
        assert_eq!(length, width - 1, "the gadget does no padding");
    }
    let mut state = Vec::with_capacity(width);
    state.push(constants.domain_tag);
    for number in preimage {
        state.push(
            number
                .get_value()
                .ok_or(SynthesisError::AssignmentMissing)?,
        );
    }

    let keys = &constants.compressed_round_constants;
    let half = constants.half_full_rounds;
    let (pre, post) = keys[..2 * width].split_at(width);
    let mut offset = 2 * width;
    state[0] = s_box(state[0] + pre[0]) + post[0];
    for i in 1..width {
        state[i] = allocated_s_box(cs, state[i] + pre[i], Some(post[i]), false)?;
    }
    let mut round = 0;
    mix(&mut state, constants, round);

    for _ in 1..half {
        let post = &keys[offset..offset + width];
        offset += width;
        for (element, &key) in state.iter_mut().zip(post) {
            *element = allocated_s_box(cs, *element, Some(key), true)?;
        }
        round += 1;
        mix(&mut state, constants, round);
    }
    for _ in 0..constants.partial_rounds {
        state[0] = allocated_s_box(cs, state[0], Some(keys[offset]), true)?;
        offset += 1;
        round += 1;
        mix(&mut state, constants, round);
    }
    for last in (0..half).map(|i| i == half - 1) {
        let post = (!last).then(|| &keys[offset..offset + width]);
        offset += post.map_or(0, <[_]>::len);
        for (i, element) in state.iter_mut().enumerate() {
            *element = allocated_s_box(cs, *element, post.map(|keys| keys[i]), true)?;
        }
        round += 1;
        mix(&mut state, constants, round);
    }
    AllocatedNum::alloc(cs, || Ok(state[1]))
}

/// `x⁵`.
fn s_box(x: Scalar) -> Scalar {
    x.square().square() * x
}

/// The S-box as the gadget allocates it: `x` itself when it was a linear
/// combination (`allocate_input`), `x²`, `x⁴` and `x⁵ + key`.
fn allocated_s_box<CS: ConstraintSystem<Scalar>>(
    cs: &mut CS,
    x: Scalar,
    key: Option<Scalar>,
    allocate_input: bool,
) -> Result<Scalar, SynthesisError> {
    if allocate_input {
        AllocatedNum::alloc(&mut *cs, || Ok(x))?;
    }
    let x2 = x.square();
    AllocatedNum::alloc(&mut *cs, || Ok(x2))?;
    let x4 = x2.square();
    AllocatedNum::alloc(&mut *cs, || Ok(x4))?;
    let x5 = x4 * x + key.unwrap_or(Scalar::ZERO);
    AllocatedNum::alloc(&mut *cs, || Ok(x5))?;
    Ok(x5)
}

/// The matrix product after `round` (0 is the first full round), with the
/// matrix the gadget's `product_mds` picks for it.
fn mix<A: Arity<Scalar>>(
    state: &mut Vec<Scalar>,
    constants: &PoseidonConstants<Scalar, A>,
    round: usize,
) {
    let half = constants.half_full_rounds;
    if round == half - 1 {
        *state = dense(state, &constants.pre_sparse_matrix);
    } else if round >= half && round < half + constants.partial_rounds {
        let matrix = &constants.sparse_matrixes[round - half];
        sparse(state, &matrix.w_hat, &matrix.v_rest);
    } else {
        *state = dense(state, &constants.mds_matrices.m);
    }
}

/// `state · matrix`: element `j` is `Σᵢ stateᵢ · matrix[i][j]`.
fn dense(state: &[Scalar], matrix: &[Vec<Scalar>]) -> Vec<Scalar> {
    (0..state.len())
        .map(|j| state.iter().zip(matrix).map(|(x, row)| *x * row[j]).sum())
        .collect()
}

/// The product with a sparse matrix given by its first column `w_hat` and
/// first row `v_rest` (the rest is the identity): `w_hat` against the whole
/// state, and element `j > 0` plus element 0 times `v_rest[j − 1]`.
fn sparse(state: &mut [Scalar], w_hat: &[Scalar], v_rest: &[Scalar]) {
    let first = state[0];
    state[0] = state.iter().zip(w_hat).map(|(x, w)| *x * w).sum();
    for (element, v) in state[1..].iter_mut().zip(v_rest) {
        *element += first * v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WitnessCS;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use typenum::{U11, U16, U2, U4, U8};

    /// The aux values `hash` allocates for a random preimage, and the hash.
    fn witness_of<A, H>(constants: &PoseidonConstants<Scalar, A>, seed: u64, hash: H) -> Vec<Scalar>
    where
        A: Arity<Scalar>,
        H: FnOnce(
            &mut WitnessCS,
            Vec<AllocatedNum<Scalar>>,
            &PoseidonConstants<Scalar, A>,
        ) -> Result<AllocatedNum<Scalar>, SynthesisError>,
    {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut cs = WitnessCS::new();
        let preimage = (0..constants.width() - 1)
            .map(|_| AllocatedNum::alloc(&mut cs, || Ok(Scalar::random(&mut rng))))
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let result = hash(&mut cs, preimage, constants).unwrap();
        let witness = cs.into_witness();
        assert_eq!(witness.aux.last(), result.get_value().as_ref());
        witness.aux
    }

    fn same_as_gadget<A: Arity<Scalar>>() {
        let constants = PoseidonConstants::<Scalar, A>::new();
        let (arity, width) = (constants.width() - 1, constants.width());
        let allocations =
            3 * arity + 4 * width * (constants.full_rounds - 1) + 4 * constants.partial_rounds + 1;
        for seed in 0..3 {
            let ours = witness_of(&constants, seed, |cs, preimage, constants| {
                poseidon_hash(cs, &preimage, constants)
            });
            let gadget = witness_of(&constants, seed, |cs, preimage, constants| {
                neptune::circuit::poseidon_hash(cs, preimage, constants)
            });
            assert_eq!(ours.len(), arity + allocations);
            assert_eq!(ours, gadget, "arity {arity}, seed {seed}");
        }
    }

    #[test]
    fn allocates_what_the_gadget_allocates() {
        // Filecoin's arities (tree levels 2, 4, 8; PoRep's columns 11) and
        // one wider.
        same_as_gadget::<U2>();
        same_as_gadget::<U4>();
        same_as_gadget::<U8>();
        same_as_gadget::<U11>();
        same_as_gadget::<U16>();
    }

    #[test]
    fn the_count_of_allocations_is_the_gadgets_constraint_count() {
        // neptune's own test counts 505 constraints at arity 8: one per
        // allocation.
        let constants = PoseidonConstants::<Scalar, U8>::new();
        let ours = witness_of(&constants, 0, |cs, preimage, constants| {
            poseidon_hash(cs, &preimage, constants)
        });
        assert_eq!(ours.len(), 8 + 505);
    }

    #[test]
    fn the_result_is_neptunes_hash() {
        let constants = PoseidonConstants::<Scalar, U8>::new();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let values: Vec<Scalar> = (0..8).map(|_| Scalar::random(&mut rng)).collect();
        let mut cs = WitnessCS::new();
        let preimage = values
            .iter()
            .map(|v| AllocatedNum::alloc(&mut cs, || Ok(*v)))
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let result = poseidon_hash(&mut cs, &preimage, &constants).unwrap();
        let native = neptune::Poseidon::new_with_preimage(&values, &constants).hash();
        assert_eq!(result.get_value(), Some(native));
    }
}
