//! SnarkPack aggregation of non-interactive PoRep proofs.
//!
//! For non-interactive PoRep (`StackedDrg*V1_2_Feat_NonInteractivePoRep`),
//! filecoin-proofs' `seal_commit_phase2` does not return the partition
//! proofs: it aggregates them with SnarkPack (`aggregate_seal_commit_proofs`,
//! version 2) and returns the aggregate, which is what the chain takes and
//! what `verify_seal` checks. [`aggregate`] calls that same function on the
//! partition proofs proven here, so the bytes are filecoin-proofs' own
//! (aggregation has no randomness: its challenges are Fiat–Shamir).
//!
//! Aggregation needs SnarkPack's structured reference string,
//! `v28-fil-inner-product-v1.srs` in the parameter cache, one file for every
//! sector size. [`check_srs`] says before any proving whether it is there
//! and long enough (filecoin-proofs would panic on a short or truncated
//! one); [`ensure_test_srs`] writes an insecure one for tests.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use bellperson::groth16::aggregate::{setup_fake_srs, AggregateVersion};
use blstrs::{Bls12, G1Compressed, G2Compressed, Scalar};
use filecoin_proofs::{
    aggregate_seal_commit_proofs, get_porep_non_interactive_partitions,
    verify_aggregate_seal_commit_proofs, PoRepConfig, SealCommitOutput,
};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::parameter_cache::parameter_cache_srs_key_path;

use crate::proof_type::SECTOR_SIZES;
use crate::C2Error;
use atomic_write::create_atomically;

/// The SnarkPack version filecoin-proofs aggregates non-interactive PoRep with.
pub const VERSION: AggregateVersion = AggregateVersion::V2;

/// Powers per vector filecoin-proofs reads from the SRS file at most
/// (`read_cached_srs_key`); a longer file is read only that far.
pub(crate) const SRS_READ_LIMIT: usize = (2 << 14) + 1;

/// Powers per vector bellperson accepts in an SRS file at most.
const SRS_MAX_LEN: usize = (2 << 19) + 1;

/// The SRS file in the parameter cache (`$FIL_PROOFS_PARAMETER_CACHE`,
/// default `/var/tmp/filecoin-proof-parameters`): one for all sector sizes.
pub fn srs_path() -> PathBuf {
    parameter_cache_srs_key_path("", 0)
}

/// How many proofs `partitions` partition proofs are aggregated as: padded
/// (with copies of the last) to a power of two, at least 2.
pub fn target_len(partitions: usize) -> usize {
    partitions.max(2).next_power_of_two()
}

/// The powers per vector an SRS needs to aggregate `partitions` partition
/// proofs (bellperson's `GenericSRS::specialize` takes `2 n` for `n` proofs).
pub fn powers_needed(partitions: usize) -> usize {
    2 * target_len(partitions)
}

/// The `size` of the test SRS ([`ensure_test_srs`]): enough for the
/// non-interactive PoRep of every registered sector size (13 partitions
/// aggregated as 16 for the test sizes, 126 as 128 for 32 and 64 GiB).
pub fn test_srs_size() -> usize {
    SECTOR_SIZES
        .iter()
        .map(|&(size, _)| target_len(usize::from(get_porep_non_interactive_partitions(size))))
        .max()
        .expect("registered sector sizes")
}

/// Reads the four vector lengths of the SRS file at `path` (each a
/// big-endian u32 before its points: G1, G1, G2, G2, compressed) and checks
/// that the file holds them all. Returns the powers filecoin-proofs will
/// use, the least of the four lengths capped at what it reads.
pub fn srs_powers(path: &Path) -> Result<usize, C2Error> {
    let bad = |what: String| C2Error::BadSrs {
        path: path.to_owned(),
        what,
    };
    let mut file = File::open(path).map_err(|e| bad(format!("cannot open: {e}")))?;
    let file_len = file
        .metadata()
        .map_err(|e| bad(format!("cannot read its size: {e}")))?
        .len();
    let g1 = std::mem::size_of::<G1Compressed>() as u64;
    let g2 = std::mem::size_of::<G2Compressed>() as u64;
    let (mut offset, mut powers) = (0u64, usize::MAX);
    for point_len in [g1, g1, g2, g2] {
        let mut header = [0u8; 4];
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(&mut header))
            .map_err(|_| bad(format!("truncated: {file_len} bytes, no vector length at byte {offset}; not a SnarkPack SRS")))?;
        let len = u32::from_be_bytes(header) as usize;
        if len > SRS_MAX_LEN {
            return Err(bad(format!(
                "a vector of {len} powers, more than the {SRS_MAX_LEN} of any SnarkPack SRS"
            )));
        }
        offset += 4 + len as u64 * point_len;
        powers = powers.min(len.min(SRS_READ_LIMIT));
    }
    if offset > file_len {
        return Err(bad(format!(
            "truncated: {file_len} bytes, its vector lengths need {offset}"
        )));
    }
    Ok(powers)
}

/// Checks, before any proving, that the SRS exists and can aggregate
/// `partitions` partition proofs of `proof_type`.
pub fn check_srs(proof_type: &str, partitions: usize) -> Result<PathBuf, C2Error> {
    let path = srs_path();
    if !path.exists() {
        return Err(C2Error::MissingSrs {
            path,
            proof_type: proof_type.to_owned(),
        });
    }
    let powers = srs_powers(&path)?;
    let needed = powers_needed(partitions);
    if powers < needed {
        return Err(C2Error::BadSrs {
            path,
            what: format!(
                "{powers} powers per vector, and aggregating {partitions} partition proofs of {proof_type} \
                 (as {}) needs {needed}: not the production SRS, which comes with the Filecoin proof parameters; \
                 replace it with that one, or (for tests) delete it and run `pce-prover params gen --non-interactive`",
                target_len(partitions)
            ),
        });
    }
    Ok(path)
}

/// Aggregates a sector's partition proofs (192 bytes each, in partition
/// order) as filecoin-proofs' `seal_commit_phase2` does for non-interactive
/// PoRep: `aggregate_seal_commit_proofs` over one commit output, version 2.
/// The SRS and the verifying key are read from the parameter cache.
pub fn aggregate<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    comm_r: [u8; 32],
    seed: [u8; 32],
    partition_proofs: &[u8],
) -> Result<Vec<u8>, C2Error> {
    let output = SealCommitOutput {
        proof: partition_proofs.to_vec(),
    };
    aggregate_seal_commit_proofs::<Tree>(config, &[comm_r], &[seed], &[output], VERSION)
        .map_err(C2Error::filecoin("SnarkPack aggregation"))
}

/// Verifies an aggregate against the public inputs of each partition (in
/// partition order), e.g. those derived from the C1 output when the prover
/// and sector ids that `verify_seal` needs are not known.
pub fn verify<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    comm_r: [u8; 32],
    seed: [u8; 32],
    aggregate: &[u8],
    public_inputs: Vec<Vec<Scalar>>,
) -> Result<bool, C2Error> {
    verify_aggregate_seal_commit_proofs::<Tree>(
        config,
        aggregate.to_vec(),
        &[comm_r],
        &[seed],
        public_inputs,
        VERSION,
    )
    .map_err(C2Error::filecoin("verifying the SnarkPack aggregate"))
}

/// Makes sure an SRS exists in the parameter cache, writing an **insecure
/// test SRS** of [`test_srs_size`] from `seed` when there is none (whoever
/// knows the seed can forge aggregates). An existing file is never
/// replaced; a new one is written to a temporary file and linked into
/// place. Returns the path and whether it was written.
pub fn ensure_test_srs(seed: u64) -> Result<(PathBuf, bool), C2Error> {
    let path = srs_path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(C2Error::io("creating the parameter cache directory", dir))?;
    }
    let created = create_atomically(&path, |out| {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        setup_fake_srs::<Bls12, _>(&mut rng, test_srs_size()).write(out)
    })
    .map_err(C2Error::io("writing the test SnarkPack SRS", &path))?;
    Ok((path, created))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_srs_covers_every_sector_size() {
        assert_eq!(target_len(1), 2);
        assert_eq!(target_len(13), 16);
        assert_eq!(target_len(126), 128);
        assert_eq!(test_srs_size(), 128);
        assert!(powers_needed(126) <= 2 * test_srs_size());
    }

    #[test]
    fn srs_files_are_measured_and_truncation_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("test.srs");
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut bytes = Vec::new();
        setup_fake_srs::<Bls12, _>(&mut rng, 8)
            .write(&mut bytes)
            .unwrap();
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(srs_powers(&path).unwrap(), 16);
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let err = srs_powers(&path).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
        std::fs::write(&path, &bytes[..2]).unwrap();
        let err = srs_powers(&path).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
    }
}
