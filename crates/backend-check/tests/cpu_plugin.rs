//! The CPU plugin, loaded like any other, passes every check at small
//! sizes, its missing fused QAP step is reported absent (not passed), and
//! the ABI's edge cases behave as documented.

mod common;

use backend_check::{check, Limits, Verdict};

#[test]
fn cpu_plugin_conforms_and_reports_what_it_lacks() {
    let backend = common::plugin("cpu");
    let device = backend.open(0).unwrap();
    let limits = Limits {
        max_log_ntt: 6,
        max_log_msm_g1: 6,
        max_log_msm_g2: 4,
    };
    let report = check(&device, limits, |_| {});
    let failures: Vec<_> = report.rows.iter().filter(|row| !row.passed()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    let qap: Vec<_> = report
        .rows
        .iter()
        .filter(|row| row.case.starts_with("QAP h"))
        .collect();
    assert_eq!(qap.len(), 6, "{qap:#?}");
    assert!(qap.iter().all(|row| row.verdict == Verdict::Absent));
    assert_eq!(report.absent(), 6);
    let edges = report
        .rows
        .iter()
        .filter(|row| row.case.starts_with("edge:") && row.verdict == Verdict::Pass)
        .count();
    assert_eq!(edges, 8, "{:#?}", report.rows);
}
