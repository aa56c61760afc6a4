//! Kernel times measured by the device, for finding where a GPU's time goes.
//!
//! `bench partition` says how long each step of a partition takes (the H
//! MSM, the QAP step), not which kernels inside it: bucket accumulation,
//! bucket sums, reduction passes or NTT stages. With `PCE_GPU_PROFILE` set,
//! the engines have the device time every kernel launch (CUDA events,
//! OpenCL profiling events: the device's own clock, so kernels still
//! overlap the copies as they do without it) and log, when the device
//! closes, each kernel's launches and total time, largest first. Without
//! it nothing is recorded.
//!
//! Reading a launch's time waits for it to finish, so the times are read
//! in batches ([`RESOLVE_EVERY`] launches, and when the device closes)
//! rather than per launch, which would stop the host from queueing ahead.

use std::collections::HashMap;
use tracing::{info, warn};

/// Environment variable that turns the kernel profile on (any value but
/// empty or `0`).
pub const PROFILE_ENV: &str = "PCE_GPU_PROFILE";

/// Launches recorded before their times are read: bounds the events held
/// between reads, and a read stalls the host only once per that many.
pub const RESOLVE_EVERY: usize = 1024;

/// Whether `$PCE_GPU_PROFILE` asks for kernel times.
pub fn requested() -> bool {
    std::env::var(PROFILE_ENV).is_ok_and(|value| !value.is_empty() && value != "0")
}

/// One launch's timing as the device records it, read once it has run.
pub trait Timing {
    /// The launch's time on the device, in milliseconds (waits for it).
    fn millis(&self) -> Result<f64, String>;
}

/// The launches and total device time of one kernel.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct KernelTotal {
    /// Launches timed.
    pub launches: u64,
    /// Their device time, in milliseconds.
    pub millis: f64,
}

/// Every kernel's launches and time, gathered from pending timings.
pub struct KernelTimes<T> {
    pending: Vec<(&'static str, T)>,
    totals: HashMap<&'static str, KernelTotal>,
    /// Timings the device could not give (logged once, counted).
    unread: u64,
}

impl<T: Timing> Default for KernelTimes<T> {
    fn default() -> Self {
        Self {
            pending: Vec::new(),
            totals: HashMap::new(),
            unread: 0,
        }
    }
}

impl<T: Timing> KernelTimes<T> {
    /// Records a launch of `kernel`, to be read later.
    pub fn record(&mut self, kernel: &'static str, timing: T) {
        self.pending.push((kernel, timing));
        if self.pending.len() >= RESOLVE_EVERY {
            self.resolve();
        }
    }

    /// Reads the pending timings into the totals.
    pub fn resolve(&mut self) {
        for (kernel, timing) in std::mem::take(&mut self.pending) {
            match timing.millis() {
                Ok(millis) => {
                    let total = self.totals.entry(kernel).or_default();
                    total.launches += 1;
                    total.millis += millis;
                }
                Err(error) => {
                    if self.unread == 0 {
                        warn!(kernel, %error, "reading a kernel's time on the device");
                    }
                    self.unread += 1;
                }
            }
        }
    }

    /// Every kernel's totals, the largest time first.
    pub fn totals(&mut self) -> Vec<(&'static str, KernelTotal)> {
        self.resolve();
        let mut totals: Vec<_> = self.totals.iter().map(|(&k, &t)| (k, t)).collect();
        totals.sort_by(|a, b| b.1.millis.total_cmp(&a.1.millis).then(a.0.cmp(b.0)));
        totals
    }

    /// Logs [`Self::totals`], one line a kernel.
    pub fn log(&mut self) {
        let totals = self.totals();
        let all: f64 = totals.iter().map(|(_, total)| total.millis).sum();
        for (kernel, total) in totals {
            let (launches, total_ms) = (total.launches, total.millis);
            let mean_ms = total_ms / launches as f64;
            info!(
                kernel,
                launches,
                total_ms = format!("{total_ms:.1}"),
                mean_ms = format!("{mean_ms:.3}"),
                share = format!("{:.1}%", 100.0 * total_ms / all),
                "kernel time on the device"
            );
        }
        if self.unread > 0 {
            warn!(
                unread = self.unread,
                "kernel launches whose time the device did not give"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A timing that counts how often it is read.
    struct Fake<'a> {
        millis: Result<f64, String>,
        reads: &'a Cell<usize>,
    }

    impl Timing for Fake<'_> {
        fn millis(&self) -> Result<f64, String> {
            self.reads.set(self.reads.get() + 1);
            self.millis.clone()
        }
    }

    #[test]
    fn totals_add_up_per_kernel_largest_first() {
        let reads = Cell::new(0);
        let mut times = KernelTimes::default();
        for (kernel, millis) in [("ntt", 1.0), ("msm", 5.0), ("ntt", 2.0), ("sum", 0.5)] {
            let millis = Ok(millis);
            times.record(
                kernel,
                Fake {
                    millis,
                    reads: &reads,
                },
            );
        }
        times.record(
            "msm",
            Fake {
                millis: Err("no time".into()),
                reads: &reads,
            },
        );
        assert_eq!(reads.get(), 0, "nothing is read before it is asked for");
        let totals = times.totals();
        let names: Vec<_> = totals.iter().map(|(kernel, _)| *kernel).collect();
        assert_eq!(names, ["msm", "ntt", "sum"]);
        assert_eq!(
            totals[0].1,
            KernelTotal {
                launches: 1,
                millis: 5.0
            }
        );
        assert_eq!(
            totals[1].1,
            KernelTotal {
                launches: 2,
                millis: 3.0
            }
        );
        assert_eq!(times.unread, 1);
        assert_eq!(reads.get(), 5);
    }

    #[test]
    fn timings_are_read_in_batches() {
        let reads = Cell::new(0);
        let mut times = KernelTimes::default();
        for _ in 0..RESOLVE_EVERY - 1 {
            times.record(
                "k",
                Fake {
                    millis: Ok(1.0),
                    reads: &reads,
                },
            );
        }
        assert_eq!(reads.get(), 0);
        times.record(
            "k",
            Fake {
                millis: Ok(1.0),
                reads: &reads,
            },
        );
        assert_eq!(reads.get(), RESOLVE_EVERY);
        assert!(times.pending.is_empty());
        assert_eq!(times.totals()[0].1.launches, RESOLVE_EVERY as u64);
    }
}
