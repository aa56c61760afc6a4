//! Bad inputs give clear errors, and a corrupt PCE cache is rebuilt.
//! One test: the parameter cache directory is process-wide.

use filecoin_prover::c1::C1Input;
use filecoin_prover::c2::{run, C2Options};
use filecoin_prover::cache::CircuitFiles;
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::partition::PartitionCircuits;
use filecoin_prover::proof_type::{ProofType, Variant};
use filecoin_prover::C2Error;
use filecoin_testkit::test_sector::seal_2kib;
use pce_core::PrecompiledCircuit;
use proving_engine::{Devices, EngineOptions};

fn expect_c1_error(dir: &std::path::Path, name: &str, content: &str, expected: &str) {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    let err = C1Input::read(&path, None).unwrap_err().to_string();
    assert!(
        err.contains(name) && err.contains(expected),
        "{name}: {err}"
    );
}

#[test]
fn bad_inputs_are_clear_errors_and_a_corrupt_pce_is_rebuilt() {
    let cache = tempfile::tempdir().unwrap();
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", cache.path());
    let work = tempfile::tempdir().unwrap();

    expect_c1_error(work.path(), "garbage.json", "{not json", "not valid JSON");
    expect_c1_error(work.path(), "list.json", "[1, 2]", "expected a JSON object");
    expect_c1_error(work.path(), "empty.json", "{}", "not a C1 output");
    expect_c1_error(
        work.path(),
        "lotus-bad.json",
        r#"{"SectorNum": 1, "Phase1Out": "%%%", "SectorSize": 2048}"#,
        "not base64",
    );
    expect_c1_error(
        work.path(),
        "api-bad.json",
        r#"{"registered_proof": "StackedDrg3KiBV1_1", "vanilla_proofs": {}}"#,
        "unknown registered_proof",
    );

    let sector = seal_2kib(7, work.path()).unwrap();
    let mut api = serde_json::to_value(&sector.c1).unwrap();
    let raw = api["vanilla_proofs"].take();
    api["vanilla_proofs"] = serde_json::json!({ "StackedDrg8MiBV1": raw });
    api["registered_proof"] = serde_json::json!("StackedDrg8MiBV1_1");
    expect_c1_error(
        work.path(),
        "wrong-size.json",
        &api.to_string(),
        "are for 2048-byte sectors, not for StackedDrg8MiBV1_1",
    );

    // Fields filecoin-proofs refuses all zero (a seed never drawn).
    for field in ["comm_d", "comm_r", "seed"] {
        let mut zeroed = serde_json::to_value(&sector.c1).unwrap();
        zeroed[field] = serde_json::json!(vec![0u8; 32]);
        expect_c1_error(
            work.path(),
            &format!("zero-{field}.json"),
            &zeroed.to_string(),
            &format!("{field} is all zeros"),
        );
    }

    // A proof type given that the file's own contradicts is an error, not
    // ignored.
    let api_path = work.path().join("api.json");
    let raw = api["vanilla_proofs"]["StackedDrg8MiBV1"].take();
    api["vanilla_proofs"] = serde_json::json!({ "StackedDrg2KiBV1": raw });
    api["registered_proof"] = serde_json::json!("StackedDrg2KiBV1_1");
    std::fs::write(&api_path, api.to_string()).unwrap();
    let ni_given = ProofType {
        variant: Variant::NonInteractive,
        ..ProofType::interactive(2048).unwrap()
    };
    let err = C1Input::read(&api_path, Some(ni_given))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("api.json")
            && err
                .contains("registered_proof is StackedDrg2KiBV1_1, where the proof type given is"),
        "{err}"
    );
    let interactive = ProofType::interactive(2048).unwrap();
    assert_eq!(
        C1Input::read(&api_path, Some(interactive))
            .unwrap()
            .proof_type,
        interactive
    );

    // filecoin-proofs JSON names no proof type: the variant follows from
    // the number of partitions (a non-interactive 2 KiB sector has more).
    let ni = ProofType {
        variant: Variant::NonInteractive,
        ..ProofType::interactive(2048).unwrap()
    };
    let mut many = serde_json::to_value(&sector.c1).unwrap();
    let partition = many["vanilla_proofs"][0].clone();
    let ni_partitions = usize::from(ni.config().partitions);
    assert!(ni_partitions > 1);
    many["vanilla_proofs"] = serde_json::Value::Array(vec![partition; ni_partitions]);
    let ni_path = work.path().join("ni.json");
    std::fs::write(&ni_path, many.to_string()).unwrap();
    assert_eq!(C1Input::read(&ni_path, None).unwrap().proof_type, ni);
    let mut odd = many.clone();
    odd["vanilla_proofs"].as_array_mut().unwrap().pop();
    expect_c1_error(
        work.path(),
        "odd.json",
        &odd.to_string(),
        "partitions fit no registered proof type",
    );
    // Named, the proof type's count of partitions is checked as the input
    // is read, before anything is sized by the input's.
    let err = C1Input::read(
        &work.path().join("odd.json"),
        Some(ProofType::interactive(2048).unwrap()),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("odd.json")
            && err.contains(&format!(
                "{} partition(s) of vanilla proofs, where StackedDrg2KiBV1_1 has 1",
                ni_partitions - 1
            )),
        "{err}"
    );

    // Vanilla proofs that do not match the output's own public inputs are
    // refused before anything is proven.
    let config = ProofType::interactive(2048).unwrap().config();
    let elsewhere = tempfile::tempdir().unwrap();
    let other_replica =
        serde_json::to_value(seal_2kib(8, elsewhere.path()).unwrap().c1.replica_id).unwrap();
    let verify = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut c1 = serde_json::to_value(&sector.c1).unwrap();
        edit(&mut c1);
        let c1 = serde_json::from_value(c1).unwrap();
        PartitionCircuits::<filecoin_proofs::SectorShape2KiB>::new(&config, c1)
            .unwrap()
            .verify_vanilla()
    };
    verify(&|_| {}).unwrap();
    let flip_seed = |c1: &mut serde_json::Value| {
        c1["seed"][0] = (c1["seed"][0].as_u64().unwrap() ^ 1).into();
    };
    let err = verify(&flip_seed).unwrap_err();
    assert!(matches!(err, C2Error::InvalidVanillaProofs), "{err}");
    let err = verify(&|c1| c1["replica_id"] = other_replica.clone()).unwrap_err();
    assert!(
        err.to_string().contains("vanilla proofs do not verify"),
        "{err}"
    );

    let c1_path = work.path().join("c1.json");
    std::fs::write(&c1_path, serde_json::to_vec(&sector.c1).unwrap()).unwrap();
    let input = C1Input::read(&c1_path, None).unwrap();
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
        prover_id: None,
        sector_id: None,
        circuit_proofs: false,
    };
    let err = run(&input, &options).unwrap_err();
    assert!(matches!(err, C2Error::MissingParameters { .. }), "{err}");
    assert!(err.to_string().contains("params gen"), "{err}");

    // A verifying key cut short (an interrupted download), or empty:
    // refused by name before anything is proven.
    let files =
        CircuitFiles::of::<filecoin_proofs::SectorShape2KiB>(&input.proof_type.config()).unwrap();
    std::fs::write(&files.params, vec![0u8; 1000]).unwrap();
    for short in [&[0u8; 10][..], &[]] {
        std::fs::write(&files.vk, short).unwrap();
        let err = run(&input, &options).unwrap_err().to_string();
        assert!(err.contains("truncated") && err.contains(".vk"), "{err}");
    }

    // Truncated parameters beside their own key (and a PCE recorded on the
    // way).
    ensure_test_params(input.proof_type, 0, true).unwrap();
    let params = std::fs::read(&files.params).unwrap();
    // Shorter than the key itself (six points and a count, then IC).
    std::fs::write(&files.params, &params[..900]).unwrap();
    let err = run(&input, &options).unwrap_err().to_string();
    assert!(
        err.contains("truncated") && err.contains(".params"),
        "{err}"
    );

    // A verifying key that is not the parameters' own (as a regeneration
    // stopped between the two files leaves them): a whole key, its first
    // two points (alpha and beta in G1, 96 bytes each) swapped.
    std::fs::write(&files.params, &params).unwrap();
    files.check_parameters("StackedDrg2KiBV1_1").unwrap();
    let mut other_vk = std::fs::read(&files.vk).unwrap();
    let (alpha, beta) = other_vk[..192].split_at_mut(96);
    alpha.swap_with_slice(beta);
    std::fs::write(&files.vk, &other_vk).unwrap();
    let err = run(&input, &options).unwrap_err();
    assert!(matches!(err, C2Error::ParametersMismatch { .. }), "{err}");
    assert!(
        err.to_string().contains("is not the verifying key of"),
        "{err}"
    );

    // A corrupt PCE is detected and recorded again.
    let mut pce = std::fs::read(&files.pce).unwrap();
    let middle = pce.len() / 2;
    pce[middle] ^= 0xff;
    std::fs::write(&files.pce, &pce).unwrap();
    assert!(PrecompiledCircuit::load(&files.pce).is_err());
    let rebuilt = files
        .load_or_extract_pce::<filecoin_proofs::SectorShape2KiB>(&input.proof_type.config())
        .unwrap();
    assert_eq!(PrecompiledCircuit::load(&files.pce).unwrap(), rebuilt);
}
