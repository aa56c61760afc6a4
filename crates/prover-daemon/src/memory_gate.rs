//! One memory budget for the whole daemon, shared by every worker.
//!
//! `c2 -j` admits partitions against a budget within one run; the daemon
//! runs one job per worker, several at once and of different circuits, so
//! it holds them all to one budget here: the loaded circuits (PCE, decoded
//! parameters, NTT tables) are resident, and each running job reserves its
//! partitions' working sets ([`proving_engine::memory`]) before it starts
//! and returns them when it ends. A job waits while the others' reservations
//! leave it no room, and fails at once if it would not fit even alone.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use proving_engine::memory::gib;

/// Why a job could not have its memory.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// Even with no other job running, the job does not fit.
    #[error("the memory budget {} cannot hold this job: it needs {} with {} resident (see docs/memory.md)", gib(*budget), gib(*needed), gib(*resident))]
    TooLarge {
        /// The budget.
        budget: u64,
        /// The job's reservation.
        needed: u64,
        /// What loaded circuits hold.
        resident: u64,
    },
    /// The job was cancelled while it waited.
    #[error("cancelled while waiting for memory")]
    Cancelled,
}

#[derive(Debug, Default)]
struct Held {
    resident: HashMap<String, u64>,
    reserved: u64,
}

impl Held {
    fn resident(&self) -> u64 {
        self.resident.values().sum()
    }
}

/// The daemon's budget and what holds it.
#[derive(Debug)]
pub struct MemoryGate {
    budget: u64,
    held: Mutex<Held>,
    freed: Condvar,
}

/// A running job's memory; returned when dropped.
#[derive(Debug)]
pub struct Reservation<'a> {
    gate: &'a MemoryGate,
    bytes: u64,
}

impl Reservation<'_> {
    /// The bytes reserved.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl MemoryGate {
    /// A gate over `budget` bytes.
    pub fn new(budget: u64) -> Self {
        Self {
            budget,
            held: Mutex::new(Held::default()),
            freed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The budget, bytes.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// Bytes resident and reserved now.
    pub fn used(&self) -> (u64, u64) {
        let held = self.lock();
        (held.resident(), held.reserved)
    }

    /// Counts `bytes` as held by the loaded circuit `id` (replacing what it
    /// held before).
    pub fn set_resident(&self, id: &str, bytes: u64) {
        self.lock().resident.insert(id.to_owned(), bytes);
    }

    /// Stops counting circuit `id` (evicted); returns what it held.
    pub fn drop_resident(&self, id: &str) -> u64 {
        let freed = self.lock().resident.remove(id).unwrap_or(0);
        self.freed.notify_all();
        freed
    }

    /// Reserves `bytes`, waiting for other jobs to return theirs; gives up
    /// when `cancel` is set.
    pub fn reserve(&self, bytes: u64, cancel: &AtomicBool) -> Result<Reservation<'_>, GateError> {
        let mut held = self.lock();
        loop {
            if let Some(reservation) = self.reserve_held(&mut held, bytes)? {
                return Ok(reservation);
            }
            if cancel.load(Ordering::Relaxed) {
                return Err(GateError::Cancelled);
            }
            held = self
                .freed
                .wait_timeout(held, Duration::from_millis(200))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Reserves `bytes` if they fit now; `None` if other jobs' memory
    /// leaves no room for them.
    pub fn try_reserve(&self, bytes: u64) -> Result<Option<Reservation<'_>>, GateError> {
        self.reserve_held(&mut self.lock(), bytes)
    }

    fn reserve_held(
        &self,
        held: &mut Held,
        bytes: u64,
    ) -> Result<Option<Reservation<'_>>, GateError> {
        let resident = held.resident();
        if resident + bytes > self.budget && held.reserved == 0 {
            return Err(GateError::TooLarge {
                budget: self.budget,
                needed: bytes,
                resident,
            });
        }
        if resident + held.reserved + bytes > self.budget {
            return Ok(None);
        }
        held.reserved += bytes;
        Ok(Some(Reservation { gate: self, bytes }))
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.gate.lock().reserved -= self.bytes;
        self.gate.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_job_waits_for_room_and_a_job_too_large_fails_at_once() {
        let gate = Arc::new(MemoryGate::new(100));
        let never = AtomicBool::new(false);
        gate.set_resident("porep-2k", 40);
        assert!(matches!(
            gate.reserve(61, &never),
            Err(GateError::TooLarge { needed: 61, .. })
        ));
        let first = gate.reserve(50, &never).unwrap();
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || {
                gate.reserve(30, &AtomicBool::new(false))
                    .map(|r| r.bytes())
                    .ok()
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(gate.used(), (40, 50));
        drop(first);
        assert_eq!(waiter.join().unwrap(), Some(30));
        assert_eq!(gate.used(), (40, 0));
    }

    #[test]
    fn a_job_that_must_not_wait_is_told_when_there_is_no_room() {
        let gate = MemoryGate::new(100);
        gate.set_resident("winning-2k", 10);
        assert!(matches!(
            gate.try_reserve(91),
            Err(GateError::TooLarge { needed: 91, .. })
        ));
        let held = gate.try_reserve(60).unwrap().unwrap();
        assert!(gate.try_reserve(31).unwrap().is_none(), "no room now");
        assert_eq!(gate.try_reserve(30).unwrap().unwrap().bytes(), 30);
        drop(held);
        assert_eq!(gate.used(), (10, 0));
    }

    #[test]
    fn a_cancelled_job_stops_waiting() {
        let gate = MemoryGate::new(100);
        let _held = gate.reserve(90, &AtomicBool::new(false)).unwrap();
        let cancelled = AtomicBool::new(true);
        assert!(matches!(
            gate.reserve(20, &cancelled),
            Err(GateError::Cancelled)
        ));
    }
}
