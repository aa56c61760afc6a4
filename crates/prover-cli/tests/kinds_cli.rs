//! `window-post`, `winning-post`, `snap-prove`, `params gen --kind` and
//! `params record` through the binary, from vanilla proof files of real 2 KiB sectors:
//! proofs checked here with filecoin-proofs' verifiers, a tampered vanilla
//! proof refused with no output left behind.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::text;
use filecoin_proofs::SectorShape2KiB;
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::compound::ProofKind as _;
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::post::{PoStInput, PoStJob, PoStKind, PoStProofType};
use filecoin_prover::update::{UpdateInput, UpdateJob};
use filecoin_prover::vanilla::VanillaBytes;
use filecoin_testkit::test_sector::{seal_2kib_for, TestSector};
use filecoin_testkit::vanilla::{post_vanilla_proofs, randomness, snap_update};
use pce_core::PrecompiledCircuit;

const MINER: u64 = 1000;

fn shared_parameter_cache() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-proof-parameters");
    std::fs::create_dir_all(&dir).unwrap();
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
    dir
}

fn pce_prover(args: &[&str], cache: &Path) -> Output {
    common::pce_prover(args, &[("FIL_PROOFS_PARAMETER_CACHE", cache.as_os_str())])
}

/// Writes each proof to `dir/name-i.vp`; returns the paths.
fn write_vanilla(dir: &Path, name: &str, proofs: &[Vec<u8>]) -> Vec<String> {
    proofs
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            let path = dir.join(format!("{name}-{i}.vp"));
            std::fs::write(&path, bytes).unwrap();
            path.display().to_string()
        })
        .collect()
}

fn read_vanilla(paths: &[String]) -> Vec<VanillaBytes> {
    paths
        .iter()
        .map(|p| VanillaBytes::read(Path::new(p)).unwrap())
        .collect()
}

#[test]
fn post_and_snap_commands_write_proofs_filecoin_proofs_accepts() {
    let cache = shared_parameter_cache();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let sectors: Vec<TestSector> = (0..3)
        .map(|i| {
            let sector_dir = dir.join(format!("sector-{i}"));
            std::fs::create_dir_all(&sector_dir).unwrap();
            seal_2kib_for(200 + i, &sector_dir, prover_id_of_miner(MINER)).unwrap()
        })
        .collect();
    let all: Vec<&TestSector> = sectors.iter().collect();
    let window = PoStProofType::current(PoStKind::Window, 2048).unwrap();
    let winning = PoStProofType::current(PoStKind::Winning, 2048).unwrap();
    for kind in ["window-post", "winning-post", "snap"] {
        let output = pce_prover(
            &["params", "gen", "--kind", kind, "--sector-size", "2KiB"],
            &cache,
        );
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    }
    let rand_hex = hex::encode(randomness(7));
    let miner = MINER.to_string();

    // WindowPoSt of three sectors: two partitions.
    let files = write_vanilla(
        dir,
        "window",
        &post_vanilla_proofs(window, &all, randomness(7)).unwrap(),
    );
    let out = dir.join("window.proof");
    let report = dir.join("window.json");
    let mut args = vec!["window-post", "--sector-size", "2KiB", "--vanilla"];
    args.extend(files.iter().map(String::as_str));
    let common_args = [
        "--randomness",
        &rand_hex,
        "--miner-id",
        &miner,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(common_args);
    args.extend(["--report", report.to_str().unwrap()]);
    let output = pce_prover(&args, &cache);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.contains("2 partition(s)") && said.contains("verifier accepted"),
        "{said}"
    );
    let input = PoStInput {
        proof_type: window,
        randomness: randomness(7),
        prover_id: prover_id_of_miner(MINER),
        vanilla_proofs: read_vanilla(&files),
        partition: None,
    };
    let proof = std::fs::read(&out).unwrap();
    assert_eq!(proof.len(), 384);
    let verified = PoStJob::<SectorShape2KiB>::new(&input).verify(&proof);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(report["partitions"], 2);

    // A flipped bit in the first Merkle path of the first vanilla proof
    // (see the library's post_snap_2kib test for the layout): refused, and
    // nothing is written.
    let mut tampered = std::fs::read(&files[0]).unwrap();
    tampered[8 + 32 + 8 + 8 + 4 + 32 + 32 + 8 + 8] ^= 1;
    std::fs::write(&files[0], &tampered).unwrap();
    let bad_out = dir.join("tampered.proof");
    let mut args = vec!["window-post", "--sector-size", "2KiB", "--vanilla"];
    args.extend(files.iter().map(String::as_str));
    args.extend([
        "--randomness",
        &rand_hex,
        "--miner-id",
        &miner,
        "--out",
        bad_out.to_str().unwrap(),
    ]);
    let output = pce_prover(&args, &cache);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("vanilla proofs cannot be proven"), "{said}");
    assert!(!bad_out.exists());

    // WinningPoSt of one sector.
    let files = write_vanilla(
        dir,
        "winning",
        &post_vanilla_proofs(winning, &all[2..], randomness(7)).unwrap(),
    );
    let out = dir.join("winning.proof");
    let mut args = vec!["winning-post", "--proof-type", "StackedDrgWinning2KiBV1"];
    args.extend(["--vanilla", &files[0]]);
    args.extend([
        "--randomness",
        &rand_hex,
        "--miner-id",
        &miner,
        "--out",
        out.to_str().unwrap(),
    ]);
    let output = pce_prover(&args, &cache);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let input = PoStInput {
        proof_type: winning,
        vanilla_proofs: read_vanilla(&files),
        ..input
    };
    let verified = PoStJob::<SectorShape2KiB>::new(&input).verify(&std::fs::read(&out).unwrap());
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");

    // SnapDeals.
    let update_dir = dir.join("update");
    std::fs::create_dir_all(&update_dir).unwrap();
    let updated = snap_update(&sectors[1], 4, &update_dir).unwrap();
    ensure_test_params(updated.proof_type, 0, false).unwrap();
    let files = write_vanilla(dir, "snap", &updated.vanilla_proofs);
    let out = dir.join("snap.proof");
    let c = updated.commitments;
    let (old, new, d) = (
        hex::encode(c.comm_r_old),
        hex::encode(c.comm_r_new),
        hex::encode(c.comm_d_new),
    );
    let mut args = vec!["snap-prove", "--proof-type", "0", "--vanilla"];
    args.extend(files.iter().map(String::as_str));
    args.extend([
        "--comm-r-old",
        &old,
        "--comm-r-new",
        &new,
        "--comm-d-new",
        &d,
    ]);
    args.extend(["--out", out.to_str().unwrap(), "--format", "hex"]);
    let output = pce_prover(&args, &cache);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let proof = hex::decode(std::fs::read_to_string(&out).unwrap().trim()).unwrap();
    let input = UpdateInput {
        proof_type: updated.proof_type,
        commitments: c,
        vanilla_proofs: read_vanilla(&files),
    };
    let verified = UpdateJob::<SectorShape2KiB>::new(&input).verify(&proof);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
}

/// `params record` writes every kind's PCE file into the cache, reads and
/// keeps one that is there, and records one that is damaged again.
#[test]
fn params_record_writes_the_pce_files_and_replaces_a_damaged_one() {
    let cache = tempfile::tempdir().unwrap();
    let output = pce_prover(&["params", "record", "--sector-size", "2KiB"], cache.path());
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    let paths: Vec<PathBuf> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    assert_eq!(paths.len(), 4, "one PCE per kind: {said}");
    for path in &paths {
        assert!(path.starts_with(cache.path()), "{}", path.display());
        PrecompiledCircuit::load(path).unwrap();
    }
    assert!(
        said.contains("recording the StackedDrgWinning2KiBV1 circuit"),
        "{said}"
    );

    let winning = &paths[2];
    let args = [
        "params",
        "record",
        "--sector-size",
        "2KiB",
        "--kind",
        "winning-post",
    ];
    let recorded = std::fs::read(winning).unwrap();
    let output = pce_prover(&args, cache.path());
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.contains("checking the StackedDrgWinning2KiBV1 circuit's PCE"),
        "{said}"
    );
    assert_eq!(std::fs::read(winning).unwrap(), recorded, "kept as it was");

    let mut damaged = recorded.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    std::fs::write(winning, &damaged).unwrap();
    let output = pce_prover(&args, cache.path());
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.contains("checksum mismatch") && said.contains("extracting the circuit again"),
        "{said}"
    );
    assert_eq!(std::fs::read(winning).unwrap(), recorded, "recorded again");

    // One that is unusable and cannot be replaced (a directory in its
    // place; tests run as root, so a read-only cache would not fail):
    // recorded, and the command fails saying so.
    std::fs::remove_file(winning).unwrap();
    std::fs::create_dir(winning).unwrap();
    let output = pce_prover(&args, cache.path());
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("the StackedDrgWinning2KiBV1 circuit could not be recorded into")
            && said.contains("is the parameter cache writable?"),
        "{said}"
    );
}

/// `params gen` never writes insecure parameters over a file that may be
/// published: with a `.vk` alone in the cache (as a lotus node keeps
/// them) it refuses, naming both files, and leaves the key as it was;
/// `--force` replaces both. The production sizes, and the SnarkPack SRS
/// in a cache holding theirs, are refused without
/// `--insecure-production-size`, before anything is written.
#[test]
fn params_gen_keeps_a_lone_verifying_key_and_refuses_production_sizes() {
    // filecoin-proofs reads the cache directory once per process, at the
    // first use by any test here (`files()` below): the one the others
    // verify in, whichever test comes first.
    shared_parameter_cache();
    let cache = tempfile::tempdir().unwrap();
    let args = [
        "params",
        "gen",
        "--kind",
        "winning-post",
        "--sector-size",
        "2KiB",
    ];
    let circuit = filecoin_prover::circuits::ProofCircuit::of_kind("winning-post", "2KiB").unwrap();
    let vk = cache
        .path()
        .join(circuit.files().unwrap().vk.file_name().unwrap());
    std::fs::write(&vk, b"a published key").unwrap();
    let output = pce_prover(&args, cache.path());
    let said = text(&output);
    assert_ne!(output.status.code(), Some(0), "{said}");
    assert!(
        said.contains(&format!("{} exists but", vk.display()))
            && said.contains(".params does not: refusing to write insecure test parameters"),
        "{said}"
    );
    assert_eq!(std::fs::read(&vk).unwrap(), b"a published key");

    let output = pce_prover(&[&args[..], &["--force"]].concat(), cache.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let key = std::fs::read(&vk).unwrap();
    assert_ne!(key, b"a published key");

    // Parameters whose key is lost (they may be the published ones) are
    // kept: they get the key they begin with.
    let params = vk.with_extension("params");
    let kept = std::fs::read(&params).unwrap();
    std::fs::remove_file(&vk).unwrap();
    let output = pce_prover(&args, cache.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(std::fs::read(&params).unwrap(), kept);
    assert_eq!(std::fs::read(&vk).unwrap(), key);
    // Unreadable ones are an error naming them, and stay as they are.
    std::fs::write(&params, b"not parameters").unwrap();
    std::fs::remove_file(&vk).unwrap();
    let output = pce_prover(&args, cache.path());
    let said = text(&output);
    assert_ne!(output.status.code(), Some(0), "{said}");
    assert!(said.contains(&params.display().to_string()), "{said}");
    assert_eq!(std::fs::read(&params).unwrap(), b"not parameters");
    assert!(!vk.exists());

    let empty = tempfile::tempdir().unwrap();
    for size in ["32GiB", "64GiB"] {
        let output = pce_prover(&["params", "gen", "--sector-size", size], empty.path());
        let said = text(&output);
        assert_ne!(output.status.code(), Some(0), "{said}");
        assert!(
            said.contains("without --insecure-production-size"),
            "{said}"
        );
    }
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);

    // The insecure SnarkPack SRS serves every size: refused into a cache
    // holding production parameters (a node's), before anything is written.
    let node = tempfile::tempdir().unwrap();
    let production = filecoin_prover::circuits::ProofCircuit::of_kind("winning-post", "32GiB")
        .unwrap()
        .files()
        .unwrap()
        .vk;
    let published = node.path().join(production.file_name().unwrap());
    std::fs::write(&published, b"a published key").unwrap();
    let args = [
        "params",
        "gen",
        "--sector-size",
        "2KiB",
        "--non-interactive",
    ];
    let output = pce_prover(&args, node.path());
    let said = text(&output);
    assert_ne!(output.status.code(), Some(0), "{said}");
    assert!(
        said.contains("refusing to write an insecure test SnarkPack SRS")
            && said.contains(&published.display().to_string()),
        "{said}"
    );
    assert_eq!(std::fs::read_dir(node.path()).unwrap().count(), 1);
}
