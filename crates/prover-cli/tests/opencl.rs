//! The OpenCL plugin through the binary: it conforms on whatever OpenCL
//! platform the machine has (PoCL in CI), its proofs equal the CPU
//! plugin's, a machine without a platform gets a clean "no OpenCL" and exit
//! status 3, a corrupt program cache is rebuilt, never used, and kernel
//! times are logged when asked for.
//!
//! Without any OpenCL platform the conformance tests print why they skip,
//! except under CI (CI=true), where they fail: CI installs PoCL.

mod common;

use std::ffi::OsStr;
use std::path::PathBuf;

use common::text;

/// The program cache shared by these tests, so the kernels are compiled
/// once per run (PoCL compiles them slowly, see docs/benchmarks.md).
fn shared_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("opencl-program-cache")
}

fn pce_prover(args: &[&str], cache: &std::path::Path) -> std::process::Output {
    common::pce_prover(args, &[("PCE_OPENCL_CACHE", cache.as_os_str())])
}

/// Whether OpenCL is missing here and the test may skip.
fn skip_without_opencl(output: &std::process::Output) -> bool {
    let missing = output.status.code() == Some(3) && text(output).contains("no OpenCL");
    if missing && std::env::var_os("CI").is_none() {
        pce_testkit::skip(
            &pce_testkit::this_test(),
            &format!("no OpenCL platform on this machine ({})", text(output)),
        );
        return true;
    }
    false
}

#[test]
fn opencl_backend_conforms_and_proves_like_cpu() {
    let args = [
        "backend-check",
        "opencl",
        "--max-log-ntt",
        "12",
        "--max-log-msm-g1",
        "12",
        "--max-log-msm-g2",
        "8",
        "--proofs",
        "3",
    ];
    let output = pce_prover(&args, &shared_cache());
    if skip_without_opencl(&output) {
        return;
    }
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    for line in [
        "PASS  NTT coset-inverse 2^12 x3",
        "PASS  QAP h 2^11, 2048 constraints",
        "PASS  QAP h 2^12, 2049 constraints",
        "PASS  MSM G1 n=2^12 PoRepMix infinity+repeats",
        "PASS  MSM G2 n=0 Zero distinct",
        "PASS  MSM G2 n=257 offset=3 batch=3",
        "PASS  proof: random circuit 2",
        "PASS  proof: SHA-256 circuit",
    ] {
        assert!(out.contains(line), "missing {line:?} in {out}");
    }
    assert!(!out.contains("FAIL"), "{out}");
    assert!(!out.contains("ABSENT"), "{out}");
}

/// The sorted MSM (`PCE_GPU_MSM=sorted`, whose scan runs in one group of
/// up to 256 threads and whose sums ask for groups of 128) and the NTT's
/// local stages on a device that runs kernels in groups of at most 64, as
/// a GPU's OpenCL may for its heaviest kernels: every result still right.
#[test]
fn small_work_groups_keep_every_kernel_right() {
    let args = [
        "backend-check",
        "opencl",
        "--max-log-ntt",
        "10",
        "--max-log-msm-g1",
        "11",
        "--max-log-msm-g2",
        "8",
        "--proofs",
        "0",
    ];
    let cache = shared_cache();
    let output = common::pce_prover(
        &args,
        &[
            ("PCE_OPENCL_CACHE", cache.as_os_str()),
            ("PCE_GPU_MSM", OsStr::new("sorted")),
            ("PCE_OPENCL_MAX_GROUP", OsStr::new("64")),
            ("RUST_LOG", OsStr::new("pce_plugin=debug")),
        ],
    );
    if skip_without_opencl(&output) {
        return;
    }
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.contains("sorted MSM job"), "the sorted MSM ran: {out}");
    assert!(out.contains("PASS  MSM G1 n=2^11"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}

/// `PCE_GPU_PROFILE` makes the device time every kernel and the plugin
/// log the totals when the device closes; without it, nothing is logged.
#[test]
fn kernel_times_are_logged_when_asked_for() {
    let args = [
        "backend-check",
        "opencl",
        "--max-log-ntt",
        "4",
        "--max-log-msm-g1",
        "6",
        "--max-log-msm-g2",
        "4",
        "--proofs",
        "0",
    ];
    let cache = shared_cache();
    let logs = OsStr::new("warn,pce_plugin=info");
    let profiled = common::pce_prover(
        &args,
        &[
            ("PCE_OPENCL_CACHE", cache.as_os_str()),
            ("RUST_LOG", logs),
            ("PCE_GPU_PROFILE", OsStr::new("1")),
        ],
    );
    if skip_without_opencl(&profiled) {
        return;
    }
    let out = text(&profiled);
    assert_eq!(profiled.status.code(), Some(0), "{out}");
    let times: Vec<&str> = out
        .lines()
        .filter(|line| line.contains("kernel time on the device"))
        .collect();
    for kernel in [
        "G1_msm_buckets",
        "G2_msm_buckets",
        "ntt_local_stages",
        "qap_combine",
    ] {
        let line = times
            .iter()
            .find(|line| line.contains(&format!("kernel={kernel} ")));
        assert!(
            line.is_some_and(|line| line.contains("launches=") && line.contains("total_ms=")),
            "no time for {kernel} in {out}"
        );
    }
    // Largest first.
    let millis: Vec<f64> = times
        .iter()
        .map(|line| {
            let field = line.split("total_ms=").nth(1).unwrap();
            field.split_whitespace().next().unwrap().parse().unwrap()
        })
        .collect();
    assert!(millis.windows(2).all(|pair| pair[0] >= pair[1]), "{out}");

    let plain = common::pce_prover(
        &args,
        &[("PCE_OPENCL_CACHE", cache.as_os_str()), ("RUST_LOG", logs)],
    );
    let out = text(&plain);
    assert_eq!(plain.status.code(), Some(0), "{out}");
    assert!(!out.contains("kernel time"), "{out}");
}

/// The plugin reports the staging ring it may keep while a device is open
/// (`device_host_bytes`: twelve upload buffers of 64 MiB), which the memory
/// budget counts as static.
#[test]
fn an_open_device_says_what_host_memory_it_holds() {
    let output = pce_prover(&["devices", "opencl", "--open"], &shared_cache());
    if skip_without_opencl(&output) {
        return;
    }
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains(
            "optional operations: qap_h, device_memory, msm_scratch_bytes, device_host_bytes"
        ),
        "{out}"
    );
    assert!(
        out.contains("host memory it holds while open: 0.75 GiB"),
        "{out}"
    );
}

#[test]
fn no_opencl_platform_is_a_clean_error() {
    let vendors = tempfile::tempdir().unwrap();
    for args in [
        &["devices", "opencl"][..],
        &["backend-check", "opencl", "--max-log-ntt", "2"][..],
    ] {
        let output = common::pce_prover(args, &[("OCL_ICD_VENDORS", vendors.path().as_os_str())]);
        let out = text(&output);
        assert_eq!(output.status.code(), Some(3), "{args:?}: {out}");
        assert!(out.contains("no OpenCL"), "{args:?}: {out}");
        assert!(!out.contains("panicked"), "{args:?}: {out}");
    }
}

#[test]
fn corrupt_program_cache_is_rebuilt() {
    let tiny = [
        "backend-check",
        "opencl",
        "--max-log-ntt",
        "3",
        "--max-log-msm-g1",
        "4",
        "--max-log-msm-g2",
        "4",
        "--proofs",
        "0",
    ];
    let cache = tempfile::tempdir().unwrap();
    // Fill this test's own cache (from the shared one when it is there).
    for entry in std::fs::read_dir(shared_cache()).into_iter().flatten() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), cache.path().join(entry.file_name())).unwrap();
    }
    let output = pce_prover(&tiny, cache.path());
    if skip_without_opencl(&output) {
        return;
    }
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));

    let files: Vec<_> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension() == Some(OsStr::new("bin")))
        .collect();
    assert!(!files.is_empty(), "the built program was cached");
    for file in &files {
        let mut bytes = std::fs::read(file).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x55;
        std::fs::write(file, bytes).unwrap();
    }
    let output = pce_prover(&tiny, cache.path());
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.contains("cache file corrupt; rebuilding"), "{out}");
    // The rebuilt program replaced the corrupt file: no warning any more.
    let output = pce_prover(&tiny, cache.path());
    assert!(!text(&output).contains("rebuilding"), "{}", text(&output));
}

#[test]
fn bases_larger_than_device_memory_are_chunked_and_streamed() {
    // 256 KiB of "device memory", enforced on the engine's buffers:
    // buffers of at most 64 KiB (682 G1 points), bases that would leave
    // less than 64 KiB free streamed from the host for every MSM, terms and
    // buckets budgeted from what is left (the least bucket plan of G1
    // takes 72 KiB, so 64 KiB is too little for any MSM). (No proofs:
    // their NTTs need larger buffers, which the backend refuses as
    // unsupported.)
    let args = [
        "backend-check",
        "opencl",
        "--max-log-ntt",
        "4",
        "--max-log-msm-g1",
        "12",
        "--max-log-msm-g2",
        "8",
        "--proofs",
        "0",
    ];
    let output = common::pce_prover(
        &args,
        &[
            ("PCE_OPENCL_CACHE", shared_cache().as_os_str()),
            ("PCE_GPU_MEMORY_LIMIT", OsStr::new("262144")),
        ],
    );
    if skip_without_opencl(&output) {
        return;
    }
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains("PASS  MSM G1 n=2^12 PoRepMix infinity+repeats"),
        "{out}"
    );
    assert!(out.contains("PASS  MSM G1 n=257 offset=3 batch=3"), "{out}");
    assert!(out.contains("PASS  MSM G2 n=2^8 Random distinct"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}

#[test]
fn a_32gib_partition_fits_a_40gb_device_at_scale() {
    // A 32 GiB PoRep partition with every size divided by 2^12 on a
    // device with 40 GB / 2^12 of memory: its bases (44 GiB at full size)
    // cannot all stay on it, so the MSM budget must stream them and still
    // fit its term slots and buckets in what is left.
    let limit = (40_000_000_000u64 >> 12).to_string();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("partition.json");
    let output = common::pce_prover(
        &[
            "bench",
            "partition",
            "--shape",
            "32GiB",
            "--backend",
            "opencl",
            "--shrink",
            "12",
            "--pool-log",
            "10",
            "--json",
            json.to_str().unwrap(),
        ],
        &[
            ("PCE_OPENCL_CACHE", shared_cache().as_os_str()),
            ("PCE_GPU_MEMORY_LIMIT", OsStr::new(&limit)),
        ],
    );
    if skip_without_opencl(&output) {
        return;
    }
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.contains("domain 2^15"), "{out}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let memory = &report["device_memory"];
    let total = memory["total_bytes"].as_u64().unwrap();
    assert!(total <= 40_000_000_000 >> 12, "{report}");
    for step in ["QAP (h)", "H MSM", "L MSM", "A MSM", "B G1 MSM", "B G2 MSM"] {
        let used = memory["in_use_after_step_bytes"][step].as_u64().unwrap();
        assert!(used > 0 && used <= total, "{step}: {report}");
    }
}
