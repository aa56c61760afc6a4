//! Two 2 KiB sectors proven at once (J = 2, one PCE and one SRS) give the
//! same proofs, byte for byte, as each sector proven alone with the same
//! r and s, and every one passes verify_seal.
//!
//! Test parameters are shared through `target/tmp/filecoin-proof-parameters`.

use std::path::PathBuf;

use blstrs::Scalar;
use ff::Field;
use filecoin_prover::c1::{lotus_bench_json, C1Input};
use filecoin_prover::c2::{prove_sectors, run, C2Options};
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::proof_type::ProofType;
use filecoin_testkit::test_sector::seal_2kib_for;
use proving_engine::{Devices, EngineOptions};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn two_sectors_at_once_prove_as_each_alone() {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-proof-parameters");
    std::fs::create_dir_all(&cache).unwrap();
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &cache);
    let proof_type = ProofType::interactive(2048).unwrap();
    ensure_test_params(proof_type, 0, false).unwrap();

    let work = tempfile::tempdir().unwrap();
    let prover_id = [7u8; 32];
    let inputs: Vec<C1Input> = [11u64, 12]
        .iter()
        .map(|&seed| {
            let dir = work.path().join(seed.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            let sector = seal_2kib_for(seed, &dir, prover_id).unwrap();
            let wrapper = lotus_bench_json(&sector.c1, proof_type, u64::from(sector.sector_id));
            let path = dir.join("c1.json");
            std::fs::write(&path, serde_json::to_vec(&wrapper).unwrap()).unwrap();
            C1Input::read(&path, None).unwrap()
        })
        .collect();

    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let r_s: Vec<(Scalar, Scalar)> = (0..2)
        .map(|_| (Scalar::random(&mut rng), Scalar::random(&mut rng)))
        .collect();
    let options = C2Options {
        engine: EngineOptions {
            backend: "cpu".into(),
            devices: Devices::One(0),
            partitions_in_flight: 1,
            jobs: 1,
            memory_budget: None,
            randomness: None,
            cancel: None,
            fallback: None,
            between_partitions: None,
        },
        prover_id: Some(prover_id),
        sector_id: None,
        circuit_proofs: false,
    };
    let alone: Vec<Vec<u8>> = inputs
        .iter()
        .zip(&r_s)
        .map(|(input, &pair)| {
            let outcome = run(
                input,
                &C2Options {
                    engine: EngineOptions {
                        randomness: Some(vec![pair]),
                        ..options.engine.clone()
                    },
                    ..options.clone()
                },
            )
            .unwrap();
            assert!(outcome.sector.verify_seal.is_some(), "verify_seal ran");
            outcome.sector.proof
        })
        .collect();

    let mut done = Vec::new();
    let together = prove_sectors(
        &inputs,
        &C2Options {
            engine: EngineOptions {
                jobs: 2,
                randomness: Some(r_s),
                ..options.engine.clone()
            },
            ..options
        },
        &|_| {},
        &mut |sector, result| {
            assert!(result.is_ok(), "{result:?}");
            done.push(sector);
        },
    )
    .unwrap();
    assert_eq!(
        together.memory.peak_in_flight, 2,
        "both sectors were in flight at once: {:?}",
        together.memory
    );
    done.sort();
    assert_eq!(done, [0, 1], "each sector reported once");
    for (k, (outcome, expected)) in together.outcomes.into_iter().zip(&alone).enumerate() {
        let outcome = outcome.unwrap();
        assert!(
            outcome.sector.verify_seal.is_some(),
            "verify_seal ran on sector {k}"
        );
        assert_eq!(
            &outcome.sector.proof, expected,
            "sector {k}: the proof at J = 2 differs from the one proven alone"
        );
    }
}
