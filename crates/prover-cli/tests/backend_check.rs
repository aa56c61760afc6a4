//! `pce-prover backend-check` through the binary: the CPU plugin passes,
//! broken plugins give failing rows or clear errors with distinct exit
//! codes, and the host never crashes.

mod common;

use std::ffi::OsStr;

use common::{plugin_dir, text};

fn pce_prover(args: &[&str], mode: &str) -> std::process::Output {
    common::pce_prover(args, &[("PCE_TEST_PLUGIN_MODE", OsStr::new(mode))])
}

/// The smallest sizes of every check, for backends that only have to be
/// seen failing or declining.
const TINY: [&str; 6] = [
    "--max-log-ntt",
    "2",
    "--max-log-msm-g1",
    "4",
    "--max-log-msm-g2",
    "4",
];

const SMALL: [&str; 6] = [
    "--max-log-ntt",
    "12",
    "--max-log-msm-g1",
    "12",
    "--max-log-msm-g2",
    "8",
];

#[test]
fn cpu_backend_conforms() {
    let output = pce_prover(&[&["backend-check", "cpu"][..], &SMALL].concat(), "");
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.contains("PASS  NTT coset-inverse 2^12 x3"), "{out}");
    assert!(out.contains("PASS  MSM G2 n=0 Zero distinct"), "{out}");
    assert!(
        out.contains("PASS  MSM G1 n=2^12 PoRepMix infinity+repeats"),
        "{out}"
    );
    // The fused QAP step runs on the scalar transforms; with IFMA the plugin
    // declines it (its transforms have no permutation to save) and the row
    // says so instead of passing.
    // (The lane transforms run from 2^6 on; below, the step runs.)
    // The device name, not the plugin's description, says whether the lane
    // transforms run on this CPU.
    let listing = text(&pce_prover(&["devices", "cpu"], ""));
    let qap = "QAP h 2^12, 2049 constraints";
    if listing.contains("threads, AVX-512 IFMA)") {
        assert!(out.contains(&format!("ABSENT  {qap}")), "{out}");
        assert!(!out.contains("PASS  QAP h 2^6,"), "{out}");
    } else {
        assert!(out.contains(&format!("PASS  {qap}")), "{out}");
    }
    assert!(out.contains("PASS  QAP h 2^5,"), "{out}");
    for edge in [
        "PASS  edge: NTT batch 0 is a no-op",
        "PASS  edge: MSM offset + count beyond the bases is refused",
        "PASS  edge: NTT domain 2^32 is built or refused as unsupported",
        "PASS  edge: last_error is empty after a success",
    ] {
        assert!(out.contains(edge), "missing {edge:?} in {out}");
    }
    assert!(!out.contains("FAIL"), "{out}");
}

/// The paths of CPUs without AVX-512 IFMA conform too: the same check with
/// the IFMA code switched off (`PCE_CPU_IFMA=0`: the FMA lanes where the CPU
/// has AVX-512F), and with all AVX-512 code switched off (`PCE_CPU_AVX512=0`:
/// blst's field operations), which the device name then says.
#[test]
fn cpu_backend_conforms_without_ifma() {
    // Where the CPU has them, and the caller's environment (which the
    // child inherits) does not switch them off.
    #[cfg(target_arch = "x86_64")]
    let fma_lanes = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::env::var_os("PCE_CPU_AVX512").is_none_or(|value| value != "0")
        && std::env::var_os("PCE_CPU_BATCH_AFFINE").is_none_or(|value| value != "0");
    #[cfg(not(target_arch = "x86_64"))]
    let fma_lanes = false;
    for (switch, lanes) in [
        (
            "PCE_CPU_IFMA",
            fma_lanes.then_some("threads, AVX-512F FMA lanes)"),
        ),
        ("PCE_CPU_AVX512", None),
    ] {
        let off = [(switch, OsStr::new("0"))];
        let output = common::pce_prover(&[&["backend-check", "cpu"][..], &SMALL].concat(), &off);
        let out = text(&output);
        assert_eq!(output.status.code(), Some(0), "{switch}=0: {out}");
        assert!(
            out.contains("PASS  MSM G1 n=2^12 PoRepMix infinity+repeats"),
            "{switch}=0: {out}"
        );
        for log in 1..=12 {
            assert!(out.contains(&format!("PASS  QAP h 2^{log},")), "{out}");
        }
        assert!(!out.contains("FAIL"), "{switch}=0: {out}");
        let devices = common::pce_prover(&["devices", "cpu", "--open"], &off);
        let listing = text(&devices);
        assert_eq!(devices.status.code(), Some(0), "{listing}");
        assert!(listing.contains("CPU ("), "{listing}");
        assert!(
            listing.contains("      opens: usable (opened in "),
            "{listing}"
        );
        assert!(
            listing.contains("optional operations: qap_h, device_memory, ntt_scratch_bytes"),
            "{listing}"
        );
        assert!(!listing.contains("threads, AVX-512 IFMA)"), "{listing}");
        match lanes {
            Some(lanes) => assert!(listing.contains(lanes), "{switch}=0: {listing}"),
            None => assert!(!listing.contains("FMA lanes)"), "{switch}=0: {listing}"),
        }
    }
}

#[test]
fn broken_backends_fail_cleanly() {
    let broken = plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
    let broken = broken.to_str().unwrap();
    let run = |mode: &str| pce_prover(&[&["backend-check", broken][..], &TINY].concat(), mode);

    // (mode, exit status, texts the output must contain)
    let cases: [(&str, i32, &[&str]); 6] = [
        (
            "wrong",
            1,
            &[
                "FAIL  NTT forward 2^1 x3  (result differs from the reference)",
                "PASS  MSM G1 n=0 Random distinct",
                "the backend does not conform",
            ],
        ),
        (
            "error",
            1,
            // Which device failed, on a machine of several.
            &["backend broken device 0: msm failed (DEVICE): simulated device failure in msm"],
        ),
        ("panic", 1, &["plugin panicked: simulated bug in ntt"]),
        ("no-driver", 3, &["no simulated driver installed"]),
        (
            "no-devices",
            3,
            &["backend broken lists no device to prove on"],
        ),
        (
            "wrong-abi",
            4,
            &["plugin speaks version 99, this host speaks version 2"],
        ),
    ];
    for (mode, status, expected) in cases {
        let output = run(mode);
        let out = text(&output);
        assert_eq!(output.status.code(), Some(status), "mode {mode}: {out}");
        for line in expected {
            assert!(out.contains(line), "mode {mode}: missing {line:?} in {out}");
        }
    }

    // A device the plugin refuses to open (as a GPU whose kernels fail
    // their self-test): `devices` lists it, and with --open says it is
    // refused and why, and fails.
    let listed = pce_prover(&["devices", broken], "refuse-open");
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed));
    let opened = pce_prover(&["devices", broken, "--open"], "refuse-open");
    let out = text(&opened);
    assert_eq!(opened.status.code(), Some(1), "{out}");
    assert!(out.contains("      refused: "), "{out}");
    assert!(out.contains("its kernels failed their self-test"), "{out}");

    let missing = pce_prover(&["backend-check", "no-such-backend"], "");
    assert_eq!(missing.status.code(), Some(4), "{}", text(&missing));
    assert!(text(&missing).contains("libpce_backend_no-such-backend.so"));
    // A reference that cannot be loaded is not the backend's failure (4):
    // 1, naming it, before any check runs.
    let no_reference = pce_prover(
        &["backend-check", "cpu", "--reference", "no-such-backend"],
        "",
    );
    let out = text(&no_reference);
    assert_eq!(no_reference.status.code(), Some(1), "{out}");
    assert!(
        out.contains("the reference backend no-such-backend cannot be used")
            && !out.contains("PASS"),
        "{out}"
    );
}

/// The test plugin's modes that decline G2 MSMs: at the MSM, and at the
/// upload of the bases.
const G1_ONLY: [&str; 2] = ["g1-only", "g1-only-bases"];

/// `pce-prover args` with the test plugin in `mode`, one that forwards to
/// the CPU plugin changing one thing (such as [`G1_ONLY`]'s G2 MSMs
/// declined as unsupported); `args` name it as `BROKEN`.
fn forwarded(mode: &str, args: &[&str]) -> std::process::Output {
    let broken = plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
    let cpu = plugin_dir().join(backend_api::loader::plugin_file_name("cpu"));
    let args: Vec<&str> = args
        .iter()
        .map(|&arg| {
            if arg == "BROKEN" {
                broken.to_str().unwrap()
            } else {
                arg
            }
        })
        .collect();
    common::pce_prover(
        &args,
        &[
            ("PCE_TEST_PLUGIN_MODE", OsStr::new(mode)),
            ("PCE_TEST_PLUGIN_DELEGATE", cpu.as_os_str()),
        ],
    )
}

/// `devices --open` says when a device refuses G2 MSMs (a G1-only
/// backend, or a GPU whose G2 kernels failed their self-test) and that
/// they run on the fallback; a device with G2 MSMs says nothing of them.
#[test]
fn devices_name_refused_g2_msms() {
    for mode in G1_ONLY {
        let output = forwarded(mode, &["devices", "BROKEN", "--open"]);
        let listing = text(&output);
        assert_eq!(output.status.code(), Some(0), "{mode}: {listing}");
        assert!(
            listing.contains(
                "      G2 MSMs: unsupported, run on the fallback device (--fallback, default cpu): \
                 this backend has no G2 MSM"
            ),
            "{mode}: {listing}"
        );
        // backend-check counts them absent, not failed.
        let output = forwarded(mode, &[&["backend-check", "BROKEN"][..], &TINY].concat());
        let out = text(&output);
        assert_eq!(output.status.code(), Some(0), "{mode}: {out}");
        assert!(
            out.contains("ABSENT  MSM G2 n=2^4 Random distinct"),
            "{mode}: {out}"
        );
        assert!(
            out.contains("PASS  MSM G1 n=2^4 Random distinct"),
            "{mode}: {out}"
        );
    }
    let listing = text(&pce_prover(&["devices", "cpu", "--open"], ""));
    assert!(listing.contains("opens: usable"), "{listing}");
    assert!(!listing.contains("G2 MSMs: unsupported"), "{listing}");
}

/// `bench partition` on a device that declines G2 MSMs times its B G2 MSM
/// on the fallback (the CPU plugin, as the prover runs it) and says so;
/// with `--fallback none` the run fails naming the refusal.
#[test]
fn bench_partition_times_declined_msms_on_the_fallback() {
    let args = [
        "bench",
        "partition",
        "--shape",
        "32GiB",
        "--shrink",
        "16",
        "--pool-log",
        "8",
        "--backend",
        "BROKEN",
    ];
    for mode in G1_ONLY {
        let output = forwarded(mode, &args);
        let out = text(&output);
        assert_eq!(output.status.code(), Some(0), "{mode}: {out}");
        assert!(
            out.contains("B G2 MSM: declined by the device, timed on the fallback cpu (CPU ("),
            "{mode}: {out}"
        );
        assert!(
            out.contains("): this backend has no G2 MSM"),
            "{mode}: {out}"
        );
        let output = forwarded(mode, &[&args[..], &["--fallback", "none"]].concat());
        let out = text(&output);
        assert_ne!(output.status.code(), Some(0), "{mode}: {out}");
        assert!(out.contains("this backend has no G2 MSM"), "{mode}: {out}");
    }
}

/// `bench backend` compares the two backends' results as it times them:
/// the CPU plugin against itself agrees; a backend whose results are wrong
/// (the test plugin's `wrong` mode) is named with each case, exit status 1.
#[test]
fn bench_backend_compares_the_results_it_times() {
    let sizes = [
        "--msm-g1", "4..5", "--msm-g2", "3..3", "--ntt", "4..4", "--reps", "2",
    ];
    let output = pce_prover(
        &[&["bench", "backend", "cpu", "--versus", "cpu"][..], &sizes].concat(),
        "",
    );
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert_eq!(out.matches("  same").count(), 4, "{out}");

    let output = forwarded(
        "wrong",
        &[
            &["bench", "backend", "BROKEN", "--versus", "cpu"][..],
            &sizes,
        ]
        .concat(),
    );
    let out = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(
        out.contains("results differ from cpu's on the same inputs: MSM G1 2^4, MSM G1 2^5, MSM G2 2^3, NTT 2^4"),
        "{out}"
    );

    // A device that declines its G2 MSMs: those rows say so, the others
    // are timed and compared.
    for mode in G1_ONLY {
        let output = forwarded(
            mode,
            &[
                &["bench", "backend", "BROKEN", "--versus", "cpu"][..],
                &sizes,
            ]
            .concat(),
        );
        let out = text(&output);
        assert_eq!(output.status.code(), Some(0), "{mode}: {out}");
        assert!(
            out.contains(&format!(
                "MSM G2 2^3     declined by {mode}: this backend has no G2 MSM"
            )),
            "{mode}: {out}"
        );
        assert_eq!(out.matches("  same").count(), 3, "{mode}: {out}");
    }
}

/// A `qap_h` that declines a call having changed the data fails its rows:
/// the host computes h from the same buffer after a decline.
#[test]
fn a_qap_h_declined_with_the_data_changed_fails() {
    let output = forwarded(
        "qap-h-dirty",
        &[&["backend-check", "BROKEN"][..], &TINY].concat(),
    );
    let out = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(out.contains("FAIL  QAP h 2^1, 2 constraints"), "{out}");
    assert!(out.contains("PASS  MSM G1 n=2^4 Random distinct"), "{out}");
}
