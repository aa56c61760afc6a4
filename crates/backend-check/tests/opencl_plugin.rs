//! The OpenCL plugin (on PoCL in CI) passes every check at small sizes,
//! including its fused QAP step on satisfied circuits: the GPU runs the
//! host's six-transform algorithm, which agrees with bellperson's there.
//! Without an OpenCL platform the test says why it skips, except under CI
//! (CI=true), where it fails.

mod common;

use backend_check::{check, Limits, Verdict};

#[test]
fn opencl_plugin_conforms_with_its_qap_step() {
    common::share_opencl_cache();
    let backend = common::plugin("opencl");
    let Some(device) = common::device_or_skip(&backend, "opencl_plugin") else {
        return;
    };
    let memory = device.memory().unwrap().expect("GPU plugins report memory");
    assert!(
        memory.total > 0 && memory.free <= memory.total,
        "{memory:?}"
    );
    let limits = Limits {
        max_log_ntt: 9,
        max_log_msm_g1: 6,
        max_log_msm_g2: 4,
    };
    let report = check(&device, limits, |_| {});
    let failures: Vec<_> = report.rows.iter().filter(|row| !row.passed()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    let qap = report
        .rows
        .iter()
        .filter(|row| row.case.starts_with("QAP h") && row.verdict == Verdict::Pass)
        .count();
    assert_eq!(qap, 9, "{:#?}", report.rows);
    assert_eq!(report.absent(), 0);
}
