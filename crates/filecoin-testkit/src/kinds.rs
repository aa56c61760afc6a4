//! One input of each compound proof kind at 2 KiB, from fresh sectors, a
//! 32 GiB WinningPoSt, and the synthesis comparison of
//! [`crate::synthesis_compare`] on them.

use std::path::Path;
use std::time::{Duration, Instant};

use filecoin_proofs::{with_shape, SectorShape2KiB, SectorShape32GiB, SECTOR_SIZE_32_GIB};
use pce_core::{synthesize_enforcing, PrecompiledCircuit};
use storage_proofs_core::merkle::MerkleTreeTrait;

use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::compound::{ProofKind, Scheme};
use filecoin_prover::post::{PoStInput, PoStJob, PoStKind, PoStProofType};
use filecoin_prover::update::{UpdateInput, UpdateJob};
use filecoin_prover::vanilla::VanillaBytes;
use filecoin_prover::C2Error;

use crate::sparse_sector::sparse_post_vanilla_proof;
use crate::synthesis_compare::{abc_digest, CompareError};
use crate::test_sector::{seal_2kib_for, TestSector};
use crate::vanilla::{post_vanilla_proofs, randomness, snap_update};

/// A WindowPoSt of three sectors (two partitions), a WinningPoSt and a
/// SnapDeals update, all of 2 KiB sectors of one miner.
pub struct KindInputs {
    /// The WindowPoSt.
    pub window: PoStInput,
    /// The WinningPoSt.
    pub winning: PoStInput,
    /// The update.
    pub snap: UpdateInput,
}

fn named(kind: &str, proofs: Vec<Vec<u8>>) -> Vec<VanillaBytes> {
    proofs
        .into_iter()
        .enumerate()
        .map(|(i, bytes)| VanillaBytes {
            source: format!("{kind}[{i}]").into(),
            bytes,
        })
        .collect()
}

/// Seals three sectors under `workdir` (seeds from `seed`) and makes one
/// input of each kind from them.
pub fn inputs_2kib(workdir: &Path, seed: u64) -> Result<KindInputs, C2Error> {
    let prover_id = prover_id_of_miner(1000);
    let sectors = (0..3)
        .map(|i| {
            let dir = workdir.join(format!("sector-{i}"));
            std::fs::create_dir_all(&dir)
                .map_err(C2Error::io("creating a sector directory", &dir))?;
            seal_2kib_for(seed + i, &dir, prover_id)
        })
        .collect::<Result<Vec<TestSector>, _>>()?;
    let all: Vec<&TestSector> = sectors.iter().collect();
    let post = |kind, sectors: &[&TestSector], name| -> Result<PoStInput, C2Error> {
        let proof_type = PoStProofType::current(kind, 2048).expect("2 KiB");
        Ok(PoStInput {
            proof_type,
            randomness: randomness(seed),
            prover_id,
            vanilla_proofs: named(
                name,
                post_vanilla_proofs(proof_type, sectors, randomness(seed))?,
            ),
            partition: None,
        })
    };
    let update_dir = workdir.join("update");
    std::fs::create_dir_all(&update_dir)
        .map_err(C2Error::io("creating the update directory", &update_dir))?;
    let updated = snap_update(&sectors[0], seed, &update_dir)?;
    Ok(KindInputs {
        window: post(PoStKind::Window, &all, "window")?,
        winning: post(PoStKind::Winning, &all[..1], "winning")?,
        snap: UpdateInput {
            proof_type: updated.proof_type,
            commitments: updated.commitments,
            vanilla_proofs: named("snap", updated.vanilla_proofs),
        },
    })
}

/// Enforce-time synthesis against the PCE path (the witness as the prover
/// computes it, [`Scheme::witness`], then A·w, B·w, C·w) over every
/// partition of a job, checked equal by digest: the total
/// time of each (the digests not included).
pub fn compare_kind<K: ProofKind>(
    job: &K,
    pce: &PrecompiledCircuit,
) -> Result<(Duration, Duration), CompareError> {
    let statement = job.open()?;
    let (mut enforce, mut pce_path) = (Duration::ZERO, Duration::ZERO);
    for partition in 0..statement.partitions.len() {
        let start = Instant::now();
        let cs = synthesize_enforcing(statement.circuit(partition)?)
            .map_err(|source| CompareError::Enforce { partition, source })?;
        enforce += start.elapsed();
        let old = abc_digest([&cs.a, &cs.b, &cs.c]);
        drop(cs);
        let start = Instant::now();
        let witness = K::Scheme::witness(&statement, partition)?;
        let eval = pce.evaluate(&witness)?;
        pce_path += start.elapsed();
        let new = abc_digest([&eval.a, &eval.b, &eval.c]);
        if old != new {
            return Err(CompareError::Mismatch { partition });
        }
    }
    Ok((enforce, pce_path))
}

/// [`compare_kind`] on a PoSt input of any sector size.
pub fn compare_post(
    input: &PoStInput,
    pce: &PrecompiledCircuit,
) -> Result<(Duration, Duration), CompareError> {
    with_shape!(input.proof_type.sector_size, compare_post_shape, input, pce)
}

fn compare_post_shape<Tree: 'static + MerkleTreeTrait>(
    input: &PoStInput,
    pce: &PrecompiledCircuit,
) -> Result<(Duration, Duration), CompareError> {
    compare_kind(&PoStJob::<Tree>::new(input), pce)
}

/// A WinningPoSt of one 32 GiB sector of the same miner as
/// [`inputs_2kib`]'s, for randomness from `seed`: a sector with no data
/// behind it ([`crate::sparse_sector`]), the production circuit.
pub fn winning_32gib(seed: u64) -> Result<PoStInput, C2Error> {
    let proof_type = PoStProofType::current(PoStKind::Winning, SECTOR_SIZE_32_GIB).expect("32 GiB");
    let prover_id = prover_id_of_miner(1000);
    let (vanilla_proof, _comm_r) = sparse_post_vanilla_proof::<SectorShape32GiB>(
        proof_type,
        seed,
        prover_id,
        randomness(seed),
        seed,
    )?;
    Ok(PoStInput {
        proof_type,
        randomness: randomness(seed),
        prover_id,
        vanilla_proofs: named("winning-32g", vec![vanilla_proof]),
        partition: None,
    })
}

/// [`compare_kind`] on a 2 KiB update input.
pub fn compare_update(
    input: &UpdateInput,
    pce: &PrecompiledCircuit,
) -> Result<(Duration, Duration), CompareError> {
    compare_kind(&UpdateJob::<SectorShape2KiB>::new(input), pce)
}
