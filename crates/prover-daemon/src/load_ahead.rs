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

use std::collections::HashSet;
use std::sync::{Condvar, Mutex, MutexGuard};

/// The names of the circuits being loaded ahead of their jobs.
#[derive(Debug, Default)]
pub struct LoadsAhead {
    names: Mutex<HashSet<String>>,
    done: Condvar,
}

impl LoadsAhead {
    fn names(&self) -> MutexGuard<'_, HashSet<String>> {
        self.names.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks circuit `name` as being loaded ahead; `false` if it already is.
    pub fn start(&self, name: &str) -> bool {
        self.names().insert(name.to_owned())
    }

    /// Marks the load of circuit `name` ahead as done, loaded or not.
    pub fn finish(&self, name: &str) {
        self.names().remove(name);
        self.done.notify_all();
    }

    /// Returns once circuit `name` is not being loaded ahead.
    pub fn wait_for(&self, name: &str) {
        let names = self.names();
        drop(
            self.done
                .wait_while(names, |names| names.contains(name))
                .unwrap_or_else(|e| e.into_inner()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn a_waiter_returns_once_the_load_ahead_is_done_and_a_second_start_is_refused() {
        let loads = Arc::new(LoadsAhead::default());
        loads.wait_for("winning-32g");
        assert!(loads.start("winning-32g"));
        assert!(!loads.start("winning-32g"), "one load ahead of a circuit");
        let waiter = {
            let loads = loads.clone();
            std::thread::spawn(move || loads.wait_for("winning-32g"))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "returned while the load was running");
        loads.finish("winning-32g");
        waiter.join().unwrap();
        assert!(loads.start("winning-32g"), "startable again once done");
    }
}
