//! A WinningPoSt of a 32 GiB sector end to end: the production circuit
//! (TreeR 8-8-0 over 2^30 leaves, 66 challenges), proven from a valid
//! vanilla proof of a sector with no data behind it
//! (`filecoin_testkit::sparse_sector`), equals bellperson's proof with the
//! same r and s, and passes filecoin-proofs' `verify_winning_post` for the
//! sector's `comm_r`, and fails it for other randomness, for which the
//! prover refuses the vanilla proof before proving. The parameters are
//! test parameters generated for the real circuit; the real ones are not
//! downloaded here.

mod common;

use common::{check_post, prove_post, random_r_s, shared_parameter_cache, vanilla};
use filecoin_proofs::{
    verify_winning_post, PublicReplicaInfo, SectorShape32GiB, SECTOR_SIZE_32_GIB,
};
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::post::{PoStInput, PoStKind, PoStProofType};
use filecoin_testkit::sparse_sector::sparse_post_vanilla_proof;
use filecoin_testkit::vanilla::randomness;
use storage_proofs_core::sector::SectorId;

#[test]
fn a_32gib_winning_post_equals_bellperson_and_verifies() {
    shared_parameter_cache();
    let proof_type = PoStProofType::current(PoStKind::Winning, SECTOR_SIZE_32_GIB).unwrap();
    let (sector_id, prover_id) = (4242, prover_id_of_miner(1000));
    let (vanilla_proof, comm_r) = sparse_post_vanilla_proof::<SectorShape32GiB>(
        proof_type,
        sector_id,
        prover_id,
        randomness(9),
        1,
    )
    .unwrap();
    let input = PoStInput {
        proof_type,
        randomness: randomness(9),
        prover_id,
        vanilla_proofs: vanilla("winning-32g", &[vanilla_proof]),
        partition: None,
    };
    let proof = check_post::<SectorShape32GiB>(&input, 4);
    assert!(proof.verify.is_some(), "the prover ran verify_winning_post");

    let replicas = [(
        SectorId::from(sector_id),
        PublicReplicaInfo::new(comm_r).unwrap(),
    )];
    let verify = |seed| {
        verify_winning_post::<SectorShape32GiB>(
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
    assert!(
        message.contains("the vanilla proofs cannot be proven"),
        "{message}"
    );
}
