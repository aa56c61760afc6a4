//! The CUDA plugin through the binary. Where there is no NVIDIA driver (CI,
//! these development machines) it must still load and say "no CUDA driver"
//! with exit status 3, never crash; where there is one, it must conform and
//! prove like the CPU plugin.

mod common;

use common::{pce_prover, text};

#[test]
fn cuda_backend_conforms_or_reports_no_driver() {
    let devices = pce_prover(&["devices", "cuda"], &[]);
    let out = text(&devices);
    if devices.status.code() == Some(3) {
        assert!(
            out.contains("no CUDA driver") || out.contains("no CUDA device"),
            "{out}"
        );
        let check = pce_prover(&["backend-check", "cuda"], &[]);
        let out = text(&check);
        assert_eq!(check.status.code(), Some(3), "{out}");
        assert!(out.contains("no CUDA"), "{out}");
        assert!(!out.contains("panicked"), "{out}");
        // Only the half without a driver ran: said in the summary.
        return pce_testkit::skip(
            "cuda_backend_conforms_or_reports_no_driver",
            "no CUDA driver or device: its conformance and proofs were not checked",
        );
    }
    assert_eq!(devices.status.code(), Some(0), "{out}");
    let args = [
        "backend-check",
        "cuda",
        "--max-log-ntt",
        "14",
        "--max-log-msm-g1",
        "14",
        "--max-log-msm-g2",
        "10",
    ];
    let check = pce_prover(&args, &[]);
    let out = text(&check);
    assert_eq!(check.status.code(), Some(0), "{out}");
    assert!(out.contains("PASS  proof: SHA-256 circuit"), "{out}");
    assert!(out.contains("PASS  QAP h 2^"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}
