//! One memory budget for the whole daemon, shared by every worker.
//!
//! `c2 -j` admits partitions against a budget within one run; the daemon
//! runs one job per worker, several at once and of different circuits, so
//! it holds them all to one budget here. Three things hold memory:
//!
//! - what the open devices hold (a GPU's staging buffers), for the
//!   daemon's life;
//! - each loaded circuit (PCE, decoded parameters, NTT tables), admitted
//!   before its parameters are decoded and counted until the last job or
//!   worker holding it lets go, even after it is evicted;
//! - each running job's partitions' working sets
//!   ([`proving_engine::memory`]), reserved before it starts and returned
//!   when it ends.
//!
//! Whoever needs room (a circuit to load, a job to start) and does not fit
//! first has circuits that no job uses evicted, through a callback, since
//! which circuit goes is the caller's policy (least recently used); then it
//! waits for running jobs to return memory, or, where it must not wait,
//! is told there is no room now. It fails at once only if it could not fit
//! even with every other circuit evicted and no job running.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use proving_engine::memory::gib;

/// Why memory could not be had.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// Even with every other circuit evicted and no job running, it does
    /// not fit.
    #[error("the memory budget {} cannot hold it: it needs {} beside {} that stays resident (see docs/memory.md)", gib(*budget), gib(*needed), gib(*resident))]
    TooLarge {
        /// The budget.
        budget: u64,
        /// What was asked for.
        needed: u64,
        /// What the devices and the asker's own circuit hold.
        resident: u64,
    },
    /// The asker was cancelled while it waited.
    #[error("cancelled while waiting for memory")]
    Cancelled,
}

/// Whether an asker waits for memory others hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Until they return it (or the asker is cancelled).
    Yes,
    /// Not at all: between another job's partitions, whose memory cannot
    /// be returned until the asker is done.
    No,
}

/// Evicts one circuit that no job uses, the least recently used, and says
/// whether there was one; what it held stays counted until it is dropped
/// ([`MemoryGate::release`]).
pub type Evict<'a> = &'a mut dyn FnMut() -> bool;

#[derive(Debug, Clone, Copy)]
struct Resident {
    bytes: u64,
    /// Held for the daemon's life (a device's): never freed to make room.
    always: bool,
    /// Evicted, still held by jobs or workers using it.
    draining: bool,
}

#[derive(Debug, Default)]
struct Held {
    resident: HashMap<String, Resident>,
    reserved: u64,
}

impl Held {
    fn sum(&self, which: impl Fn(&Resident) -> bool) -> u64 {
        self.resident
            .values()
            .filter(|r| which(r))
            .map(|r| r.bytes)
            .sum()
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

    /// Bytes resident (devices and circuits, evicted ones still held
    /// included) and reserved by running jobs now.
    pub fn used(&self) -> (u64, u64) {
        let held = self.lock();
        (held.sum(|_| true), held.reserved)
    }

    /// Counts `bytes` as held by `id` for the daemon's life (an open
    /// device's buffers); never freed to make room.
    pub fn hold_always(&self, id: &str, bytes: u64) {
        let always = Resident {
            bytes,
            always: true,
            draining: false,
        };
        self.lock().resident.insert(id.to_owned(), always);
    }

    /// Counts `bytes` as held by the circuit `id` once they fit, evicting
    /// idle circuits and waiting as `wait` says: `false` if they do not fit
    /// now and `wait` is [`Wait::No`].
    pub fn admit(
        &self,
        id: &str,
        bytes: u64,
        wait: Wait,
        cancel: &AtomicBool,
        evict: Evict<'_>,
    ) -> Result<bool, GateError> {
        let Some(mut held) = self.room_for(bytes, None, wait, cancel, evict)? else {
            return Ok(false);
        };
        let circuit = Resident {
            bytes,
            always: false,
            draining: false,
        };
        held.resident.insert(id.to_owned(), circuit);
        Ok(true)
    }

    /// Marks circuit `id` evicted: still counted, but no longer evictable,
    /// until its last holder drops it ([`MemoryGate::release`]); the bytes
    /// it holds.
    pub fn draining(&self, id: &str) -> u64 {
        let mut held = self.lock();
        let Some(circuit) = held.resident.get_mut(id) else {
            return 0;
        };
        circuit.draining = true;
        circuit.bytes
    }

    /// Stops counting circuit `id` (dropped); returns what it held.
    pub fn release(&self, id: &str) -> u64 {
        let freed = self.lock().resident.remove(id).map_or(0, |r| r.bytes);
        self.freed.notify_all();
        freed
    }

    /// Reserves `bytes` for a job whose circuit is `own` (counted as
    /// resident, never evicted for it), evicting idle circuits and waiting
    /// as `wait` says: `None` if they do not fit now and `wait` is
    /// [`Wait::No`].
    pub fn reserve(
        &self,
        bytes: u64,
        own: &str,
        wait: Wait,
        cancel: &AtomicBool,
        evict: Evict<'_>,
    ) -> Result<Option<Reservation<'_>>, GateError> {
        let Some(mut held) = self.room_for(bytes, Some(own), wait, cancel, evict)? else {
            return Ok(None);
        };
        held.reserved += bytes;
        Ok(Some(Reservation { gate: self, bytes }))
    }

    /// The lock, once `bytes` more fit in the budget; `None` if they do not
    /// and `wait` is [`Wait::No`].
    fn room_for(
        &self,
        bytes: u64,
        own: Option<&str>,
        wait: Wait,
        cancel: &AtomicBool,
        evict: Evict<'_>,
    ) -> Result<Option<MutexGuard<'_, Held>>, GateError> {
        let mut held = self.lock();
        loop {
            let resident = held.sum(|_| true);
            if resident + held.reserved + bytes <= self.budget {
                return Ok(Some(held));
            }
            let own_bytes = own
                .and_then(|id| held.resident.get(id))
                .map_or(0, |r| r.bytes);
            let floor = held.sum(|r| r.always) + own_bytes;
            if floor + bytes > self.budget {
                return Err(GateError::TooLarge {
                    budget: self.budget,
                    needed: bytes,
                    resident: floor,
                });
            }
            // Evicted circuits leave once their holders let go (an idle
            // worker at once): evict more only if they will not be enough.
            let draining = held.sum(|r| r.draining);
            if resident - draining + held.reserved + bytes > self.budget {
                drop(held);
                let evicted = evict();
                held = self.lock();
                if evicted {
                    continue;
                }
            }
            if wait == Wait::No {
                return Ok(None);
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

    static NEVER: AtomicBool = AtomicBool::new(false);

    fn nothing_to_evict() -> bool {
        false
    }

    #[test]
    fn a_job_waits_for_room_and_a_job_too_large_fails_at_once() {
        let gate = Arc::new(MemoryGate::new(100));
        gate.hold_always("device 0", 10);
        assert!(gate
            .admit("porep-2k#0", 30, Wait::Yes, &NEVER, &mut nothing_to_evict)
            .unwrap());
        assert!(matches!(
            gate.reserve(61, "porep-2k#0", Wait::Yes, &NEVER, &mut nothing_to_evict),
            Err(GateError::TooLarge {
                needed: 61,
                resident: 40,
                ..
            })
        ));
        let first = gate
            .reserve(50, "porep-2k#0", Wait::Yes, &NEVER, &mut nothing_to_evict)
            .unwrap()
            .unwrap();
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || {
                gate.reserve(30, "porep-2k#0", Wait::Yes, &NEVER, &mut nothing_to_evict)
                    .map(|r| r.unwrap().bytes())
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
        gate.hold_always("device 0", 10);
        let evict = &mut nothing_to_evict;
        assert!(matches!(
            gate.reserve(91, "winning-2k#0", Wait::No, &NEVER, evict),
            Err(GateError::TooLarge { needed: 91, .. })
        ));
        let held = gate
            .reserve(60, "winning-2k#0", Wait::No, &NEVER, evict)
            .unwrap()
            .unwrap();
        assert!(gate
            .reserve(31, "winning-2k#0", Wait::No, &NEVER, evict)
            .unwrap()
            .is_none());
        assert!(!gate
            .admit("snap-2k#1", 31, Wait::No, &NEVER, evict)
            .unwrap());
        assert_eq!(
            gate.reserve(30, "winning-2k#0", Wait::No, &NEVER, evict)
                .unwrap()
                .unwrap()
                .bytes(),
            30
        );
        drop(held);
        assert_eq!(gate.used(), (10, 0));
    }

    #[test]
    fn idle_circuits_are_evicted_only_as_far_as_needed_and_counted_until_released() {
        let gate = MemoryGate::new(100);
        for (id, bytes) in [("a#0", 30), ("b#1", 30), ("c#2", 30)] {
            assert!(gate
                .admit(id, bytes, Wait::Yes, &NEVER, &mut nothing_to_evict)
                .unwrap());
        }
        // The caller's policy picks the victims, in this order; "a" is
        // dropped at once, "b" is still held by an idle worker.
        let mut victims = vec!["b#1", "a#0"];
        let evicted = std::cell::RefCell::new(Vec::new());
        let mut evict = || match victims.pop() {
            Some(id) => {
                gate.draining(id);
                if id == "a#0" {
                    gate.release(id);
                }
                evicted.borrow_mut().push(id);
                true
            }
            None => false,
        };
        // 40 fit once "a" goes: "b" stays.
        let reservation = gate
            .reserve(40, "c#2", Wait::No, &NEVER, &mut evict)
            .unwrap()
            .unwrap();
        assert_eq!(gate.used(), (60, 40));
        // 30 more need "b" too, which is still held: no room now, and
        // nothing more is evicted for it.
        assert!(gate
            .reserve(30, "c#2", Wait::No, &NEVER, &mut evict)
            .unwrap()
            .is_none());
        assert_eq!(*evicted.borrow(), ["a#0", "b#1"]);
        assert!(
            gate.reserve(30, "c#2", Wait::No, &NEVER, &mut evict)
                .unwrap()
                .is_none(),
            "draining bytes are not free yet"
        );
        assert_eq!(gate.release("b#1"), 30);
        assert!(gate
            .reserve(30, "c#2", Wait::No, &NEVER, &mut evict)
            .unwrap()
            .is_some());
        drop(reservation);
    }

    #[test]
    fn a_waiter_gets_the_memory_of_a_circuit_released_meanwhile() {
        let gate = Arc::new(MemoryGate::new(100));
        assert!(gate
            .admit("porep-2k#0", 80, Wait::Yes, &NEVER, &mut nothing_to_evict)
            .unwrap());
        gate.draining("porep-2k#0");
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || {
                gate.admit("snap-2k#1", 50, Wait::Yes, &NEVER, &mut nothing_to_evict)
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !waiter.is_finished(),
            "it waits for the evicted circuit's holders"
        );
        gate.release("porep-2k#0");
        assert!(waiter.join().unwrap().unwrap());
        assert_eq!(gate.used(), (50, 0));
    }

    #[test]
    fn a_cancelled_job_stops_waiting() {
        let gate = MemoryGate::new(100);
        let _held = gate
            .reserve(90, "x#0", Wait::Yes, &NEVER, &mut nothing_to_evict)
            .unwrap();
        let cancelled = AtomicBool::new(true);
        assert!(matches!(
            gate.reserve(20, "x#0", Wait::Yes, &cancelled, &mut nothing_to_evict),
            Err(GateError::Cancelled)
        ));
    }
}
