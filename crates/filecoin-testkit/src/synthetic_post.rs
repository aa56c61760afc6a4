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

use std::time::{Duration, Instant};

use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::with_shape;
use filecoin_prover::compound::Statement;
use filecoin_prover::post::{public_params, PoStProofType, PoStScheme};
use filecoin_prover::post_witness::witness;
use filecoin_prover::C2Error;
use pce_core::{synthesize_witness, Witness};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;
use storage_proofs_post::fallback::{Proof, PublicInputs, PublicSector, SectorProof};

use crate::synthetic_c1::{random_path, tree_arities, TreeProof};

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

/// One round of [`compare_post_witness`].
#[derive(Debug, Clone, Copy)]
pub struct WitnessRound {
    /// storage-proofs' circuit built and synthesized into a `WitnessCS`.
    pub circuit: Duration,
    /// This prover's copy (`post_witness::witness`).
    pub copy: Duration,
}

/// What [`compare_post_witness`] measured.
#[derive(Debug, Clone)]
pub struct WitnessComparison {
    /// Sectors in the partition.
    pub sectors: usize,
    /// Challenges per sector.
    pub challenges: usize,
    /// Inputs of the witness (ONE included).
    pub inputs: usize,
    /// Aux values of the witness.
    pub aux: usize,
    /// Each round, both ways.
    pub rounds: Vec<WitnessRound>,
}

/// The witness of a [`synthetic_post_statement`]'s partition of
/// `proof_type`, `rounds` times both ways, alternated: storage-proofs'
/// circuit, then this prover's copy of it, checked equal value for value
/// in every round.
pub fn compare_post_witness(
    proof_type: &PoStProofType,
    rounds: usize,
) -> Result<WitnessComparison, C2Error> {
    with_shape!(proof_type.sector_size, compare_shape, proof_type, rounds)
}

fn compare_shape<Tree: 'static + MerkleTreeTrait>(
    proof_type: &PoStProofType,
    rounds: usize,
) -> Result<WitnessComparison, C2Error> {
    let statement = synthetic_post_statement::<Tree>(proof_type, 0)?;
    let synthesis = |source| C2Error::Synthesis {
        partition: 0,
        source,
    };
    let mut measured = WitnessComparison {
        sectors: statement.params.sector_count,
        challenges: statement.params.challenge_count,
        inputs: 0,
        aux: 0,
        rounds: Vec::new(),
    };
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        let real = synthesize_witness(statement.circuit(0)?).map_err(synthesis)?;
        let circuit = start.elapsed();
        let start = Instant::now();
        let copy = witness(&statement, 0)?;
        let copy_time = start.elapsed();
        if let Some(what) = first_difference(&real, &copy) {
            return Err(C2Error::WitnessLayout { partition: 0, what });
        }
        measured.inputs = real.inputs.len();
        measured.aux = real.aux.len();
        measured.rounds.push(WitnessRound {
            circuit,
            copy: copy_time,
        });
    }
    Ok(measured)
}

/// Where `copy` first differs from `real`, if it does.
fn first_difference(real: &Witness, copy: &Witness) -> Option<String> {
    for (name, real, copy) in [
        ("inputs", &real.inputs, &copy.inputs),
        ("aux", &real.aux, &copy.aux),
    ] {
        if real.len() != copy.len() {
            return Some(format!(
                "the copy's witness has {} {name}, storage-proofs' circuit {}",
                copy.len(),
                real.len()
            ));
        }
        if let Some(i) = real.iter().zip(copy.iter()).position(|(a, b)| a != b) {
            return Some(format!(
                "the copy's witness differs from storage-proofs' circuit at {name}[{i}]"
            ));
        }
    }
    None
}
