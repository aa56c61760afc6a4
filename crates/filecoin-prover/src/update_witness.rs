//! The witness of a SnapDeals partition circuit, without the linear
//! combinations of its SHA-256 and Poseidon gadgets.
//!
//! Why: as for PoRep ([`crate::porep_witness`]), bellperson's SHA-256
//! gadget and neptune's Poseidon gadget build the linear combinations they
//! would enforce even in a [`pce_core::WitnessCS`], which ignores them; in
//! a SnapDeals partition (the apex tree and every challenge's TreeD path
//! are SHA-256, both TreeR paths Poseidon) that is most of the witness's
//! time.
//!
//! Here the partition circuit is synthesized by a copy of storage-proofs-
//! update 19.1.0's `EmptySectorUpdateCircuit::synthesize` (`circuit.rs`),
//! with its private gadgets (`gadgets.rs`: `allocated_num_to_allocated_bits`,
//! `apex_por`, `gen_challenge_bits`, `get_challenge_high_bits`,
//! `label_r_new`) copied as they are, but for the hashes: the apex tree's
//! `Sha256Function::hash2_circuit` (filecoin-hashers 14.1.0, which
//! allocates exactly what `hash_multi_leaf_circuit` of the two nodes does),
//! storage-proofs-core 19.1.0's `por_no_challenge_input` (`gadgets/por.rs`)
//! for TreeD and both TreeRs, and every Poseidon hash (`phi`, `rho`, the
//! challenge digests, `comm_r`) are computed natively by
//! [`crate::sha256_tree_witness`], [`crate::por_witness`] and
//! [`pce_core::poseidon_witness`], allocating in the same order exactly the
//! values the gadgets allocate. Everything else (`pack_bits`, `select`,
//! `insert`) calls storage-proofs' and bellperson's public functions as
//! storage-proofs does. So the witness is the real circuit's value for
//! value and fits the PCE recorded from storage-proofs' blank circuit; a
//! new version of storage-proofs must be checked against this file before
//! it is used.
//!
//! The circuit here computes values only: it enforces nothing of the
//! hashes (constraints come from the PCE), so it is not a circuit
//! to record or to check constraints with. `tests/update_witness.rs`
//! compares its witness with the real circuit's, value for value.

use bellpepper_core::boolean::{field_into_allocated_bits_le, AllocatedBit, Boolean};
use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{Circuit, ConstraintSystem, LinearCombination, SynthesisError};
use bellperson::gadgets::multipack::pack_bits;
use blstrs::Scalar as Fr;
use ff::{Field, PrimeField, PrimeFieldBits};
use pce_core::poseidon_witness::poseidon_hash;
use pce_core::{synthesize_witness, Witness};
use storage_proofs_core::gadgets::insertion::select;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_update::circuit::{PrivateInputs, PublicInputs};
use storage_proofs_update::constants::{
    hs, validate_tree_r_shape, TreeRHasher, POSEIDON_CONSTANTS_GEN_RANDOMNESS,
};
use storage_proofs_update::{EmptySectorUpdateCircuit, PublicParams};

use crate::{por_witness, sha256_tree_witness};

/// The witness of `circuit`: exactly what
/// `pce_core::synthesize_witness(circuit)` returns (ONE and the inputs,
/// then the aux values, in the same order), computed with native SHA-256
/// and Poseidon values instead of bellperson's and neptune's gadgets.
pub fn witness<TreeR: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    circuit: EmptySectorUpdateCircuit<TreeR>,
) -> Result<Witness, SynthesisError> {
    synthesize_witness(Mirror(circuit))
}

/// `EmptySectorUpdateCircuit`, synthesized by the copy below.
struct Mirror<TreeR: MerkleTreeTrait<Hasher = TreeRHasher>>(EmptySectorUpdateCircuit<TreeR>);

impl<TreeR: MerkleTreeTrait<Hasher = TreeRHasher>> Circuit<Fr> for Mirror<TreeR> {
    /// storage-proofs' `EmptySectorUpdateCircuit::synthesize`, with
    /// [`apex_por`] and [`tree_d_por`] computing TreeD's SHA-256 natively,
    /// and every Poseidon hash too.
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let EmptySectorUpdateCircuit {
            pub_params:
                PublicParams {
                    sector_nodes,
                    challenge_count,
                    challenge_bit_len,
                    partition_count,
                    partition_bit_len,
                    apex_leaf_count,
                    apex_leaf_bit_len,
                },
            pub_inputs:
                PublicInputs {
                    k_and_h_select,
                    comm_r_old,
                    comm_d_new,
                    comm_r_new,
                },
            priv_inputs:
                PrivateInputs {
                    comm_c,
                    root_r_old,
                    root_r_new,
                    apex_leafs,
                    challenge_proofs,
                },
        } = self.0;

        validate_tree_r_shape::<TreeR>(sector_nodes);
        let hs = hs(sector_nodes);
        let h_select_bit_len = hs.len();

        let partition_path =
            challenge_proofs[0].path_d_new[challenge_bit_len - partition_bit_len..].to_vec();

        if let Some(k_and_h_select) = k_and_h_select {
            let bits: Vec<bool> = k_and_h_select.to_le_bits().into_iter().collect();
            // Assert that `k` is valid for the sector-size.
            let k_bits = &bits[..partition_bit_len];
            let mut k = 0;
            for (i, bit) in k_bits.iter().enumerate() {
                if *bit {
                    k |= 1 << i;
                }
            }
            assert!(
                k < partition_count,
                "partition-index exceeds partition count"
            );
            // `h_select` should have exactly one bit set.
            let h_select_bits = &bits[partition_bit_len..partition_bit_len + h_select_bit_len];
            assert_eq!(
                h_select_bits.iter().filter(|bit| **bit).count(),
                1,
                "h_select does not have exactly one bit set"
            );
            // The remaining bits should be zero.
            assert!(bits[partition_bit_len + h_select_bit_len..]
                .iter()
                .all(|bit| !*bit));
        }

        assert_eq!(apex_leafs.len(), apex_leaf_count);
        assert_eq!(partition_path.len(), partition_bit_len);
        assert!(partition_path.iter().all(|siblings| siblings.len() == 1));
        assert_eq!(challenge_proofs.len(), challenge_count);

        // Check that all partition challenges have the same partition path.
        for challenge_proof in &challenge_proofs[1..] {
            assert_eq!(
                &challenge_proof.path_d_new[challenge_bit_len - partition_bit_len..],
                partition_path,
            );
        }

        // Allocate public-inputs.

        // A single public-input for `k` and `h_select` packed into one field element.
        let k_and_h_select = AllocatedNum::alloc(cs.namespace(|| "k_and_h_select"), || {
            k_and_h_select.ok_or(SynthesisError::AssignmentMissing)
        })?;
        k_and_h_select.inputize(cs.namespace(|| "k_and_h_select (public input)"))?;

        // Split `k_and_h_select` into partition and h-select bits.
        let k_and_h_select_bits = {
            let bit_len = partition_bit_len + h_select_bit_len;

            let bits: Vec<Option<bool>> = if let Some(k_and_h_select) = k_and_h_select.get_value() {
                k_and_h_select
                    .to_le_bits()
                    .into_iter()
                    .take(bit_len)
                    .map(Some)
                    .collect()
            } else {
                vec![None; bit_len]
            };

            let k_and_h_select_bits = bits
                .into_iter()
                .enumerate()
                .map(|(i, bit)| {
                    AllocatedBit::alloc(cs.namespace(|| format!("k_and_h_select_bit_{}", i)), bit)
                })
                .collect::<Result<Vec<AllocatedBit>, SynthesisError>>()?;

            let mut lc = LinearCombination::<Fr>::zero();
            let mut pow2 = Fr::ONE;
            for bit in k_and_h_select_bits.iter() {
                lc = lc + (pow2, bit.get_variable());
                pow2 = pow2.double();
            }
            cs.enforce(
                || "k_and_h_select binary decomp",
                |_| lc,
                |lc| lc + CS::one(),
                |lc| lc + k_and_h_select.get_variable(),
            );

            k_and_h_select_bits
        };

        let partition_bits = k_and_h_select_bits[..partition_bit_len].to_vec();
        let h_select_bits = k_and_h_select_bits[partition_bit_len..].to_vec();

        let partition = pack_bits(
            cs.namespace(|| "pack partition bits"),
            &partition_bits
                .iter()
                .cloned()
                .map(Into::into)
                .collect::<Vec<Boolean>>(),
        )?;

        let comm_r_old = AllocatedNum::alloc(cs.namespace(|| "comm_r_old"), || {
            comm_r_old.ok_or(SynthesisError::AssignmentMissing)
        })?;
        comm_r_old.inputize(cs.namespace(|| "comm_r_old_input"))?;

        let comm_d_new = AllocatedNum::alloc(cs.namespace(|| "comm_d_new"), || {
            comm_d_new.ok_or(SynthesisError::AssignmentMissing)
        })?;
        comm_d_new.inputize(cs.namespace(|| "comm_d_new_input"))?;

        let comm_r_new = AllocatedNum::alloc(cs.namespace(|| "comm_r_new"), || {
            comm_r_new.ok_or(SynthesisError::AssignmentMissing)
        })?;
        comm_r_new.inputize(cs.namespace(|| "comm_r_new_input"))?;

        // `phi = H(comm_d_new || comm_r_old)` from the public inputs.
        let phi = poseidon_hash(
            &mut cs.namespace(|| "phi"),
            &[comm_d_new.clone(), comm_r_old.clone()],
            &POSEIDON_CONSTANTS_GEN_RANDOMNESS,
        )?;

        // Private inputs, but for each challenge's Merkle proofs.

        let comm_c = AllocatedNum::alloc(cs.namespace(|| "comm_c"), || {
            comm_c.ok_or(SynthesisError::AssignmentMissing)
        })?;

        let root_r_old = AllocatedNum::alloc(cs.namespace(|| "root_r_old"), || {
            root_r_old.ok_or(SynthesisError::AssignmentMissing)
        })?;

        let root_r_new = AllocatedNum::alloc(cs.namespace(|| "root_r_new"), || {
            root_r_new.ok_or(SynthesisError::AssignmentMissing)
        })?;

        let apex_leafs = apex_leafs
            .iter()
            .enumerate()
            .map(|(i, leaf)| {
                AllocatedNum::alloc(cs.namespace(|| format!("apex_leaf_{}", i)), || {
                    leaf.ok_or(SynthesisError::AssignmentMissing)
                })
            })
            .collect::<Result<Vec<AllocatedNum<Fr>>, SynthesisError>>()?;

        let partition_path = partition_path
            .iter()
            .enumerate()
            .map(|(i, siblings)| {
                AllocatedNum::alloc(
                    cs.namespace(|| format!("partition_path_sibling_{}", i)),
                    || siblings[0].ok_or(SynthesisError::AssignmentMissing),
                )
                .map(|sibling| vec![sibling])
            })
            .collect::<Result<Vec<Vec<AllocatedNum<Fr>>>, SynthesisError>>()?;

        // `comm_r = H(comm_c || root_r)`, old and new (Poseidon).
        let comm_r_old_calc = por_witness::poseidon_nodes(
            &mut cs.namespace(|| "comm_r_old_calc"),
            &[comm_c.clone(), root_r_old.clone()],
        )?;
        cs.enforce(
            || "enforce comm_r_old_calc == comm_r_old",
            |lc| lc + comm_r_old_calc.get_variable(),
            |lc| lc + CS::one(),
            |lc| lc + comm_r_old.get_variable(),
        );
        let comm_r_new_calc = por_witness::poseidon_nodes(
            &mut cs.namespace(|| "comm_r_new_calc"),
            &[comm_c.clone(), root_r_new.clone()],
        )?;
        cs.enforce(
            || "enforce comm_r_new_calc == comm_r_new",
            |lc| lc + comm_r_new_calc.get_variable(),
            |lc| lc + CS::one(),
            |lc| lc + comm_r_new.get_variable(),
        );

        // This partition's `apex_leafs` are consistent with `comm_d_new`.
        apex_por(
            cs.namespace(|| "apex_gadget"),
            apex_leafs.clone(),
            partition_bits.clone(),
            partition_path,
            comm_d_new,
        )?;

        // Each challenge's random bits, below the partition's bits.
        let challenge_sans_partition_bit_len = challenge_bit_len - partition_bit_len;
        let generated_bits = gen_challenge_bits(
            cs.namespace(|| "gen_challenge_bits"),
            &comm_r_new,
            &partition,
            challenge_count,
            challenge_sans_partition_bit_len,
        )?;

        for (c_index, c_bits_without_partition) in generated_bits.into_iter().enumerate() {
            let c_bits: Vec<AllocatedBit> = c_bits_without_partition
                .iter()
                .chain(partition_bits.iter())
                .cloned()
                .collect();

            // This challenge's `rho`.
            let c_high = get_challenge_high_bits(
                cs.namespace(|| format!("get_challenge_high_bits (c_index={})", c_index)),
                &c_bits,
                &h_select_bits,
                &hs,
            )?;
            let rho = poseidon_hash(
                &mut cs.namespace(|| format!("rho (c_index={})", c_index)),
                &[phi.clone(), c_high.clone()],
                &POSEIDON_CONSTANTS_GEN_RANDOMNESS,
            )?;

            // This challenge's Merkle proofs.
            let challenge_proof = &challenge_proofs[c_index];

            let leaf_r_old = AllocatedNum::alloc(
                cs.namespace(|| format!("leaf_r_old (c_index={})", c_index)),
                || {
                    challenge_proof
                        .leaf_r_old
                        .ok_or(SynthesisError::AssignmentMissing)
                },
            )?;

            let leaf_d_new = AllocatedNum::alloc(
                cs.namespace(|| format!("leaf_d_new (c_index={})", c_index)),
                || {
                    challenge_proof
                        .leaf_d_new
                        .ok_or(SynthesisError::AssignmentMissing)
                },
            )?;

            let leaf_r_new = label_r_new(
                cs.namespace(|| format!("leaf_r_new (c_index={})", c_index)),
                &leaf_r_old,
                &leaf_d_new,
                &rho,
            )?;

            // The calculated `leaf_r_new` agrees with the provided value.
            if let Some(leaf_r_new) = leaf_r_new.get_value() {
                assert_eq!(leaf_r_new, challenge_proof.leaf_r_new.unwrap());
            }

            let path_r_old = alloc_path(cs, &challenge_proof.path_r_old, "path_r_old", c_index)?;
            por_witness::without_challenge_input(
                &mut cs.namespace(|| format!("por tree_r_old (c_index={})", c_index)),
                c_bits.clone(),
                leaf_r_old.clone(),
                path_r_old,
                por_witness::poseidon_nodes,
            )?;

            let path_r_new = alloc_path(cs, &challenge_proof.path_r_new, "path_r_new", c_index)?;
            por_witness::without_challenge_input(
                &mut cs.namespace(|| format!("por tree_r_new (c_index={})", c_index)),
                c_bits.clone(),
                leaf_r_new.clone(),
                path_r_new,
                por_witness::poseidon_nodes,
            )?;

            let apex_leaf_bits: Vec<Boolean> = {
                let start = challenge_bit_len - partition_bit_len - apex_leaf_bit_len;
                let stop = start + apex_leaf_bit_len;
                c_bits[start..stop]
                    .iter()
                    .cloned()
                    .map(Into::into)
                    .collect()
            };

            // The root of the path to the apex leaf: only constrained.
            let _apex_leaf = select(
                cs.namespace(|| format!("select_apex_leaf (c_index={})", c_index)),
                &apex_leafs,
                &apex_leaf_bits,
            )?;

            let path_len_to_apex_leaf = challenge_bit_len - partition_bit_len - apex_leaf_bit_len;

            let c_bits_to_apex_leaf: Vec<AllocatedBit> =
                c_bits.into_iter().take(path_len_to_apex_leaf).collect();

            let path_to_apex_leaf = challenge_proof
                .path_d_new
                .iter()
                .take(path_len_to_apex_leaf)
                .enumerate()
                .map(|(tree_row, siblings)| {
                    AllocatedNum::alloc(
                        cs.namespace(|| {
                            format!(
                                "path_to_apex_leaf sibling (c_index={}, tree_row={})",
                                c_index, tree_row,
                            )
                        }),
                        || siblings[0].ok_or(SynthesisError::AssignmentMissing),
                    )
                    .map(|sibling| vec![sibling])
                })
                .collect::<Result<Vec<Vec<AllocatedNum<Fr>>>, SynthesisError>>()?;

            tree_d_por(
                cs.namespace(|| format!("por to_apex_leaf (c_index={})", c_index)),
                c_bits_to_apex_leaf,
                leaf_d_new,
                path_to_apex_leaf,
            )?;
        }

        Ok(())
    }
}

/// A TreeR Merkle path's siblings allocated, row by row, as the circuit
/// allocates `path_r_old` and `path_r_new`.
fn alloc_path<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    path: &[Vec<Option<Fr>>],
    name: &str,
    c_index: usize,
) -> Result<Vec<Vec<AllocatedNum<Fr>>>, SynthesisError> {
    path.iter()
        .enumerate()
        .map(|(tree_row, siblings)| {
            siblings
                .iter()
                .enumerate()
                .map(|(sibling_index, sibling)| {
                    AllocatedNum::alloc(
                        cs.namespace(|| {
                            format!(
                                "{} sibling (c_index={}, tree_row={}, sibling_index={})",
                                name, c_index, tree_row, sibling_index,
                            )
                        }),
                        || sibling.ok_or(SynthesisError::AssignmentMissing),
                    )
                })
                .collect::<Result<Vec<AllocatedNum<Fr>>, SynthesisError>>()
        })
        .collect()
}

/// storage-proofs' `allocated_num_to_allocated_bits`: `num` as
/// `Fr::NUM_BITS` allocated bits.
fn allocated_num_to_allocated_bits<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    num: &AllocatedNum<Fr>,
) -> Result<Vec<AllocatedBit>, SynthesisError> {
    let bits = field_into_allocated_bits_le(&mut cs, num.get_value())?;
    assert_eq!(bits.len(), Fr::NUM_BITS as usize);

    // `(2^0 * bits[0] + ... + 2^(n - 1) * bits[n]) * 1 == num`.
    let mut lc = LinearCombination::<Fr>::zero();
    let mut pow2 = Fr::ONE;
    for bit in bits.iter() {
        lc = lc + (pow2, bit.get_variable());
        pow2 = pow2.double();
    }
    cs.enforce(
        || "binary decomp",
        |_| lc,
        |lc| lc + CS::one(),
        |lc| lc + num.get_variable(),
    );

    Ok(bits)
}

/// storage-proofs' `apex_por`: the partition's apex tree from
/// `apex_leafs`, each `hash2_circuit` of two nodes computed by
/// [`sha256_tree_witness::hash_nodes`] (the same allocations), then its
/// root's path to `comm_d` ([`tree_d_por`]; `comm_d` is only constrained).
fn apex_por<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    apex_leafs: Vec<AllocatedNum<Fr>>,
    // little-endian
    partition_bits: Vec<AllocatedBit>,
    partition_path: Vec<Vec<AllocatedNum<Fr>>>,
    _comm_d: AllocatedNum<Fr>,
) -> Result<(), SynthesisError> {
    // `apex_leafs.len()` is a power of two.
    let apex_tree_height = apex_leafs.len().trailing_zeros() as usize;
    let mut apex_tree = vec![apex_leafs];
    for row_index in 0..apex_tree_height {
        let row = apex_tree
            .last()
            .unwrap()
            .chunks(2)
            .enumerate()
            .map(|(i, siblings)| {
                sha256_tree_witness::hash_nodes(
                    &mut cs.namespace(|| {
                        format!(
                            "apex_tree generation hash (tree_row={}, siblings={})",
                            row_index, i,
                        )
                    }),
                    siblings,
                )
            })
            .collect::<Result<Vec<AllocatedNum<Fr>>, SynthesisError>>()?;
        apex_tree.push(row);
    }

    // This partition's apex-tree root.
    let apex_root = apex_tree.last().unwrap()[0].clone();

    tree_d_por(
        cs.namespace(|| "partition-tree por"),
        partition_bits,
        apex_root,
        partition_path,
    )
}

/// storage-proofs-core's `por_no_challenge_input::<TreeD, _>` (a binary
/// SHA-256 tree), its hashes by [`sha256_tree_witness::hash_nodes`].
fn tree_d_por<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    // little-endian
    challenge_bits: Vec<AllocatedBit>,
    leaf: AllocatedNum<Fr>,
    path_values: Vec<Vec<AllocatedNum<Fr>>>,
) -> Result<(), SynthesisError> {
    assert!(path_values.iter().all(|siblings| siblings.len() == 1));
    por_witness::without_challenge_input(
        &mut cs,
        challenge_bits,
        leaf,
        path_values,
        sha256_tree_witness::hash_nodes,
    )
}

/// storage-proofs' `gen_challenge_bits`: each challenge's random bits for
/// the partition, from `H(comm_r_new || digest_index)`.
fn gen_challenge_bits<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    comm_r_new: &AllocatedNum<Fr>,
    partition: &AllocatedNum<Fr>,
    challenges: usize,
    bits_per_challenge: usize,
) -> Result<Vec<Vec<AllocatedBit>>, SynthesisError> {
    // The number of challenges derived per digest.
    let challenges_per_digest = Fr::CAPACITY as usize / bits_per_challenge;

    // The number of digests generated per partition (as storage-proofs
    // computes it).
    let digests_per_partition = (challenges as f32 / challenges_per_digest as f32).ceil() as u64;

    let mut generated_bits = Vec::with_capacity(challenges);

    for j in 0..digests_per_partition {
        // `digest_index = k * digests_per_partition + j`, across all
        // partitions.
        let digest_index =
            AllocatedNum::alloc(cs.namespace(|| format!("digest_index_{}", j)), || {
                let k = partition
                    .get_value()
                    .ok_or(SynthesisError::AssignmentMissing)?;
                let digest_index = k * Fr::from(digests_per_partition) + Fr::from(j);
                Ok(digest_index)
            })?;

        cs.enforce(
            || format!("digest_index_{} == k * digests_per_partition + {}", j, j),
            |lc| {
                lc + (Fr::from(digests_per_partition), partition.get_variable())
                    + (Fr::from(j), CS::one())
            },
            |lc| lc + CS::one(),
            |lc| lc + digest_index.get_variable(),
        );

        // `digest = H(comm_r_new || digest_index)`
        let digest = poseidon_hash(
            &mut cs.namespace(|| format!("digest_{}", j)),
            &[comm_r_new.clone(), digest_index.clone()],
            &POSEIDON_CONSTANTS_GEN_RANDOMNESS,
        )?;

        // `digest` as `Fr::NUM_BITS` bits.
        let digest_bits = allocated_num_to_allocated_bits(
            cs.namespace(|| format!("digest_{}_bits", j)),
            &digest,
        )?;

        // Not every bit of the last digest may be taken.
        let challenges_to_take = if j == digests_per_partition - 1 {
            challenges - generated_bits.len()
        } else {
            challenges_per_digest
        };

        digest_bits
            .chunks(bits_per_challenge)
            .take(challenges_to_take)
            .for_each(|bits| {
                generated_bits.push(bits.to_vec());
            });
    }

    Ok(generated_bits)
}

/// storage-proofs' `get_challenge_high_bits`: the `h` high bits of
/// `c_bits`, `h` being the `hs` entry that `h_select_bits` (one bit set)
/// selects.
fn get_challenge_high_bits<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    // little-endian
    c_bits: &[AllocatedBit],
    h_select_bits: &[AllocatedBit],
    hs: &[usize],
) -> Result<AllocatedNum<Fr>, SynthesisError> {
    assert_eq!(h_select_bits.len(), hs.len());

    let bit_len = c_bits.len();

    let c_bits: Vec<Boolean> = c_bits.iter().cloned().map(Into::into).collect();

    // Each `h`'s high bits, times its `h_select` bit: zeros but for the
    // selected one.
    let c_high_and_zeros = hs
        .iter()
        .zip(h_select_bits.iter())
        .enumerate()
        .map(|(k, (h, h_select_bit))| {
            let c_high = pack_bits(
                cs.namespace(|| format!("c_high (h={}, k={})", h, k)),
                &c_bits[bit_len - h..],
            )?;

            let c_high_or_zero = AllocatedNum::alloc(
                cs.namespace(|| format!("c_high_or_zero (h={}, k={})", h, k)),
                || {
                    if h_select_bit
                        .get_value()
                        .ok_or(SynthesisError::AssignmentMissing)?
                    {
                        c_high.get_value().ok_or(SynthesisError::AssignmentMissing)
                    } else {
                        Ok(Fr::ZERO)
                    }
                },
            )?;

            cs.enforce(
                || format!("c_high_or_zero == c_high * h_select_bit (h={}, k={})", h, k),
                |lc| lc + c_high.get_variable(),
                |lc| lc + h_select_bit.get_variable(),
                |lc| lc + c_high_or_zero.get_variable(),
            );

            Ok(c_high_or_zero)
        })
        .collect::<Result<Vec<AllocatedNum<Fr>>, SynthesisError>>()?;

    // Their sum: the selected `c_high`.
    let c_high_selected = AllocatedNum::alloc(cs.namespace(|| "c_high_selected"), || {
        let mut sum = c_high_and_zeros[0]
            .get_value()
            .ok_or(SynthesisError::AssignmentMissing)?;
        for c_high_or_zero in &c_high_and_zeros[1..] {
            sum += c_high_or_zero
                .get_value()
                .ok_or(SynthesisError::AssignmentMissing)?;
        }
        Ok(sum)
    })?;

    cs.enforce(
        || "c_high_selected == dot(c_highs, h_select_bits)",
        |mut lc| {
            for c_high_or_zero in c_high_and_zeros.iter() {
                lc = lc + c_high_or_zero.get_variable();
            }
            lc
        },
        |lc| lc + CS::one(),
        |lc| lc + c_high_selected.get_variable(),
    );

    Ok(c_high_selected)
}

/// storage-proofs' `label_r_new`: the encoding of a sector node,
/// `label_r_old + label_d_new * rho`.
fn label_r_new<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    label_r_old: &AllocatedNum<Fr>,
    label_d_new: &AllocatedNum<Fr>,
    rho: &AllocatedNum<Fr>,
) -> Result<AllocatedNum<Fr>, SynthesisError> {
    let label_d_new_rho = label_d_new.mul(cs.namespace(|| "label_d_new * rho"), rho)?;

    let label_r_new = AllocatedNum::alloc(cs.namespace(|| "label_r_new"), || {
        let label_r_old = label_r_old
            .get_value()
            .ok_or(SynthesisError::AssignmentMissing)?;
        let label_d_new_rho = label_d_new_rho
            .get_value()
            .ok_or(SynthesisError::AssignmentMissing)?;
        Ok(label_r_old + label_d_new_rho)
    })?;

    cs.enforce(
        || "label_r_new == label_r_old + label_d_new * rho",
        |lc| lc + label_r_old.get_variable() + label_d_new_rho.get_variable(),
        |lc| lc + CS::one(),
        |lc| lc + label_r_new.get_variable(),
    );

    Ok(label_r_new)
}
