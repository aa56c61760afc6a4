//! Faults around the files the prover writes: a writer killed with
//! SIGKILL in the middle of writing, two writers of the same files at once, a disk
//! that takes no more bytes, an output directory that does not exist.
//! Afterwards no truncated file stands under a final name, the next run
//! reuses complete files or rebuilds the rest (and removes the killed
//! writers' temporary files), and a proof that cannot be written is not
//! lost: the error carries it.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use base64::Engine;
use common::text;
use filecoin_proofs::SectorShape2KiB;
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::compound::ProofKind as _;
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::post::{PoStInput, PoStJob, PoStKind, PoStProofType};
use filecoin_prover::vanilla::VanillaBytes;
use filecoin_testkit::test_sector::seal_2kib_for;
use filecoin_testkit::vanilla::{post_vanilla_proofs, randomness};
use groth16_prover::{read_verifying_key, SrsFile};
use pce_core::PrecompiledCircuit;

const MINER: u64 = 1000;

/// `params gen` of the smallest circuit with parameters of some size:
/// it records a PCE (5 MB) and writes a `.params` (47 MB) and a `.vk`.
const GENERATE: [&str; 6] = [
    "params",
    "gen",
    "--kind",
    "winning-post",
    "--sector-size",
    "2KiB",
];

fn generate(cache: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pce-prover"));
    command
        .args(GENERATE)
        .env("FIL_PROOFS_PARAMETER_CACHE", cache)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// The files of `dir`, as (final names, temporary names).
fn files(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    all.sort();
    all.into_iter()
        .partition(|p| p.extension().is_none_or(|e| e != "tmp"))
}

/// Every file under a final name reads completely, or the test fails
/// naming it.
fn assert_complete(dir: &Path) -> Vec<String> {
    let (finals, _) = files(dir);
    finals
        .iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let ok = match path.extension().and_then(|e| e.to_str()) {
                Some("pce") => PrecompiledCircuit::load(path)
                    .map(drop)
                    .map_err(|e| e.to_string()),
                Some("params") => SrsFile::open(path)
                    .and_then(|srs| srs.check_points())
                    .map_err(|e| e.to_string()),
                Some("vk") => read_verifying_key(path)
                    .map(drop)
                    .map_err(|e| e.to_string()),
                _ => Err("an unexpected file".into()),
            };
            if let Err(e) = ok {
                panic!("{name} is under its final name but incomplete: {e}");
            }
            name.split('-').next().unwrap().to_owned()
        })
        .collect()
}

/// Starts `params gen` in `cache` and kills it (SIGKILL: no destructor,
/// no cleanup) as soon as a temporary file whose name contains `part`
/// holds data: in the middle of writing that file. Returns the size the
/// temporary file had, or `None` if the run ended first.
fn kill_while_writing(cache: &Path, part: &str) -> Option<u64> {
    let mut child = generate(cache).spawn().unwrap();
    loop {
        let (_, temporaries) = files(cache);
        let writing = temporaries.iter().find_map(|p| {
            let name = p.file_name()?.to_str()?;
            let len = std::fs::metadata(p).ok()?.len();
            (name.contains(part) && len > 0).then_some(len)
        });
        if let Some(len) = writing {
            child.kill().unwrap();
            child.wait().unwrap();
            return Some(len);
        }
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn writers_killed_while_writing_leave_complete_files_or_none() {
    let cache = tempfile::tempdir().unwrap();
    // The PCE is recorded (and written) first, then the parameters.
    for part in [".pce.", ".params."] {
        let written = kill_while_writing(cache.path(), part);
        let written = written.unwrap_or_else(|| panic!("{part}: the run ended before the kill"));
        let complete = assert_complete(cache.path());
        let (_, temporaries) = files(cache.path());
        eprintln!(
            "killed while writing a {part}… file ({written} bytes written): complete {complete:?}, temporary files left {}",
            temporaries.len()
        );
        assert!(!temporaries.is_empty(), "SIGKILL runs no cleanup");
    }

    // The next run finishes what is missing, reusing what is complete,
    // and removes the dead writers' temporary files.
    let output = generate(cache.path()).output().unwrap();
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(
        assert_complete(cache.path()),
        ["pce", "v28", "v28"],
        "one PCE, .params, .vk"
    );
    let (_, temporaries) = files(cache.path());
    assert!(
        temporaries.is_empty(),
        "killed writers' temporary files remain: {temporaries:?}"
    );
}

#[test]
fn two_processes_generating_the_same_files_at_once_both_succeed() {
    let cache = tempfile::tempdir().unwrap();
    let first = generate(cache.path()).spawn().unwrap();
    let second = generate(cache.path()).spawn().unwrap();
    for child in [first, second] {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", text(&output));
    }
    assert_eq!(assert_complete(cache.path()), ["pce", "v28", "v28"]);
    let (_, temporaries) = files(cache.path());
    assert!(temporaries.is_empty(), "{temporaries:?}");
}

#[test]
fn a_proof_that_cannot_be_written_is_an_error_that_carries_it() {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-proof-parameters");
    std::fs::create_dir_all(&cache).unwrap();
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &cache);
    let winning = PoStProofType::current(PoStKind::Winning, 2048).unwrap();
    ensure_test_params(winning, 0, false).unwrap();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let sector = seal_2kib_for(60, dir, prover_id_of_miner(MINER)).unwrap();
    let proofs = post_vanilla_proofs(winning, &[&sector], randomness(3)).unwrap();
    let vanilla = dir.join("winning.vp");
    std::fs::write(&vanilla, &proofs[0]).unwrap();
    let out = dir.join("out").join("winning.proof");
    let args = |out: &Path| {
        [
            "winning-post",
            "--sector-size",
            "2KiB",
            "--vanilla",
            vanilla.to_str().unwrap(),
            "--randomness",
            &hex::encode(randomness(3)),
            "--miner-id",
            &MINER.to_string(),
            "--out",
            out.to_str().unwrap(),
        ]
        .map(str::to_owned)
    };

    // An output directory that does not exist: refused before proving.
    let output = common::pce_prover(
        &args(&out).each_ref().map(String::as_str),
        &[("FIL_PROOFS_PARAMETER_CACHE", cache.as_os_str())],
    );
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("cannot write {}", out.display())),
        "{said}"
    );
    assert!(!said.contains("partition(s)"), "it proved first: {said}");

    // An output that is a directory: refused before proving too.
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let directory = out.parent().unwrap();
    let output = common::pce_prover(
        &args(directory).each_ref().map(String::as_str),
        &[("FIL_PROOFS_PARAMETER_CACHE", cache.as_os_str())],
    );
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "cannot write {}: it is a directory",
            directory.display()
        )),
        "{said}"
    );
    assert!(!said.contains("partition(s)"), "it proved first: {said}");

    // A disk that takes no more bytes: a file size limit of 0 blocks.
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 0 && exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_pce-prover"))
        .args(args(&out))
        .env("FIL_PROOFS_PARAMETER_CACHE", &cache)
        .env("PCE_BACKEND_DIR", common::plugin_dir())
        .output()
        .unwrap();
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("writing {}", out.display())),
        "{said}"
    );
    assert!(said.contains("File too large"), "{said}");
    let (finals, temporaries) = files(out.parent().unwrap());
    assert!(
        finals.is_empty() && temporaries.is_empty(),
        "{finals:?} {temporaries:?}"
    );
    // The proof the disk did not take is in the message, and it verifies.
    let encoded = said
        .split("base64): ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no proof in the error: {said}"));
    let proof = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim_end_matches(':'))
        .unwrap();
    let input = PoStInput {
        proof_type: winning,
        randomness: randomness(3),
        prover_id: prover_id_of_miner(MINER),
        vanilla_proofs: vec![VanillaBytes::read(&vanilla).unwrap()],
        partition: None,
    };
    let verified = PoStJob::<SectorShape2KiB>::new(&input).verify(&proof);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
}
