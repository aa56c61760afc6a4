//! A deadline on every long plugin operation.
//!
//! A plugin call that never returns (a hung GPU, a deadlocked driver) would
//! hang the prover forever with no word: a thread cannot be interrupted in
//! the middle of foreign code. The watchdog turns that into a clear error:
//! each NTT, QAP step, base upload and MSM is registered with a deadline
//! scaled by its size, a monitor thread checks the deadlines, and one that
//! passes ends the process with a message naming the backend, the
//! operation, its size and the time waited, and exit status
//! [`EXIT_HUNG`]. A daemon under a supervisor (systemd) is then restarted
//! and Curio retries the proof; a wedged device would refuse every later
//! proof anyway.
//!
//! The same description names the operation if the plugin crashes the
//! process instead ([`crate::crash`]).
//!
//! Operations on one device may queue behind each other inside the plugin
//! (two daemon workers sharing a GPU): an operation's clock restarts when
//! an operation on the same device that began before it returns, so that
//! time spent waiting for another's work is not counted against it. A
//! device that hangs returns nothing, so nothing restarts the clocks of
//! what waits behind it.
//!
//! The deadline of an operation on `n` elements is
//! `scale × (BASE + n × PER_ELEMENT)`: five minutes plus 10 µs per element
//! (27 minutes for an MSM of 2^27 points, more than ten times what the CPU
//! backend takes on two cores). `PCE_BACKEND_DEADLINE_SCALE` sets `scale` (0 turns
//! the watchdog off).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Environment variable scaling every deadline (a float; 0: no deadlines).
pub const SCALE_ENV: &str = "PCE_BACKEND_DEADLINE_SCALE";
/// Exit status of a process ended by the watchdog.
pub const EXIT_HUNG: i32 = 75;
/// Deadline of an operation of no size.
const BASE: Duration = Duration::from_secs(300);
/// Deadline added per element (point, scalar or field element).
const PER_ELEMENT: Duration = Duration::from_micros(10);
/// How often the monitor looks.
const PERIOD: Duration = Duration::from_millis(100);

/// The device an operation runs on: its plugin's vtable address and the
/// device's index, the same for every handle opened on that device.
pub type DeviceKey = (usize, u32);

/// An operation being watched.
struct Watched {
    what: String,
    device: DeviceKey,
    /// When it was registered; orders it among its device's operations.
    registered: Instant,
    /// Since when its deadline counts: its registration, or the return of
    /// the last operation on its device it may have waited for.
    counted_from: Instant,
    deadline: Duration,
}

/// The operations in flight, by registration number.
#[derive(Default)]
struct InFlight(HashMap<u64, Watched>);

impl InFlight {
    /// Removes operation `id`, returned at `now`, and restarts the clocks
    /// of the operations on its device registered after it.
    fn returned(&mut self, id: u64, now: Instant) {
        let Some(done) = self.0.remove(&id) else {
            return;
        };
        for waiting in self.0.values_mut() {
            if waiting.device == done.device && waiting.registered >= done.registered {
                waiting.counted_from = waiting.counted_from.max(now);
            }
        }
    }

    /// An operation whose deadline has passed at `now`, if any.
    fn late(&self, now: Instant) -> Option<&Watched> {
        self.0
            .values()
            .find(|w| now.saturating_duration_since(w.counted_from) > w.deadline)
    }
}

struct Monitor {
    watched: Mutex<InFlight>,
    next: AtomicU64,
    scale: f64,
}

fn monitor() -> &'static Monitor {
    static MONITOR: OnceLock<Monitor> = OnceLock::new();
    MONITOR.get_or_init(|| {
        let scale = std::env::var(SCALE_ENV)
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .unwrap_or(1.0);
        if scale > 0.0 {
            std::thread::Builder::new()
                .name("backend-watchdog".into())
                .spawn(watch)
                .expect("spawning the backend watchdog");
        }
        Monitor {
            watched: Mutex::new(InFlight::default()),
            next: AtomicU64::new(0),
            scale,
        }
    })
}

/// The monitor thread: ends the process when a deadline has passed.
fn watch() {
    loop {
        std::thread::sleep(PERIOD);
        let watched = monitor().watched.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if let Some(late) = watched.late(now) {
            eprintln!(
                "error: {} has not returned after {:.1} s ({:.1} s since its device last returned an operation it may have waited for; its deadline, scaled by its size: {:.1} s; {SCALE_ENV} changes it): the backend is hung; ending the process",
                late.what,
                now.duration_since(late.registered).as_secs_f64(),
                now.duration_since(late.counted_from).as_secs_f64(),
                late.deadline.as_secs_f64(),
            );
            tracing::error!(operation = %late.what, "backend operation past its deadline; exiting");
            // Not `exit`: its atexit handlers and library destructors (a GPU
            // driver's teardown) may wait on the very call that hangs.
            // SAFETY: `_exit` ends the process at once; nothing here relies
            // on what it skips (stderr is unbuffered, the log line is out).
            unsafe { libc::_exit(EXIT_HUNG) };
        }
    }
}

/// The deadline of an operation on `elements` elements.
pub fn deadline(elements: u64) -> Option<Duration> {
    deadline_scaled(elements, monitor().scale)
}

/// The deadline of an operation on `elements` elements under `scale`:
/// none for 0, nor where it is too far to represent (a huge scale).
fn deadline_scaled(elements: u64, scale: f64) -> Option<Duration> {
    let nominal = BASE.as_secs_f64() + elements as f64 * PER_ELEMENT.as_secs_f64();
    (scale > 0.0)
        .then(|| Duration::try_from_secs_f64(nominal * scale).ok())
        .flatten()
}

/// Runs `call`, an operation described by `what` on `elements` elements
/// on `device`, under its deadline.
pub fn watched<T>(
    what: impl FnOnce() -> String,
    device: DeviceKey,
    elements: u64,
    call: impl FnOnce() -> T,
) -> T {
    let what = what();
    let Some(deadline) = deadline(elements) else {
        return crate::crash::during(&what, call);
    };
    let registry = monitor();
    let id = registry.next.fetch_add(1, Ordering::Relaxed);
    let now = Instant::now();
    let entry = Watched {
        what: what.clone(),
        device,
        registered: now,
        counted_from: now,
        deadline,
    };
    registry
        .watched
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .0
        .insert(id, entry);
    // Removed however `call` ends, a panic included.
    struct Done(u64);
    impl Drop for Done {
        fn drop(&mut self) {
            monitor()
                .watched
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .returned(self.0, Instant::now());
        }
    }
    let _done = Done(id);
    crate::crash::during(&what, call)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_grows_with_the_size_and_a_huge_scale_means_none() {
        assert_eq!(deadline_scaled(0, 1.0), Some(BASE));
        assert_eq!(
            deadline_scaled(1_000_000, 2.0),
            Some(2 * (BASE + PER_ELEMENT * 1_000_000))
        );
        assert_eq!(deadline_scaled(1 << 27, 0.0), None);
        assert_eq!(deadline_scaled(1 << 27, 1e17), None);
    }

    fn op(device: DeviceKey, registered: Instant, deadline_s: u64) -> Watched {
        Watched {
            what: format!("on {device:?}"),
            device,
            registered,
            counted_from: registered,
            deadline: Duration::from_secs(deadline_s),
        }
    }

    #[test]
    fn time_waiting_behind_an_earlier_operation_on_the_device_is_not_counted() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let gpu = (1, 0);
        let other_gpu = (1, 1);
        let mut in_flight = InFlight::default();
        // A long MSM, then a small one queued behind it, and one on another
        // device registered between them.
        in_flight.0.insert(0, op(gpu, at(0), 1000));
        in_flight.0.insert(1, op(other_gpu, at(5), 100));
        in_flight.0.insert(2, op(gpu, at(10), 100));
        assert!(in_flight.late(at(100)).is_none());
        // The long one returns at 500: the small one's clock restarts, the
        // other device's does not.
        in_flight.returned(0, at(500));
        in_flight.0.remove(&1);
        assert!(in_flight.late(at(590)).is_none());
        assert_eq!(in_flight.late(at(601)).unwrap().what, format!("on {gpu:?}"));
    }

    #[test]
    fn a_hung_operation_is_late_however_many_later_ones_return() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let gpu = (1, 0);
        let mut in_flight = InFlight::default();
        in_flight.0.insert(0, op(gpu, at(0), 100));
        // Later operations on the same device (its other streams) keep
        // returning; they began after the hung one, which waited for none.
        for id in 1..50 {
            in_flight.0.insert(id, op(gpu, at(id), 10));
            in_flight.returned(id, at(id + 2));
        }
        assert_eq!(in_flight.late(at(101)).unwrap().registered, at(0));
        // One on another device that returns restarts nothing here either.
        in_flight.0.insert(99, op((2, 0), at(0), 1000));
        in_flight.returned(99, at(100));
        assert_eq!(in_flight.late(at(101)).unwrap().registered, at(0));
    }
}
