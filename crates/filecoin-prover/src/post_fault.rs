//! Which sector's vanilla proof makes a PoSt unprovable, and why.
//!
//! storage-proofs' check of a PoSt's vanilla proofs answers yes or no
//! ("partitioned vanilla proofs failed to verify"). A WindowPoSt partition
//! holds up to 2,349 sectors, and a storage provider whose proof is
//! refused needs to know which sector to declare faulty or prove again. So
//! once that check has failed, each sector's proof is checked on its own,
//! as the circuit will check it: its `comm_r` is the hash of its `comm_c`
//! and `comm_r_last`, each inclusion path leads to its root, and each
//! opens the leaf the randomness challenges (`generate_leaf_challenge`, the
//! challenge numbered as `generate_fallback_sector_challenges` numbers it).

use filecoin_hashers::{HashFunction, Hasher};
use filecoin_proofs::{as_safe_commitment, FallbackPoStSectorProof, PoStConfig};
use storage_proofs_core::merkle::{MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_post::fallback::{generate_leaf_challenge, get_challenge_index, PublicParams};

use crate::post::PoStInput;

/// The first fault found in `proofs`, the decoded vanilla proofs of
/// `input` (whose config is `config`) in the order they are proven in,
/// read from `sources`, naming its source and sector; `None` if each proof
/// is right on its own.
pub fn first_fault<Tree: MerkleTreeTrait>(
    config: &PoStConfig,
    input: &PoStInput,
    proofs: &[FallbackPoStSectorProof<Tree>],
    sources: &[String],
) -> Option<String> {
    let randomness: <Tree::Hasher as Hasher>::Domain =
        as_safe_commitment(&input.randomness, "randomness").ok()?;
    let params = PublicParams {
        sector_size: u64::from(config.sector_size),
        challenge_count: config.challenge_count,
        sector_count: config.sector_count,
        api_version: config.api_version,
    };
    // The position of the first sector given among the whole proof's.
    let first = input
        .partition
        .map_or(0, |k| k.saturating_mul(config.sector_count));
    for (i, (proof, source)) in proofs.iter().zip(sources).enumerate() {
        let sector_number = u64::from(proof.sector_id);
        let fault = |what: String| format!("{source} (sector {sector_number}): {what}");
        for sector in &proof.vanilla_proof.sectors {
            let comm_r =
                <Tree::Hasher as Hasher>::Function::hash2(&sector.comm_c, &sector.comm_r_last);
            if comm_r != proof.comm_r {
                return Some(fault(
                    "its comm_r is not the hash of its comm_c and comm_r_last".into(),
                ));
            }
        }
        let paths = proof
            .vanilla_proof
            .sectors
            .iter()
            .flat_map(|sector| &sector.inclusion_proofs);
        for (n, path) in paths.enumerate() {
            if !path.verify() {
                return Some(fault(format!(
                    "inclusion proof {n} does not lead to its root"
                )));
            }
            let number = get_challenge_index(
                config.api_version,
                first.saturating_add(i),
                config.challenge_count,
                n,
            );
            let challenged = generate_leaf_challenge(&params, randomness, sector_number, number);
            let opened = path.path_index() as u64;
            if opened != challenged {
                return Some(fault(format!(
                    "inclusion proof {n} opens leaf {opened}, where this randomness challenges leaf {challenged} (a vanilla proof made for other randomness?)"
                )));
            }
        }
    }
    None
}
