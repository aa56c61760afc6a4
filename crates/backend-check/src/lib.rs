//! Conformance of a backend plugin: every operation against an
//! independent reference, on the sizes and edge cases that break MSMs and
//! NTTs.
//!
//! - NTT: sizes `2^1 ..= 2^max`, forward, inverse, coset forward, coset
//!   inverse, single vectors and batches of three, against bellperson's
//!   `EvaluationDomain` (`fft`, `ifft`, `coset_fft`, `icoset_fft`);
//! - MSM in G1 and G2: `n = 0, 1, 2, 3`, odd sizes and `2^k` up to the
//!   maximum, with random, zero, one and `r − 1` scalars, a PoRep-like mix
//!   (mostly 0 and 1), points at infinity and repeated points, batches and
//!   offsets into the bases, against the CPU multiexp bellperson uses
//!   (ec-gpu-gen's bucket method).
//!
//! - whole proofs ([`check_proofs`]): random circuits and a SHA-256
//!   circuit proven through the backend and through a reference backend
//!   with the same r and s must give byte-identical, valid proofs.
//!
//! Every case is one [`Row`] of the [`Report`]; a backend error is a failed
//! row with the plugin's message, never a crash.

mod msm;
mod ntt;
mod proofs;
pub mod timing;

pub use msm::{points, Scalars};

use std::fmt::Display;

use backend_api::Device;

/// Largest sizes to check.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// NTT sizes go up to `2^max_log_ntt`.
    pub max_log_ntt: u32,
    /// G1 MSM sizes go up to `2^max_log_msm_g1`.
    pub max_log_msm_g1: u32,
    /// G2 MSM sizes go up to `2^max_log_msm_g2`.
    pub max_log_msm_g2: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_log_ntt: 20,
            max_log_msm_g1: 20,
            max_log_msm_g2: 20,
        }
    }
}

/// One checked case.
#[derive(Debug, Clone)]
pub struct Row {
    /// What was checked, e.g. "NTT coset-inverse 2^10 ×3".
    pub case: String,
    /// Whether the backend matched the reference.
    pub passed: bool,
    /// Why it failed (empty when it passed).
    pub detail: String,
}

/// All checked cases.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The rows, in the order they ran.
    pub rows: Vec<Row>,
}

impl Report {
    fn record<E: Display>(&mut self, case: String, outcome: Result<bool, E>) {
        let (passed, detail) = match outcome {
            Ok(true) => (true, String::new()),
            Ok(false) => (false, "result differs from the reference".to_owned()),
            Err(e) => (false, e.to_string()),
        };
        self.rows.push(Row {
            case,
            passed,
            detail,
        });
    }

    /// Whether every row passed.
    pub fn passed(&self) -> bool {
        self.rows.iter().all(|row| row.passed)
    }

    /// Number of failed rows.
    pub fn failures(&self) -> usize {
        self.rows.iter().filter(|row| !row.passed).count()
    }
}

/// Runs every check on `device`, calling `progress` after each row.
pub fn check(device: &Device, limits: Limits, mut progress: impl FnMut(&Row)) -> Report {
    let mut report = Report::default();
    let mut record = |report: &mut Report, case: String, outcome: Result<bool, _>| {
        report.record(case, outcome);
        progress(report.rows.last().expect("just recorded"));
    };
    ntt::check(device, limits.max_log_ntt, &mut |case, outcome| {
        record(&mut report, case, outcome)
    });
    msm::check(device, limits, &mut |case, outcome| {
        record(&mut report, case, outcome)
    });
    report
}

/// Proves `random_circuits` random circuits and a SHA-256 circuit through
/// `device` and through `reference` with the same r and s, calling
/// `progress` after each; a row passes when the proofs are valid and
/// byte-identical.
pub fn check_proofs(
    device: &Device,
    reference: &Device,
    random_circuits: usize,
    mut progress: impl FnMut(&Row),
) -> Report {
    let mut report = Report::default();
    proofs::check(device, reference, random_circuits, &mut |case, outcome| {
        report.record(case, outcome);
        progress(report.rows.last().expect("just recorded"));
    });
    report
}
