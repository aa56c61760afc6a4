//! Fuzzing the PCE file loader.
//!
//! Seeds are real PCE files of random circuits. Most cases have their
//! header's length and checksum recomputed after the mutation, so the
//! loader's structural checks (sections, shapes, densities, CSR row
//! pointers and column indices) are reached instead of the checksum
//! refusing everything. An accepted file must then evaluate without a
//! panic: a column index past the witness that the loader let through
//! would show there. The size the daemon plans from before loading
//! (`PceSize::of_file`) must not panic either, and must equal the loaded
//! circuit's wherever the loader accepts the file.

use std::path::Path;

use blstrs::Scalar;
use input_fuzz::{Campaign, CappedAllocator, Mutator};
use pce_core::{PceSize, PrecompiledCircuit, Witness};
use pce_testkit::random::random_circuit;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

#[global_allocator]
static ALLOC: CappedAllocator = CappedAllocator;

/// Header fields (see `pce_csr::format`).
const CONTENT_LEN: std::ops::Range<usize> = 16..24;
const CHECKSUM: std::ops::Range<usize> = 24..56;
const HEADER_LEN: usize = 64;

fn seed_files(dir: &Path) -> Vec<Vec<u8>> {
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    (0..4)
        .map(|k| {
            let circuit = random_circuit(24).new_tree(&mut runner).unwrap().current();
            let path = dir.join(format!("seed-{k}.pce"));
            PrecompiledCircuit::extract(circuit)
                .unwrap()
                .save(&path)
                .unwrap();
            std::fs::read(&path).unwrap()
        })
        .collect()
}

/// Makes the header agree with the (mutated) content again.
fn reseal(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN {
        return;
    }
    let content_len = (bytes.len() - HEADER_LEN) as u64;
    bytes[CONTENT_LEN].copy_from_slice(&content_len.to_le_bytes());
    let checksum = blake3::hash(&bytes[HEADER_LEN..]);
    bytes[CHECKSUM].copy_from_slice(checksum.as_bytes());
}

/// Loads `bytes` as a PCE file and, if accepted, evaluates it on a witness
/// of its shape.
fn load_and_evaluate(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).unwrap();
    // What the daemon plans a circuit's memory from before loading it:
    // never a panic, and for a file the loader accepts, exactly what the
    // loaded circuit holds.
    let planned = PceSize::of_file(path).map_err(|e| e.to_string());
    let pce = PrecompiledCircuit::load(path).map_err(|e| e.to_string())?;
    assert_eq!(
        planned,
        Ok(pce.size()),
        "planned from the file, then loaded"
    );
    // Bounded so that a file that validly claims many variables (its
    // densities are bit sets: 64 per 8 bytes) does not make the witness
    // itself the largest allocation.
    if pce.num_inputs() + pce.num_aux() <= 1 << 16 && pce.num_inputs() > 0 {
        let witness = Witness {
            inputs: (0..pce.num_inputs() as u64).map(Scalar::from).collect(),
            aux: (0..pce.num_aux() as u64).map(Scalar::from).collect(),
        };
        pce.evaluate(&witness).map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[test]
fn pce_loader_survives_mutated_files() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = seed_files(dir.path());
    let path = dir.path().join("input.pce");
    let campaign = Campaign::new("pce-file", 3000, Path::new(env!("CARGO_TARGET_TMPDIR")))
        .errors_must_mention("input.pce");
    let report = campaign.run(
        &seeds,
        |m: &mut Mutator, seed, others| {
            let mut bytes = m.bytes(seed, others);
            if !m.one_in(4) {
                reseal(&mut bytes);
            }
            bytes
        },
        |bytes| {
            load_and_evaluate(&path, bytes)
                .map_err(|e| e.replace(&*dir.path().to_string_lossy(), ""))
        },
    );
    eprintln!("{report}");
    report.assert_clean();
    assert!(
        report.accepted > 0,
        "no mutated file was accepted: the seeds are not valid PCE files"
    );
    assert!(
        report
            .refusals
            .keys()
            .any(|k| k.contains("corrupt at byte offset")),
        "no case reached the structural checks:\n{report}"
    );
}

/// `bytes` with the element count of section `tag` (its header: a 16-byte
/// tag, the element size, 4 reserved bytes, then the count) set to `count`.
fn with_section_count(mut bytes: Vec<u8>, tag: &str, count: u64) -> Vec<u8> {
    let mut padded = [0u8; 16];
    padded[..tag.len()].copy_from_slice(tag.as_bytes());
    let at = bytes
        .windows(padded.len())
        .position(|window| window == padded)
        .expect("the seed has the section");
    bytes[at + 24..at + 32].copy_from_slice(&count.to_le_bytes());
    bytes
}

/// Asserts that the loader and the size the daemon plans from both refuse
/// the file at `path`, naming it and saying `expected`.
fn refused_by_loader_and_planner(path: &Path, expected: &str) {
    let loaded = PrecompiledCircuit::load(path)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    let planned = PceSize::of_file(path).map(|_| ()).unwrap_err().to_string();
    let name = path.file_name().unwrap().to_str().unwrap();
    for error in [loaded, planned] {
        assert!(error.contains(name) && error.contains(expected), "{error}");
    }
}

/// A section whose length wraps past 2^64 once padded (the 1-byte section
/// `A.row_lens` claiming 2^64 − 4 elements, the checksum made to match) is
/// refused as corrupt, naming the file, by the loader and by the size the
/// daemon plans from: it was let through to an allocation that panicked.
#[test]
fn a_section_count_that_wraps_when_padded_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let seed = seed_files(dir.path()).swap_remove(0);
    let mut bytes = with_section_count(seed, "A.row_lens", u64::MAX - 3);
    reseal(&mut bytes);
    let path = dir.path().join("wrapping.pce");
    std::fs::write(&path, &bytes).unwrap();
    refused_by_loader_and_planner(&path, "more than the file holds");
}

/// A count the reader knows (the shape's 3 values) that the file claims
/// otherwise, in a sparse file as long as the claim (16 GiB that take no
/// disk): refused before anything is allocated for it, by the loader and
/// by the size the daemon plans from.
#[test]
fn a_section_of_known_length_claiming_more_is_refused_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let claimed: u64 = 1 << 31;
    let mut bytes = with_section_count(seed_files(dir.path()).swap_remove(0), "shape", claimed);
    let content_len = 1u64 << 35;
    bytes[CONTENT_LEN].copy_from_slice(&content_len.to_le_bytes());
    let path = dir.path().join("sparse.pce");
    std::fs::write(&path, &bytes).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(HEADER_LEN as u64 + content_len).unwrap();
    drop(file);
    refused_by_loader_and_planner(&path, &format!("holds {claimed} elements, expected 3"));
}
