//! Commit-phase-1 outputs of any sector size without a sector, for
//! measuring the host's side of a proof at production shapes.
//!
//! A 32 GiB sector cannot be sealed on a test machine, yet what a PoRep
//! partition costs the host (its witness, then `A·w`, `B·w`, `C·w`) is
//! decided by the circuit's shape, not by its values: the circuit hashes
//! whatever its vanilla proofs hold, and every value's gadget is the same.
//! So a C1 output whose vanilla proofs have exactly the shape a sealed
//! sector's would have (per challenge: a comm_d path of `log2(nodes)`
//! SHA-256 siblings, TreeR and TreeC paths of the configuration's arities,
//! a column of `layers` labels for the challenged node and each of its
//! `degree + expansion_degree` parents) but random values gives the same
//! circuit with a different witness.
//!
//! Such an output is not a valid proof input: its Merkle paths lead to no
//! common root, so `PartitionCircuits::verify_vanilla` refuses it and a
//! proof of it would not verify. What it is good for is timing and memory.
//! The circuit reads only the challenge index of the labeling proofs (it
//! recomputes the labels from the columns), so those carry the index and
//! no parents' labels.

use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::parameters::setup_params;
use filecoin_proofs::{DefaultPieceHasher, PoRepConfig, SealCommitPhase1Output};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use storage_proofs_core::merkle::{base_path_length, MerkleProof, MerkleTreeTrait};
use storage_proofs_porep::stacked::{
    ColumnProof, EncodingProof, LabelingProof, Proof as VanillaProof, ReplicaColumnProof,
};
use typenum::Unsigned;

use filecoin_prover::C2Error;

/// A Merkle proof of a tree with `nodes` leaves and the arities of `Tree`:
/// random siblings, the digits of `node` as the path's indexes.
pub(crate) type TreeProof<Tree> = MerkleProof<
    <Tree as MerkleTreeTrait>::Hasher,
    <Tree as MerkleTreeTrait>::Arity,
    <Tree as MerkleTreeTrait>::SubTreeArity,
    <Tree as MerkleTreeTrait>::TopTreeArity,
>;

/// The path of `node` in a tree of the arities `arities` (base first),
/// each element `arity − 1` random siblings and the node's digit.
pub(crate) fn random_path<D: Domain>(
    rng: &mut impl RngCore,
    mut node: u64,
    arities: &[usize],
) -> Vec<(Vec<D>, usize)> {
    arities
        .iter()
        .map(|&arity| {
            let siblings = (1..arity).map(|_| D::random(rng)).collect();
            let digit = (node % arity as u64) as usize;
            node /= arity as u64;
            (siblings, digit)
        })
        .collect()
}

/// Arities of the path elements of a `Tree` over `nodes` leaves.
pub(crate) fn tree_arities<Tree: MerkleTreeTrait>(nodes: usize) -> Vec<usize> {
    let base = Tree::Arity::to_usize();
    let sub = Tree::SubTreeArity::to_usize();
    let top = Tree::TopTreeArity::to_usize();
    let mut arities =
        vec![base; base_path_length::<Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>(nodes)];
    arities.extend([sub, top].into_iter().filter(|&arity| arity > 0));
    arities
}

/// What every challenge of a sector shares: the roots of TreeR and TreeC.
struct Roots<D> {
    tree_r: D,
    tree_c: D,
}

/// Random vanilla proofs of one challenge at `node`.
fn challenge_proof<Tree: 'static + MerkleTreeTrait>(
    rng: &mut ChaCha8Rng,
    shape: &Shape,
    roots: &Roots<<Tree::Hasher as Hasher>::Domain>,
    node: u64,
) -> VanillaProof<Tree, DefaultPieceHasher> {
    type TreeDomain<Tree> = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;
    type PieceDomain = <DefaultPieceHasher as Hasher>::Domain;
    let tree_arities = tree_arities::<Tree>(shape.nodes);
    let piece_arities = vec![2; shape.nodes.trailing_zeros() as usize];

    let comm_d_proofs = MerkleProof::<DefaultPieceHasher, _>::from_parts(
        PieceDomain::random(rng),
        PieceDomain::random(rng),
        random_path(rng, node, &piece_arities),
    );
    let comm_r_last_proof = TreeProof::<Tree>::from_parts(
        TreeDomain::<Tree>::random(rng),
        roots.tree_r,
        random_path(rng, node, &tree_arities),
    );
    let column = |rng: &mut ChaCha8Rng, node: u64| {
        let rows = (0..shape.layers)
            .map(|_| TreeDomain::<Tree>::random(rng))
            .collect();
        let inclusion = TreeProof::<Tree>::from_parts(
            TreeDomain::<Tree>::random(rng),
            roots.tree_c,
            random_path(rng, node, &tree_arities),
        );
        ColumnProof::new(node as u32, rows, inclusion)
    };
    let parents = |rng: &mut ChaCha8Rng, count: usize| {
        (0..count)
            .map(|_| {
                let parent = rng.gen_range(0..shape.nodes as u64);
                column(rng, parent)
            })
            .collect::<Vec<_>>()
    };
    let replica_column_proofs = ReplicaColumnProof {
        c_x: column(rng, node),
        drg_parents: parents(rng, shape.degree),
        exp_parents: parents(rng, shape.expansion_degree),
    };
    VanillaProof {
        comm_d_proofs,
        comm_r_last_proof,
        replica_column_proofs,
        labeling_proofs: (1..=shape.layers as u32)
            .map(|layer| LabelingProof::new(layer, node, Vec::new()))
            .collect(),
        encoding_proof: EncodingProof::new(shape.layers as u32, node, Vec::new()),
    }
}

/// The numbers of a PoRep configuration the vanilla proofs' shape follows.
struct Shape {
    nodes: usize,
    layers: usize,
    degree: usize,
    expansion_degree: usize,
    challenges: usize,
}

/// A C1 output of `partitions` partitions (from one to the
/// configuration's) for `config`, shaped as a sealed sector's and filled
/// with values drawn from `seed`.
pub fn synthetic_phase1_output<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    partitions: usize,
    seed: u64,
) -> Result<SealCommitPhase1Output<Tree>, C2Error> {
    let setup = setup_params(config).map_err(C2Error::filecoin("PoRep setup parameters"))?;
    let shape = Shape {
        nodes: setup.nodes,
        layers: setup.num_layers,
        degree: setup.degree,
        expansion_degree: setup.expansion_degree,
        challenges: setup.challenges.num_challenges_per_partition(),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let roots = Roots {
        tree_r: Domain::random(&mut rng),
        tree_c: Domain::random(&mut rng),
    };
    let expected = usize::from(config.partitions);
    if !(1..=expected).contains(&partitions) {
        return Err(C2Error::PartitionCount {
            proof_type: format!("a synthetic {}-byte sector", u64::from(config.sector_size)),
            expected,
            found: partitions,
        });
    }
    let vanilla_proofs = (0..partitions)
        .map(|_| {
            (0..shape.challenges)
                .map(|_| {
                    let node = rng.gen_range(0..shape.nodes as u64);
                    challenge_proof::<Tree>(&mut rng, &shape, &roots, node)
                })
                .collect()
        })
        .collect();
    let comm_r = <Tree::Hasher as Hasher>::Domain::random(&mut rng).into_bytes();
    let comm_d = <DefaultPieceHasher as Hasher>::Domain::random(&mut rng).into_bytes();
    let commitment =
        |bytes: Vec<u8>| -> [u8; 32] { bytes.try_into().expect("a domain element is 32 bytes") };
    Ok(SealCommitPhase1Output {
        vanilla_proofs,
        comm_r: commitment(comm_r),
        comm_d: commitment(comm_d),
        replica_id: Domain::random(&mut rng),
        seed: rng.gen(),
        ticket: rng.gen(),
    })
}
