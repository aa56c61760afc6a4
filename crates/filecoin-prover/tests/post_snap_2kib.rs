//! WindowPoSt, WinningPoSt and SnapDeals end to end on real 2 KiB sectors
//! sealed (and updated) with filecoin-proofs: each proof passes
//! filecoin-proofs' own verifier and equals bellperson's proof of the same
//! partition circuits with the same r and s; one partition of a WindowPoSt
//! proven alone equals that partition of the whole proof; a tampered
//! vanilla proof is refused before proving; missing parameters are named.
//!
//! One test: the parameter cache is process-wide, and the sectors are
//! shared by every kind.

mod common;

use common::{
    check_post, check_update, prove_post, prove_update, random_r_s, shared_parameter_cache, vanilla,
};
use filecoin_proofs::{FallbackPoStSectorProof, SectorShape2KiB};
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::circuits::ProofCircuit;
use filecoin_prover::post::{PoStInput, PoStKind, PoStProofType};
use filecoin_prover::update::UpdateInput;
use filecoin_prover::C2Error;
use filecoin_testkit::test_sector::{seal_2kib_for, TestSector};
use filecoin_testkit::vanilla::{post_vanilla_proofs, randomness, snap_update};
use groth16_prover::PROOF_BYTES;

#[test]
fn post_and_snap_proofs_verify_and_equal_bellperson() {
    shared_parameter_cache();
    let work = tempfile::tempdir().unwrap();
    let prover_id = prover_id_of_miner(1000);
    let sectors: Vec<TestSector> = (0..3)
        .map(|i| {
            let dir = work.path().join(format!("sector-{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            seal_2kib_for(100 + i, &dir, prover_id).unwrap()
        })
        .collect();
    let all: Vec<&TestSector> = sectors.iter().collect();

    // WindowPoSt over three sectors: two partitions of two, the second padded.
    let window = PoStProofType::current(PoStKind::Window, 2048).unwrap();
    let window_input = PoStInput {
        proof_type: window,
        randomness: randomness(5),
        prover_id,
        vanilla_proofs: vanilla(
            "window",
            &post_vanilla_proofs(window, &all, randomness(5)).unwrap(),
        ),
        partition: None,
    };
    assert_eq!(window_input.num_partitions(), 2);
    let whole = check_post::<SectorShape2KiB>(&window_input, 1);
    assert!(whole.verify.is_some(), "verify_window_post ran");

    // Its second partition alone, as Curio asks for it, with that
    // partition's r and s: the same bytes as in the whole proof.
    let r_s = random_r_s(1, 2);
    let second = PoStInput {
        vanilla_proofs: window_input.vanilla_proofs[2..].to_vec(),
        partition: Some(1),
        ..window_input.clone()
    };
    let alone = prove_post(&second, &r_s[1..]).unwrap();
    assert_eq!(alone.proof, whole.proof[PROOF_BYTES..]);
    assert!(
        alone.verify.is_none(),
        "no filecoin-proofs verifier takes one partition"
    );
    // A sector's challenges do not depend on the partition (V1_2): any
    // index, however large, gives the same proof, and allocates nothing
    // for the partitions before it.
    let far = PoStInput {
        partition: Some(u32::MAX as usize),
        ..second.clone()
    };
    assert_eq!(prove_post(&far, &r_s[1..]).unwrap().proof, alone.proof);

    // The vanilla proofs given out of their sectors' order (as a shell
    // lists `…-10` before `…-9`) are proven in that order, as the chain
    // lists the sectors: the same proof; one sector given twice is refused.
    let mut reversed = window_input.clone();
    reversed.vanilla_proofs.reverse();
    assert_eq!(prove_post(&reversed, &r_s).unwrap().proof, whole.proof);
    let mut twice = window_input.clone();
    twice.vanilla_proofs.push(twice.vanilla_proofs[0].clone());
    let err = prove_post(&twice, &random_r_s(1, 2)).unwrap_err();
    assert!(
        err.to_string()
            .contains("window[0] and window[0] are both of sector"),
        "{err}"
    );

    // WinningPoSt of one sector.
    let winning = PoStProofType::current(PoStKind::Winning, 2048).unwrap();
    let winning_input = PoStInput {
        proof_type: winning,
        randomness: randomness(6),
        prover_id,
        vanilla_proofs: vanilla(
            "winning",
            &post_vanilla_proofs(winning, &all[1..2], randomness(6)).unwrap(),
        ),
        partition: None,
    };
    let proof = check_post::<SectorShape2KiB>(&winning_input, 2);
    assert!(proof.verify.is_some(), "verify_winning_post ran");

    // A flipped bit in the first Merkle path of a vanilla proof: refused
    // before proving, naming the file, the sector and what does not verify. bincode layout: sector
    // id (8), comm_r (32), sectors (8), inclusion proofs (8), proof data
    // variant (4), root (32), leaf (32), path (8), hashes (8), first hash.
    let mut numbers: Vec<u64> = sectors.iter().map(|s| u64::from(s.sector_id)).collect();
    numbers.sort();
    let mut tampered = window_input.clone();
    tampered.vanilla_proofs[0].bytes[8 + 32 + 8 + 8 + 4 + 32 + 32 + 8 + 8] ^= 1;
    let err = prove_post(&tampered, &random_r_s(1, 2)).unwrap_err();
    assert!(
        matches!(err, C2Error::VanillaProofs { .. })
            && err.to_string().contains(&format!(
                "window[0] (sector {}): inclusion proof 0 does not lead to its root",
                numbers[0]
            )),
        "{}",
        proving_engine::chain(&err)
    );
    // The second sector's comm_r changed: named too.
    let mut tampered = window_input.clone();
    tampered.vanilla_proofs[1].bytes[8] ^= 1;
    let err = prove_post(&tampered, &random_r_s(1, 2)).unwrap_err();
    assert!(
        err.to_string().contains(&format!(
            "window[1] (sector {}): its comm_r is not the hash of its comm_c and comm_r_last",
            numbers[1]
        )),
        "{}",
        proving_engine::chain(&err)
    );
    // The comm_r_last stored beside a sector's inclusion proofs (the
    // vanilla proof's last 32 bytes) changed: storage-proofs' verifier
    // reads the proofs' root instead, its circuit this field, so it is
    // refused before proving rather than failing as a SNARK.
    let mut other_root = winning_input.clone();
    let last = other_root.vanilla_proofs[0].bytes.len() - 1;
    other_root.vanilla_proofs[0].bytes[last] ^= 1;
    let err = prove_post(&other_root, &random_r_s(2, 1)).unwrap_err();
    assert!(
        err.to_string()
            .contains("comm_r_last is not the root of its inclusion proofs"),
        "{}",
        proving_engine::chain(&err)
    );
    // A WinningPoSt vanilla proof (66 paths) given for a WindowPoSt (10),
    // and one whose paths are gone: named, with what it holds.
    let winning_for_window = PoStInput {
        vanilla_proofs: winning_input.vanilla_proofs.clone(),
        ..window_input.clone()
    };
    let err = prove_post(&winning_for_window, &random_r_s(1, 1)).unwrap_err();
    assert!(
        err.to_string().contains(&format!(
            "winning[0] (sector {}): it holds 66 inclusion proofs where a \
             StackedDrgWindow2KiBV1_2 vanilla proof holds 10 (a WinningPoSt vanilla proof?)",
            u64::from(sectors[1].sector_id)
        )),
        "{}",
        proving_engine::chain(&err)
    );
    let mut no_paths = window_input.clone();
    let mut decoded: FallbackPoStSectorProof<SectorShape2KiB> =
        bincode::deserialize(&no_paths.vanilla_proofs[0].bytes).unwrap();
    decoded.vanilla_proof.sectors[0].inclusion_proofs.clear();
    no_paths.vanilla_proofs[0].bytes = bincode::serialize(&decoded).unwrap();
    let err = prove_post(&no_paths, &random_r_s(1, 2)).unwrap_err();
    assert!(
        err.to_string().contains("window[0] (sector ")
            && err.to_string().contains("it holds 0 inclusion proofs"),
        "{}",
        proving_engine::chain(&err)
    );
    let mut garbage = winning_input.clone();
    garbage.vanilla_proofs[0].bytes.truncate(50);
    let err = prove_post(&garbage, &random_r_s(2, 1)).unwrap_err();
    assert!(
        err.to_string()
            .contains("winning[0]: not a vanilla proof of StackedDrgWinning2KiBV1"),
        "{err}"
    );

    // SnapDeals: new data encoded into the first sector.
    let update_dir = work.path().join("update");
    std::fs::create_dir_all(&update_dir).unwrap();
    let updated = snap_update(&sectors[0], 9, &update_dir).unwrap();
    let update_input = UpdateInput {
        proof_type: updated.proof_type,
        commitments: updated.commitments,
        vanilla_proofs: vanilla("snap", &updated.vanilla_proofs),
    };
    let proof = check_update::<SectorShape2KiB>(&update_input, 3);
    assert!(
        proof.verify.is_some(),
        "verify_empty_sector_update_proof ran"
    );

    let mut wrong = update_input.clone();
    wrong.commitments.comm_d_new = updated.commitments.comm_r_old;
    let err = prove_update(&wrong, &random_r_s(3, 1)).unwrap_err();
    assert!(matches!(err, C2Error::VanillaProofs { .. }), "{err}");
    assert!(
        err.to_string().contains(
            "snap[0] (partition 0) does not verify against comm_r_old, comm_r_new and comm_d_new"
        ),
        "{err}"
    );

    // A proof kind whose parameters are not in the cache.
    let missing = PoStProofType::current(PoStKind::Window, 8 << 20).unwrap();
    let err = match missing
        .circuit()
        .unwrap()
        .load("StackedDrgWindow8MiBV1_2", false)
    {
        Err(err) => err,
        Ok(_) => panic!("8 MiB WindowPoSt parameters are not generated by any test"),
    };
    let files = ProofCircuit::PoSt(missing).files().unwrap();
    assert!(
        err.to_string()
            .contains(&files.params.display().to_string()),
        "{err}"
    );
}
