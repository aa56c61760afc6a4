//! `partition::run` on the CPU plugin at a small shape: every step in the
//! prover's order, one time per run, totals that add up, the queries the
//! shape asks for, and a host memory peak that counts the pools.

mod common;

use backend_check::partition::{run, Options, PartitionShape};

#[test]
fn a_small_partition_runs_every_step_in_order() {
    let backend = common::plugin("cpu");
    let device = backend.open(0).unwrap();
    let shape = PartitionShape {
        constraints: 1000,
        l: 990,
        a: 988,
        b: 251,
    };
    let mut seen = Vec::new();
    let options = Options {
        runs: 2,
        pool_log: 8,
    };
    let report = run(&device, None, &shape, options, |done| seen.push(done.name)).unwrap();
    assert_eq!(report.g2_on_fallback, None);

    assert_eq!(report.queries, [1023, 990, 988, 251]);
    let setup: Vec<_> = report.setup.iter().map(|s| s.name).collect();
    assert_eq!(setup, ["point pools", "bases to the device", "NTT domain"]);
    let steps: Vec<_> = report.steps.iter().map(|s| s.name).collect();
    let order = [
        "QAP (h)",
        "h to scalars",
        "H MSM",
        "L MSM",
        "A MSM",
        "B G1 MSM",
        "B G2 MSM",
    ];
    assert_eq!(steps, order);
    assert_eq!(seen.len(), 3 + 2 * order.len());
    assert!(report.steps.iter().all(|s| s.times.len() == 2));
    for (run, total) in report.totals.iter().enumerate() {
        let sum: std::time::Duration = report.steps.iter().map(|s| s.times[run]).sum();
        assert_eq!(*total, sum);
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if cfg!(target_os = "linux") && page == 4096 {
        // 2^8 G1 points of 96 bytes and 2^6 G2 points of 192 bytes: whole
        // 4 KiB pages, mapped once.
        assert_eq!(report.pool_bytes, (256 * 96 + 64 * 192) as u64);
        assert!(report.host_peak_rss.unwrap() > report.pool_bytes);
    }
}
