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

/// An operation being watched.
struct Watched {
    what: String,
    started: Instant,
    deadline: Duration,
}

struct Monitor {
    watched: Mutex<HashMap<u64, Watched>>,
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
            watched: Mutex::new(HashMap::new()),
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
        if let Some(late) = watched.values().find(|w| w.started.elapsed() > w.deadline) {
            eprintln!(
                "error: {} has not returned after {:.1} s (its deadline, scaled by its size; {SCALE_ENV} changes it): the backend is hung; ending the process",
                late.what,
                late.started.elapsed().as_secs_f64(),
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

/// Runs `call`, an operation described by `what` on `elements` elements,
/// under its deadline.
pub fn watched<T>(what: impl FnOnce() -> String, elements: u64, call: impl FnOnce() -> T) -> T {
    let what = what();
    let Some(deadline) = deadline(elements) else {
        return crate::crash::during(&what, call);
    };
    let registry = monitor();
    let id = registry.next.fetch_add(1, Ordering::Relaxed);
    let entry = Watched {
        what: what.clone(),
        started: Instant::now(),
        deadline,
    };
    registry
        .watched
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id, entry);
    // Removed however `call` ends, a panic included.
    struct Done(u64);
    impl Drop for Done {
        fn drop(&mut self) {
            monitor()
                .watched
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&self.0);
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
}
