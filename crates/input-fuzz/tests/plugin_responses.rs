//! Fuzzing what the host trusts in a plugin's answers.
//!
//! The test plugin's `chaos` mode answers every call from bytes this test
//! feeds it (see `test_plugins::chaos`): statuses, device counts and
//! descriptions, error messages and the lengths they announce, handles,
//! memory reports, scratch sizes and results. Each case feeds mutated
//! bytes and drives the host through what a proof does with a backend:
//! list devices, open one, read its memory report, plan memory with its
//! scratch size, transform, run the QAP step, upload bases, multiply, and
//! use the results as the prover does. Every call must end in a value or
//! a clear error naming the backend.

use std::path::{Path, PathBuf};

use backend_api::ffi::{pce_fr, pce_scalar};
use backend_api::interop::{g1_affines_as_pce, pce_g1_projectives};
use backend_api::{Backend, NttDirection, G1};
use blstrs::{G1Affine, G1Projective};
use groth16_prover::SrsShape;
use group::prime::PrimeCurveAffine;
use group::Curve;
use input_fuzz::{Campaign, CappedAllocator, Mutator};
use pce_core::PrecompiledCircuit;
use pce_testkit::random::random_circuit;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use proving_engine::memory::{BackendMemory, MemoryModel};

#[global_allocator]
static ALLOC: CappedAllocator = CappedAllocator;

type Feed = unsafe extern "C" fn(*const u8, usize);

fn plugin_path() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .unwrap()
        .join(backend_api::loader::plugin_file_name("broken"))
}

fn small_circuit() -> PrecompiledCircuit {
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let circuit = random_circuit(8).new_tree(&mut runner).unwrap().current();
    PrecompiledCircuit::extract(circuit).unwrap()
}

/// What a proof asks of a backend, on tiny sizes.
fn drive(backend: &Backend, pce: &PrecompiledCircuit) -> Result<(), String> {
    let s = |e: backend_api::BackendError| e.to_string();
    let devices = backend.devices().map_err(s)?;
    if devices.is_empty() {
        return Err("chaos: no devices".into());
    }
    let device = backend.open(0).map_err(s)?;
    device.memory().map_err(s)?;
    let backend_memory = BackendMemory::of(&[&device], None, 4).map_err(s)?;
    let shape = SrsShape {
        h: 16,
        l: pce.num_aux(),
        a: pce.num_inputs() + pce.num_aux(),
        b_g1: pce.num_inputs() + pce.num_aux(),
        b_g2: pce.num_inputs() + pce.num_aux(),
        ic: pce.num_inputs(),
    };
    MemoryModel::new(pce.size(), shape, true, 1 << 20, backend_memory)
        .partitions_admitted(1 << 30)
        .map_err(|e| format!("chaos: {e}"))?;
    let domain = device.ntt_domain(4).map_err(s)?;
    let mut data = vec![pce_fr::default(); 16];
    device
        .ntt(&domain, NttDirection::Forward, true, &mut data)
        .map_err(s)?;
    let mut abc = vec![pce_fr::default(); 48];
    device.qap_h(&domain, &mut abc).map_err(s)?;
    let points = vec![G1Affine::generator(); 8];
    let bases = device
        .upload_bases::<G1>(g1_affines_as_pce(&points))
        .map_err(s)?;
    let scalars = vec![pce_scalar { l: [3, 0, 0, 0] }; 16];
    let sums = device.msm(&bases, 0, 8, 2, &scalars).map_err(s)?;
    // The prover adds results and encodes the proof from them.
    let sum: G1Projective = pce_g1_projectives(&sums).iter().sum();
    let _ = sum.to_affine().to_compressed();
    Ok(())
}

#[test]
fn the_host_survives_fuzzed_plugin_answers() {
    // Read by the plugin's entry point: set before it is loaded, and only
    // this test runs in this binary.
    std::env::set_var(test_plugins_mode_env(), "chaos");
    let path = plugin_path();
    let backend = Backend::load_path(&path).unwrap();
    assert_eq!(backend.name(), "chaos");
    // SAFETY: the library is loaded (and never unloaded); the symbol has this signature.
    let feed: Feed = unsafe {
        let library = libloading::Library::new(&path).unwrap();
        let symbol = *library
            .get::<Feed>(b"pce_test_plugin_chaos_feed\0")
            .unwrap();
        std::mem::forget(library);
        symbol
    };
    let pce = small_circuit();
    let report = Campaign::new(
        "plugin-answers",
        4000,
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    )
    .errors_must_mention("chaos")
    .run(
        &[vec![0u8; 256]],
        |m: &mut Mutator, seed, others| {
            // Sparse edits: a few hostile answers among sane ones,
            // mostly early, where a run's answers are read.
            let mut bytes = seed.to_vec();
            for _ in 0..1 + m.below(6) {
                let span = [48, bytes.len()][m.below(2)];
                let at = m.below(span);
                bytes[at] = m.next_u64() as u8;
            }
            if m.one_in(4) {
                bytes = m.bytes(&bytes, others);
            }
            bytes
        },
        |bytes| {
            // SAFETY: the pointer and length describe `bytes`.
            unsafe { feed(bytes.as_ptr(), bytes.len()) };
            drive(&backend, &pce)
        },
    );
    eprintln!("{report}");
    report.assert_clean();
}

fn test_plugins_mode_env() -> &'static str {
    pce_backend_broken::MODE_ENV
}
