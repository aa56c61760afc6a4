//! The witness of a one-challenge PoRep circuit, without the linear
//! combinations of its SHA-256 and Poseidon gadgets.
//!
//! Why: [`crate::witness`] computes a partition's witness from
//! one-challenge circuits, each synthesized by storage-proofs'
//! `StackedCircuit` into a [`WitnessCS`]. That system ignores every
//! constraint, yet bellperson's SHA-256 gadget and neptune's Poseidon
//! gadget still build the linear combinations they would have enforced:
//! the SHA-256 ones cost about 40% of a 32 GiB partition's witness, and a
//! Poseidon hash's combinations more than ten times its values. Here the
//! same circuit is synthesized by our own code, identical to storage-proofs
//! but for the hashes: `create_label` computes the labels' SHA-256 values
//! natively (allocating, in the same order, exactly the values the gadget
//! allocates) and packs the digest without building its sum, and the
//! inclusion paths and column hashes come from [`crate::por_witness`]
//! (TreeD with SHA-256, TreeR and TreeC with [`pce_core::poseidon_witness`]).
//!
//! The mirror must follow storage-proofs-porep 19.1.0 exactly:
//! `StackedCircuit::synthesize` (`stacked/circuit/proof.rs`),
//! `Proof::synthesize` and `From<VanillaProof>` (`params.rs`), the column
//! allocation and hash (`column.rs`, `column_proof.rs`, `hash.rs`) and
//! `create_label_circuit` (`create_label.rs`). Every value is allocated in
//! the same order as there, so the witness is the real circuit's value for
//! value and fits the PCE recorded from storage-proofs' blank circuit.
//! Public gadgets (AllocatedNum, UInt64, `encode`) are called as
//! storage-proofs calls them; the tests (`tests/porep_witness.rs`) compare
//! the witness with the real circuit's on sealed and synthetic sectors of
//! every tree shape. A new version of storage-proofs must be checked
//! against this file before it is used.
//!
//! The circuit here computes a witness only: it enforces nothing of the
//! hashes (constraints come from the PCE), so it is not a circuit to record
//! or to check constraints with.
//!
//! Two private pieces of storage-proofs are reached through their serde
//! encoding: a vanilla column proof's column and inclusion proof, and a
//! labeling proof's node (fields private to storage-proofs-porep, which
//! its circuit reads). They are encoded with bincode and decoded into
//! structs with the same fields (`ColumnProofFields`,
//! `LabelingProofFields`).

use std::marker::PhantomData;

use bellpepper_core::boolean::Boolean;
use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use bellperson::gadgets::uint32::UInt32;
use blstrs::Scalar;
use ff::PrimeField;
use filecoin_hashers::Hasher;
use filecoin_proofs::DefaultPieceHasher;
use pce_core::sha256_witness::{pack_bits, sha256};
use pce_core::WitnessTarget;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use storage_proofs_core::gadgets::constraint;
use storage_proofs_core::gadgets::encode::encode;
use storage_proofs_core::gadgets::uint64::UInt64;
use storage_proofs_core::merkle::{MerkleProof, MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_core::util::reverse_bit_numbering;
use storage_proofs_porep::stacked::{self, TOTAL_PARENTS};

use crate::partition::PartitionCircuits;
use crate::por_witness::{self, Path};
use crate::sha256_tree_witness;
use crate::C2Error;

/// The witness of partition `k` of `circuits`' sector reduced to its
/// challenge `j`: exactly what
/// `synthesize_witness_in(circuits.challenge_circuit(k, j)?, cs)` returns
/// (ONE and the inputs, then the aux values, in the same order), computed
/// without the SHA-256 and Poseidon gadgets' linear combinations. `cs` is
/// an empty system: a [`pce_core::WitnessCS`] made with room for the
/// witness ([`pce_core::WitnessCS::with_capacity`]), which it returns, or
/// a [`pce_core::PlacedWitnessCS`], which writes it into the caller's
/// slots.
///
/// The copy hashes TreeR and TreeC with Poseidon, as every sector shape
/// Filecoin registers does; a tree of another hasher is synthesized with
/// storage-proofs' circuit.
pub fn challenge_witness<Tree: 'static + MerkleTreeTrait, T: WitnessTarget>(
    circuits: &PartitionCircuits<Tree>,
    k: usize,
    j: usize,
    cs: T,
) -> Result<T::Output, C2Error> {
    let synthesized = if por_witness::hashes_with_poseidon::<Tree>() {
        cs.synthesize(ChallengeCircuit::new(circuits, k, j)?)
    } else {
        cs.synthesize(circuits.challenge_circuit(k, j)?)
    };
    synthesized.map_err(|source| C2Error::Synthesis {
        partition: k,
        source,
    })
}

/// An inclusion proof in TreeR or TreeC, as the vanilla proofs hold it.
type TreeProof<Tree> = MerkleProof<
    <Tree as MerkleTreeTrait>::Hasher,
    <Tree as MerkleTreeTrait>::Arity,
    <Tree as MerkleTreeTrait>::SubTreeArity,
    <Tree as MerkleTreeTrait>::TopTreeArity,
>;

/// The vanilla proof of one challenge.
type VanillaProof<Tree> = stacked::Proof<Tree, DefaultPieceHasher>;

/// The fields of storage-proofs' vanilla `ColumnProof` (private to its
/// crate), in their order, to decode its serde encoding into.
#[derive(Deserialize)]
#[serde(bound = "")]
struct ColumnProofFields<P: MerkleProofTrait> {
    /// The column: the node's label in every layer.
    column: ColumnFields<P::Hasher>,
    /// Inclusion of the column's hash in TreeC.
    inclusion_proof: P,
}

/// The fields of storage-proofs' vanilla `Column`.
#[derive(Deserialize)]
#[serde(bound = "")]
struct ColumnFields<H: Hasher> {
    /// The column's node (not read by the circuit).
    #[allow(dead_code)]
    index: u32,
    /// Its labels, layer 1 first.
    rows: Vec<H::Domain>,
    #[allow(dead_code)]
    _h: PhantomData<H>,
}

/// The fields of storage-proofs' vanilla `ReplicaColumnProof` (public),
/// with the column proofs decoded into [`ColumnProofFields`].
#[derive(Deserialize)]
#[serde(bound = "")]
struct ReplicaColumnProofFields<P: MerkleProofTrait> {
    /// The challenged node's column (only its inclusion path is read).
    c_x: ColumnProofFields<P>,
    /// The columns of the DRG parents.
    drg_parents: Vec<ColumnProofFields<P>>,
    /// The columns of the expander parents.
    exp_parents: Vec<ColumnProofFields<P>>,
}

/// The serialized fields of storage-proofs' `LabelingProof` (private to
/// its crate), in their order.
#[derive(Deserialize)]
#[serde(bound = "")]
struct LabelingProofFields<H: Hasher> {
    #[allow(dead_code)]
    parents: Vec<H::Domain>,
    #[allow(dead_code)]
    layer_index: u32,
    /// The challenged node.
    node: u64,
}

/// `value` decoded as `F`, a struct of the same fields, through bincode.
fn fields_of<T: Serialize, F: DeserializeOwned>(value: &T) -> Result<F, C2Error> {
    let step = "reading a vanilla proof's column or labeling proofs";
    let bytes = bincode::serialize(value).map_err(|e| C2Error::Filecoin {
        step,
        source: e.into(),
    })?;
    bincode::deserialize(&bytes).map_err(|e| C2Error::Filecoin {
        step,
        source: e.into(),
    })
}

/// A column opening of the circuit (storage-proofs' circuit `ColumnProof`).
struct ColumnOpening {
    /// The column's labels, layer 1 first.
    rows: Vec<Scalar>,
    /// Inclusion of the column's hash in TreeC.
    inclusion_path: Path,
}

impl ColumnOpening {
    /// As storage-proofs' `From<VanillaColumnProof>` for `ColumnProof`.
    fn from_fields<P: MerkleProofTrait>(fields: ColumnProofFields<P>) -> Self {
        Self {
            rows: fields.column.rows.into_iter().map(Into::into).collect(),
            inclusion_path: fields.inclusion_proof.as_options(),
        }
    }

    /// `ColumnProof::alloc` then `Column::alloc`: the rows, in order.
    fn alloc<CS: ConstraintSystem<Scalar>>(
        self,
        mut cs: CS,
    ) -> Result<(Vec<AllocatedNum<Scalar>>, Path), SynthesisError> {
        let Self {
            rows,
            inclusion_path,
        } = self;
        let mut cs = cs.namespace(|| "column");
        let rows = rows
            .into_iter()
            .enumerate()
            .map(|(i, val)| {
                AllocatedNum::alloc(cs.namespace(|| format!("column_num_row_{}", i)), || Ok(val))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((rows, inclusion_path))
    }
}

/// `AllocatedColumn::get_value`: the label of 1-indexed `layer`.
fn column_value(column: &[AllocatedNum<Scalar>], layer: usize) -> &AllocatedNum<Scalar> {
    assert!(layer > 0, "layers are 1 indexed");
    assert!(
        layer <= column.len(),
        "layer {} out of range: 1..={}",
        layer,
        column.len()
    );
    &column[layer - 1]
}

/// storage-proofs' `hash_single_column` (`stacked/circuit/hash.rs`): the
/// Poseidon hash of a column of 2 or 11 labels.
fn hash_single_column<CS: ConstraintSystem<Scalar>>(
    mut cs: CS,
    column: &[AllocatedNum<Scalar>],
) -> Result<AllocatedNum<Scalar>, SynthesisError> {
    assert!(
        matches!(column.len(), 2 | 11),
        "unsupported column size: {}",
        column.len()
    );
    por_witness::poseidon_nodes(&mut cs, column)
}

/// The circuit's proof of one challenge (storage-proofs' circuit `Proof`,
/// `stacked/circuit/params.rs`).
struct ChallengeProof {
    /// Inclusion path of the challenged data node in TreeD (SHA-256).
    comm_d_path: Path,
    /// The challenged data node.
    data_leaf: Scalar,
    /// The challenged node's index.
    challenge: u64,
    /// Inclusion path of the challenged replica node in TreeR.
    comm_r_last_path: Path,
    /// Inclusion path of the challenged node's column hash in TreeC.
    comm_c_path: Path,
    /// Columns of the DRG parents.
    drg_parents_proofs: Vec<ColumnOpening>,
    /// Columns of the expander parents.
    exp_parents_proofs: Vec<ColumnOpening>,
}

impl ChallengeProof {
    /// As storage-proofs' `From<VanillaProof>` for its circuit `Proof`.
    fn from_vanilla<Tree: 'static + MerkleTreeTrait>(
        vanilla: &VanillaProof<Tree>,
    ) -> Result<Self, C2Error> {
        let columns: ReplicaColumnProofFields<TreeProof<Tree>> =
            fields_of(&vanilla.replica_column_proofs)?;
        let labeling: LabelingProofFields<Tree::Hasher> = fields_of(&vanilla.labeling_proofs[0])?;
        let openings = |proofs: Vec<ColumnProofFields<TreeProof<Tree>>>| {
            proofs.into_iter().map(ColumnOpening::from_fields).collect()
        };
        Ok(Self {
            comm_d_path: vanilla.comm_d_proofs.as_options(),
            data_leaf: vanilla.comm_d_proofs.leaf().into(),
            challenge: labeling.node,
            comm_r_last_path: vanilla.comm_r_last_proof.as_options(),
            comm_c_path: columns.c_x.inclusion_proof.as_options(),
            drg_parents_proofs: openings(columns.drg_parents),
            exp_parents_proofs: openings(columns.exp_parents),
        })
    }

    /// storage-proofs' `Proof::synthesize`, with [`create_label`] for
    /// `create_label_circuit`, [`por_witness::inclusion`] for the
    /// inclusions (TreeD's root, comm_d, is only constrained) and
    /// [`por_witness::poseidon_nodes`] for the Poseidon hashes.
    fn synthesize<CS: ConstraintSystem<Scalar>>(
        self,
        mut cs: CS,
        replica_id: &[Boolean],
    ) -> Result<(), SynthesisError> {
        let Self {
            comm_d_path,
            data_leaf,
            challenge,
            comm_r_last_path,
            comm_c_path,
            drg_parents_proofs,
            exp_parents_proofs,
        } = self;

        assert!(!drg_parents_proofs.is_empty());
        assert!(!exp_parents_proofs.is_empty());

        // -- verify initial data layer
        let data_leaf_num = AllocatedNum::alloc(cs.namespace(|| "data_leaf"), || Ok(data_leaf))?;
        por_witness::inclusion(
            &mut cs.namespace(|| "comm_d_inclusion"),
            &comm_d_path,
            &data_leaf_num,
            sha256_tree_witness::hash_nodes,
        )?;

        // -- verify replica column openings
        let num_layers = drg_parents_proofs[0].rows.len();
        let mut drg_parents = Vec::with_capacity(num_layers);
        for (i, parent) in drg_parents_proofs.into_iter().enumerate() {
            let (parent_col, inclusion_path) =
                parent.alloc(cs.namespace(|| format!("drg_parent_{}_num", i)))?;
            assert_eq!(num_layers, parent_col.len());
            let val = hash_single_column(
                cs.namespace(|| format!("drg_parent_{}_constraint", i)),
                &parent_col,
            )?;
            enforce_inclusion(
                cs.namespace(|| format!("drg_parent_{}_inclusion", i)),
                inclusion_path,
                &val,
            )?;
            drg_parents.push(parent_col);
        }

        let mut exp_parents = Vec::new();
        for (i, parent) in exp_parents_proofs.into_iter().enumerate() {
            let (parent_col, inclusion_path) =
                parent.alloc(cs.namespace(|| format!("exp_parent_{}_num", i)))?;
            assert_eq!(num_layers, parent_col.len());
            let val = hash_single_column(
                cs.namespace(|| format!("exp_parent_{}_constraint", i)),
                &parent_col,
            )?;
            enforce_inclusion(
                cs.namespace(|| format!("exp_parent_{}_inclusion", i)),
                inclusion_path,
                &val,
            )?;
            exp_parents.push(parent_col);
        }

        // -- verify labeling and encoding
        let mut column_labels = Vec::new();

        let challenge_num = UInt64::alloc(cs.namespace(|| "challenge"), Some(challenge))?;
        challenge_num.pack_into_input(cs.namespace(|| "challenge input"))?;

        for layer in 1..=num_layers {
            let layer_num = UInt32::constant(layer as u32);
            let mut cs = cs.namespace(|| format!("labeling_{}", layer));

            let mut parents = Vec::new();
            for parent_col in &drg_parents {
                let parent_val_num = column_value(parent_col, layer);
                let parent_val_bits = reverse_bit_numbering(sha256_tree_witness::bits_le(
                    &mut cs.namespace(|| format!("drg_parent_{}_bits", parents.len())),
                    parent_val_num,
                )?);
                parents.push(parent_val_bits);
            }
            // The first layer has no expander parents; theirs are shifted
            // by one (no value for the first layer).
            if layer > 1 {
                for parent_col in &exp_parents {
                    let parent_val_num = column_value(parent_col, layer - 1);
                    let parent_val_bits = reverse_bit_numbering(sha256_tree_witness::bits_le(
                        &mut cs.namespace(|| format!("exp_parent_{}_bits", parents.len())),
                        parent_val_num,
                    )?);
                    parents.push(parent_val_bits);
                }
            }

            // Parents repeated as the labeling hashes them.
            let mut expanded_parents = parents.clone();
            if layer > 1 {
                expanded_parents.extend_from_slice(&parents); // 28
                expanded_parents.extend_from_slice(&parents[..9]); // 37
            } else {
                expanded_parents.extend_from_slice(&parents); // 12
                expanded_parents.extend_from_slice(&parents); // 18
                expanded_parents.extend_from_slice(&parents); // 24
                expanded_parents.extend_from_slice(&parents); // 30
                expanded_parents.extend_from_slice(&parents); // 36
                expanded_parents.push(parents[0].clone()); // 37
            }

            let label = create_label(
                cs.namespace(|| "create_label"),
                replica_id,
                expanded_parents,
                layer_num,
                challenge_num.clone(),
            )?;
            column_labels.push(label);
        }

        // -- encoding node: the key is the last label
        {
            let key = &column_labels[column_labels.len() - 1];
            let encoded_node = encode(cs.namespace(|| "encode_node"), key, &data_leaf_num)?;
            enforce_inclusion(
                cs.namespace(|| "comm_r_last_data_inclusion"),
                comm_r_last_path,
                &encoded_node,
            )?;
        }

        // -- the column hash of the labels is in TreeC
        {
            let column_hash =
                hash_single_column(cs.namespace(|| "c_x_column_hash"), &column_labels)?;
            enforce_inclusion(cs.namespace(|| "c_x_inclusion"), comm_c_path, &column_hash)?;
        }

        Ok(())
    }
}

/// storage-proofs' `enforce_inclusion` (`params.rs`): the PoR circuit of
/// `leaf` along `path` in a Poseidon tree (TreeR or TreeC). The root
/// (`comm_c` or `comm_r_last`) is only constrained, so it is not needed.
fn enforce_inclusion<CS: ConstraintSystem<Scalar>>(
    mut cs: CS,
    path: Path,
    leaf: &AllocatedNum<Scalar>,
) -> Result<(), SynthesisError> {
    por_witness::inclusion(&mut cs, &path, leaf, por_witness::poseidon_nodes)
}

/// storage-proofs' `create_label_circuit` (`create_label.rs`), computing
/// the SHA-256 witness natively ([`pce_core::sha256_witness`]): the same
/// `ciphertexts` bits, the values bellperson's SHA-256 gadget allocates,
/// then the digest's first `Scalar::CAPACITY` bits (after reversing each
/// byte's bit numbering) packed into one allocated number, the single
/// value `multipack::pack_bits` allocates.
fn create_label<CS: ConstraintSystem<Scalar>>(
    mut cs: CS,
    replica_id: &[Boolean],
    parents: Vec<Vec<Boolean>>,
    layer_index: UInt32,
    node: UInt64,
) -> Result<AllocatedNum<Scalar>, SynthesisError> {
    assert!(replica_id.len() >= 32, "replica id is too small");
    assert!(replica_id.len() <= 256, "replica id is too large");
    assert_eq!(parents.len(), TOTAL_PARENTS, "invalid sized parents");

    // id | layer index, node | parent_node_0 | parent_node_1 | ...
    let mut ciphertexts = replica_id.to_vec();
    while ciphertexts.len() < 256 {
        ciphertexts.push(Boolean::constant(false));
    }
    ciphertexts.extend_from_slice(&layer_index.into_bits_be());
    ciphertexts.extend_from_slice(&node.to_bits_be());
    while ciphertexts.len() < 512 {
        ciphertexts.push(Boolean::constant(false));
    }
    for parent in parents.iter() {
        ciphertexts.extend_from_slice(parent);
        // each parent takes 32 bytes
        while !ciphertexts.len().is_multiple_of(256) {
            ciphertexts.push(Boolean::constant(false));
        }
    }
    assert_eq!(ciphertexts.len(), (1 + 1 + TOTAL_PARENTS) * 32 * 8);

    let digest = sha256(&mut cs.namespace(|| "hash"), &ciphertexts)?;

    let bits = reverse_bit_numbering_of_bools(digest);
    pack_bits(
        &mut cs.namespace(|| "result_num"),
        &bits[0..(Scalar::CAPACITY as usize)],
    )
}

/// `reverse_bit_numbering` of storage-proofs on values: each byte's bits
/// in reverse order (a partial last byte padded with `false`).
fn reverse_bit_numbering_of_bools(mut bits: Vec<bool>) -> Vec<bool> {
    while !bits.len().is_multiple_of(8) {
        bits.push(false);
    }
    bits.chunks(8)
        .flat_map(|chunk| chunk.iter().rev())
        .copied()
        .collect()
}

/// A one-challenge PoRep circuit: storage-proofs' `StackedCircuit` of one
/// vanilla proof, as `StackedCompound::circuit` builds it.
struct ChallengeCircuit {
    replica_id: Scalar,
    comm_d: Option<Scalar>,
    comm_r: Option<Scalar>,
    comm_r_last: Scalar,
    comm_c: Scalar,
    proof: ChallengeProof,
}

impl ChallengeCircuit {
    /// The circuit of challenge `j` of partition `k`: its values as
    /// `StackedCompound::circuit` takes them from the sector's statement
    /// and the challenge's vanilla proof.
    fn new<Tree: 'static + MerkleTreeTrait>(
        circuits: &PartitionCircuits<Tree>,
        k: usize,
        j: usize,
    ) -> Result<Self, C2Error> {
        let statement = circuits.statement();
        let vanilla = circuits.vanilla_proof(k, j);
        Ok(Self {
            replica_id: statement.replica_id.into(),
            comm_d: statement.tau.as_ref().map(|tau| tau.comm_d.into()),
            comm_r: statement.tau.as_ref().map(|tau| tau.comm_r.into()),
            comm_r_last: vanilla.comm_r_last().into(),
            comm_c: vanilla.comm_c().into(),
            proof: ChallengeProof::from_vanilla(vanilla)?,
        })
    }
}

impl Circuit<Scalar> for ChallengeCircuit {
    /// storage-proofs' `StackedCircuit::synthesize`.
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let Self {
            replica_id,
            comm_d,
            comm_r,
            comm_r_last,
            comm_c,
            proof,
        } = self;

        let replica_id_num = AllocatedNum::alloc(cs.namespace(|| "replica_id"), || Ok(replica_id))?;
        replica_id_num.inputize(cs.namespace(|| "replica_id_input"))?;
        let replica_id_bits = reverse_bit_numbering(sha256_tree_witness::bits_le(
            &mut cs.namespace(|| "replica_id_bits"),
            &replica_id_num,
        )?);

        let comm_d_num = AllocatedNum::alloc(cs.namespace(|| "comm_d"), || {
            comm_d.ok_or(SynthesisError::AssignmentMissing)
        })?;
        comm_d_num.inputize(cs.namespace(|| "comm_d_input"))?;

        let comm_r_num = AllocatedNum::alloc(cs.namespace(|| "comm_r"), || {
            comm_r.ok_or(SynthesisError::AssignmentMissing)
        })?;
        comm_r_num.inputize(cs.namespace(|| "comm_r_input"))?;

        let comm_r_last_num =
            AllocatedNum::alloc(cs.namespace(|| "comm_r_last"), || Ok(comm_r_last))?;
        let comm_c_num = AllocatedNum::alloc(cs.namespace(|| "comm_c"), || Ok(comm_c))?;

        // comm_r = H(comm_c || comm_r_last)
        {
            let hash_num = por_witness::poseidon_nodes(
                &mut cs.namespace(|| "H_comm_c_comm_r_last"),
                &[comm_c_num.clone(), comm_r_last_num.clone()],
            )?;
            constraint::equal(
                cs,
                || "enforce comm_r = H(comm_c || comm_r_last)",
                &comm_r_num,
                &hash_num,
            );
        }

        proof.synthesize(&mut cs.namespace(|| "challenge_0"), &replica_id_bits)
    }
}
