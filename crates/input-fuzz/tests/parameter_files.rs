//! Fuzzing the `.params` and `.vk` readers.
//!
//! Seeds are bellperson's own files for small random circuits. The
//! lengths in these files are big-endian `u32` point counts, so the
//! interesting-integer mutations land on them often: a count that claims
//! more points than the file holds must be refused before anything is
//! allocated for them.

use std::path::Path;

use bellperson::groth16::generate_random_parameters;
use blstrs::Bls12;
use groth16_prover::srs::PointCheck;
use groth16_prover::{read_verifying_key, G1Query, SrsFile};
use input_fuzz::{Campaign, CappedAllocator, Mutator};
use pce_testkit::random::random_circuit;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[global_allocator]
static ALLOC: CappedAllocator = CappedAllocator;

/// `.params` and `.vk` bytes of three small random circuits.
fn seed_files() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let mut keys = ChaCha8Rng::seed_from_u64(5);
    let (mut params, mut vks) = (Vec::new(), Vec::new());
    while params.len() < 3 {
        let circuit = random_circuit(12).new_tree(&mut runner).unwrap().current();
        // bellperson refuses circuits with an unconstrained variable.
        let Ok(generated) = generate_random_parameters::<Bls12, _, _>(circuit, &mut keys) else {
            continue;
        };
        let (mut p, mut v) = (Vec::new(), Vec::new());
        generated.write(&mut p).unwrap();
        generated.vk.write(&mut v).unwrap();
        params.push(p);
        vks.push(v);
    }
    (params, vks)
}

/// Opens `bytes` as a parameter file and decodes every query, in full and
/// through a selection.
fn read_params(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).unwrap();
    let srs = SrsFile::open(path).map_err(|e| e.to_string())?;
    let shape = srs.shape();
    for (query, count) in [
        (G1Query::H, shape.h),
        (G1Query::L, shape.l),
        (G1Query::A, shape.a),
        (G1Query::BG1, shape.b_g1),
    ] {
        srs.g1(query, None, PointCheck::Full)
            .map_err(|e| e.to_string())?;
        let every_other: Vec<bool> = (0..count).map(|i| i % 2 == 0).collect();
        srs.g1(query, Some(&every_other), PointCheck::FlagsOnly)
            .map_err(|e| e.to_string())?;
    }
    srs.b_g2(None, PointCheck::Full)
        .map_err(|e| e.to_string())?;
    srs.check_points().map_err(|e| e.to_string())
}

fn run(
    name: &'static str,
    seeds: &[Vec<u8>],
    file: &str,
    read: fn(&Path, &[u8]) -> Result<(), String>,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file);
    let prefix = dir.path().to_string_lossy().into_owned();
    let report = Campaign::new(name, 3000, Path::new(env!("CARGO_TARGET_TMPDIR")))
        .errors_must_mention(file)
        .run(
            seeds,
            |m: &mut Mutator, seed, others| m.bytes(seed, others),
            |bytes| read(&path, bytes).map_err(|e| e.replace(&prefix, "")),
        );
    eprintln!("{report}");
    report.assert_clean();
    assert!(
        report.refusals.keys().any(|k| k.contains("truncated")),
        "no case reached the length checks:\n{report}"
    );
}

#[test]
fn parameter_readers_survive_mutated_files() {
    let (params, vks) = seed_files();
    run("params-file", &params, "input.params", read_params);
    run("vk-file", &vks, "input.vk", |path, bytes| {
        std::fs::write(path, bytes).unwrap();
        read_verifying_key(path)
            .map(drop)
            .map_err(|e| e.to_string())
    });
}
