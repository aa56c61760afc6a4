//! A run over several devices: PoCL with two CPU devices
//! (`POCL_DEVICES="pthread pthread"`) stands in for a machine with two
//! GPUs. Every partition is proven (and verified) on one of them, both take
//! a share, and the proofs equal the CPU plugin's with the same r and s.
//! Without an OpenCL platform the test says it skips, except under CI
//! (CI=true), where it fails: CI installs PoCL.

mod common;

use blstrs::Scalar;
use ff::Field;
use proving_engine::{run, Devices, EngineError, EngineOptions, Event};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use common::{circuit, job, options, Fault};

#[test]
fn partitions_spread_over_every_device_and_prove_as_on_one() {
    // Read by PoCL when the plugin loads the OpenCL library, which only
    // this test (alone in its process) does.
    std::env::set_var("POCL_DEVICES", "pthread pthread");
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("opencl-program-cache");
    std::env::set_var("PCE_OPENCL_CACHE", &cache);
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), true);
    let jobs = [
        job(&[2, 3, 4, 5], Fault::None),
        job(&[6, 7, 8, 9], Fault::None),
    ];
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let fixed: Vec<(Scalar, Scalar)> = (0..8)
        .map(|_| (Scalar::random(&mut rng), Scalar::random(&mut rng)))
        .collect();
    let on_all = EngineOptions {
        backend: "opencl".into(),
        devices: Devices::All,
        randomness: Some(fixed.clone()),
        ..options(1)
    };
    // What the plan counts of the devices' own host memory: each one's
    // staging ring (twelve buffers of 64 MiB), once per device.
    let devices_held = std::sync::Mutex::new(None);
    let observe = |event: Event<'_>| {
        if let Event::Ready { plan } = event {
            *devices_held.lock().unwrap() = Some(plan.model.devices);
        }
    };
    let spread = match run(&circuit, &jobs, &on_all, &observe, |_, _| {}) {
        Err(e @ (EngineError::Backend(_) | EngineError::BackendLoad(_)))
            if std::env::var_os("CI").is_none() =>
        {
            pce_testkit::skip(
                "partitions_spread_over_every_device_and_prove_as_on_one",
                &format!("no OpenCL platform ({e})"),
            );
            return;
        }
        other => other.unwrap(),
    };
    assert_eq!(spread.devices.len(), 2, "{:?}", spread.devices);
    assert_eq!(
        devices_held.into_inner().unwrap(),
        Some(2 * 12 * (64 << 20)),
        "the static memory counts both devices' staging"
    );
    let shares: Vec<usize> = spread.devices.iter().map(|d| d.partitions).collect();
    assert_eq!(shares.iter().sum::<usize>(), 8);
    assert!(
        shares.iter().all(|&n| n > 0),
        "one device did all: {shares:?}"
    );

    let on_cpu = EngineOptions {
        randomness: Some(fixed),
        ..options(1)
    };
    let single = run(&circuit, &jobs, &on_cpu, &|_| {}, |_, _| {}).unwrap();
    for (a, b) in spread.results.iter().zip(&single.results) {
        assert_eq!(
            a.as_ref().unwrap().output,
            b.as_ref().unwrap().output,
            "byte for byte, with the same r and s"
        );
    }
}
