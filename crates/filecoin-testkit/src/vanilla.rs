//! The vanilla proofs of test sectors: what the WindowPoSt, WinningPoSt
//! and SnapDeals pipelines hand a SNARK prover, made with filecoin-proofs'
//! own functions from sectors sealed by [`crate::test_sector`], and bincode
//! encoded as filecoin-proofs-api returns them.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use filecoin_proofs::{
    add_piece, encode_into, generate_fallback_sector_challenges, generate_partition_proofs,
    generate_piece_commitment, generate_single_vanilla_proof, DefaultTreeHasher, PaddedBytesAmount,
    PrivateReplicaInfo, SectorUpdateConfig, UnpaddedBytesAmount,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;

use filecoin_prover::post::PoStProofType;
use filecoin_prover::update::{UpdateCommitments, UpdateProofType};
use filecoin_prover::C2Error;

use crate::test_sector::TestSector;

/// Random PoSt randomness from `seed` (a valid field element).
pub fn randomness(seed: u64) -> [u8; 32] {
    let mut randomness: [u8; 32] = ChaCha20Rng::seed_from_u64(seed).gen();
    randomness[31] &= 0x3f;
    randomness
}

/// `value` as filecoin-proofs-api hands vanilla proofs over (bincode).
pub(crate) fn bincode_of<T: serde::Serialize>(value: &T) -> Vec<u8> {
    bincode::serialize(value).expect("vanilla proofs serialise")
}

/// The PoSt vanilla proof of each of `sectors` (sectors of one prover, of
/// the shape `Tree`) for `randomness`, in sector-number order as lotus
/// makes them: `generate_fallback_sector_challenges`, then
/// `generate_single_vanilla_proof` per sector.
pub fn post_vanilla_proofs<Tree: 'static + MerkleTreeTrait>(
    proof_type: PoStProofType,
    sectors: &[&TestSector<Tree>],
    randomness: [u8; 32],
) -> Result<Vec<Vec<u8>>, C2Error> {
    let config = proof_type.config();
    let mut sectors = sectors.to_vec();
    sectors.sort_by_key(|s| u64::from(s.sector_id));
    let ids: Vec<SectorId> = sectors.iter().map(|s| s.sector_id).collect();
    let prover_id = sectors.first().map(|s| s.prover_id).unwrap_or_default();
    let challenges =
        generate_fallback_sector_challenges::<Tree>(&config, &randomness, &ids, prover_id)
            .map_err(C2Error::filecoin("generate_fallback_sector_challenges"))?;
    sectors
        .iter()
        .map(|sector| {
            let replica = PrivateReplicaInfo::<Tree>::new(
                sector.replica.clone(),
                sector.c1.comm_r,
                sector.cache.clone(),
            )
            .map_err(C2Error::filecoin("private replica info"))?;
            let proof = generate_single_vanilla_proof::<Tree>(
                &config,
                sector.sector_id,
                &replica,
                &challenges[&sector.sector_id],
            )
            .map_err(C2Error::filecoin("generate_single_vanilla_proof"))?;
            Ok(bincode_of(&proof))
        })
        .collect()
}

/// A SnapDeals update of a test sector.
pub struct UpdatedSector {
    /// The update proof type.
    pub proof_type: UpdateProofType,
    /// Its commitments.
    pub commitments: UpdateCommitments,
    /// One vanilla proof per partition, as `generate_partition_proofs` returns them.
    pub vanilla_proofs: Vec<Vec<u8>>,
}

/// Encodes new random data (from `seed`) into `sector` (whose replica
/// becomes the sector key), writing the new replica and its cache under
/// `workdir`, and makes the update's partition vanilla proofs.
pub fn snap_update<Tree: 'static + MerkleTreeTrait<Hasher = DefaultTreeHasher>>(
    sector: &TestSector<Tree>,
    seed: u64,
    workdir: &Path,
) -> Result<UpdatedSector, C2Error> {
    let proof_type = UpdateProofType {
        sector_size: u64::from(sector.config.sector_size),
    };
    let config = SectorUpdateConfig::from_porep_config(&proof_type.porep_config());
    let sector_bytes = u64::from(config.sector_size);
    let piece_size = UnpaddedBytesAmount::from(PaddedBytesAmount(sector_bytes));
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let piece: Vec<u8> = (0..piece_size.0).map(|_| rng.gen()).collect();

    let staged = workdir.join("update-staged");
    let replica = workdir.join("update-replica");
    let cache = workdir.join("update-cache");
    std::fs::create_dir_all(&cache).map_err(C2Error::io("creating the update's cache", &cache))?;
    let piece_info = generate_piece_commitment(&piece[..], piece_size)
        .map_err(C2Error::filecoin("piece commitment"))?;
    let mut staged_file =
        File::create(&staged).map_err(C2Error::io("creating the staged data", &staged))?;
    add_piece(&piece[..], &mut staged_file, piece_size, &[])
        .map_err(C2Error::filecoin("add piece"))?;
    staged_file
        .flush()
        .map_err(C2Error::io("writing the staged data", &staged))?;
    File::create(&replica)
        .and_then(|f| f.set_len(sector_bytes))
        .map_err(C2Error::io("creating the new replica", &replica))?;

    let encoded = encode_into::<Tree>(
        &config,
        &replica,
        &cache,
        &sector.replica,
        &sector.cache,
        &staged,
        &[piece_info],
    )
    .map_err(C2Error::filecoin("encode_into"))?;
    let commitments = UpdateCommitments {
        comm_r_old: sector.c1.comm_r,
        comm_r_new: encoded.comm_r_new,
        comm_d_new: encoded.comm_d_new,
    };
    let proofs = generate_partition_proofs::<Tree>(
        config,
        commitments.comm_r_old,
        commitments.comm_r_new,
        commitments.comm_d_new,
        &sector.replica,
        &sector.cache,
        &replica,
        &cache,
    )
    .map_err(C2Error::filecoin("generate_partition_proofs"))?;
    Ok(UpdatedSector {
        proof_type,
        commitments,
        vanilla_proofs: proofs.iter().map(bincode_of).collect(),
    })
}
