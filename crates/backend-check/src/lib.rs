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
//! - the ABI's edge cases hosts rely on (batch 0, ranges beyond the bases,
//!   sizes beyond the device, `last_error` after a success), through the
//!   raw vtable;
//! - calls from several threads at once on one device, as the host makes
//!   them;
//! - whole proofs ([`check_proofs`]): random circuits and a SHA-256
//!   circuit proven through the backend and through a reference backend
//!   with the same r and s must give byte-identical, valid proofs.
//!
//! Beside the checks, timings for `pce-prover bench`: [`timing`] (one
//! backend against another) and [`partition`] (one partition's device work
//! at a production shape).
//!
//! Every case is one [`Row`] of the [`Report`]; a backend error is a failed
//! row with the plugin's message, never a crash. An optional operation the
//! plugin does not have is an [`Verdict::Absent`] row: neither a pass nor a
//! failure.

mod concurrent;
mod edges;
mod msm;
mod ntt;
pub mod partition;
mod proofs;
mod repeated;
pub mod timing;

pub use msm::{points, Scalars};
pub use ntt::{reference_qap, satisfied_abc};

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

/// What a case found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The backend matched the reference (or the contract).
    Pass,
    /// It did not, or it failed.
    Fail,
    /// The plugin does not have this optional operation, or declined it
    /// as unsupported for these arguments.
    Absent,
}

impl From<bool> for Verdict {
    fn from(passed: bool) -> Self {
        if passed {
            Verdict::Pass
        } else {
            Verdict::Fail
        }
    }
}

impl Verdict {
    /// The label printed before a row.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Absent => "ABSENT",
        }
    }
}

/// One checked case.
#[derive(Debug, Clone)]
pub struct Row {
    /// What was checked, e.g. "NTT coset-inverse 2^10 ×3".
    pub case: String,
    /// What the check found.
    pub verdict: Verdict,
    /// Why it failed, or what is absent (empty when it passed).
    pub detail: String,
}

impl Row {
    /// Whether the row is not a failure (an absent operation is none).
    pub fn passed(&self) -> bool {
        self.verdict != Verdict::Fail
    }
}

/// All checked cases.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The rows, in the order they ran.
    pub rows: Vec<Row>,
}

impl Report {
    fn record<E: Display>(&mut self, case: String, outcome: Result<Verdict, E>) {
        let (verdict, detail) = match outcome {
            Ok(Verdict::Pass) => (Verdict::Pass, String::new()),
            Ok(Verdict::Fail) => (
                Verdict::Fail,
                "result differs from the reference".to_owned(),
            ),
            Ok(Verdict::Absent) => (
                Verdict::Absent,
                "the plugin does not have this operation".to_owned(),
            ),
            Err(e) => (Verdict::Fail, e.to_string()),
        };
        self.rows.push(Row {
            case,
            verdict,
            detail,
        });
    }

    /// Whether no row failed.
    pub fn passed(&self) -> bool {
        self.rows.iter().all(Row::passed)
    }

    /// Number of failed rows.
    pub fn failures(&self) -> usize {
        self.rows.iter().filter(|row| !row.passed()).count()
    }

    /// Number of rows of absent operations.
    pub fn absent(&self) -> usize {
        self.rows
            .iter()
            .filter(|row| row.verdict == Verdict::Absent)
            .count()
    }
}

/// Runs every check on `device`, calling `progress` after each row.
pub fn check(device: &Device, limits: Limits, mut progress: impl FnMut(&Row)) -> Report {
    let mut report = Report::default();
    let mut record = |report: &mut Report, case: String, outcome: Result<Verdict, String>| {
        report.record(case, outcome);
        progress(report.rows.last().expect("just recorded"));
    };
    ntt::check(device, limits.max_log_ntt, &mut |case, outcome| {
        record(&mut report, case, outcome.map_err(|e| e.to_string()))
    });
    msm::check(device, limits, &mut |case, outcome| {
        record(&mut report, case, outcome.map_err(|e| e.to_string()))
    });
    edges::check(device, &mut |case, outcome| {
        record(&mut report, case, outcome)
    });
    concurrent::check(device, &mut |case, outcome| {
        record(&mut report, case, outcome.map_err(|e| e.to_string()))
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
        report.record(case, outcome.map(Verdict::from));
        progress(report.rows.last().expect("just recorded"));
    });
    report
}
