//! The OpenCL plugin (on PoCL in CI) passes every check at small sizes,
//! including its fused QAP step on satisfied circuits: the GPU runs the
//! host's six-transform algorithm, which agrees with bellperson's there.
//! Without an OpenCL platform the test says why it skips, except under CI
//! (CI=true), where it fails.

use backend_api::Backend;
use backend_check::{check, Limits, Verdict};

#[test]
fn opencl_plugin_conforms_with_its_qap_step() {
    std::env::set_var(
        "PCE_OPENCL_CACHE",
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("opencl-program-cache"),
    );
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .unwrap()
        .join(backend_api::loader::plugin_file_name("opencl"));
    let backend = Backend::load_path(&path).unwrap();
    let device = match backend.open(0) {
        Ok(device) => device,
        Err(e) if (e.is_no_driver() || e.is_no_device()) && std::env::var_os("CI").is_none() => {
            pce_testkit::skip("opencl_plugin", &e.to_string());
            return;
        }
        Err(e) => panic!("{e}"),
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
