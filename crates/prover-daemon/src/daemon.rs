//! The daemon's core, apart from the wire: the backend's devices, a worker
//! per device slot taking jobs from the queue, the circuits they share, and
//! the status and metrics read from all of it.
//!
//! ```text
//! gRPC handlers ── submit ──► Jobs (priority queue) ◄── claim ── worker × (devices × workers_per_device)
//!        ▲                                                          │ Proving::prove (circuit from the
//!        └──────────── watch (outcome) ◄──────── finish ────────────┘ registry, memory from the gate)
//! ```
//!
//! A worker proves one job at a time on its device; any failure, panic
//! included, ends that job with a message and the worker takes the next.
//! Between two partitions of a job it first proves, on the same device,
//! any queued job more urgent than it: a WinningPoSt that arrives while
//! every device is on a 32 GiB PoRep waits for one of its partitions, not
//! for all ten.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use backend_api::{Backend, Device, DeviceInfo};
use filecoin_prover::circuits::ProofCircuit;
use proving_engine::memory::{default_budget, gib};
use proving_engine::process::{release_free_memory, ProcessMemory, ProcessResources};
use proving_engine::{
    chain, open_fallback, panic_message, pick_devices, BetweenPartitions, DeviceProver, EngineError,
};
use tracing::{info, warn};

use crate::config::{Config, ConfigError};
use crate::jobs::{Claimed, Jobs, Outcome, Preference, Priority, State, Submitted};
use crate::load_ahead::LoadsAhead;
use crate::memory_gate::{MemoryGate, Wait};
use crate::metrics::{DeviceGauges, Gauges, Metrics};
use crate::proving::{JobMemory, Proven, Proving, Reserved};
use crate::requests::{
    circuit_name, circuit_named, Opened, Request, KIND_POREP, KIND_SNAP, KIND_WINDOW_POST,
    KIND_WINNING_POST,
};
use crate::residency::{Circuits, JobBackends, Resident};
use crate::service_manager;
use crate::suspension::Suspension;

/// Why the daemon cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The backend could not be loaded.
    #[error(transparent)]
    Backend(#[from] backend_api::LoadError),
    /// The backend failed to list or open its devices.
    #[error("backend {backend}: {source}")]
    Devices {
        /// The backend.
        backend: String,
        /// Why.
        source: backend_api::BackendError,
    },
    /// The fallback backend could not be opened.
    #[error("the fallback backend: {0}")]
    Fallback(String),
    /// The configured devices are not listed (or none is): jobs would
    /// wait for ever.
    #[error(transparent)]
    NoDevice(EngineError),
    /// A circuit to preload is unknown or failed to load.
    #[error("preloading {circuit}: {what}")]
    Preload {
        /// The circuit's name.
        circuit: String,
        /// Why.
        what: String,
    },
}

/// The job whose partitions an urgent job is proven between: its circuit
/// and its prover, idle meanwhile.
struct Paused<'a, 'p> {
    circuit: &'a Arc<Resident>,
    prover: &'a DeviceProver<'p>,
    /// The paused job's cancellation, which ends any wait here.
    cancel: &'a AtomicBool,
}

/// A device the daemon proves on.
pub struct DeviceSlot {
    /// What the backend says of it.
    pub info: DeviceInfo,
    /// It, open.
    pub device: Device,
    /// Whether it has failed lately ([`crate::suspension`]).
    pub suspension: Suspension,
}

impl DeviceSlot {
    /// Records a failure of the device (`what` failed) and suspends it.
    fn failed(&self, what: std::fmt::Arguments<'_>) {
        let pause = self.suspension.failed();
        if pause.is_zero() {
            warn!(device = self.info.index, "{what}");
        } else {
            warn!(
                device = self.info.index,
                ?pause,
                "{what}; the device takes no job meanwhile, the others prove the queue"
            );
        }
    }
}

/// A device's line in the status.
#[derive(Debug, Clone)]
pub struct DeviceStatus {
    /// Index in the backend.
    pub index: u32,
    /// Name.
    pub name: String,
    /// Total and free memory, when the backend reports them.
    pub memory: Option<(u64, u64)>,
    /// Jobs running on it, with their kinds, the most urgent first: the
    /// one being proven when one runs between another's partitions.
    pub running: Vec<(String, &'static str)>,
    /// Its failures since start ([`crate::suspension`]).
    pub failures: u64,
    /// How long it stays suspended, if it is.
    pub suspended_for: Option<Duration>,
}

/// A loaded circuit's line in the status.
#[derive(Debug, Clone)]
pub struct CircuitStatus {
    /// Its name (`porep-32g`).
    pub name: String,
    /// Bytes it holds (PCE, decoded parameters, NTT tables).
    pub bytes: u64,
    /// Jobs using it now.
    pub in_use: u32,
}

/// The daemon's state, as `GetStatus` reports it.
#[derive(Debug, Clone)]
pub struct Status {
    /// Devices.
    pub devices: Vec<DeviceStatus>,
    /// Loaded circuits.
    pub circuits: Vec<CircuitStatus>,
    /// Per proof kind: (queued, running).
    pub queues: BTreeMap<&'static str, (u64, u64)>,
    /// Jobs completed since start.
    pub completed: u64,
    /// Jobs failed since start.
    pub failed: u64,
    /// Since start.
    pub uptime: Duration,
    /// Memory budget, and what circuits and jobs hold of it.
    pub memory_budget: u64,
    /// See `memory_budget`.
    pub memory_used: u64,
}

/// The daemon.
pub struct Daemon {
    /// Every job.
    pub jobs: Arc<Jobs<Request>>,
    /// Circuits, memory and backend shared by the workers.
    pub proving: Proving,
    /// Counters and histograms.
    pub metrics: Arc<Metrics>,
    devices: Vec<DeviceSlot>,
    workers_per_device: usize,
    /// Whether urgent jobs are proven between a running job's partitions.
    interleave_urgent_jobs: bool,
    /// How long a job may be passed over for jobs of a circuit a device
    /// is set up for.
    prefer_loaded_circuit: Duration,
    /// Urgent jobs' circuits being loaded while the jobs are queued.
    loads_ahead: LoadsAhead,
    started: Instant,
    /// Set when the daemon stops: `PreloadSRS` loads still waiting for
    /// memory or between their steps give up.
    stopping: AtomicBool,
}

impl Daemon {
    /// Loads the backend and opens the configured devices (all of them when
    /// none is named). Workers start with [`Daemon::spawn_workers`].
    pub fn new(config: &Config) -> Result<Arc<Self>, StartError> {
        config.validate()?;
        let backend = Backend::load(&config.proving.backend)?;
        let devices_error = |source| StartError::Devices {
            backend: backend.name().to_owned(),
            source,
        };
        let chosen =
            pick_devices(&backend, &config.proving.devices).map_err(|error| match error {
                EngineError::Backend(source) => devices_error(source),
                other => StartError::NoDevice(other),
            })?;
        let mut devices = Vec::new();
        for info in chosen {
            let device = backend.open(info.index).map_err(devices_error)?;
            info!(index = info.index, name = %info.name, "device ready");
            devices.push(DeviceSlot {
                info,
                device,
                suspension: Suspension::new(Duration::from_secs(
                    config.proving.suspend_failing_device_seconds,
                )),
            });
        }
        let fallback_device =
            open_fallback(config.proving.fallback_backend().as_deref(), backend.name())
                .map_err(|e| StartError::Fallback(chain(&e)))?;
        let budget = config.memory_budget()?.unwrap_or_else(default_budget);
        let gate = Arc::new(MemoryGate::new(budget));
        // What each device holds while it is open (a GPU's staging
        // buffers) is resident for the daemon's life.
        for slot in &devices {
            let held = slot.device.device_host_bytes().map_err(devices_error)?;
            if held > 0 {
                gate.hold_always(&format!("device {}", slot.info.index), held);
            }
        }
        if let Some((device, _)) = &fallback_device {
            let held = device
                .device_host_bytes()
                .map_err(|e| StartError::Fallback(chain(&e)))?;
            if held > 0 {
                gate.hold_always("fallback device", held);
            }
        }
        let metrics = Arc::new(Metrics::default());
        let counted = metrics.clone();
        let jobs = Arc::new(
            Jobs::new(Duration::from_secs(config.server.keep_results_seconds))
                .holding_inputs_up_to(config.server.max_input_bytes_held)
                .observed(move |kind, outcome| counted.job_ended(kind, outcome)),
        );
        // Workers idle with an evicted circuit let go of it.
        let wake = jobs.clone();
        let slots: Vec<&Device> = devices.iter().map(|slot| &slot.device).collect();
        let circuits = Circuits::new(
            gate.clone(),
            JobBackends::of(&slots, fallback_device.as_ref().map(|(device, _)| device)),
            Box::new(move || wake.wake_workers()),
        );
        Ok(Arc::new(Self {
            jobs,
            proving: Proving {
                circuits,
                gate,
                fallback: config.proving.fallback_backend(),
                fallback_device,
                partitions_in_flight: config.proving.partitions_in_flight,
            },
            metrics,
            devices,
            workers_per_device: config.proving.workers_per_device,
            interleave_urgent_jobs: config.proving.interleave_urgent_jobs,
            prefer_loaded_circuit: Duration::from_secs(
                config.proving.prefer_loaded_circuit_seconds,
            ),
            loads_ahead: LoadsAhead::default(),
            started: Instant::now(),
            stopping: AtomicBool::new(false),
        }))
    }

    /// Starts the workers: `workers_per_device` per device.
    pub fn spawn_workers(self: &Arc<Self>) -> Vec<JoinHandle<()>> {
        (0..self.devices.len())
            .flat_map(|slot| (0..self.workers_per_device).map(move |n| (slot, n)))
            .map(|(slot, n)| {
                let daemon = self.clone();
                std::thread::Builder::new()
                    .name(format!("worker-{}-{n}", self.devices[slot].info.index))
                    .spawn(move || daemon.work(slot))
                    .expect("spawning a worker thread")
            })
            .collect()
    }

    /// A worker: proves jobs on device `slot` until the queue closes.
    fn work(self: &Arc<Self>, slot: usize) {
        let index = self.devices[slot].info.index;
        let mut next = None;
        loop {
            if next.is_none() && !self.wait_while_suspended(slot) {
                return;
            }
            let claimed = next
                .take()
                .or_else(|| self.claim_opened(|| self.jobs.claim(index)));
            let Some((job, input)) = claimed else {
                return;
            };
            if self.suspended(slot) {
                // Claimed while another worker of this device found its
                // set-up failing: back to the queue, for another device.
                self.jobs.requeue(job);
                continue;
            }
            next = self.prove_while_same_circuit(slot, job, input);
        }
    }

    /// Whether device `slot` is suspended now: a worker that finds it so
    /// puts back the job it holds (for another device) instead of proving
    /// it there, at each point where it may have waited while another
    /// worker of the device failed.
    fn suspended(&self, slot: usize) -> bool {
        self.devices[slot].suspension.remaining().is_some()
    }

    /// Waits while device `slot` is suspended ([`crate::suspension`]);
    /// whether to go on (not once the daemon stops).
    fn wait_while_suspended(&self, slot: usize) -> bool {
        while let Some(left) = self.devices[slot].suspension.remaining() {
            if self.stopping.load(Ordering::Relaxed) {
                return false;
            }
            std::thread::sleep(left.min(Duration::from_millis(200)));
        }
        true
    }

    /// The next job `claim` gives whose input opens (is well formed and
    /// matches its request), ending those whose input does not; `None` once
    /// `claim` gives none. A bad input fails before any circuit is loaded
    /// for it.
    fn claim_opened(
        &self,
        claim: impl Fn() -> Option<Claimed<Request>>,
    ) -> Option<(Claimed<Request>, Opened)> {
        loop {
            let job = claim()?;
            match unless_panics("reading the input", || job.request.open()) {
                Ok(input) => return Some((job, input)),
                Err(message) => self.end(job, Err(message)),
            }
        }
    }

    /// Proves `first` and the jobs claimed after it as long as they need
    /// the same circuit, with one prover on device `slot` (the circuit's
    /// bases lent to it, on a GPU uploaded, once for all of them); returns
    /// the first job that needs another circuit (or its circuit loaded
    /// again), `None` once the queue closes or the circuit, idle, is
    /// evicted: the device then holds nothing of it.
    fn prove_while_same_circuit(
        self: &Arc<Self>,
        slot: usize,
        first: Claimed<Request>,
        input: Opened,
    ) -> Option<(Claimed<Request>, Opened)> {
        let index = self.devices[slot].info.index;
        let device = &self.devices[slot].device;
        let prepared = unless_panics("loading its circuit and reserving its memory", || {
            let ticket = self.proving.gate.line_up(first.priority as u8);
            self.proving.prepare(
                first.request.circuit(),
                &input,
                device,
                &first.cancel,
                Wait::Yes(&ticket),
            )
        });
        let (circuit, memory, loading) = match prepared {
            Ok(Some(prepared)) => prepared,
            // Not from a job that waits for memory; an error all the same.
            Ok(None) => {
                self.end(first, Err("no memory for it".into()));
                return None;
            }
            Err(message) => {
                self.end(first, Err(message));
                return None;
            }
        };
        if self.suspended(slot) {
            drop(memory);
            self.jobs.requeue(first);
            return None;
        }
        let setting_up = Instant::now();
        let prover = match unless_panics("setting its circuit up on the device", || {
            self.device_prover(slot, &circuit)
        }) {
            Ok(prover) => prover,
            Err(message) => {
                drop(memory);
                self.end(first, Err(message));
                return None;
            }
        };
        // Loading the circuit and setting it up; waiting for the memory of
        // its partitions is the job's queue wait.
        let mut setup = loading + setting_up.elapsed();
        info!(
            circuit = circuit.name,
            device = index,
            ?setup,
            "circuit ready on the device"
        );
        let same_circuit = |request: &Request| {
            circuit_name(request.circuit()) == circuit.name
                && self.proving.circuits.is_loaded(&circuit)
        };
        let prefer = Preference {
            wants: &same_circuit,
            for_at_most: self.prefer_loaded_circuit,
        };
        let prefer = (!prefer.for_at_most.is_zero()).then_some(&prefer);
        let mut ready = Some((first, input, memory));
        loop {
            if let Some((job, input, memory)) = ready.take() {
                let failures_before = self.devices[slot].suspension.failures_total();
                let proven = self
                    .prove_job(slot, &job, &input, &circuit, &prover, memory)
                    .map(|mut proven| {
                        proven.timings.count_load(std::mem::take(&mut setup));
                        proven
                    });
                self.end(job, proven);
                if self.devices[slot].suspension.failures_total() != failures_before {
                    // The device failed: its set-up is dropped, and made
                    // afresh (checking the device) for its next job, once
                    // its suspension ends.
                    return None;
                }
            }
            let (next, input) = self.claim_opened(|| {
                self.jobs
                    .claim_while(index, prefer, || self.proving.circuits.is_loaded(&circuit))
            })?;
            if circuit_name(next.request.circuit()) != circuit.name {
                return Some((next, input));
            }
            if self.suspended(slot) {
                self.jobs.requeue(next);
                return None;
            }
            let reserved = unless_panics("reserving its memory", || {
                let ticket = self.proving.gate.line_up(next.priority as u8);
                self.proving
                    .reserve(&input, &circuit, device, &next.cancel, Wait::Yes(&ticket))
            });
            match reserved {
                Ok(Reserved::Memory(memory)) if self.suspended(slot) => {
                    drop(memory);
                    self.jobs.requeue(next);
                    return None;
                }
                Ok(Reserved::Memory(memory)) => ready = Some((next, input, memory)),
                Ok(Reserved::Evicted) => return Some((next, input)),
                Ok(Reserved::NoRoom) => self.end(next, Err("no memory for it".into())),
                Err(message) => self.end(next, Err(message)),
            }
        }
    }

    /// Between two partitions of a job of `priority` on device `slot`:
    /// proves there, one after another, the queued jobs more urgent than
    /// it, each with a prover of its own circuit (the `paused` job's own,
    /// idle meanwhile, for a job of its circuit), as long as the memory
    /// budget holds them now. Such a job must not wait for memory here,
    /// since what it would wait for may be the paused job's: one that does
    /// not fit goes back to the queue, for the next free worker or the
    /// paused job's next partition. Whether to look again while the device
    /// stays idle: not after a job went back for lack of memory (it would
    /// only go back again, warned of each time).
    fn prove_urgent_jobs(
        self: &Arc<Self>,
        slot: usize,
        priority: Priority,
        paused: Paused<'_, '_>,
    ) -> bool {
        let index = self.devices[slot].info.index;
        let suspension = &self.devices[slot].suspension;
        while let Some((job, input)) = suspension
            .remaining()
            .is_none()
            .then(|| self.claim_opened(|| self.jobs.claim_above(index, priority)))
            .flatten()
        {
            // Whatever happens from here, the claimed job is ended or put
            // back: a panic must not leave it running for ever.
            let attempt = unless_panics("setting it up between partitions", || {
                self.prove_if_memory_allows(slot, &job, &input, &paused)
            });
            match attempt {
                Ok(Some(proven)) => {
                    self.metrics.job_interleaved(job.request.kind());
                    self.end(job, Ok(proven));
                }
                Ok(None) => {
                    // An urgent job waiting is worth the operator's eye: a
                    // larger memory_budget would have let it in.
                    warn!(job = %job.id, kind = job.request.kind(), device = index, "no memory for it between partitions now: back to the queue, to wait for a free worker (memory_budget holds the running jobs only)");
                    self.jobs.requeue(job);
                    return false;
                }
                Err(message) => self.end(job, Err(message)),
            }
        }
        true
    }

    /// Proves `job` on device `slot` now, with a prover of its own circuit
    /// (the `paused` job's if it is the same), if the memory budget holds
    /// it without waiting; `None` if it does not.
    fn prove_if_memory_allows(
        self: &Arc<Self>,
        slot: usize,
        job: &Claimed<Request>,
        input: &Opened,
        paused: &Paused<'_, '_>,
    ) -> Result<Option<Proven>, String> {
        let device = &self.devices[slot].device;
        // A load of its circuit ahead never waits for memory: waiting for it
        // here is safe, and cheaper than loading it again. One that did not
        // load it just now means no room now.
        let name = circuit_name(job.request.circuit());
        let cancels = [&*job.cancel, paused.cancel];
        if self.loads_ahead.wait_for(&name, &cancels) == Some(false) {
            return Ok(None);
        }
        let Some((circuit, memory, loading)) =
            self.proving
                .prepare(job.request.circuit(), input, device, &job.cancel, Wait::No)?
        else {
            // Its circuit may be loading for a less urgent caller, waiting
            // for memory in line: served as soon as this job would be.
            self.proving
                .circuits
                .raise_loader(&name, job.priority as u8);
            return Ok(None);
        };
        let same_circuit = Arc::ptr_eq(&circuit, paused.circuit);
        info!(job = %job.id, kind = job.request.kind(), device = self.devices[slot].info.index, on_the_paused_jobs_prover = same_circuit, "proving it between the partitions of a less urgent job");
        let (mut proven, set_up) = if same_circuit {
            // Set up on the device already, and idle until this returns.
            let proven = self.prove_job(slot, job, input, &circuit, paused.prover, memory)?;
            (proven, Duration::ZERO)
        } else {
            let started = Instant::now();
            let prover = self.device_prover(slot, &circuit)?;
            let set_up = started.elapsed();
            (
                self.prove_job(slot, job, input, &circuit, &prover, memory)?,
                set_up,
            )
        };
        proven.timings.count_load(loading + set_up);
        Ok(Some(proven))
    }

    /// A prover of `circuit` on device `slot`, with the daemon's fallback
    /// device for the MSMs it does not support.
    fn device_prover<'a>(
        &'a self,
        slot: usize,
        circuit: &'a Resident,
    ) -> Result<DeviceProver<'a>, String> {
        let slot = &self.devices[slot];
        let prover = match DeviceProver::new(&slot.device, &slot.info.name, circuit) {
            Ok(prover) => prover,
            Err(error) => {
                let message = chain(&error);
                if !error.out_of_device_memory() {
                    slot.failed(format_args!(
                        "setting a circuit up on the device failed ({message})"
                    ));
                }
                return Err(message);
            }
        };
        let fallback = self.proving.fallback_device.as_ref();
        Ok(prover.with_fallback(fallback.map(|(device, name)| (device, name.as_str()))))
    }

    /// Proves `job` in `memory` with `prover`, a prover of its circuit on
    /// device `slot`, letting more urgent jobs in between its partitions
    /// (when the daemon does); a panic is the job's error.
    fn prove_job(
        self: &Arc<Self>,
        slot: usize,
        job: &Claimed<Request>,
        input: &Opened,
        circuit: &Arc<Resident>,
        prover: &DeviceProver<'_>,
        memory: JobMemory<'_>,
    ) -> Result<Proven, String> {
        // The circuit's load, if this job had it, is taken out by the caller.
        let queue_wait = job.submitted.elapsed();
        info!(job = %job.id, kind = job.request.kind(), device = self.devices[slot].info.index, since_submitted = ?queue_wait, reserved = memory.bytes(), in_flight = memory.in_flight(), "job started");
        self.tell_service_manager();
        let between_partitions = self.interleave_urgent_jobs.then(|| {
            let (daemon, priority, circuit) = (self.clone(), job.priority, circuit.clone());
            let cancel = job.cancel.clone();
            BetweenPartitions::new(move |idle| {
                let paused = Paused {
                    circuit: &circuit,
                    prover: idle,
                    cancel: &cancel,
                };
                daemon.prove_urgent_jobs(slot, priority, paused)
            })
        });
        let device_failed = AtomicBool::new(false);
        let failures_before = self.devices[slot].suspension.failures_total();
        let proven = unless_panics("the prover", || {
            self.proving.prove(
                input,
                circuit,
                prover,
                memory,
                &job.cancel,
                between_partitions,
                &device_failed,
            )
        });
        let slot = &self.devices[slot];
        if device_failed.into_inner() {
            slot.failed(format_args!(
                "job {}: a partition failed on the device and no fallback proved it",
                job.id
            ));
        } else if proven
            .as_ref()
            .is_ok_and(|proven| proven.fallback_partitions == 0)
        {
            slot.suspension.succeeded_since(failures_before);
        }
        proven.map(|mut proven| {
            proven.timings.queue_wait = queue_wait;
            proven
        })
    }

    /// Tells the service manager, if there is one, how many jobs run and
    /// wait (`systemctl status` shows it).
    fn tell_service_manager(&self) {
        if !service_manager::is_present() {
            return;
        }
        let status = self.status();
        let (queued, running) = status
            .queues
            .values()
            .fold((0, 0), |(q, r), (queued, running)| {
                (q + queued, r + running)
            });
        service_manager::notify(&format!(
            "STATUS={running} running, {queued} queued; {} completed, {} failed since start",
            status.completed, status.failed
        ));
    }

    /// Records how `job` ended.
    fn end(&self, job: Claimed<Request>, proven: Result<Proven, String>) {
        let cancelled = job.cancel.load(Ordering::Relaxed);
        let outcome = match proven {
            Ok(mut proven) => {
                proven.timings.total = job.submitted.elapsed();
                info!(job = %job.id, total = ?proven.timings.total, "job completed");
                Outcome::Completed {
                    proof: proven.proof,
                    timings: proven.timings,
                    fallback_partitions: proven.fallback_partitions,
                }
            }
            Err(_) if cancelled => {
                info!(job = %job.id, "job cancelled");
                Outcome::Cancelled
            }
            Err(message) => {
                warn!(job = %job.id, "job failed: {message}");
                Outcome::Failed(message)
            }
        };
        // The job's partitions are freed by now: the memory the allocator
        // would keep of them goes back to the system, before its client
        // hears the job ended, so that what the process holds is what the
        // budget counts.
        release_free_memory();
        // The metrics count the outcome as the job ends (Jobs::observed),
        // before its clients hear of it: not this one if shutdown gave up
        // on the job first.
        self.jobs.finish(&job.id, outcome);
        self.tell_service_manager();
    }

    /// Queues `request` (whose fingerprint is `fingerprint`) as job `id`;
    /// a request that cannot be proven (`Err`) is recorded as a failed job
    /// at once. See [`Jobs::submit`] for a job of that id.
    pub fn submit(
        self: &Arc<Self>,
        id: &str,
        kind: &'static str,
        priority: Priority,
        request: Result<Request, String>,
        fingerprint: u64,
    ) -> Submitted {
        match request {
            Ok(request) => {
                let circuit = request.circuit();
                let name = circuit_name(circuit);
                // Marked before the job is queued, so that a partition
                // boundary that claims it waits for this load.
                let ahead = (priority > Priority::Normal
                    && self.interleave_urgent_jobs
                    && self.worth_loading_ahead(&name))
                .then(|| self.loads_ahead.start(&name))
                .flatten();
                let submitted = self.jobs.submit(id, kind, priority, request, fingerprint);
                if let Some(marked) = ahead.filter(|_| submitted.queued) {
                    marked.started();
                    self.load_ahead(circuit, name);
                }
                submitted
            }
            Err(message) => {
                warn!(job = %id, kind, "request refused: {message}");
                self.jobs.reject(id, kind, message, fingerprint)
            }
        }
    }

    /// Whether loading circuit `name` ahead of an urgent job is worth it now:
    /// not when it is loaded, when a worker is free to take the job (it
    /// loads the circuit itself, as a worker may, waiting for memory), or
    /// when jobs wait for memory (the load would take the room they wait
    /// for, and be evicted for them).
    fn worth_loading_ahead(&self, name: &str) -> bool {
        // A job proven between another's partitions runs on the same
        // worker: a device's workers are busy up to their number.
        let summaries = self.jobs.summaries();
        let busy: usize = self
            .devices
            .iter()
            .map(|slot| {
                let running = State::Running {
                    device: slot.info.index,
                };
                let jobs = summaries.iter().filter(|job| job.state == running).count();
                jobs.min(self.workers_per_device)
            })
            .sum();
        !self.proving.circuits.has(name)
            && busy == self.devices.len() * self.workers_per_device
            && !self.proving.gate.anyone_waiting()
    }

    /// Loads `circuit` (named `name`), the circuit of a queued urgent job
    /// marked in `loads_ahead`, on a thread of its own if it fits beside
    /// the loaded circuits now (see [`crate::load_ahead`]).
    fn load_ahead(self: &Arc<Self>, circuit: ProofCircuit, name: String) {
        let (daemon, loading) = (self.clone(), name.clone());
        let thread = std::thread::Builder::new()
            .name("load-ahead".into())
            .spawn(move || {
                let got = unless_panics("loading it ahead", || {
                    daemon.proving.circuits.get_beside_loaded(circuit)
                });
                // A failed load is the job's to report, not "no room".
                let outcome = match got {
                    Ok(Some((_, took))) => {
                        info!(circuit = loading, ?took, "circuit loaded ahead of its urgent job");
                        Some(true)
                    }
                    Ok(None) => {
                        info!(circuit = loading, "circuit not loaded ahead of its urgent job: it does not fit beside the loaded circuits now, or a worker is loading it");
                        Some(false)
                    }
                    Err(message) => {
                        warn!(circuit = loading, "loading a circuit ahead of its urgent job failed: {message}");
                        None
                    }
                };
                daemon.loads_ahead.finish(&loading, outcome);
            });
        if let Err(error) = thread {
            warn!(
                circuit = name,
                "no thread to load a circuit ahead of its urgent job: {error}"
            );
            self.loads_ahead.finish(&name, None);
        }
    }

    /// Loads circuit `name` unless it is loaded; returns whether it was,
    /// and how long loading took. Idle circuits are evicted if it needs
    /// their room. Gives up once the daemon stops ([`Self::stop_preloads`]).
    pub fn preload(&self, name: &str) -> Result<(bool, Duration), String> {
        let circuit = circuit_named(name)?;
        let already = self.proving.circuits.has(&circuit_name(circuit));
        // Behind every job that waits: a preload serves jobs to come.
        let ticket = self.proving.gate.line_up(Priority::Low as u8);
        let (_, took) = self
            .proving
            .circuits
            .get(circuit, Wait::Yes(&ticket), &self.stopping)?
            .expect("a load that waits for memory gets it or an error");
        info!(circuit = name, ?took, already, "circuit preloaded");
        Ok((already, took))
    }

    /// Makes `PreloadSRS` loads give up, and the workers of suspended
    /// devices end: the daemon is stopping.
    pub fn stop_preloads(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// Whether the daemon is stopping ([`Self::stop_preloads`]).
    pub fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }

    /// Loads circuit `name` at start, beside those loaded before it: an
    /// error, before its parameters are decoded, if the memory budget does
    /// not hold it beside them (the operator asked for all of them).
    pub fn preload_at_start(&self, name: &str) -> Result<Duration, String> {
        let circuit = circuit_named(name)?;
        let before: Vec<String> = self
            .proving
            .circuits
            .loaded()
            .into_iter()
            .map(|(name, ..)| name)
            .collect();
        match self.proving.circuits.get_beside_loaded(circuit)? {
            Some((_, took)) => {
                info!(circuit = name, ?took, "circuit preloaded");
                Ok(took)
            }
            None => Err(format!(
                "the memory budget ({}) does not hold it{}: raise proving.memory_budget or preload fewer circuits (docs/memory.md has their sizes)",
                gib(self.proving.gate.budget()),
                if before.is_empty() {
                    String::new()
                } else {
                    format!(" beside {}", before.join(", "))
                }
            )),
        }
    }

    /// Drops circuit `name` (jobs using it keep it until they end);
    /// returns whether it was loaded and the bytes it holds, given back
    /// once no job or idle worker holds it.
    pub fn evict(&self, name: &str) -> Result<(bool, u64), String> {
        let key = circuit_name(circuit_named(name)?);
        let evicted = self.proving.circuits.evict(&key);
        let freed = evicted.unwrap_or(0);
        info!(
            circuit = name,
            was_loaded = evicted.is_some(),
            freed,
            "circuit evicted"
        );
        Ok((evicted.is_some(), freed))
    }

    /// The daemon's state; takes no lock that proving holds.
    pub fn status(&self) -> Status {
        let mut summaries = self.jobs.summaries();
        let mut queues: BTreeMap<&'static str, (u64, u64)> =
            [KIND_POREP, KIND_SNAP, KIND_WINDOW_POST, KIND_WINNING_POST]
                .into_iter()
                .map(|kind| (kind, (0, 0)))
                .collect();
        // Most urgent first, so that each device's list starts with the job
        // it is proving.
        summaries.sort_by_key(|job| std::cmp::Reverse(job.priority));
        for job in &summaries {
            let counts = queues.entry(job.kind).or_default();
            match job.state {
                State::Queued => counts.0 += 1,
                State::Running { .. } => counts.1 += 1,
                State::Done => {}
            }
        }
        let devices = self
            .devices
            .iter()
            .map(|slot| DeviceStatus {
                index: slot.info.index,
                name: slot.info.name.clone(),
                memory: slot
                    .device
                    .memory()
                    .ok()
                    .flatten()
                    .map(|m| (m.total, m.free)),
                running: summaries
                    .iter()
                    .filter(|j| {
                        j.state
                            == State::Running {
                                device: slot.info.index,
                            }
                    })
                    .map(|j| (j.id.clone(), j.kind))
                    .collect(),
                failures: slot.suspension.failures_total(),
                suspended_for: slot.suspension.remaining(),
            })
            .collect();
        let circuits = self
            .proving
            .circuits
            .loaded()
            .into_iter()
            .map(|(name, bytes, in_use)| CircuitStatus {
                name,
                bytes,
                in_use,
            })
            .collect();
        let (resident, reserved) = self.proving.gate.used();
        Status {
            devices,
            circuits,
            queues,
            completed: self.metrics.total("completed"),
            failed: self.metrics.total("failed"),
            uptime: self.started.elapsed(),
            memory_budget: self.proving.gate.budget(),
            memory_used: resident + reserved,
        }
    }

    /// The gauges of the metrics text.
    pub fn gauges(&self) -> Gauges {
        let status = self.status();
        let (memory_resident, memory_reserved) = self.proving.gate.used();
        let process = ProcessMemory::now();
        let resources = ProcessResources::now();
        Gauges {
            queues: status.queues,
            devices: status
                .devices
                .into_iter()
                .map(|d| {
                    let (total, free) = d.memory.unwrap_or((0, 0));
                    DeviceGauges {
                        index: d.index,
                        name: d.name,
                        memory_total: total,
                        memory_free: free,
                        failures: d.failures,
                        suspended_seconds: d.suspended_for.map_or(0, |left| left.as_secs().max(1)),
                    }
                })
                .collect(),
            memory_resident,
            memory_reserved,
            memory_budget: status.memory_budget,
            rss: process.rss,
            peak_rss: process.peak,
            threads: resources.threads,
            open_files: resources.open_files,
            uptime: status.uptime.as_secs(),
            circuit_evictions: self.proving.circuits.evictions(),
        }
    }
}

/// `work`'s result, or a panic in it as an error saying what panicked.
fn unless_panics<T>(what: &str, work: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        Err(format!(
            "{what} panicked: {}",
            panic_message(panic.as_ref())
        ))
    })
}
