//! The circuits of urgent jobs, loaded while the jobs wait in the queue.
//!
//! A job more urgent than the running one (a WinningPoSt behind a PoRep)
//! is proven between two of the running job's partitions, where nothing
//! may wait for memory (what it would wait for may be the paused job's):
//! its circuit is loaded there only if it fits now, and the device is idle
//! while it loads (seconds for a 32 GiB WinningPoSt circuit, a minute or
//! more for a WindowPoSt one). Loaded as soon as the job is queued, beside
//! the loaded circuits and evicting none, the circuit is ready by the next
//! partition boundary. Such a load never waits for memory either, so a
//! boundary may wait for one in progress instead of loading the circuit
//! itself or putting the job back in the queue.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// The circuits being loaded ahead of their jobs, and how the last load
/// ahead of each ended.
#[derive(Debug, Default)]
pub struct LoadsAhead {
    state: Mutex<State>,
    done: Condvar,
}

#[derive(Debug, Default)]
struct State {
    loading: HashSet<String>,
    /// Whether the last load ahead of a circuit loaded it.
    loaded: HashMap<String, bool>,
}

impl LoadsAhead {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks circuit `name` as being loaded ahead; `None` if it already is.
    /// The mark is given up when dropped, unless the load was started.
    pub fn start(&self, name: &str) -> Option<Marked<'_>> {
        self.state()
            .loading
            .insert(name.to_owned())
            .then(|| Marked {
                loads: self,
                name: name.to_owned(),
                started: false,
            })
    }

    /// Marks the load of circuit `name` ahead as done: `Some(loaded)` if it
    /// ran (loaded, or found no room), `None` if it was given up before it
    /// started or failed (the job will fail or load it itself).
    pub fn finish(&self, name: &str, loaded: Option<bool>) {
        let mut state = self.state();
        state.loading.remove(name);
        match loaded {
            Some(loaded) => state.loaded.insert(name.to_owned(), loaded),
            None => state.loaded.remove(name),
        };
        drop(state);
        self.done.notify_all();
    }

    /// Returns once circuit `name` is not being loaded ahead, or any of
    /// `cancel` is set: `None` if it was not (or the wait was cancelled), else
    /// whether the load it waited for loaded the circuit (`Some(false)`: it
    /// did not fit beside the loaded circuits a moment ago).
    pub fn wait_for(&self, name: &str, cancel: &[&AtomicBool]) -> Option<bool> {
        let mut state = self.state();
        if !state.loading.contains(name) {
            return None;
        }
        while state.loading.contains(name) {
            if cancel.iter().any(|flag| flag.load(Ordering::Relaxed)) {
                return None;
            }
            state = self
                .done
                .wait_timeout(state, Duration::from_millis(200))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        state.loaded.get(name).copied()
    }
}

/// A load ahead marked and not yet started: dropped, it is given up (as
/// [`LoadsAhead::finish`] with `None`), so that a panic between marking a
/// load and starting it leaves no partition boundary waiting for it.
pub struct Marked<'a> {
    loads: &'a LoadsAhead,
    name: String,
    started: bool,
}

impl Marked<'_> {
    /// The load runs: whatever runs it calls [`LoadsAhead::finish`].
    pub fn started(mut self) {
        self.started = true;
    }
}

impl Drop for Marked<'_> {
    fn drop(&mut self) {
        if !self.started {
            self.loads.finish(&self.name, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_waiter_returns_once_the_load_ahead_is_done_and_hears_how_it_ended() {
        static GOING_ON: AtomicBool = AtomicBool::new(false);
        let loads = Arc::new(LoadsAhead::default());
        assert_eq!(
            loads.wait_for("winning-32g", &[&GOING_ON]),
            None,
            "nothing to wait for"
        );
        loads.start("winning-32g").unwrap().started();
        assert!(
            loads.start("winning-32g").is_none(),
            "one load ahead of a circuit"
        );
        let waiter = {
            let loads = loads.clone();
            std::thread::spawn(move || loads.wait_for("winning-32g", &[&GOING_ON]))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "returned while the load was running");
        loads.finish("winning-32g", Some(false));
        assert_eq!(waiter.join().unwrap(), Some(false));
        assert_eq!(
            loads.wait_for("winning-32g", &[&GOING_ON]),
            None,
            "done: nothing to wait for"
        );
        loads
            .start("winning-32g")
            .expect("startable again once done")
            .started();
        loads.finish("winning-32g", Some(true));
        loads.start("winning-32g").unwrap().started();
        let waiter = {
            let loads = loads.clone();
            std::thread::spawn(move || loads.wait_for("winning-32g", &[&GOING_ON]))
        };
        std::thread::sleep(Duration::from_millis(50));
        loads.finish("winning-32g", None);
        assert_eq!(waiter.join().unwrap(), None, "given up: not tried");

        let cancelled = AtomicBool::new(true);
        loads.start("winning-32g").unwrap().started();
        assert_eq!(
            loads.wait_for("winning-32g", &[&GOING_ON, &cancelled]),
            None,
            "a cancelled job does not wait"
        );
    }

    #[test]
    fn a_load_marked_and_never_started_is_given_up() {
        static GOING_ON: AtomicBool = AtomicBool::new(false);
        let loads = LoadsAhead::default();
        let marked = loads.start("winning-32g").unwrap();
        drop(marked);
        assert_eq!(
            loads.wait_for("winning-32g", &[&GOING_ON]),
            None,
            "nothing to wait for"
        );
        let unwound = std::panic::catch_unwind(|| {
            let _marked = loads.start("winning-32g").unwrap();
            panic!("submitting the job failed");
        });
        assert!(unwound.is_err());
        assert_eq!(loads.wait_for("winning-32g", &[&GOING_ON]), None);
        assert!(loads.start("winning-32g").is_some(), "startable again");
    }
}
