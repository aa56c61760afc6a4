//! Sealing a small sector from scratch, for tests, benchmarks and the demo.
//!
//! Pre-commit 1 and 2 and commit 1 of a 2 KiB sector take well under a
//! second (an 8 MiB one seconds) and need no Groth16 parameters; the result is a real C1 output
//! that any C2 prover must accept. Data, ticket, seed and ids come from a
//! seeded generator, so a seed always yields the same sector.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use filecoin_proofs::{
    add_piece, generate_piece_commitment, seal_commit_phase1, seal_pre_commit_phase1,
    seal_pre_commit_phase2, with_shape, PaddedBytesAmount, PoRepConfig, ProverId,
    SealCommitPhase1Output, SectorShape2KiB, UnpaddedBytesAmount, SECTOR_SIZE_2_KIB,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::Value;
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;

use filecoin_prover::c1::lotus_bench_json;
use filecoin_prover::proof_type::ProofType;
use filecoin_prover::C2Error;

/// PoRep id of `StackedDrg2KiBV1_1` (registered proof 5, as filecoin-proofs-api derives it).
const POREP_ID_2KIB_V1_1: u64 = 5;

/// The sealed replica and its cache directory, in a sector's work directory.
const SEALED: &str = "sealed";
const CACHE: &str = "cache";

/// A sealed test sector and everything its C2 and verification need;
/// `Tree` is its shape (2 KiB unless said otherwise).
pub struct TestSector<Tree: MerkleTreeTrait = SectorShape2KiB> {
    /// The PoRep configuration it was sealed with.
    pub config: PoRepConfig,
    /// The commit-phase-1 output.
    pub c1: SealCommitPhase1Output<Tree>,
    /// The prover (miner) id.
    pub prover_id: ProverId,
    /// The sector number.
    pub sector_id: SectorId,
    /// The sealed replica (the sector key, once the sector is updated).
    pub replica: PathBuf,
    /// Its cache directory (trees and their auxiliary files).
    pub cache: PathBuf,
}

impl<Tree: 'static + MerkleTreeTrait> TestSector<Tree> {
    /// Whether filecoin-proofs' `verify_seal` accepts `proof` (what
    /// `seal_commit_phase2` returns) as this sector's: an independent check
    /// of a proof that came from elsewhere (a daemon, another process).
    pub fn verify(&self, proof: &[u8]) -> Result<bool, C2Error> {
        filecoin_proofs::verify_seal::<Tree>(
            &self.config,
            self.c1.comm_r,
            self.c1.comm_d,
            self.prover_id,
            self.sector_id,
            self.c1.ticket,
            self.c1.seed,
            proof,
        )
        .map_err(C2Error::filecoin("verify_seal"))
    }
}

/// The PoRep configuration of an interactive 2 KiB sector (`StackedDrg2KiBV1_1`).
pub fn config_2kib() -> PoRepConfig {
    let mut porep_id = [0u8; 32];
    porep_id[..8].copy_from_slice(&POREP_ID_2KIB_V1_1.to_le_bytes());
    PoRepConfig::new_groth16(SECTOR_SIZE_2_KIB, porep_id, ApiVersion::V1_2_0)
}

/// Seals a 2 KiB sector of random data in `workdir` (which must exist)
/// and runs commit phase 1 on it, for a random prover id.
pub fn seal_2kib(seed: u64, workdir: &Path) -> Result<TestSector, C2Error> {
    let prover_id: ProverId = ChaCha20Rng::seed_from_u64(!seed).gen();
    seal_2kib_for(seed, workdir, prover_id)
}

/// [`seal_2kib`] for a given prover id (e.g. one derived from a miner id).
pub fn seal_2kib_for(
    seed: u64,
    workdir: &Path,
    prover_id: ProverId,
) -> Result<TestSector, C2Error> {
    seal_2kib_with(config_2kib(), seed, workdir, prover_id)
}

/// [`seal_2kib_for`] with another configuration of 2 KiB sectors, e.g.
/// `ProofType::config` of `StackedDrg2KiBV1_2_Feat_NonInteractivePoRep`
/// (13 partitions).
pub fn seal_2kib_with(
    config: PoRepConfig,
    seed: u64,
    workdir: &Path,
    prover_id: ProverId,
) -> Result<TestSector, C2Error> {
    seal_shape(config, seed, workdir, prover_id)
}

/// Seals a sector of the shape `Tree` with `config` (whose sector size
/// must be `Tree`'s), as [`seal_2kib_with`] does: also for filecoin-proofs'
/// unregistered test sizes, e.g. 16 KiB, which has the tree shape of
/// 32 GiB sectors.
pub fn seal_shape<Tree: 'static + MerkleTreeTrait>(
    config: PoRepConfig,
    seed: u64,
    workdir: &Path,
    prover_id: ProverId,
) -> Result<TestSector<Tree>, C2Error> {
    let (c1, sector_id) = seal::<Tree>(&config, seed, workdir, prover_id)?;
    Ok(TestSector {
        config,
        c1,
        prover_id,
        sector_id,
        replica: workdir.join(SEALED),
        cache: workdir.join(CACHE),
    })
}

/// Seals a sector of `proof_type`, of any size and variant (the small
/// test sizes take seconds: 8 MiB about ten on 2 cores) and returns its C1
/// output as a lotus-bench `c1.json`.
pub fn seal_as_lotus_bench(
    proof_type: ProofType,
    seed: u64,
    workdir: &Path,
    prover_id: ProverId,
) -> Result<Value, C2Error> {
    let config = proof_type.config();
    with_shape!(
        proof_type.sector_size,
        seal_as_lotus_bench_shape,
        proof_type,
        &config,
        seed,
        workdir,
        prover_id
    )
}

fn seal_as_lotus_bench_shape<Tree: 'static + MerkleTreeTrait>(
    proof_type: ProofType,
    config: &PoRepConfig,
    seed: u64,
    workdir: &Path,
    prover_id: ProverId,
) -> Result<Value, C2Error> {
    let (c1, sector_id) = seal::<Tree>(config, seed, workdir, prover_id)?;
    Ok(lotus_bench_json(&c1, proof_type, u64::from(sector_id)))
}

/// Pre-commit 1 and 2 and commit 1 of a sector of random data.
fn seal<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    seed: u64,
    workdir: &Path,
    prover_id: ProverId,
) -> Result<(SealCommitPhase1Output<Tree>, SectorId), C2Error> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let piece_size = UnpaddedBytesAmount::from(PaddedBytesAmount(u64::from(config.sector_size)));
    let piece: Vec<u8> = (0..piece_size.0).map(|_| rng.gen()).collect();
    let sector_id = SectorId::from(rng.gen::<u64>());
    let ticket: [u8; 32] = rng.gen();
    let mut interactive_seed: [u8; 32] = rng.gen();
    // A challenge seed must be a valid field element in little-endian form.
    interactive_seed[31] &= 0x3f;

    let staged = workdir.join("staged");
    let sealed = workdir.join(SEALED);
    let cache = workdir.join(CACHE);
    std::fs::create_dir_all(&cache)
        .map_err(C2Error::io("creating the sector cache directory", &cache))?;
    let piece_info = generate_piece_commitment(&piece[..], piece_size)
        .map_err(C2Error::filecoin("piece commitment"))?;
    let mut staged_file =
        File::create(&staged).map_err(C2Error::io("creating the staged sector", &staged))?;
    add_piece(&piece[..], &mut staged_file, piece_size, &[])
        .map_err(C2Error::filecoin("add piece"))?;
    staged_file
        .flush()
        .map_err(C2Error::io("writing the staged sector", &staged))?;
    File::create(&sealed).map_err(C2Error::io("creating the sealed sector", &sealed))?;

    let pieces = [piece_info];
    let pc1 = seal_pre_commit_phase1::<_, _, _, Tree>(
        config, &cache, &staged, &sealed, prover_id, sector_id, ticket, &pieces,
    )
    .map_err(C2Error::filecoin("pre-commit phase 1"))?;
    let pc2 = seal_pre_commit_phase2(config, pc1, &cache, &sealed)
        .map_err(C2Error::filecoin("pre-commit phase 2"))?;
    let c1 = seal_commit_phase1::<_, Tree>(
        config,
        &cache,
        &sealed,
        prover_id,
        sector_id,
        ticket,
        interactive_seed,
        pc2,
        &pieces,
    )
    .map_err(C2Error::filecoin("commit phase 1"))?;
    Ok((c1, sector_id))
}
