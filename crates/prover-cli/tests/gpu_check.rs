//! `scripts/gpu-check.sh` rehearsed on the CPU as a borrowed GPU machine
//! would run it, with the OpenCL plugin on PoCL and small sizes
//! (`GPU_BACKEND=opencl QUICK=1`): every step passes within the script's
//! deadline, and what it leaves under `$OUT` would come back from such a
//! machine (at most 8 files of at most 16 MiB).
//!
//! Without any OpenCL platform the test says why it skips, except under CI
//! (CI=true), where it fails: CI installs PoCL.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{plugin_dir, text};

/// A folder laid out as the script expects its BIN_DIR: the binary and the
/// plugins side by side (cargo keeps them apart).
fn bin_dir(at: &Path) {
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pce-prover"), at.join("pce-prover")).unwrap();
    for name in ["cpu", "opencl", "cuda"] {
        let file = backend_api::loader::plugin_file_name(name);
        let plugin = plugin_dir().join(&file);
        if plugin.exists() {
            std::os::unix::fs::symlink(plugin, at.join(&file)).unwrap();
        }
    }
}

#[test]
fn gpu_check_runs_on_opencl_and_brings_back_little() {
    let probe = common::pce_prover(&["devices", "opencl"], &[]);
    if probe.status.code() == Some(3) && std::env::var_os("CI").is_none() {
        pce_testkit::skip(
            "gpu_check_runs_on_opencl_and_brings_back_little",
            &format!("no OpenCL platform on this machine ({})", text(&probe)),
        );
        return;
    }
    let bin = tempfile::tempdir().unwrap();
    bin_dir(bin.path());
    let (work, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/gpu-check.sh");
    let output = Command::new("bash")
        .arg(&script)
        .arg(bin.path())
        .env("GPU_BACKEND", "opencl")
        .env("QUICK", "1")
        .env("WORK", work.path())
        .env("OUT", out.path())
        // Shared with the other tests: parameters generated once, kernels
        // compiled once.
        .env(
            "FIL_PROOFS_PARAMETER_CACHE",
            tmp.join("filecoin-proof-parameters"),
        )
        .env("PCE_OPENCL_CACHE", tmp.join("opencl-program-cache"))
        .output()
        .unwrap();
    let log = text(&output);
    assert_eq!(output.status.code(), Some(0), "{log}");
    let summary = std::fs::read_to_string(out.path().join("summary.txt")).unwrap();
    for step in [
        "devices",
        "compile-kernels",
        "c2-2kib-opencl-vs-cpu",
        "backend-check",
        "streamed-bases",
        "partition-32gib",
        "bench-opencl-vs-cpu",
        "sorted-check",
        "sorted-partition",
        "sorted-bench",
    ] {
        let row = summary.lines().find(|l| l.starts_with(step));
        assert!(
            row.is_some_and(|r| r.contains("PASS")),
            "{step}:\n{summary}"
        );
    }
    assert!(summary.contains("partition: H MSM"), "{summary}");
    assert!(
        summary.contains("kernel time: kernel=G1_msm_buckets launches="),
        "{summary}"
    );
    assert!(
        summary.contains("partition, sorted MSM: H MSM"),
        "{summary}"
    );
    assert!(
        summary.contains("kernel time, sorted MSM: kernel=G1_msm_sorted_sums launches="),
        "{summary}"
    );
    assert!(
        summary.contains("sorted opencl vs cpu: MSM G1"),
        "{summary}"
    );

    let mut files = Vec::new();
    for entry in std::fs::read_dir(out.path()).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        assert!(meta.is_file(), "{:?} is not a plain file", entry.path());
        assert!(
            meta.len() <= 16 << 20,
            "{:?}: {} bytes",
            entry.path(),
            meta.len()
        );
        files.push(entry.file_name().into_string().unwrap());
    }
    files.sort();
    assert_eq!(
        files,
        [
            "logs.tar.gz",
            "partition.json",
            "summary.txt",
            "timings.json"
        ]
    );
    let timings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("timings.json")).unwrap()).unwrap();
    assert_eq!(timings["steps"].as_array().unwrap().len(), 10, "{timings}");
    let partition: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("partition.json")).unwrap()).unwrap();
    assert_eq!(partition["total_seconds"].as_array().unwrap().len(), 2);
    assert_eq!(partition["shape"]["domain_log2"], 17);
}
