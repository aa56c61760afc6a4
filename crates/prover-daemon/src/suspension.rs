//! A device that fails takes no job for a while.
//!
//! Setting a circuit up on a device (on a GPU, uploading its bases) fails
//! for the device's sake, not the job's: a GPU whose driver faults fails
//! every set-up in milliseconds. So does a partition on a device that
//! faults after its set-up (an NTT or MSM that returns an error, a proof
//! that does not verify from a witness that holds), when no fallback
//! backend proves it. The device's worker would claim the queue's jobs one
//! after another and fail them all while the healthy devices sit idle. So
//! each failure in a row suspends the device: for the daemon's
//! `suspend_failing_device_seconds` (60 by default; 0: never), doubled
//! with each further failure, at most 15 minutes. A job that succeeds on
//! the device ends it; a set-up alone does not, or a device whose set-up
//! works and whose partitions fail would never rest longer. Meanwhile the other devices prove the queue, and on a machine
//! of one device, the jobs wait instead of failing by the dozen. A
//! partition that a fallback proves does not count: its job succeeds, and
//! resting the device would only delay the queue.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The longest suspension, unless the first is longer.
const LONGEST: Duration = Duration::from_secs(15 * 60);

/// A device's failures, and until when it is suspended.
#[derive(Debug)]
pub struct Suspension {
    first: Duration,
    state: Mutex<State>,
}

/// What [`Suspension`] keeps, changed together under its lock.
#[derive(Debug, Default)]
struct State {
    /// Failures in a row.
    in_a_row: u32,
    /// Failures since start.
    total: u64,
    /// The end of the suspension, if one was set.
    until: Option<Instant>,
}

impl Suspension {
    /// A device suspended for `first` after a failure, twice as long after
    /// each further failure in a row (at most 15 minutes, or `first` if
    /// longer); never, if `first` is zero.
    pub fn new(first: Duration) -> Self {
        Self {
            first,
            state: Mutex::default(),
        }
    }

    /// Records a job that succeeded on the device, having started when
    /// [`Self::failures_total`] was `mark`: the device is well again,
    /// unless it failed meanwhile (another job on it: that failure
    /// stands).
    pub fn succeeded_since(&self, mark: u64) {
        let mut state = self.lock();
        if state.total == mark {
            state.in_a_row = 0;
            state.until = None;
        }
    }

    /// Records a set-up or a partition that failed on the device; how long
    /// the device is now suspended.
    pub fn failed(&self) -> Duration {
        let mut state = self.lock();
        state.total += 1;
        state.in_a_row = state.in_a_row.saturating_add(1);
        let pause = pause_after(self.first, state.in_a_row);
        if !pause.is_zero() {
            // The configuration caps the first pause at a day: no overflow.
            state.until = Instant::now().checked_add(pause);
        }
        pause
    }

    /// How long the device stays suspended from now; `None` if it is not.
    pub fn remaining(&self) -> Option<Duration> {
        let until = self.lock().until?;
        let left = until.saturating_duration_since(Instant::now());
        (!left.is_zero()).then_some(left)
    }

    /// Failures since the daemon started, in a row or not.
    pub fn failures_total(&self) -> u64 {
        self.lock().total
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update leaves a whole state: a poisoned lock holds one.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The suspension after `failures` failures in a row, the first `first`.
fn pause_after(first: Duration, failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    first.saturating_mul(1 << doublings).min(LONGEST.max(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_in_a_row_suspend_longer_and_a_success_ends_it() {
        let minute = Duration::from_secs(60);
        let pauses: Vec<u64> = (1..=6).map(|n| pause_after(minute, n).as_secs()).collect();
        assert_eq!(pauses, [60, 120, 240, 480, 900, 900]);
        assert_eq!(pause_after(minute, u32::MAX).as_secs(), 900);
        let hour = Duration::from_secs(3600);
        assert_eq!(
            pause_after(hour, 3),
            hour,
            "a first pause above 15 minutes is the longest"
        );
        let device = Suspension::new(minute);
        assert_eq!(device.remaining(), None);
        assert_eq!(device.failed().as_secs(), 60);
        assert_eq!(device.failed().as_secs(), 120);
        assert!(device.remaining().unwrap() > Duration::from_secs(100));
        // A job that started before the last failure does not end it.
        device.succeeded_since(1);
        assert!(device.remaining().is_some());
        assert_eq!(device.failed().as_secs(), 240);
        device.succeeded_since(device.failures_total());
        assert_eq!(device.remaining(), None);
        assert_eq!(device.failed().as_secs(), 60);
        assert_eq!(device.failures_total(), 4);

        let never = Suspension::new(Duration::ZERO);
        assert_eq!(never.failed(), Duration::ZERO);
        assert_eq!(never.failed(), Duration::ZERO);
        assert_eq!(never.remaining(), None, "0: never suspended");
    }
}
