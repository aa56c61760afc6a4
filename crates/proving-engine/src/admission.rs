//! Admission control: a semaphore over partitions in flight.
//!
//! A partition is admitted before its witness is generated and released
//! when its proof is done. At most `slots` partitions are in flight at
//! once; the slot count is what the memory budget admits under the model
//! of [`crate::memory`], capped by how far witness generation may run
//! ahead of the provers. One reservation per partition, taken in order and
//! never while holding another, cannot deadlock.

use std::sync::{Condvar, Mutex};

/// Counts partitions in flight against a limit.
#[derive(Debug)]
pub struct Admission {
    slots: usize,
    state: Mutex<State>,
    freed: Condvar,
}

#[derive(Debug, Default)]
struct State {
    in_flight: usize,
    peak: usize,
}

/// A partition's admission; dropping it frees the slot.
#[derive(Debug)]
pub struct Permit<'a> {
    admission: &'a Admission,
}

impl Admission {
    /// Admits at most `slots` (at least one) partitions at once.
    pub fn new(slots: usize) -> Self {
        Self {
            slots: slots.max(1),
            state: Mutex::new(State::default()),
            freed: Condvar::new(),
        }
    }

    /// Waits for a free slot and takes it.
    pub fn admit(&self) -> Permit<'_> {
        let mut state = self.state.lock().expect("admission state poisoned");
        while state.in_flight >= self.slots {
            state = self.freed.wait(state).expect("admission state poisoned");
        }
        state.in_flight += 1;
        state.peak = state.peak.max(state.in_flight);
        Permit { admission: self }
    }

    /// The limit.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The most partitions that were in flight at once.
    pub fn peak(&self) -> usize {
        self.state.lock().expect("admission state poisoned").peak
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut state = self
            .admission
            .state
            .lock()
            .expect("admission state poisoned");
        state.in_flight -= 1;
        self.admission.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::Admission;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn never_more_than_the_slots_are_in_flight() {
        let admission = Admission::new(2);
        let current = AtomicUsize::new(0);
        let worst = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..6 {
                scope.spawn(|| {
                    let _permit = admission.admit();
                    let now = current.fetch_add(1, Ordering::SeqCst) + 1;
                    worst.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                    current.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        assert_eq!(worst.load(Ordering::SeqCst), 2);
        assert_eq!(admission.peak(), 2);
    }

    #[test]
    fn zero_slots_still_admit_one() {
        let admission = Admission::new(0);
        let first = admission.admit();
        drop(first);
        let _second = admission.admit();
        assert_eq!(admission.slots(), 1);
    }
}
