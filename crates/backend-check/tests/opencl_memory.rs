//! The OpenCL plugin (on PoCL in CI) under a 256 KiB cap on device memory
//! (`PCE_GPU_MEMORY_LIMIT`, which the engine enforces on its buffers):
//! MSM bases are streamed in chunks, each MSM budgets its terms and buckets
//! from what is left, and the fused QAP step, whose three device vectors
//! and twiddles do not fit at 2^11, runs out of memory and completes one
//! vector at a time. Every check passes all the same. Its own test binary:
//! the cap is read when the device is opened, from the environment.

mod common;

use backend_check::{check, Limits, Verdict};

#[test]
fn opencl_plugin_conforms_in_256_kib_of_device_memory() {
    std::env::set_var("PCE_GPU_MEMORY_LIMIT", "262144");
    common::share_opencl_cache();
    let backend = common::plugin("opencl");
    let Some(device) = common::device_or_skip(&backend, "opencl_memory") else {
        return;
    };
    let memory = device.memory().unwrap().expect("GPU plugins report memory");
    assert_eq!(memory.total, 262144, "{memory:?}");
    assert!(memory.free <= memory.total, "{memory:?}");
    // 2^11 field elements fill one 64 KiB buffer, the largest the cap
    // allows; 2^12 G1 points (384 KiB) and 2^10 G2 points (192 KiB)
    // exceed what bases may take.
    let limits = Limits {
        max_log_ntt: 11,
        max_log_msm_g1: 12,
        max_log_msm_g2: 10,
    };
    let report = check(&device, limits, |_| {});
    let failures: Vec<_> = report.rows.iter().filter(|row| !row.passed()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    let qap = report
        .rows
        .iter()
        .filter(|row| row.case.starts_with("QAP h") && row.verdict == Verdict::Pass)
        .count();
    assert!(qap > 0, "{:#?}", report.rows);
    // Everything the checks allocated is free again.
    let after = device.memory().unwrap().expect("GPU plugins report memory");
    assert!(after.free > 0, "{after:?}");
}
