//! One memory budget for the whole daemon, shared by every worker.
//!
//! `c2 -j` admits partitions against a budget within one run; the daemon
//! runs one job per worker, several at once and of different circuits, so
//! it holds them all to one budget here. Three things hold memory:
//!
//! - what the open devices hold (a GPU's staging buffers), for the
//!   daemon's life;
//! - each loaded circuit (PCE, decoded parameters, NTT tables), admitted
//!   before it is read (for what its files' headers say it will hold,
//!   corrected once it is loaded) and counted until the last job or
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
//!
//! Those that wait line up ([`MemoryGate::line_up`]) and are served in
//! order, the most urgent first, then by arrival: only the first may evict
//! or take memory. Otherwise two jobs whose circuits do not fit together
//! could evict each other's circuit in turn for ever, each eviction a
//! reload; and a WinningPoSt whose few GiB fit would wait behind a sealing
//! job waiting for tens.

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap};
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
    /// The asker's own circuit was evicted while it waited (to make room
    /// for whoever was first in line): it must let go of it and load it
    /// again.
    #[error("its circuit was evicted while it waited for memory")]
    OwnCircuitEvicted,
}

/// Whether an asker waits for memory others hold.
#[derive(Debug, Clone, Copy)]
pub enum Wait<'a> {
    /// Until they return it (or the asker is cancelled), in its place in
    /// line.
    Yes(&'a Ticket<'a>),
    /// Not at all: between another job's partitions, whose memory cannot
    /// be returned until the asker is done.
    No,
}

/// A place in the line of those waiting for memory: it orders a job's
/// waits (for its circuit, then for its own memory) among others', and it
/// counts in line only while it waits, so that one blocked elsewhere
/// (behind another caller's load of the same circuit) holds no one up.
#[derive(Debug)]
pub struct Ticket<'a> {
    gate: &'a MemoryGate,
    place: Place,
}

/// The order of the line: urgency (higher first), then arrival.
type Place = (Reverse<u8>, u64);

/// A ticket in line while its holder waits; out of it when dropped,
/// panics included.
struct InLine<'a> {
    gate: &'a MemoryGate,
    /// The ticket's place as issued (it may have been raised since).
    place: Place,
}

impl Drop for InLine<'_> {
    fn drop(&mut self) {
        let mut held = self.gate.lock();
        let place = held.place_of(self.place);
        held.line.remove(&place);
        drop(held);
        self.gate.freed.notify_all();
    }
}

impl Ticket<'_> {
    /// Its number, for [`MemoryGate::raise`].
    pub fn number(&self) -> u64 {
        self.place.1
    }

    /// The urgency it was issued with.
    pub fn urgency(&self) -> u8 {
        self.place.0 .0
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        self.gate.lock().raised.remove(&self.place.1);
    }
}

/// What an asker wants: `bytes` now, `then` more later (the least a job of
/// a circuit to load needs), beside its own circuit `own` (never evicted
/// for it), waiting as `wait` says until `cancel` is set.
#[derive(Clone, Copy)]
struct Ask<'a> {
    bytes: u64,
    then: u64,
    own: Option<&'a str>,
    wait: Wait<'a>,
    cancel: &'a AtomicBool,
}

/// How an asker makes room by evicting circuits no job uses: the caller's
/// policy (least recently used first).
pub trait Evictor {
    /// Evicts one; whether there was one. What it held stays counted until
    /// it is dropped ([`MemoryGate::release`]).
    fn evict_one(&mut self) -> bool;

    /// The most that evicting could free at once (circuits nothing else
    /// holds). An asker that does not wait evicts nothing unless that is
    /// enough.
    fn free_at_once(&self) -> u64;
}

/// A closure that evicts one circuit, with no knowledge of what that frees.
impl<F: FnMut() -> bool> Evictor for F {
    fn evict_one(&mut self) -> bool {
        self()
    }

    fn free_at_once(&self) -> u64 {
        u64::MAX
    }
}

/// See [`Evictor`].
pub type Evict<'a> = &'a mut dyn Evictor;

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
    /// Tickets of those waiting, in order.
    line: BTreeSet<Place>,
    next_ticket: u64,
    /// Urgencies tickets were raised to ([`MemoryGate::raise`]), by number.
    raised: HashMap<u64, u8>,
}

impl Held {
    /// Where the ticket issued at `place` stands: raised, if it was.
    fn place_of(&self, place: Place) -> Place {
        match self.raised.get(&place.1) {
            Some(&urgency) if urgency > place.0 .0 => (Reverse(urgency), place.1),
            _ => place,
        }
    }

    fn sum(&self, which: impl Fn(&Resident) -> bool) -> u64 {
        self.resident
            .values()
            .filter(|r| which(r))
            .map(|r| r.bytes)
            .fold(0, u64::saturating_add)
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

    /// A place in line, for calls that wait ([`Wait::Yes`]); one for all
    /// the memory a job waits for (its circuit's and its own). Of those
    /// waiting, the most `urgent` is served first, then the earliest.
    pub fn line_up(&self, urgency: u8) -> Ticket<'_> {
        let mut held = self.lock();
        let number = held.next_ticket;
        held.next_ticket += 1;
        Ticket {
            gate: self,
            place: (Reverse(urgency), number),
        }
    }

    /// Raises ticket `number` to `urgency`, if it is less urgent: what a
    /// more urgent caller does to the ticket of the load it waits behind
    /// (a circuit's load waiting for memory at its loader's urgency), so
    /// that the load is served as soon as that caller would be.
    pub fn raise(&self, number: u64, urgency: u8) {
        let mut held = self.lock();
        let raised = held.raised.entry(number).or_insert(urgency);
        *raised = (*raised).max(urgency);
        // In line now, it moves up; if not, it lines up raised (until
        // `lower`, or the ticket's drop).
        let waiting = held.line.iter().copied().find(|place| place.1 == number);
        if let Some(place) = waiting.filter(|place| urgency > place.0 .0) {
            held.line.remove(&place);
            held.line.insert((Reverse(urgency), number));
            drop(held);
            self.freed.notify_all();
        }
    }

    /// Undoes [`Self::raise`] for ticket `number`, not in line now (its
    /// next wait lines up at its own urgency).
    pub fn lower(&self, number: u64) {
        let mut held = self.lock();
        let waiting = held.line.iter().any(|place| place.1 == number);
        debug_assert!(!waiting, "lowered while in line");
        if !waiting {
            held.raised.remove(&number);
        }
    }

    /// Whether anyone waits for memory now.
    pub fn anyone_waiting(&self) -> bool {
        !self.lock().line.is_empty()
    }

    /// The most a job of circuit `own` could ever reserve: the budget less
    /// what the devices and `own` hold (every other circuit evicted, no
    /// other job running).
    pub fn most_beside(&self, own: &str) -> u64 {
        let held = self.lock();
        let own = held.resident.get(own).map_or(0, |circuit| circuit.bytes);
        self.budget
            .saturating_sub(held.sum(|r| r.always).saturating_add(own))
    }

    /// Whether `bytes` more fit now, without evicting anything.
    pub fn fits_now(&self, bytes: u64) -> bool {
        let held = self.lock();
        held.sum(|_| true)
            .saturating_add(held.reserved)
            .saturating_add(bytes)
            <= self.budget
    }

    /// Counts `bytes` in all as held by the circuit `id` once they fit,
    /// evicting idle circuits and waiting as `wait` says: `false`, with
    /// what `id` held before still counted, if they do not fit now and
    /// `wait` is [`Wait::No`]. A circuit already counted (for what
    /// its files said it would hold, corrected once it is loaded) asks
    /// only for the difference, and may shrink. Fails at once if they would
    /// not fit with `then` more (the least a job of the circuit needs) even
    /// with every other circuit evicted.
    pub fn admit(
        &self,
        id: &str,
        bytes: u64,
        then: u64,
        wait: Wait<'_>,
        cancel: &AtomicBool,
        evict: Evict<'_>,
    ) -> Result<bool, GateError> {
        let had = self.lock().resident.get(id).map(|circuit| circuit.bytes);
        let ask = Ask {
            bytes: bytes.saturating_sub(had.unwrap_or(0)),
            then,
            // Beside what it holds already, never evicted for itself.
            own: had.map(|_| id),
            wait,
            cancel,
        };
        let Some(mut held) = self.room_for(&ask, evict)? else {
            return Ok(false);
        };
        let circuit = Resident {
            bytes,
            always: false,
            draining: false,
        };
        held.resident.insert(id.to_owned(), circuit);
        // It may have shrunk.
        self.freed.notify_all();
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
        let bytes = circuit.bytes;
        // A waiter whose own circuit this is hears it now.
        self.freed.notify_all();
        bytes
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
        wait: Wait<'_>,
        cancel: &AtomicBool,
        evict: Evict<'_>,
    ) -> Result<Option<Reservation<'_>>, GateError> {
        let ask = Ask {
            bytes,
            then: 0,
            own: Some(own),
            wait,
            cancel,
        };
        let Some(mut held) = self.room_for(&ask, evict)? else {
            return Ok(None);
        };
        held.reserved += bytes;
        Ok(Some(Reservation { gate: self, bytes }))
    }

    /// The lock, once the asked bytes fit in the budget; `None` if they do
    /// not and the asker does not wait.
    fn room_for(
        &self,
        ask: &Ask<'_>,
        evict: Evict<'_>,
    ) -> Result<Option<MutexGuard<'_, Held>>, GateError> {
        let in_line = match ask.wait {
            Wait::Yes(ticket) => {
                debug_assert!(std::ptr::eq(ticket.gate, self), "another gate's ticket");
                let mut held = self.lock();
                let place = held.place_of(ticket.place);
                held.line.insert(place);
                Some(InLine {
                    gate: self,
                    place: ticket.place,
                })
            }
            Wait::No => None,
        };
        let (mut held, room) = self.wait_for_room(self.lock(), ask, evict);
        if let Some(in_line) = in_line {
            // Out of line under the lock held for the caller (where it
            // stands: it may have been raised).
            let place = held.place_of(in_line.place);
            held.line.remove(&place);
            self.freed.notify_all();
            std::mem::forget(in_line);
        }
        match room {
            Ok(true) => Ok(Some(held)),
            Ok(false) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Waits, from `held`, until the asked bytes fit (`true`), or, for
    /// [`Wait::No`], until it is clear they do not now (`false`); the lock
    /// back with the answer.
    fn wait_for_room<'g>(
        &'g self,
        mut held: MutexGuard<'g, Held>,
        ask: &Ask<'_>,
        evict: Evict<'_>,
    ) -> (MutexGuard<'g, Held>, Result<bool, GateError>) {
        let Ask {
            bytes,
            then,
            own,
            wait,
            cancel,
        } = *ask;
        loop {
            // Checked first: one cancelled while it waited takes nothing,
            // even if what it asked for fits now.
            if cancel.load(Ordering::Relaxed) {
                return (held, Err(GateError::Cancelled));
            }
            let own_circuit = own.map(|id| held.resident.get(id).copied());
            if own_circuit.is_some_and(|own| own.is_none_or(|circuit| circuit.draining)) {
                return (held, Err(GateError::OwnCircuitEvicted));
            }
            let own_bytes = own_circuit.flatten().map_or(0, |circuit| circuit.bytes);
            // Saturating: sizes come from files' headers and plugins, and
            // an absurd one must be refused, not wrap around into a fit.
            let floor = held.sum(|r| r.always).saturating_add(own_bytes);
            let needed = bytes.saturating_add(then);
            if floor.saturating_add(needed) > self.budget {
                let too_large = GateError::TooLarge {
                    budget: self.budget,
                    needed,
                    resident: floor,
                };
                return (held, Err(too_large));
            }
            let first_in_line = match wait {
                Wait::Yes(ticket) => held.line.first() == Some(&held.place_of(ticket.place)),
                Wait::No => true,
            };
            if first_in_line {
                let resident = held.sum(|_| true);
                let wanted = held.reserved.saturating_add(bytes);
                if resident.saturating_add(wanted) <= self.budget {
                    return (held, Ok(true));
                }
                // Evicted circuits leave once their holders let go (an
                // idle worker at once): evict more only if they will not
                // be enough.
                let draining = held.sum(|r| r.draining);
                let short = (resident - draining)
                    .saturating_add(wanted)
                    .saturating_sub(self.budget);
                // Evicting for one that does not wait is worth it only if
                // it makes room now.
                let worth_it = matches!(wait, Wait::Yes(_)) || evict.free_at_once() >= short;
                if short > 0 && worth_it {
                    drop(held);
                    let evicted = evict.evict_one();
                    held = self.lock();
                    if evicted {
                        continue;
                    }
                }
            }
            if matches!(wait, Wait::No) {
                return (held, Ok(false));
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

    /// Admits circuit `id` of `bytes`, waiting.
    fn load(gate: &MemoryGate, id: &str, bytes: u64) {
        assert!(admit(gate, id, bytes, 0).unwrap());
    }

    /// Admits circuit `id` at `bytes` in all, with `then` more for its
    /// jobs, waiting.
    fn admit(gate: &MemoryGate, id: &str, bytes: u64, then: u64) -> Result<bool, GateError> {
        let ticket = gate.line_up(0);
        let wait = Wait::Yes(&ticket);
        gate.admit(id, bytes, then, wait, &NEVER, &mut nothing_to_evict)
    }

    /// Reserves `bytes` for a job of circuit `own`, waiting.
    fn reserve<'g>(
        gate: &'g MemoryGate,
        own: &str,
        bytes: u64,
    ) -> Result<Reservation<'g>, GateError> {
        let ticket = gate.line_up(0);
        let reserved = gate.reserve(
            bytes,
            own,
            Wait::Yes(&ticket),
            &NEVER,
            &mut nothing_to_evict,
        );
        reserved.map(|r| r.expect("a waiter gets memory or an error"))
    }

    #[test]
    fn a_job_waits_for_room_and_a_job_too_large_fails_at_once() {
        let gate = Arc::new(MemoryGate::new(100));
        gate.hold_always("device 0", 10);
        load(&gate, "porep-2k#0", 30);
        assert!(matches!(
            reserve(&gate, "porep-2k#0", 61),
            Err(GateError::TooLarge {
                needed: 61,
                resident: 40,
                ..
            })
        ));
        // The most it could ever have, whatever other jobs hold now.
        assert_eq!(gate.most_beside("porep-2k#0"), 60);
        let first = reserve(&gate, "porep-2k#0", 50).unwrap();
        assert_eq!(gate.most_beside("porep-2k#0"), 60);
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || reserve(&gate, "porep-2k#0", 30).map(|r| r.bytes()).ok())
        };
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(gate.used(), (40, 50));
        drop(first);
        assert_eq!(waiter.join().unwrap(), Some(30));
        assert_eq!(gate.used(), (40, 0));
    }

    #[test]
    fn a_circuit_admitted_for_its_pce_grows_once_the_rest_fits() {
        let gate = Arc::new(MemoryGate::new(100));
        load(&gate, "snap-2k#0", 30);
        let first = reserve(&gate, "snap-2k#0", 40).unwrap();
        load(&gate, "porep-2k#1", 10);
        // Its own 10 count towards what could never fit.
        let refused = admit(&gate, "porep-2k#1", 60, 41);
        let too_large = GateError::TooLarge {
            needed: 91,
            resident: 10,
            budget: 100,
        };
        assert_eq!(refused.unwrap_err().to_string(), too_large.to_string());
        // 20 free now: one that does not wait keeps its 10 and no more.
        let now = gate.admit("porep-2k#1", 40, 0, Wait::No, &NEVER, &mut nothing_to_evict);
        assert!(!now.unwrap());
        assert_eq!(gate.used(), (40, 40));
        let grower = {
            let gate = gate.clone();
            std::thread::spawn(move || admit(&gate, "porep-2k#1", 40, 0).unwrap())
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!grower.is_finished(), "30 more do not fit beside the job");
        drop(first);
        assert!(grower.join().unwrap());
        assert_eq!(gate.used(), (70, 0));
        // What it turns out to need may be less than what it was admitted for.
        load(&gate, "wpost-2k#2", 30);
        let shrunk = gate.admit("wpost-2k#2", 20, 0, Wait::No, &NEVER, &mut nothing_to_evict);
        assert!(shrunk.unwrap());
        assert_eq!(gate.used(), (90, 0));
    }

    #[test]
    fn a_circuit_whose_jobs_could_never_fit_is_refused_before_it_is_counted() {
        let gate = MemoryGate::new(100);
        let ticket = gate.line_up(0);
        let refused = gate.admit(
            "wpost#0",
            60,
            41,
            Wait::Yes(&ticket),
            &NEVER,
            &mut nothing_to_evict,
        );
        assert!(matches!(
            refused,
            Err(GateError::TooLarge { needed: 101, .. })
        ));
        assert_eq!(gate.used(), (0, 0));
    }

    #[test]
    fn a_circuit_to_load_evicts_an_idle_one_that_leaves_no_room_for_it() {
        let gate = MemoryGate::new(100);
        load(&gate, "porep-32g#0", 60);
        let ticket = gate.line_up(0);
        let mut evict = || {
            gate.draining("porep-32g#0");
            gate.release("porep-32g#0") > 0
        };
        let wait = Wait::Yes(&ticket);
        assert!(gate
            .admit("wpost-32g#1", 70, 20, wait, &NEVER, &mut evict)
            .unwrap());
        assert_eq!(gate.used(), (70, 0));
    }

    #[test]
    fn a_job_that_must_not_wait_is_told_when_there_is_no_room() {
        let gate = MemoryGate::new(100);
        gate.hold_always("device 0", 10);
        load(&gate, "winning-2k#0", 0);
        let evict = &mut nothing_to_evict;
        let own = "winning-2k#0";
        assert!(matches!(
            gate.reserve(91, own, Wait::No, &NEVER, evict),
            Err(GateError::TooLarge { needed: 91, .. })
        ));
        let held = gate
            .reserve(60, own, Wait::No, &NEVER, evict)
            .unwrap()
            .unwrap();
        assert!(gate
            .reserve(31, own, Wait::No, &NEVER, evict)
            .unwrap()
            .is_none());
        assert!(!gate
            .admit("snap-2k#1", 31, 0, Wait::No, &NEVER, evict)
            .unwrap());
        assert!(!gate.fits_now(31) && gate.fits_now(30));
        let second = gate
            .reserve(30, own, Wait::No, &NEVER, evict)
            .unwrap()
            .unwrap();
        assert_eq!(second.bytes(), 30);
        drop((held, second));
        assert_eq!(gate.used(), (10, 0));
    }

    #[test]
    fn idle_circuits_are_evicted_only_as_far_as_needed_and_counted_until_released() {
        let gate = MemoryGate::new(100);
        for (id, bytes) in [("a#0", 30), ("b#1", 30), ("c#2", 30)] {
            load(&gate, id, bytes);
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
        for _ in 0..2 {
            let more = gate.reserve(30, "c#2", Wait::No, &NEVER, &mut evict);
            assert!(more.unwrap().is_none(), "draining bytes are not free yet");
        }
        assert_eq!(*evicted.borrow(), ["a#0", "b#1"]);
        assert_eq!(gate.release("b#1"), 30);
        let more = gate.reserve(30, "c#2", Wait::No, &NEVER, &mut evict);
        assert!(more.unwrap().is_some());
        drop(reservation);
    }

    #[test]
    fn one_that_does_not_wait_evicts_nothing_unless_that_makes_room_now() {
        struct Idle<'a> {
            gate: &'a MemoryGate,
            circuits: Vec<(&'static str, u64)>,
        }
        impl Evictor for Idle<'_> {
            fn evict_one(&mut self) -> bool {
                self.circuits.pop().is_some_and(|(id, _)| {
                    self.gate.draining(id);
                    self.gate.release(id) > 0
                })
            }
            fn free_at_once(&self) -> u64 {
                self.circuits.iter().map(|(_, bytes)| bytes).sum()
            }
        }
        let gate = MemoryGate::new(100);
        load(&gate, "porep#0", 40);
        load(&gate, "wpost#1", 15);
        load(&gate, "winning#2", 5);
        let _paused = reserve(&gate, "porep#0", 40).unwrap();
        let mut idle = Idle {
            gate: &gate,
            circuits: vec![("wpost#1", 15)],
        };
        // 20 need 20 more than there is; evicting the idle 15 would not do.
        let urgent = gate.reserve(20, "winning#2", Wait::No, &NEVER, &mut idle);
        assert!(urgent.unwrap().is_none());
        assert_eq!(idle.circuits.len(), 1, "nothing evicted for nothing");
        // 15 need 15: evicting it does.
        let urgent = gate.reserve(15, "winning#2", Wait::No, &NEVER, &mut idle);
        assert_eq!(urgent.unwrap().unwrap().bytes(), 15);
        assert!(idle.circuits.is_empty());
    }

    #[test]
    fn a_waiter_gets_the_memory_of_a_circuit_released_meanwhile() {
        let gate = Arc::new(MemoryGate::new(100));
        load(&gate, "porep-2k#0", 80);
        gate.draining("porep-2k#0");
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || {
                let ticket = gate.line_up(0);
                let wait = Wait::Yes(&ticket);
                gate.admit("snap-2k#1", 50, 0, wait, &NEVER, &mut nothing_to_evict)
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
    fn a_waiter_whose_circuit_is_evicted_is_told_to_let_go_of_it() {
        let gate = Arc::new(MemoryGate::new(100));
        load(&gate, "x#0", 40);
        load(&gate, "y#1", 40);
        let running = reserve(&gate, "x#0", 20).unwrap();
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || reserve(&gate, "y#1", 30).map(|r| r.bytes()))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished());
        gate.draining("y#1");
        assert!(matches!(
            waiter.join().unwrap(),
            Err(GateError::OwnCircuitEvicted)
        ));
        drop(running);
    }

    #[test]
    fn waiters_are_served_in_line_and_only_the_first_evicts() {
        let gate = Arc::new(MemoryGate::new(100));
        load(&gate, "x#0", 50);
        let running = reserve(&gate, "x#0", 40).unwrap();
        let (first, second) = (gate.line_up(0), gate.line_up(0));
        // The second in line does not evict, nor take memory before the
        // first, even memory that would fit it.
        let evictions = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let earlier = scope.spawn(|| {
                gate.reserve(45, "x#0", Wait::Yes(&first), &NEVER, &mut nothing_to_evict)
                    .map(|r| r.unwrap())
            });
            while gate.lock().line.is_empty() {
                std::thread::sleep(Duration::from_millis(1));
            }
            let later = scope.spawn(|| {
                let mut evict = || {
                    evictions.fetch_add(1, Ordering::Relaxed);
                    false
                };
                gate.reserve(5, "x#0", Wait::Yes(&second), &NEVER, &mut evict)
                    .map(|r| r.unwrap().bytes())
            });
            while gate.lock().line.len() < 2 {
                std::thread::sleep(Duration::from_millis(1));
            }
            std::thread::sleep(Duration::from_millis(50));
            assert!(!later.is_finished() && !earlier.is_finished());
            assert_eq!(evictions.load(Ordering::Relaxed), 0);
            drop(running);
            let earlier = earlier.join().unwrap().unwrap();
            assert_eq!(earlier.bytes(), 45);
            assert_eq!(later.join().unwrap().unwrap(), 5);
        });
    }

    /// A size near `u64::MAX` (a plugin's absurd scratch) is too large,
    /// not a sum that wraps around into a fit.
    #[test]
    fn an_absurd_size_is_too_large_and_does_not_wrap_around() {
        let gate = MemoryGate::new(100);
        gate.hold_always("device 0", 10);
        load(&gate, "x#0", 20);
        for bytes in [u64::MAX, u64::MAX - 15] {
            assert!(matches!(
                reserve(&gate, "x#0", bytes),
                Err(GateError::TooLarge { .. })
            ));
            assert!(matches!(
                admit(&gate, "y#1", 5, bytes),
                Err(GateError::TooLarge { .. })
            ));
            assert!(!gate.fits_now(bytes));
        }
        assert_eq!(gate.used(), (30, 0));
    }

    /// A WinningPoSt that lines up behind a sealing job waiting for more
    /// than is free takes the little it needs at once.
    #[test]
    fn a_more_urgent_waiter_goes_ahead_of_earlier_ones() {
        let gate = Arc::new(MemoryGate::new(100));
        load(&gate, "x#0", 50);
        let running = reserve(&gate, "x#0", 40).unwrap();
        let (sealing, urgent) = (gate.line_up(1), gate.line_up(3));
        std::thread::scope(|scope| {
            let earlier = scope.spawn(|| {
                gate.reserve(
                    45,
                    "x#0",
                    Wait::Yes(&sealing),
                    &NEVER,
                    &mut nothing_to_evict,
                )
                .map(|r| r.unwrap().bytes())
            });
            while gate.lock().line.is_empty() {
                std::thread::sleep(Duration::from_millis(1));
            }
            let later = scope.spawn(|| {
                gate.reserve(5, "x#0", Wait::Yes(&urgent), &NEVER, &mut nothing_to_evict)
                    .map(|r| r.unwrap().bytes())
            });
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while !later.is_finished() && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            let served_first = later.is_finished();
            assert!(!earlier.is_finished(), "the sealing job still waits");
            drop(running);
            assert!(
                served_first,
                "the urgent waiter waited behind the sealing job"
            );
            assert_eq!(later.join().unwrap().unwrap(), 5);
            assert_eq!(earlier.join().unwrap().unwrap(), 45);
        });
    }

    /// A preload (the least urgent) that waits behind a sealing job is
    /// raised by a WinningPoSt waiting for that load: it takes the little
    /// it needs at once, as the WinningPoSt itself would have; and a ticket
    /// raised before it lines up lines up raised.
    #[test]
    fn a_raised_waiter_goes_ahead_as_its_raiser_would() {
        let gate = Arc::new(MemoryGate::new(100));
        load(&gate, "x#0", 50);
        let running = reserve(&gate, "x#0", 40).unwrap();
        let (sealing, preload) = (gate.line_up(1), gate.line_up(0));
        std::thread::scope(|scope| {
            let waits = |bytes, ticket| {
                let gate = &gate;
                move || {
                    gate.reserve(
                        bytes,
                        "x#0",
                        Wait::Yes(ticket),
                        &NEVER,
                        &mut nothing_to_evict,
                    )
                    .map(|r| r.unwrap().bytes())
                }
            };
            let earlier = scope.spawn(waits(45, &sealing));
            while gate.lock().line.is_empty() {
                std::thread::sleep(Duration::from_millis(1));
            }
            let raised = scope.spawn(waits(5, &preload));
            while gate.lock().line.len() < 2 {
                std::thread::sleep(Duration::from_millis(1));
            }
            std::thread::sleep(Duration::from_millis(50));
            assert!(!raised.is_finished(), "behind the sealing job until raised");
            gate.raise(preload.number(), 3);
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while !raised.is_finished() && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            assert!(raised.is_finished(), "the raised preload still waits");
            assert!(!earlier.is_finished(), "the sealing job still waits");
            drop(running);
            assert_eq!(raised.join().unwrap().unwrap(), 5);
            assert_eq!(earlier.join().unwrap().unwrap(), 45);
        });
        let (low, high) = (gate.line_up(0), gate.line_up(2));
        gate.raise(low.number(), 3);
        assert_eq!(gate.lock().place_of(low.place), (Reverse(3), low.number()));
        assert_eq!(gate.lock().place_of(high.place), high.place);
        let number = low.number();
        gate.lower(number);
        assert_eq!(gate.lock().place_of(low.place), low.place, "lowered");
        gate.raise(number, 3);
        drop(low);
        assert!(
            !gate.lock().raised.contains_key(&number),
            "a dropped ticket's raise is gone"
        );
    }

    #[test]
    fn a_cancelled_job_stops_waiting_and_takes_nothing() {
        let gate = MemoryGate::new(100);
        load(&gate, "x#0", 0);
        let _held = reserve(&gate, "x#0", 90).unwrap();
        let cancelled = AtomicBool::new(true);
        let ticket = gate.line_up(0);
        let wait = Wait::Yes(&ticket);
        assert!(matches!(
            gate.reserve(20, "x#0", wait, &cancelled, &mut nothing_to_evict),
            Err(GateError::Cancelled)
        ));
        // What it asks for fits now: still nothing for a cancelled job.
        assert!(matches!(
            gate.reserve(5, "x#0", wait, &cancelled, &mut nothing_to_evict),
            Err(GateError::Cancelled)
        ));
        assert!(matches!(
            gate.admit("y#1", 5, 0, wait, &cancelled, &mut nothing_to_evict),
            Err(GateError::Cancelled)
        ));
        assert_eq!(gate.used(), (0, 90));
    }
}
