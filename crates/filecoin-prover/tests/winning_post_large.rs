//! WinningPoSts of a 32 GiB and a 64 GiB sector end to end: the
//! production circuits (TreeR 8-8-0 over 2^30 leaves, 8-8-2 over 2^31; 66
//! challenges), proven from valid vanilla proofs of sectors with no data
//! behind them (`filecoin_testkit::sparse_sector`), equal bellperson's
//! proofs with the same r and s, and pass filecoin-proofs'
//! `verify_winning_post` for the sector's `comm_r`, and fail it for other
//! randomness, for which the prover refuses the vanilla proof before
//! proving. The parameters are test parameters generated for the real
//! circuits; the real ones are not downloaded here.

mod common;

use common::{check_post, prove_post, random_r_s, shared_parameter_cache, vanilla};
use filecoin_proofs::{
    verify_winning_post, PublicReplicaInfo, SectorShape32GiB, SectorShape64GiB, SECTOR_SIZE_32_GIB,
    SECTOR_SIZE_64_GIB,
};
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::post::{PoStInput, PoStKind, PoStProofType};
use filecoin_testkit::sparse_sector::sparse_post_vanilla_proof;
use filecoin_testkit::vanilla::randomness;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;

#[test]
fn a_32gib_winning_post_equals_bellperson_and_verifies() {
    winning_post_verifies::<SectorShape32GiB>(SECTOR_SIZE_32_GIB, "winning-32g");
}

#[test]
fn a_64gib_winning_post_equals_bellperson_and_verifies() {
    winning_post_verifies::<SectorShape64GiB>(SECTOR_SIZE_64_GIB, "winning-64g");
}

/// A WinningPoSt of one sparse sector of `sector_size` bytes (shape
/// `Tree`), its vanilla proof named `name`, checked as the module says.
fn winning_post_verifies<Tree: 'static + MerkleTreeTrait>(sector_size: u64, name: &str) {
    shared_parameter_cache();
    let proof_type = PoStProofType::current(PoStKind::Winning, sector_size).unwrap();
    let (sector_id, prover_id) = (4242, prover_id_of_miner(1000));
    let (vanilla_proof, comm_r) =
        sparse_post_vanilla_proof::<Tree>(proof_type, sector_id, prover_id, randomness(9), 1)
            .unwrap();
    let input = PoStInput {
        proof_type,
        randomness: randomness(9),
        prover_id,
        vanilla_proofs: vanilla(name, &[vanilla_proof]),
        partition: None,
    };
    let proof = check_post::<Tree>(&input, 4);
    assert!(proof.verify.is_some(), "the prover ran verify_winning_post");

    let replicas = [(
        SectorId::from(sector_id),
        PublicReplicaInfo::new(comm_r).unwrap(),
    )];
    let verify = |seed| {
        verify_winning_post::<Tree>(
            &proof_type.config(),
            &randomness(seed),
            &replicas,
            prover_id,
            &proof.proof,
        )
        .unwrap()
    };
    assert!(verify(9), "filecoin-proofs rejects the proof");
    assert!(
        !verify(10),
        "filecoin-proofs accepts it for other randomness"
    );

    // Vanilla proofs of other challenges are refused before proving.
    let other = PoStInput {
        randomness: randomness(10),
        ..input
    };
    let refused = prove_post(&other, &random_r_s(4, 1)).map(|_| ());
    let message = refused.expect_err("proved other challenges").to_string();
    let wrong_leaf = format!("{name}[0] (sector 4242): inclusion proof 0 opens leaf");
    assert!(message.contains(&wrong_leaf), "{message}");
}
