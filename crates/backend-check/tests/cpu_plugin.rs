//! The CPU plugin, loaded like any other, passes every check at small
//! sizes, its fused QAP step passes where it runs and is reported absent
//! (not passed) where it declines, and the ABI's edge cases behave as
//! documented.

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
    // The fused QAP step runs on the scalar transforms; where the IFMA
    // transforms run (from 2^6 on, with the instructions) the plugin
    // declines it, and the row says so instead of passing.
    let ifma = backend.devices().unwrap()[0].name.contains("AVX-512 IFMA");
    for row in &qap {
        let log: u32 = row.case["QAP h 2^".len()..]
            .split(',')
            .next()
            .and_then(|log| log.parse().ok())
            .expect("QAP h 2^N, ...");
        let declined = ifma && log >= 6;
        let expected = if declined {
            Verdict::Absent
        } else {
            Verdict::Pass
        };
        assert_eq!(row.verdict, expected, "{row:?}");
    }
    assert_eq!(report.absent(), usize::from(ifma));
    let edges = report
        .rows
        .iter()
        .filter(|row| row.case.starts_with("edge:") && row.verdict == Verdict::Pass)
        .count();
    assert_eq!(edges, 8, "{:#?}", report.rows);
}
