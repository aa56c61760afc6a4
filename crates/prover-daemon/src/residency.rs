//! Which circuits stay loaded: all that fit the memory budget, and when a
//! circuit to load or a job to start needs room, the least recently used
//! that no job uses go first.
//!
//! A 32 GiB PoRep circuit holds 52 GiB, a WindowPoSt one 67 GiB, a
//! SnapDeals one 39 GiB (docs/memory.md): a machine that seals and proves
//! WindowPoSt rarely holds them all, and a daemon that kept every circuit
//! it ever loaded would fail every job once the budget filled. So each
//! circuit is admitted to the budget ([`MemoryGate::admit`]) before it
//! holds anything, for all it will hold as its files' headers tell it
//! (the PCE's dimensions and size, the parameters' query lengths),
//! evicting idle circuits as far as needed; it waits for that holding
//! nothing, and once loaded its count is corrected to what it holds. A
//! circuit whose PCE is missing is recorded first, counted meanwhile as
//! its decoded parameters ([`memory::recording_bytes`]). It is counted
//! until it is dropped, not merely evicted: a worker idle on a device
//! keeps its circuit (on a GPU, its uploaded bases) for the next job of
//! that circuit, and lets go once it is evicted.
//!
//! A job leases its circuit from the moment its memory is reserved to its
//! end; a leased circuit is never evicted to make room (an explicit
//! `EvictSRS` still drops it from the registry, and the job keeps it until
//! it ends). A circuit evicted while its job waited for memory is loaded
//! again.
//!
//! Locks, in the order they may nest: a registry slot's loading lock, the
//! job table's, then `uses`, then the registry's map. The memory gate's
//! lock may be held while `uses` or the map is taken (an evictor asked how
//! much it frees), so neither is ever held while the gate's is taken.

use std::collections::HashMap;
use std::ops::Deref;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use backend_api::Device;
use filecoin_prover::cache::CircuitFiles;
use filecoin_prover::circuits::ProofCircuit;
use proving_engine::memory::{self, BackendMemory, MemoryModel, PceSize, SrsShape};
use proving_engine::process::release_free_memory;
use proving_engine::{chain, LoadedCircuit, Registry};
use tracing::info;

use crate::memory_gate::{Evict, Evictor, GateError, MemoryGate, Wait};
use crate::requests::circuit_name;

/// A circuit's recording as the memory gate counts it.
struct Recording<'a> {
    /// Its entry in the gate: the one its load takes next.
    id: &'a str,
    /// What it is counted for ([`memory::recording_bytes`]).
    bytes: u64,
    /// The file it is saved to.
    pce: &'a Path,
}

/// A loaded circuit, counted in the memory budget until it is dropped.
pub struct Resident {
    /// The circuit (dropped before `charge`, so that the budget is given
    /// back only once its memory is).
    circuit: LoadedCircuit,
    /// Its name (`porep-32g`).
    pub name: String,
    /// Which load of that name it is: a circuit evicted and loaded again
    /// is another.
    generation: u64,
    charge: Charge,
}

impl Resident {
    /// Its entry in the memory gate.
    pub fn charge_id(&self) -> &str {
        &self.charge.id
    }
}

impl Deref for Resident {
    type Target = LoadedCircuit;

    fn deref(&self) -> &LoadedCircuit {
        &self.circuit
    }
}

/// A circuit's bytes in the gate, released when dropped.
struct Charge {
    gate: Arc<MemoryGate>,
    id: String,
}

impl Drop for Charge {
    fn drop(&mut self) {
        // The circuit is dropped by now; what the allocator keeps of it
        // goes back to the system before its budget is given to another.
        release_free_memory();
        let freed = self.gate.release(&self.id);
        info!(circuit = self.id, freed, "circuit memory released");
    }
}

/// How a loaded circuit is used.
#[derive(Debug, Clone, Copy)]
struct Use {
    generation: u64,
    /// Jobs holding a lease on it.
    jobs: u32,
    last_used: Instant,
}

/// A job's hold on its circuit: never evicted to make room while held.
pub struct Lease<'a> {
    circuits: &'a Circuits,
    name: String,
    generation: u64,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        let mut uses = self.circuits.uses();
        if let Some(used) = uses
            .get_mut(&self.name)
            .filter(|u| u.generation == self.generation)
        {
            used.jobs -= 1;
            used.last_used = Instant::now();
        }
    }
}

/// The daemon's loaded circuits within its memory budget.
pub struct Circuits {
    registry: Registry<Resident>,
    gate: Arc<MemoryGate>,
    /// The circuits in the registry now, by name.
    uses: Mutex<HashMap<String, Use>>,
    /// The memory gate's ticket of each circuit's load in progress that
    /// waits in line, by name: a more urgent caller behind that load raises
    /// it to its own urgency ([`MemoryGate::raise`]), instead of waiting
    /// for it at the loader's (a preload's, the least).
    loaders: Mutex<HashMap<String, u64>>,
    next_generation: AtomicU64,
    /// Called after a circuit is evicted, so that idle workers holding it
    /// let go.
    on_evict: Box<dyn Fn() + Send + Sync>,
    evictions: AtomicU64,
    /// What jobs hold beside a circuit, by its domain.
    jobs: JobBackends,
}

/// A load in progress listed in [`Circuits::loaders`] until dropped.
struct LoaderListed<'a> {
    circuits: &'a Circuits,
    name: &'a str,
}

impl<'a> LoaderListed<'a> {
    fn new(circuits: &'a Circuits, name: &'a str, ticket: u64) -> Self {
        circuits.loaders().insert(name.to_owned(), ticket);
        Self { circuits, name }
    }
}

impl Drop for LoaderListed<'_> {
    fn drop(&mut self) {
        // Raised for the load only: the loader's own job, if any, waits
        // for its memory at its own urgency again.
        let mut loaders = self.circuits.loaders();
        if let Some(number) = loaders.remove(self.name) {
            self.circuits.gate.lower(number);
        }
    }
}

/// Why a circuit is not there.
enum NotLoaded {
    /// Not now: no room, and the caller does not wait.
    NoRoom,
    /// It failed to load or never fits: why.
    Failed(String),
}

impl Circuits {
    /// No circuit yet, within `gate`'s budget; `on_evict` is called after
    /// each eviction.
    pub fn new(
        gate: Arc<MemoryGate>,
        jobs: JobBackends,
        on_evict: Box<dyn Fn() + Send + Sync>,
    ) -> Self {
        Self {
            registry: Registry::new(),
            gate,
            uses: Mutex::new(HashMap::new()),
            loaders: Mutex::new(HashMap::new()),
            next_generation: AtomicU64::new(0),
            on_evict,
            evictions: AtomicU64::new(0),
            jobs,
        }
    }

    /// What the circuit of `size`, proven with parameters of `shape`
    /// (decoded once if `resident`), is counted for: what it holds
    /// whatever the jobs, and the least a job of it reserves beside it
    /// (one partition, with the devices' NTT scratch, and its fallback's
    /// share) as the job's reservation counts it. A circuit with less room
    /// beside it could never prove.
    fn counted(&self, size: PceSize, shape: SrsShape, resident: bool) -> (u64, u64) {
        let held = MemoryModel::new(size, shape, resident, 0, BackendMemory::default());
        let log_n = memory::domain_of(size.num_constraints).trailing_zeros();
        let job = MemoryModel::new(size, shape, resident, 0, self.jobs.at(log_n));
        (
            held.static_bytes(),
            job.per_partition().saturating_add(job.fallback),
        )
    }

    fn uses(&self) -> MutexGuard<'_, HashMap<String, Use>> {
        self.uses.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn loaders(&self) -> MutexGuard<'_, HashMap<String, u64>> {
        self.loaders.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Raises the ticket of the load of `name` in progress, if it waits
    /// in line, to `urgency`.
    pub fn raise_loader(&self, name: &str, urgency: u8) {
        // Under the lock: a load that has just ended is not raised after.
        let loaders = self.loaders();
        if let Some(&number) = loaders.get(name) {
            self.gate.raise(number, urgency);
        }
    }

    /// `circuit`, loaded if it is not, with the time it took this caller;
    /// `None` if it is not loaded and does not fit now while `wait` says
    /// not to wait. An error if it fails to load or could never fit.
    pub fn get(
        &self,
        circuit: ProofCircuit,
        wait: Wait<'_>,
        cancel: &AtomicBool,
    ) -> Result<Option<(Arc<Resident>, Duration)>, String> {
        self.get_evicting(circuit, wait, cancel, true)
    }

    /// `circuit`, loaded if it is not and it fits beside the loaded
    /// circuits now (evicting none): `None` if it does not. What a daemon
    /// preloads at start, where its operator asked for all of them.
    pub fn get_beside_loaded(
        &self,
        circuit: ProofCircuit,
    ) -> Result<Option<(Arc<Resident>, Duration)>, String> {
        static NEVER_CANCELLED: AtomicBool = AtomicBool::new(false);
        self.get_evicting(circuit, Wait::No, &NEVER_CANCELLED, false)
    }

    fn get_evicting(
        &self,
        circuit: ProofCircuit,
        wait: Wait<'_>,
        cancel: &AtomicBool,
        evicting: bool,
    ) -> Result<Option<(Arc<Resident>, Duration)>, String> {
        let name = circuit_name(circuit);
        let start = Instant::now();
        let load = || {
            // Listed while it loads, for callers behind it to raise.
            let _listed = match wait {
                Wait::Yes(ticket) => Some(LoaderListed::new(self, &name, ticket.number())),
                Wait::No => None,
            };
            self.load(circuit, &name, wait, cancel, evicting)
        };
        let got = match wait {
            // Behind another caller's load only while the job is not
            // cancelled: that load may wait minutes for memory, served
            // no later than this caller would be.
            Wait::Yes(ticket) => self
                .registry
                .get_or_load_while(
                    &name,
                    || {
                        self.raise_loader(&name, ticket.urgency());
                        cancelled(cancel, &name)
                    },
                    load,
                )
                .map(Some),
            // Not behind another caller's load, which may wait for memory
            // this caller's paused job holds.
            Wait::No => self.registry.try_get_or_load(&name, load),
        };
        match got {
            Ok(None) => Ok(None),
            Ok(Some(resident)) => {
                if let Some(used) = self.uses().get_mut(&name) {
                    used.last_used = Instant::now();
                }
                Ok(Some((resident, start.elapsed())))
            }
            Err(NotLoaded::NoRoom) => Ok(None),
            Err(NotLoaded::Failed(message)) => Err(message),
        }
    }

    /// Loads `circuit` as `name`: admitted to the budget for all it will
    /// hold (evicting idle circuits if `evicting`) before anything is read,
    /// as its files' headers tell it, then its PCE read and its parameter
    /// file opened, its count corrected to what it holds, and its
    /// parameters decoded. A circuit whose PCE is missing or unusable is
    /// recorded first, counted as its decoded parameters while it is.
    fn load(
        &self,
        circuit: ProofCircuit,
        name: &str,
        wait: Wait<'_>,
        cancel: &AtomicBool,
        evicting: bool,
    ) -> Result<Resident, NotLoaded> {
        // It may have waited long for another's load of the same circuit.
        cancelled(cancel, name)?;
        let generation = self.next_generation.fetch_add(1, Ordering::Relaxed);
        let id = format!("{name}#{generation}");
        let mut idle = self.idle(Some(name), wait);
        let mut none = || false;
        let evictor: &mut dyn Evictor = if evicting { &mut idle } else { &mut none };
        let no_room = |e: GateError| NotLoaded::Failed(format!("circuit {name}: {e}"));
        let files = circuit.files().ok();
        let plan = |files: &CircuitFiles| memory::planned_sizes(&files.pce, &files.params);
        let mut planned = files.as_ref().and_then(plan);
        if let Some(files) = files.as_ref().filter(|_| planned.is_none()) {
            // The parameters open but the PCE does not: it is missing or
            // unusable, and recorded now.
            if let Some(bytes) = memory::recording_bytes(&files.params) {
                let record = Recording {
                    id: &id,
                    bytes,
                    pce: &files.pce,
                };
                self.record(circuit, name, record, wait, cancel, &mut *evictor)?;
                planned = plan(files);
            }
        }
        // One that must not wait reads nothing it has no plan for (the
        // PCE is gigabytes) unless its files' worth fits now.
        if planned.is_none()
            && matches!(wait, Wait::No)
            && !self.gate.fits_now(files.as_ref().map_or(0, stored_bytes))
        {
            return Err(NotLoaded::NoRoom);
        }
        // Waiting, it holds nothing: a PCE read before its memory was
        // admitted would be gigabytes outside the budget for as long as
        // it waits.
        let planned_bytes = match planned {
            Some((size, shape)) => {
                let (bytes, then) = self.counted(size, shape, true);
                let admitted = self
                    .gate
                    .admit(&id, bytes, then, wait, cancel, &mut *evictor)
                    .map_err(no_room)?;
                if !admitted {
                    return Err(NotLoaded::NoRoom);
                }
                bytes
            }
            None => 0,
        };
        // Released if anything below fails.
        let charge = Charge {
            gate: self.gate.clone(),
            id,
        };
        cancelled(cancel, name)?;
        let loaded = circuit
            .load(true)
            .map_err(|e| NotLoaded::Failed(chain(&e)))?;
        let (bytes, then) = self.counted(loaded.pce.size(), loaded.params.shape(), loaded.resident);
        let admit = |wait: Wait<'_>, evictor: Evict<'_>| {
            self.gate
                .admit(&charge.id, bytes, then, wait, cancel, evictor)
                .map_err(no_room)
        };
        // What it holds is known exactly now: no more than planned (taken
        // at once), or more where nothing was planned (a PCE just
        // recorded) or a file changed meanwhile. One that waits takes more
        // at once only if it fits now and no one waits, evicting nothing;
        // else it lets go of what it was counted for before waiting in
        // line for the whole: bytes no one can evict, held while waiting
        // behind others, could be what the first in line waits for, and it
        // would wait for ever.
        let admitted = match wait {
            Wait::No => admit(Wait::No, evictor)?,
            Wait::Yes(_) => {
                let at_once = (bytes <= planned_bytes || !self.gate.anyone_waiting())
                    && admit(Wait::No, &mut || false)?;
                if !at_once {
                    self.gate.release(&charge.id);
                }
                at_once || admit(wait, evictor)?
            }
        };
        if !admitted {
            return Err(NotLoaded::NoRoom);
        }
        let resident = Resident {
            circuit: loaded,
            name: name.to_owned(),
            generation,
            charge,
        };
        cancelled(cancel, name)?;
        resident
            .circuit
            .decode()
            .map_err(|e| NotLoaded::Failed(chain(&e)))?;
        let used = Use {
            generation,
            jobs: 0,
            last_used: Instant::now(),
        };
        self.uses().insert(name.to_owned(), used);
        Ok(resident)
    }

    /// Records `circuit`'s PCE and saves it (an error if it cannot be
    /// saved), counted in the budget as `recording` says while it runs.
    fn record(
        &self,
        circuit: ProofCircuit,
        name: &str,
        recording: Recording<'_>,
        wait: Wait<'_>,
        cancel: &AtomicBool,
        evictor: Evict<'_>,
    ) -> Result<(), NotLoaded> {
        let Recording { id, bytes, pce } = recording;
        let admitted = self
            .gate
            .admit(id, bytes, 0, wait, cancel, evictor)
            .map_err(|e| NotLoaded::Failed(format!("recording circuit {name}: {e}")))?;
        if !admitted {
            return Err(NotLoaded::NoRoom);
        }
        // Released when the recording ends, or panics.
        let counted = Charge {
            gate: self.gate.clone(),
            id: id.to_owned(),
        };
        cancelled(cancel, name)?;
        info!(circuit = name, bytes, "recording the circuit on first use, counted in the memory budget as its decoded parameters (at 32 GiB, minutes): `pce-prover params record` records it before the daemon starts");
        let recorded = circuit.pce().map(drop);
        drop(counted);
        recorded
            .map_err(|e| NotLoaded::Failed(format!("recording circuit {name}: {}", chain(&e))))?;
        // The load reads what was saved: recorded again there, it would be
        // minutes of work outside the budget, at every load.
        if !pce.exists() {
            return Err(NotLoaded::Failed(format!(
                "circuit {name} was recorded but could not be saved to {} (the log says why): \
                 the daemon needs a writable parameter cache, or the circuit recorded there \
                 beforehand with `pce-prover params record`",
                pce.display()
            )));
        }
        Ok(())
    }

    /// A lease on `circuit` for a job; `None` if it was evicted since the
    /// caller got it.
    pub fn lease(&self, circuit: &Resident) -> Option<Lease<'_>> {
        let mut uses = self.uses();
        let used = uses
            .get_mut(&circuit.name)
            .filter(|u| u.generation == circuit.generation)?;
        used.jobs += 1;
        used.last_used = Instant::now();
        Some(Lease {
            circuits: self,
            name: circuit.name.clone(),
            generation: circuit.generation,
        })
    }

    /// Whether a circuit named `name` is loaded (one being loaded is not).
    pub fn has(&self, name: &str) -> bool {
        self.registry
            .map_loaded(|loaded, _| loaded == name)
            .contains(&true)
    }

    /// Whether `circuit` is still loaded (not evicted).
    pub fn is_loaded(&self, circuit: &Resident) -> bool {
        self.uses()
            .get(&circuit.name)
            .is_some_and(|u| u.generation == circuit.generation)
    }

    /// Evicts the least recently used circuit that no job uses, other than
    /// `except`; whether there was one. For a caller that does not wait,
    /// only one nothing else holds, whose memory is free at once.
    pub fn evict_idle(&self, except: Option<&str>, wait: Wait<'_>) -> bool {
        let candidates = self.candidates(except, wait);
        let uses = self.uses();
        let victim = idle(&uses, candidates)
            .min_by_key(|(_, _, last_used)| *last_used)
            .map(|(name, ..)| name);
        let Some(name) = victim else {
            return false;
        };
        info!(
            circuit = name,
            "evicting the least recently used idle circuit to make room"
        );
        self.evictions.fetch_add(1, Ordering::Relaxed);
        self.remove(uses, &name);
        true
    }

    /// The idle circuits other than `except`, to make room for a caller
    /// that waits as `wait` says.
    pub fn idle<'a>(&'a self, except: Option<&'a str>, wait: Wait<'a>) -> IdleCircuits<'a> {
        IdleCircuits {
            circuits: self,
            except,
            wait,
        }
    }

    /// The loaded circuits [`Circuits::evict_idle`] may consider: name,
    /// load, bytes; for a caller that does not wait, only those nothing
    /// else holds. Read before `uses` is locked (the registry's lock is
    /// taken under that one when evicting); [`idle`] keeps those no job
    /// uses.
    fn candidates(&self, except: Option<&str>, wait: Wait<'_>) -> Vec<(String, u64, u64)> {
        let loaded = self.registry.map_loaded(|name, circuit| {
            let unheld = Arc::strong_count(circuit) == 1;
            let wanted = Some(name) != except && (matches!(wait, Wait::Yes(_)) || unheld);
            wanted.then(|| (name.to_owned(), circuit.generation, resident_bytes(circuit)))
        });
        loaded.into_iter().flatten().collect()
    }

    /// Drops circuit `name` from the registry (jobs and workers using it
    /// keep it until they let go); the bytes it holds, if it was loaded.
    pub fn evict(&self, name: &str) -> Option<u64> {
        self.remove(self.uses(), name)
    }

    /// Evicts `name`, under the lock of `uses` so that no job leases it
    /// meanwhile.
    fn remove(&self, mut uses: MutexGuard<'_, HashMap<String, Use>>, name: &str) -> Option<u64> {
        // Only a loaded circuit: one being loaded is not in `uses` yet, and
        // a load that fails stores nothing.
        let used = uses.remove(name)?;
        let circuit = self.registry.evict(name);
        drop(uses);
        // Not under `uses`: the gate asks for `uses` under its own lock
        // (`IdleCircuits::free_at_once`). Before the circuit is dropped,
        // which releases its bytes.
        let bytes = self.gate.draining(&format!("{name}#{}", used.generation));
        // Freeing tens of gigabytes takes a while: not under the lock.
        drop(circuit);
        (self.on_evict)();
        Some(bytes)
    }

    /// The loaded circuits: name, bytes held, jobs using each. No circuit
    /// is referenced past the call (so none is freed by it).
    pub fn loaded(&self) -> Vec<(String, u64, u32)> {
        let circuits = self.registry.map_loaded(|name, circuit| {
            (name.to_owned(), circuit.generation, resident_bytes(circuit))
        });
        let uses = self.uses();
        circuits
            .into_iter()
            .map(|(name, generation, bytes)| {
                let jobs = uses
                    .get(&name)
                    .filter(|u| u.generation == generation)
                    .map_or(0, |u| u.jobs);
                (name, bytes, jobs)
            })
            .collect()
    }

    /// Circuits evicted to make room since the daemon started.
    pub fn evictions(&self) -> u64 {
        self.evictions.load(Ordering::Relaxed)
    }
}

/// The idle circuits that may be evicted for one asker.
pub struct IdleCircuits<'a> {
    circuits: &'a Circuits,
    except: Option<&'a str>,
    wait: Wait<'a>,
}

impl Evictor for IdleCircuits<'_> {
    fn evict_one(&mut self) -> bool {
        self.circuits.evict_idle(self.except, self.wait)
    }

    fn free_at_once(&self) -> u64 {
        let candidates = self.circuits.candidates(self.except, Wait::No);
        idle(&self.circuits.uses(), candidates)
            .map(|(_, bytes, _)| bytes)
            .sum()
    }
}

/// Of `candidates` (name, load, bytes), those still loaded (that load) and
/// used by no job: name, bytes, last use.
fn idle(
    uses: &HashMap<String, Use>,
    candidates: Vec<(String, u64, u64)>,
) -> impl Iterator<Item = (String, u64, Instant)> + '_ {
    candidates
        .into_iter()
        .filter_map(|(name, generation, bytes)| {
            let used = uses.get(&name)?;
            (used.jobs == 0 && used.generation == generation).then_some((
                name,
                bytes,
                used.last_used,
            ))
        })
}

/// An error if the job loading circuit `name` was cancelled: checked
/// before each step of a load that takes long (recording, reading,
/// decoding), which a cancelled job must not spend minutes on.
fn cancelled(cancel: &AtomicBool, name: &str) -> Result<(), NotLoaded> {
    match cancel.load(Ordering::Relaxed) {
        true => Err(NotLoaded::Failed(format!(
            "circuit {name}: cancelled while loading it"
        ))),
        false => Ok(()),
    }
}

/// The bytes of a circuit's files, about what it holds once loaded (0 for
/// a file that cannot be found).
fn stored_bytes(files: &CircuitFiles) -> u64 {
    let size = |path: &std::path::Path| std::fs::metadata(path).map_or(0, |m| m.len());
    size(&files.pce) + size(&files.params)
}

/// What a loaded circuit holds whatever the jobs: its PCE, its decoded
/// parameters and its NTT tables.
pub fn resident_bytes(circuit: &LoadedCircuit) -> u64 {
    let (size, shape) = (circuit.pce.size(), circuit.params.shape());
    MemoryModel::new(size, shape, circuit.resident, 0, BackendMemory::default()).static_bytes()
}

/// What a job holds beside its circuit on the daemon's devices, by the
/// circuit's domain: the largest NTT and MSM scratch of any device or the
/// fallback, and the fallback's share ([`BackendMemory::of`]). Asked of
/// the plugins once, at start, for every domain a transform can have.
pub struct JobBackends(Vec<BackendMemory>);

impl JobBackends {
    /// The largest domain, `2^32`: the scalar field's two-adicity.
    const LARGEST_LOG_DOMAIN: u32 = 32;

    /// Jobs on any of `devices`, with `fallback` behind them.
    pub fn of(devices: &[&Device], fallback: Option<&Device>) -> Self {
        // A size a plugin cannot answer for (one it does not transform)
        // counts nothing here: the job's own reservation asks again and
        // fails with the plugin's reason.
        let at = |log_n| {
            let behind = BackendMemory::of(&[], fallback, log_n).unwrap_or_default();
            let alone: Vec<BackendMemory> = devices
                .iter()
                .filter_map(|device| BackendMemory::of(&[device], None, log_n).ok())
                .collect();
            let largest = |scratch: fn(&BackendMemory) -> u64, behind: u64| {
                alone.iter().map(scratch).fold(behind, u64::max)
            };
            BackendMemory {
                ntt_scratch: largest(|memory| memory.ntt_scratch, behind.ntt_scratch),
                msm_scratch: largest(|memory| memory.msm_scratch, behind.msm_scratch),
                devices: 0,
                fallback: behind.fallback,
            }
        };
        Self((0..=Self::LARGEST_LOG_DOMAIN).map(at).collect())
    }

    /// What a job of a circuit of domain `2^log_n` holds beside it.
    fn at(&self, log_n: u32) -> BackendMemory {
        self.0.get(log_n as usize).copied().unwrap_or_default()
    }
}
