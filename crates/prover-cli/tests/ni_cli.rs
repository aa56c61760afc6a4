//! Non-interactive PoRep through the binary, without proving: `c2` refuses
//! a sector whose SnarkPack SRS is missing before any proving and writes
//! nothing; `params gen --non-interactive` writes an insecure test SRS once
//! and leaves it alone after. Each runs in a parameter cache of its own,
//! whose Groth16 files are links to those shared through
//! `target/tmp/filecoin-proof-parameters` (generated once).

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Mutex;

use common::text;
use filecoin_prover::aggregate::{srs_powers, test_srs_size};
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::proof_type::{ProofType, Variant};
use filecoin_testkit::test_sector::seal_2kib_with;

static PARAMS: Mutex<()> = Mutex::new(());

const SRS_NAME: &str = "v28-fil-inner-product-v1.srs";

/// A fresh parameter cache holding links to the shared 2 KiB parameter,
/// verifying key and PCE files, and no SRS.
fn cache_with_shared_params(dir: &Path) -> PathBuf {
    let shared = {
        let _guard = PARAMS.lock().unwrap();
        let shared = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-proof-parameters");
        std::fs::create_dir_all(&shared).unwrap();
        std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &shared);
        ensure_test_params(ProofType::interactive(2048).unwrap(), 0, false)
            .unwrap()
            .0
    };
    let cache = dir.join("params");
    std::fs::create_dir_all(&cache).unwrap();
    for file in [&shared.params, &shared.vk, &shared.pce] {
        std::os::unix::fs::symlink(file, cache.join(file.file_name().unwrap())).unwrap();
    }
    cache
}

fn pce_prover(args: &[&str], cache: &Path) -> Output {
    common::pce_prover(args, &[("FIL_PROOFS_PARAMETER_CACHE", cache.as_os_str())])
}

fn ni_2kib() -> ProofType {
    ProofType {
        variant: Variant::NonInteractive,
        ..ProofType::interactive(2048).unwrap()
    }
}

#[test]
fn a_missing_srs_is_refused_before_proving() {
    let work = tempfile::tempdir().unwrap();
    let cache = cache_with_shared_params(work.path());
    let sector = seal_2kib_with(ni_2kib().config(), 8, work.path(), [1; 32]).unwrap();
    let inputs = work.path().join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let c1 = inputs.join("c1.json");
    std::fs::write(&c1, serde_json::to_vec(&sector.c1).unwrap()).unwrap();
    let srs = cache.join(SRS_NAME);

    let out = work.path().join("proof.bin");
    let out_dir = work.path().join("out");
    for target in [
        ["--out", out.to_str().unwrap()],
        ["--out-dir", out_dir.to_str().unwrap()],
    ] {
        let started = std::time::Instant::now();
        let output = pce_prover(
            &[&["c2", "--c1", c1.to_str().unwrap()], &target[..]].concat(),
            &cache,
        );
        let message = text(&output);
        assert_eq!(output.status.code(), Some(1), "{message}");
        for expected in [
            "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep proofs are aggregated with SnarkPack",
            srs.to_str().unwrap(),
            "does not exist",
            "paramfetch",
            "pce-prover params gen --sector-size 2KiB --non-interactive",
            "insecure",
        ] {
            assert!(message.contains(expected), "{expected:?} not in {message}");
        }
        assert!(
            !message.contains("partitions proven") && !message.contains("memory: budget"),
            "refused before proving: {message}"
        );
        assert!(started.elapsed().as_secs() < 60, "refused at once");
    }
    assert!(!out.exists(), "nothing written to --out");
    assert_eq!(
        std::fs::read_dir(&out_dir).unwrap().count(),
        0,
        "nothing written to --out-dir"
    );
}

#[test]
fn params_gen_writes_a_test_srs_once() {
    let work = tempfile::tempdir().unwrap();
    let cache = cache_with_shared_params(work.path());
    let srs = cache.join(SRS_NAME);
    let args = [
        "params",
        "gen",
        "--sector-size",
        "2KiB",
        "--non-interactive",
    ];

    let output = pce_prover(&args, &cache);
    let message = text(&output);
    assert_eq!(output.status.code(), Some(0), "{message}");
    assert!(message.contains("parameters already exist"), "{message}");
    assert!(
        message.contains("INSECURE test SnarkPack SRS") && message.contains("for testing only"),
        "{message}"
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains(srs.to_str().unwrap()),
        "{message}"
    );
    assert_eq!(srs_powers(&srs).unwrap(), 2 * test_srs_size());
    let names: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|name| !name.ends_with(".tmp")),
        "no temporary file left: {names:?}"
    );
    let before = std::fs::metadata(&srs).unwrap();
    let bytes = std::fs::read(&srs).unwrap();

    // A second run, even with another seed, leaves it alone.
    let output = pce_prover(&[&args[..], &["--seed", "1"]].concat(), &cache);
    let message = text(&output);
    assert_eq!(output.status.code(), Some(0), "{message}");
    assert!(
        message.contains("SnarkPack SRS already exists, left as it is"),
        "{message}"
    );
    let after = std::fs::metadata(&srs).unwrap();
    assert_eq!(
        (after.ino(), after.mtime(), after.mtime_nsec()),
        (before.ino(), before.mtime(), before.mtime_nsec())
    );
    assert_eq!(std::fs::read(&srs).unwrap(), bytes);
}
