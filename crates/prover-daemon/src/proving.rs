//! Proving a job: its circuit from the loaded ones, its memory from the
//! daemon's budget, its partitions on the worker's device.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use backend_api::Device;
use filecoin_prover::c2::{prove_on, prover_id_of_miner, C2Options};
use filecoin_prover::circuits::ProofCircuit;
use filecoin_prover::compound::KindRun;
use filecoin_prover::{post, update};
use proving_engine::memory::{domain_size, BackendMemory, MemoryModel};
use proving_engine::pipeline::Event;
use proving_engine::{
    chain, BetweenPartitions, DeviceProver, Devices, EngineOptions, LoadedCircuit, StageTimes,
};
use tracing::info;

use crate::jobs::Timings;
use crate::memory_gate::{GateError, MemoryGate, Reservation, Wait};
use crate::requests::Opened;
use crate::residency::{Circuits, Lease, Resident};

/// What the workers share to prove.
pub struct Proving {
    /// Loaded circuits.
    pub circuits: Circuits,
    /// The daemon's memory budget.
    pub gate: Arc<MemoryGate>,
    /// The backend that proves a partition again when a device fails it.
    pub fallback: Option<String>,
    /// A device of that backend and its name: the one the jobs' failed
    /// partitions and the MSMs a device does not support go to.
    pub fallback_device: Option<(Device, String)>,
    /// Partitions of a job in memory at once: one proven while the others'
    /// witnesses are generated (`[proving] partitions_in_flight`).
    pub partitions_in_flight: usize,
}

/// A job's share of the memory budget and its lease on its circuit, held
/// until it ends.
pub struct JobMemory<'a> {
    /// Dropped first: the circuit is idle (evictable) by the time waiters
    /// hear of the returned reservation.
    _lease: Lease<'a>,
    reservation: Reservation<'a>,
    /// The budget the engine plans the job in: what the circuit and the
    /// devices hold, and the job's partitions in flight.
    engine_budget: u64,
    /// Partitions in memory at once.
    in_flight: usize,
}

impl JobMemory<'_> {
    /// The bytes reserved for the job's partitions.
    pub fn bytes(&self) -> u64 {
        self.reservation.bytes()
    }

    /// The job's partitions in memory at once.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }
}

/// What [`Proving::reserve`] got.
pub enum Reserved<'a> {
    /// The job's memory, its circuit leased.
    Memory(JobMemory<'a>),
    /// Not now, and the caller does not wait.
    NoRoom,
    /// The circuit was evicted to make room for others while the job
    /// waited: it must be loaded again.
    Evicted,
}

/// A proven job.
pub struct Proven {
    /// What filecoin-proofs-api returns for the request.
    pub proof: Vec<u8>,
    /// Where the time went (the queue wait and total are the caller's).
    pub timings: Timings,
    /// Partitions its device failed and the fallback backend proved.
    pub fallback_partitions: usize,
}

impl Proving {
    /// `circuit` loaded, and the memory for proving `input` with it on
    /// `device` reserved, waiting as `wait` says: `None` if either does not
    /// fit now and `wait` is [`Wait::No`]; an error if it never will, the
    /// circuit fails to load, or `cancel` was set while it waited. Also the
    /// time loading took.
    pub fn prepare(
        &self,
        circuit: ProofCircuit,
        input: &Opened,
        device: &Device,
        cancel: &AtomicBool,
        wait: Wait<'_>,
    ) -> Result<Option<(Arc<Resident>, JobMemory<'_>, Duration)>, String> {
        loop {
            let Some((loaded, took)) = self.circuits.get(circuit, wait, cancel)? else {
                return Ok(None);
            };
            match self.reserve(input, &loaded, device, cancel, wait)? {
                Reserved::Memory(memory) => return Ok(Some((loaded, memory, took))),
                Reserved::NoRoom => return Ok(None),
                Reserved::Evicted => continue,
            }
        }
    }

    /// Reserves the memory for proving `input` with `circuit` (from
    /// [`Circuits::get`]) on `device` and leases the circuit, waiting as
    /// `wait` says (one that does not wait holds one partition in flight
    /// where more do not fit now); an error if it never fits, or `cancel`
    /// was set while it waited.
    pub fn reserve(
        &self,
        input: &Opened,
        circuit: &Resident,
        device: &Device,
        cancel: &AtomicBool,
        wait: Wait<'_>,
    ) -> Result<Reserved<'_>, String> {
        let log_n = domain_size(&circuit.pce).trailing_zeros();
        // The engine's plan counts the device's own host memory as static,
        // so the budget given to it below does too (the gate holds it
        // resident from the daemon's start). The fallback's share is the
        // job's own: the engine sets a prover up on the fallback device
        // for each job, with NTT tables of its own (the device's own host
        // memory, held from the start, is counted again: none on a CPU).
        let backend = BackendMemory::of(
            &[device],
            self.fallback_device.as_ref().map(|(device, _)| device),
            log_n,
        )
        .map_err(|e| e.to_string())?;
        let model = MemoryModel::new(
            circuit.pce.size(),
            circuit.params.shape(),
            circuit.resident,
            circuit.process_before,
            backend,
        );
        let per_partition = model.per_partition();
        let own = circuit.name.as_str();
        let reserve = |in_flight: usize| {
            self.gate.reserve(
                per_partition
                    .saturating_mul(in_flight as u64)
                    .saturating_add(model.fallback),
                circuit.charge_id(),
                wait,
                cancel,
                &mut self.circuits.idle(Some(own), wait),
            )
        };
        let wanted = self.in_flight(input, circuit, &model);
        let mut in_flight = wanted;
        let mut reserved = reserve(in_flight);
        // One that must not wait (between another job's partitions) is
        // proven one partition at a time where more do not fit now: slower,
        // but not put back behind the job it was to overtake.
        if in_flight > 1 && matches!(reserved, Ok(None)) {
            in_flight = 1;
            reserved = reserve(in_flight);
            if matches!(reserved, Ok(Some(_))) {
                info!(circuit = %circuit.name, wanted, "no memory now for this job's partitions in flight: proving it one partition at a time");
            }
        }
        let reservation = match reserved {
            Ok(Some(reservation)) => reservation,
            Ok(None) => return Ok(Reserved::NoRoom),
            Err(GateError::OwnCircuitEvicted) => return Ok(Reserved::Evicted),
            Err(e) => return Err(format!("this job: {e}")),
        };
        let Some(lease) = self.circuits.lease(circuit) else {
            return Ok(Reserved::Evicted);
        };
        Ok(Reserved::Memory(JobMemory {
            _lease: lease,
            reservation,
            engine_budget: model
                .static_bytes()
                .saturating_add(per_partition.saturating_mul(in_flight as u64)),
            in_flight,
        }))
    }

    /// How many partitions of `input` to hold in memory at once with
    /// `circuit` (its `model`): `partitions_in_flight`, but no more than
    /// the job has, nor than the budget could ever hold beside the circuit
    /// and the job's fallback (fewer in flight is slower; too many is no
    /// proof at all), and at least one (which may then never fit: the gate
    /// says so).
    fn in_flight(&self, input: &Opened, circuit: &Resident, model: &MemoryModel) -> usize {
        let wanted = self.partitions_in_flight.min(partitions(input)).max(1);
        let room = self
            .gate
            .most_beside(circuit.charge_id())
            .saturating_sub(model.fallback)
            / model.per_partition().max(1);
        let most = wanted
            .min(usize::try_from(room).unwrap_or(usize::MAX))
            .max(1);
        if most < wanted {
            info!(circuit = %circuit.name, in_flight = most, partitions_in_flight = wanted, "the memory budget holds fewer of this circuit's partitions in flight than configured: proving with fewer");
        }
        most
    }

    /// Proves a request's `input` ([`crate::requests::Request::open`]) in
    /// `memory` (from [`Proving::reserve`]) with `prover`, a prover of
    /// `circuit` on a device, stopping at the next partition once `cancel`
    /// is set, and running `between_partitions` before each partition.
    /// `device_failed` is set when a partition failed on the device for the
    /// device's sake and no fallback proved it ([`Event::DeviceFailed`]).
    #[allow(clippy::too_many_arguments)]
    pub fn prove(
        &self,
        input: &Opened,
        circuit: &LoadedCircuit,
        prover: &DeviceProver<'_>,
        memory: JobMemory<'_>,
        cancel: &Arc<AtomicBool>,
        between_partitions: Option<BetweenPartitions>,
        device_failed: &AtomicBool,
    ) -> Result<Proven, String> {
        let engine = EngineOptions {
            // Not used: the prover is already on its device.
            backend: prover.prover.device().backend().name().to_owned(),
            devices: Devices::All,
            jobs: 1,
            partitions_in_flight: memory.in_flight,
            memory_budget: Some(memory.engine_budget),
            randomness: None,
            cancel: Some(cancel.clone()),
            fallback: self.fallback.clone(),
            between_partitions,
        };
        let provers = std::slice::from_ref(prover);
        let fell_back = AtomicUsize::new(0);
        let observe = |event: Event<'_>| match event {
            Event::FallingBack { .. } => {
                fell_back.fetch_add(1, Ordering::Relaxed);
            }
            Event::DeviceFailed { .. } => device_failed.store(true, Ordering::Relaxed),
            _ => {}
        };
        let (proof, stages) = match input {
            Opened::Porep {
                input,
                miner_id,
                sector_number,
            } => {
                let options = C2Options {
                    engine,
                    prover_id: Some(prover_id_of_miner(*miner_id)),
                    sector_id: Some(*sector_number),
                    // Answered with seal_commit_phase2's output.
                    circuit_proofs: false,
                };
                let mut run = prove_on(
                    circuit,
                    provers,
                    std::slice::from_ref(input),
                    &options,
                    &observe,
                    &mut |_, _| {},
                )
                .map_err(|e| chain(&e))?;
                let outcome = run.outcomes.remove(0).map_err(|e| chain(&e))?;
                (outcome.sector.proof, outcome.stages)
            }
            Opened::PoSt(input) => only(post::prove(
                circuit,
                Some(provers),
                std::slice::from_ref(input),
                &engine,
                &observe,
                &mut |_, _| {},
            ))?,
            Opened::Snap(input) => only(update::prove(
                circuit,
                Some(provers),
                std::slice::from_ref(input),
                &engine,
                &observe,
                &mut |_, _| {},
            ))?,
        };
        Ok(Proven {
            proof,
            timings: Timings {
                synthesis: stages.witness,
                prove: stages.prove,
                finish: stages.finish,
                ..Timings::default()
            },
            fallback_partitions: fell_back.into_inner(),
        })
    }
}

/// How many partitions `input` is proven in.
fn partitions(input: &Opened) -> usize {
    match input {
        Opened::Porep { input, .. } => usize::from(input.proof_type.config().partitions),
        Opened::PoSt(input) => input.num_partitions(),
        Opened::Snap(input) => input.proof_type.partitions(),
    }
}

/// The proof and stage times of a run of one input.
fn only(run: Result<KindRun, filecoin_prover::C2Error>) -> Result<(Vec<u8>, StageTimes), String> {
    let mut run = run.map_err(|e| chain(&e))?;
    let proven = run.results.remove(0).map_err(|e| chain(&e))?;
    Ok((proven.output.proof, proven.times))
}
