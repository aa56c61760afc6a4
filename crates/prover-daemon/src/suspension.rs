//! A device whose set-up fails takes no job for a while.
//!
//! Setting a circuit up on a device (on a GPU, uploading its bases) fails
//! for the device's sake, not the job's: a GPU whose driver faults fails
//! every set-up in milliseconds. Its worker would claim the queue's jobs
//! one after another and fail them all while the healthy devices sit idle.
//! So each failure in a row suspends the device: 60 s, doubled with each
//! further failure, at most 15 minutes; a set-up that succeeds ends it.
//! Meanwhile the other devices prove the queue, and on a machine of one
//! device, the jobs wait instead of failing by the dozen.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The first suspension.
const FIRST: Duration = Duration::from_secs(60);
/// The longest.
const LONGEST: Duration = Duration::from_secs(15 * 60);

/// A device's set-up failures in a row, and until when it is suspended.
#[derive(Debug, Default)]
pub struct Suspension {
    failures: AtomicU32,
    until: Mutex<Option<Instant>>,
}

impl Suspension {
    /// Records a set-up that succeeded: the device is well again.
    pub fn succeeded(&self) {
        self.failures.store(0, Ordering::Relaxed);
        *self.lock() = None;
    }

    /// Records a set-up that failed; how long the device is now suspended.
    pub fn failed(&self) -> Duration {
        let failures = self.failures.fetch_add(1, Ordering::Relaxed) + 1;
        let pause = pause_after(failures);
        *self.lock() = Some(Instant::now() + pause);
        pause
    }

    /// How long the device stays suspended from now; `None` if it is not.
    pub fn remaining(&self) -> Option<Duration> {
        let until = (*self.lock())?;
        let left = until.saturating_duration_since(Instant::now());
        (!left.is_zero()).then_some(left)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        // Every update is one assignment: a poisoned lock holds a whole value.
        self.until.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The suspension after `failures` failures in a row.
fn pause_after(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    FIRST.saturating_mul(1 << doublings).min(LONGEST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_in_a_row_suspend_longer_and_a_success_ends_it() {
        let pauses: Vec<u64> = (1..=6).map(|n| pause_after(n).as_secs()).collect();
        assert_eq!(pauses, [60, 120, 240, 480, 900, 900]);
        assert_eq!(pause_after(u32::MAX).as_secs(), 900);
        let device = Suspension::default();
        assert_eq!(device.remaining(), None);
        assert_eq!(device.failed().as_secs(), 60);
        assert_eq!(device.failed().as_secs(), 120);
        assert!(device.remaining().unwrap() > Duration::from_secs(100));
        device.succeeded();
        assert_eq!(device.remaining(), None);
        assert_eq!(device.failed().as_secs(), 60);
    }
}
