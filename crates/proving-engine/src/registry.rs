//! Circuits loaded once and shared by every job that proves them.
//!
//! A pre-compiled circuit is gigabytes at production sizes and so are its
//! decoded parameters; loading either takes seconds to minutes. A process
//! that proves many jobs (`c2` over a directory, the daemon) keeps one copy
//! of each per circuit, keyed by the circuit's identifier, and every job
//! of that circuit borrows it. Two jobs asking for the same circuit at once
//! wait for one load.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, Instant};

use groth16_prover::{Bases, Srs, SrsFile, SrsShape};
use pce_core::PrecompiledCircuit;
use tracing::info;

use crate::process::ProcessMemory;
use crate::EngineError;

/// A circuit's PCE and parameters, ready to prove with.
pub struct LoadedCircuit {
    /// The circuit's identifier (for Filecoin, the parameter cache's).
    pub id: String,
    /// The recorded constraint system.
    pub pce: PrecompiledCircuit,
    /// The parameter file, open (its verifying key read).
    pub params: SrsFile,
    /// Whether every query is decoded once and kept ([`LoadedCircuit::decode`]).
    pub resident: bool,
    /// The decoded queries and how long decoding took, once decoded.
    decoded: OnceLock<(Srs, Duration)>,
    /// Held while decoding, so that two runs decode once.
    decoding: Mutex<()>,
    /// Resident memory of the process before this circuit was loaded.
    pub process_before: u64,
    /// Loading (or recording) the PCE.
    pub pce_time: Duration,
    /// Opening the parameter file.
    open_time: Duration,
}

impl LoadedCircuit {
    /// Loads the circuit `id`: its PCE from `load_pce` and its parameter
    /// file `params`, whose queries are to be decoded once and kept when
    /// `resident` (many proofs; [`LoadedCircuit::decode`], which a run calls
    /// after its memory budget is checked) or read query by query as each
    /// proof needs them (a single proof: least memory).
    pub fn load<E: From<EngineError>>(
        id: &str,
        load_pce: impl FnOnce() -> Result<PrecompiledCircuit, E>,
        params: &Path,
        resident: bool,
    ) -> Result<Self, E> {
        let process_before = ProcessMemory::now().rss;
        let start = Instant::now();
        let pce = load_pce()?;
        let pce_time = start.elapsed();
        let start = Instant::now();
        let file = SrsFile::open(params).map_err(EngineError::from)?;
        let open_time = start.elapsed();
        // Found now, not after minutes of decoding and in every proof.
        if let Some(what) = file.shape().mismatch(&SrsShape::of_circuit(&pce)) {
            return Err(EngineError::ParametersOfAnotherCircuit {
                id: id.to_owned(),
                params: params.to_owned(),
                what,
            }
            .into());
        }
        info!(id, ?pce_time, ?open_time, resident, "circuit loaded");
        Ok(Self {
            id: id.to_owned(),
            pce,
            params: file,
            resident,
            decoded: OnceLock::new(),
            decoding: Mutex::new(()),
            process_before,
            pce_time,
            open_time,
        })
    }

    /// Decodes every query once, if the circuit is resident and not yet
    /// decoded (seconds to minutes, and the parameters' size in memory).
    pub fn decode(&self) -> Result<(), EngineError> {
        if !self.resident {
            return Ok(());
        }
        let _decoding = self.decoding.lock().unwrap_or_else(|e| e.into_inner());
        if self.decoded.get().is_none() {
            let start = Instant::now();
            let srs = self.params.load()?;
            let elapsed = start.elapsed();
            info!(id = self.id, ?elapsed, "parameters decoded");
            let _ = self.decoded.set((srs, elapsed));
        }
        Ok(())
    }

    /// Opening the parameters, and decoding them when that is done.
    pub fn params_time(&self) -> Duration {
        self.open_time + self.decoded.get().map_or(Duration::ZERO, |(_, time)| *time)
    }

    /// The MSM bases: the decoded queries, or the file to stream them from.
    pub fn bases(&self) -> Bases<'_> {
        match self.decoded.get() {
            Some((srs, _)) => Bases::Resident(srs),
            None => Bases::Streamed(&self.params),
        }
    }
}

/// One circuit's place in the registry: empty until loaded; its lock is
/// held only while loading, so that finding a loaded circuit, listing them
/// or evicting one never waits for a load.
struct Slot<T> {
    loaded: OnceLock<Arc<T>>,
    loading: Mutex<()>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self {
            loaded: OnceLock::new(),
            loading: Mutex::new(()),
        }
    }
}

/// The loaded circuits of a process, by identifier: [`LoadedCircuit`]s, or
/// whatever a process wraps them in (the daemon counts each in its memory
/// budget until it is dropped).
pub struct Registry<T = LoadedCircuit> {
    circuits: Mutex<HashMap<String, Arc<Slot<T>>>>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Self {
            circuits: Mutex::new(HashMap::new()),
        }
    }
}

impl<T> Registry<T> {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The map of slots. A panic while it was held (or while a slot was
    /// being loaded) leaves nothing half done, so poisoning is ignored.
    fn slots(&self) -> MutexGuard<'_, HashMap<String, Arc<Slot<T>>>> {
        self.circuits.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn slot(&self, id: &str) -> Arc<Slot<T>> {
        self.slots().entry(id.to_owned()).or_default().clone()
    }

    /// The circuit `id`, loaded by `load` if no job has loaded it yet.
    /// Concurrent callers for one circuit wait for a single load; a failed
    /// load is not kept, so the next caller tries again.
    pub fn get_or_load<E>(
        &self,
        id: &str,
        load: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        let slot = self.slot(id);
        if let Some(circuit) = slot.loaded.get() {
            return Ok(circuit.clone());
        }
        let _loading = slot.loading.lock().unwrap_or_else(|e| e.into_inner());
        fill(&slot, load)
    }

    /// [`Registry::get_or_load`], waiting for another caller's load of `id`
    /// (which may take minutes) only while `go_on` says to: its error ends
    /// the wait (a job cancelled meanwhile), checked every 50 ms.
    pub fn get_or_load_while<E>(
        &self,
        id: &str,
        go_on: impl Fn() -> Result<(), E>,
        load: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        let slot = self.slot(id);
        loop {
            if let Some(circuit) = slot.loaded.get() {
                return Ok(circuit.clone());
            }
            if let Some(_loading) = loading_turn(&slot) {
                return fill(&slot, load);
            }
            go_on()?;
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// [`Registry::get_or_load`], without waiting: `None` while another
    /// caller loads circuit `id`.
    pub fn try_get_or_load<E>(
        &self,
        id: &str,
        load: impl FnOnce() -> Result<T, E>,
    ) -> Result<Option<Arc<T>>, E> {
        let slot = self.slot(id);
        if let Some(circuit) = slot.loaded.get() {
            return Ok(Some(circuit.clone()));
        }
        let Some(_loading) = loading_turn(&slot) else {
            return Ok(None);
        };
        fill(&slot, load).map(Some)
    }

    /// Removes circuit `id` (never waiting for a load of it, which goes on
    /// into the removed slot); jobs still using it keep it alive until they
    /// finish. Returns the registry's reference, if it was loaded, for the
    /// caller to drop where freeing its memory blocks no one.
    pub fn evict(&self, id: &str) -> Option<Arc<T>> {
        self.slots().remove(id)?.loaded.get().cloned()
    }

    /// The circuits loaded now, with the names they were loaded under; one
    /// being loaded is not listed (and never waited for, so that status
    /// queries do not block behind a load).
    pub fn loaded(&self) -> Vec<(String, Arc<T>)> {
        self.map_loaded(|id, circuit| (id.to_owned(), circuit.clone()))
    }

    /// `f` of each circuit loaded now (not of one being loaded), under the
    /// registry's lock: no reference outlives the call, so an eviction
    /// meanwhile never leaves the caller to free the circuit.
    pub fn map_loaded<U>(&self, mut f: impl FnMut(&str, &Arc<T>) -> U) -> Vec<U> {
        let slots = self.slots();
        slots
            .iter()
            .filter_map(|(id, slot)| Some(f(id, slot.loaded.get()?)))
            .collect()
    }
}

/// The slot's loading lock, unless another caller holds it (poisoning
/// ignored, as for the map).
fn loading_turn<T>(slot: &Slot<T>) -> Option<MutexGuard<'_, ()>> {
    match slot.loading.try_lock() {
        Ok(loading) => Some(loading),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// The circuit in `slot` (whose loading lock the caller holds), loaded by
/// `load` into it if it is empty.
fn fill<T, E>(slot: &Slot<T>, load: impl FnOnce() -> Result<T, E>) -> Result<Arc<T>, E> {
    if let Some(circuit) = slot.loaded.get() {
        return Ok(circuit.clone());
    }
    let circuit = Arc::new(load()?);
    let _ = slot.loaded.set(circuit.clone());
    Ok(circuit)
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_load_in_progress_blocks_neither_lookups_without_waiting_nor_evictions_nor_listing() {
        let registry = Arc::new(Registry::<u32>::new());
        registry.get_or_load::<()>("small", || Ok(1)).unwrap();
        let (started, start) = mpsc::channel();
        let (finish, finished) = mpsc::channel::<()>();
        let loader = {
            let registry = registry.clone();
            std::thread::spawn(move || {
                registry.get_or_load::<()>("large", || {
                    started.send(()).unwrap();
                    finished.recv().unwrap();
                    Ok(2)
                })
            })
        };
        start.recv_timeout(Duration::from_secs(10)).unwrap();
        // "large" is being loaded: not listed, not waited for.
        let loaded = registry.map_loaded(|id, value| (id.to_owned(), **value));
        assert_eq!(loaded, [("small".to_owned(), 1)]);
        let waited = registry.try_get_or_load::<()>("large", || unreachable!());
        assert_eq!(waited, Ok(None));
        assert_eq!(
            registry.try_get_or_load::<()>("small", || unreachable!()),
            Ok(Some(Arc::new(1)))
        );
        assert_eq!(registry.evict("small").as_deref(), Some(&1));
        // A caller that waits for the load gives up when told to.
        let calls = std::sync::atomic::AtomicU32::new(0);
        let go_on = || match calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
            0..=2 => Ok(()),
            _ => Err("cancelled"),
        };
        let given_up = registry.get_or_load_while("large", go_on, || unreachable!());
        assert_eq!(given_up, Err("cancelled"));
        finish.send(()).unwrap();
        assert_eq!(*loader.join().unwrap().unwrap(), 2);
        assert_eq!(registry.loaded().len(), 1);
        assert_eq!(
            registry.get_or_load_while::<()>("large", || Err(()), || unreachable!()),
            Ok(Arc::new(2)),
            "a loaded circuit is no wait"
        );
    }
}
