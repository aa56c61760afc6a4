//! Proving many sectors at once: one PCE and one SRS, partitions streamed
//! under a memory budget.
//!
//! The PCE and the parameters of the sectors' circuit are loaded once.
//! Every partition of every sector then goes through two stages:
//!
//! ```text
//! producer thread:  admit (memory) → witness → public inputs ─┐ channel
//! J prover threads: ◄──────────────────────────────────────────┘ prove (PCE, NTTs, MSMs) → verify → release
//! ```
//!
//! so the witnesses of the next partitions, of the same sector or of the
//! next ones, are generated while J partitions are proven. A partition is
//! admitted ([`crate::admission`]) before its witness exists and released
//! when its proof is done; how many may be in flight follows from the
//! memory budget and the model of [`crate::memory`]. When the last
//! partition of a sector is proven, the sector proof is assembled (for
//! non-interactive PoRep, the partition proofs are aggregated with
//! SnarkPack, as filecoin-proofs does), checked with `verify_seal` (when
//! the prover and sector ids are known; an aggregate is otherwise checked
//! against the C1 output's public inputs) and reported at once; a failing
//! sector does not stop the others.

use std::sync::mpsc::channel;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use backend_api::Backend;
use bellperson::groth16::{prepare_verifying_key, verify_proof, Proof};
use blstrs::{Bls12, Scalar};
use ff::Field;
use filecoin_proofs::{verify_seal, with_shape, PoRepConfig};
use groth16_prover::{Bases, Prover, SrsFile, Verification};
use pce_core::Witness;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;
use tracing::info;

use crate::admission::{Admission, Permit};
use crate::aggregate;
use crate::c1::C1Input;
use crate::c2::{C2Options, C2Outcome};
use crate::cache::CircuitFiles;
use crate::memory::{default_budget, MemoryModel, ProcessMemory};
use crate::partition::PartitionCircuits;
use crate::witness::partition_witness;
use crate::C2Error;

/// Wall time per stage of one sector, summed over its partitions.
#[derive(Debug, Clone, Default)]
pub struct StageTimes {
    /// Witness generation (on the producer thread, overlapping proving).
    pub witness: Duration,
    /// PCE evaluation, NTTs, MSMs and assembly.
    pub prove: Duration,
    /// Verification against the C1 output's public inputs.
    pub verify: Duration,
}

/// How the memory of a run was planned and used.
#[derive(Debug, Clone, Copy)]
pub struct MemoryPlan {
    /// The model the plan follows.
    pub model: MemoryModel,
    /// The budget, bytes.
    pub budget: u64,
    /// Partitions the budget admits at once.
    pub admitted: usize,
    /// Partitions allowed in flight: the admitted ones, capped by the
    /// provers plus the witnesses generated ahead of them.
    pub slots: usize,
    /// The most partitions that were in flight at once.
    pub peak_in_flight: usize,
}

/// What happened, as it happens (for progress bars and measurements).
#[derive(Debug)]
pub enum Event<'a> {
    /// The PCE and the parameters are loaded; proving starts.
    Ready {
        /// The memory plan (its `peak_in_flight` is 0 here).
        plan: &'a MemoryPlan,
    },
    /// A partition's witness is generated.
    WitnessReady {
        /// Index of the sector in the inputs.
        sector: usize,
        /// The partition.
        partition: usize,
    },
    /// A partition is proven and verified, its memory released.
    PartitionProven {
        /// Index of the sector in the inputs.
        sector: usize,
        /// The partition.
        partition: usize,
    },
    /// A sector is finished, well or not.
    SectorDone {
        /// Index of the sector in the inputs.
        sector: usize,
        /// Its outcome.
        result: &'a Result<C2Outcome, C2Error>,
    },
}

/// Receives the [`Event`]s of a run, from any of its threads.
pub type Observer<'o> = &'o (dyn Fn(Event<'_>) + Sync);

/// The result of a run.
pub struct Run {
    /// One outcome per input, in input order.
    pub outcomes: Vec<Result<C2Outcome, C2Error>>,
    /// The memory plan, with the peak of partitions in flight.
    pub memory: MemoryPlan,
}

/// Proves the sectors of `inputs`, which must all be of one proof type.
///
/// `options.jobs` partitions are proven at once, within
/// `options.memory_budget` (default [`default_budget`]); a budget that
/// does not admit one partition is an error before any proving.
/// `options.randomness`, when given, holds one `(r, s)` per partition of
/// every sector, in input order. `options.sector_id` only applies to a
/// single input. Errors of one sector are in its outcome; the error of the
/// whole call is for what prevents every proof (parameters, SnarkPack SRS
/// of non-interactive PoRep, PCE, backend, budget), found before any
/// proving.
pub fn prove_sectors(
    inputs: &[C1Input],
    options: &C2Options,
    observer: Observer<'_>,
) -> Result<Run, C2Error> {
    let first = inputs.first().ok_or(C2Error::NoInputs)?;
    if let Some(other) = inputs.iter().find(|i| i.proof_type != first.proof_type) {
        return Err(C2Error::MixedProofTypes {
            path: other.path.clone(),
            found: other.proof_type.to_string(),
            expected: first.proof_type.to_string(),
        });
    }
    let config = first.proof_type.config();
    with_shape!(
        first.proof_type.sector_size,
        run_shape,
        inputs,
        &config,
        options,
        observer
    )
}

/// The C1 values aggregation and `verify_seal` need besides the proofs.
struct SealInputs {
    comm_r: [u8; 32],
    comm_d: [u8; 32],
    ticket: [u8; 32],
    seed: [u8; 32],
}

/// A sector's progress.
#[derive(Default)]
struct SectorState {
    proofs: Vec<Option<Proof<Bls12>>>,
    /// Each partition's public inputs, kept with its proof for checking
    /// an aggregate.
    public_inputs: Vec<Vec<Scalar>>,
    remaining: usize,
    times: StageTimes,
    seal: Option<SealInputs>,
    result: Option<Result<C2Outcome, C2Error>>,
}

/// A partition whose witness is ready, waiting for a prover.
struct Job<'a> {
    sector: usize,
    partition: usize,
    witness: Witness,
    public_inputs: Vec<Scalar>,
    _permit: Permit<'a>,
}

/// Everything the threads of a run share.
struct Shared<'a> {
    inputs: &'a [C1Input],
    config: &'a PoRepConfig,
    options: &'a C2Options,
    observer: Observer<'a>,
    sectors: Vec<Mutex<SectorState>>,
    /// Index of each sector's first partition in `randomness`.
    first_partition: Vec<usize>,
    randomness: Vec<(Scalar, Scalar)>,
    /// Fields of [`C2Outcome`] common to all sectors.
    common: C2Outcome,
}

impl Shared<'_> {
    fn sector(&self, index: usize) -> std::sync::MutexGuard<'_, SectorState> {
        self.sectors[index].lock().expect("sector state poisoned")
    }

    fn is_finished(&self, index: usize) -> bool {
        self.sector(index).result.is_some()
    }

    /// Records the end of sector `index` and tells the observer.
    fn finish(&self, index: usize, result: Result<C2Outcome, C2Error>) {
        let mut state = self.sector(index);
        if state.result.is_some() {
            return;
        }
        if let Err(e) = &result {
            tracing::error!(sector = %self.inputs[index].path.display(), "{e}");
        }
        (self.observer)(Event::SectorDone {
            sector: index,
            result: &result,
        });
        state.result = Some(result);
    }
}

fn run_shape<Tree: 'static + MerkleTreeTrait>(
    inputs: &[C1Input],
    config: &PoRepConfig,
    options: &C2Options,
    observer: Observer<'_>,
) -> Result<Run, C2Error> {
    let process = ProcessMemory::now().rss;
    let files = CircuitFiles::of::<Tree>(config)?;
    for path in [&files.params, &files.vk] {
        if !path.exists() {
            return Err(C2Error::MissingParameters {
                path: path.clone(),
                proof_type: inputs[0].proof_type.to_string(),
            });
        }
    }
    if inputs[0].proof_type.is_non_interactive() {
        aggregate::check_srs(
            &inputs[0].proof_type.to_string(),
            usize::from(config.partitions),
        )?;
    }
    let counts: Vec<usize> = inputs.iter().map(C1Input::num_partitions).collect();
    let total: usize = counts.iter().sum();
    let randomness = match &options.randomness {
        Some(fixed) if fixed.len() != total => {
            return Err(C2Error::Filecoin {
                step: "proving",
                message: format!("{} (r, s) pairs for {total} partitions", fixed.len()),
            })
        }
        Some(fixed) => fixed.clone(),
        None => (0..total)
            .map(|_| {
                (
                    Scalar::random(rand::rngs::OsRng),
                    Scalar::random(rand::rngs::OsRng),
                )
            })
            .collect(),
    };

    let start = Instant::now();
    let pce = files.load_or_extract_pce::<Tree>(config)?;
    let pce_time = start.elapsed();
    // One partition in all: decode each query when its MSM runs and drop it
    // after (least memory). Several: decode everything once and share it.
    let start = Instant::now();
    let file = SrsFile::open(&files.params)?;
    let resident = total > 1;
    let model = MemoryModel::new(&pce, file.shape(), resident, process);
    let budget = options.memory_budget.unwrap_or_else(default_budget);
    let admitted = model.partitions_admitted(budget)?;
    let jobs = options.jobs.max(1);
    let slots = admitted.min(jobs + options.partitions_in_flight.max(1) - 1);
    let mut plan = MemoryPlan {
        model,
        budget,
        admitted,
        slots,
        peak_in_flight: 0,
    };
    info!(?plan, "memory plan");
    let srs = if resident { Some(file.load()?) } else { None };
    let bases = srs.as_ref().map_or(Bases::Streamed(&file), Bases::Resident);
    let params_time = start.elapsed();

    let backend = Backend::load(&options.backend)?;
    let device_info = backend
        .devices()?
        .into_iter()
        .find(|d| d.index == options.device)
        .ok_or_else(|| C2Error::NoSuchDevice {
            backend: backend.name().to_owned(),
            index: options.device,
        })?;
    let device = backend.open(options.device)?;
    let prover = Prover::new(&device, bases, Verification::Verify)?;
    observer(Event::Ready { plan: &plan });

    let first_partition = counts
        .iter()
        .scan(0, |next, &count| {
            let first = *next;
            *next += count;
            Some(first)
        })
        .collect();
    let shared = Shared {
        inputs,
        config,
        options,
        observer,
        sectors: counts
            .iter()
            .map(|&count| {
                Mutex::new(SectorState {
                    proofs: vec![None; count],
                    public_inputs: vec![Vec::new(); count],
                    remaining: count,
                    ..SectorState::default()
                })
            })
            .collect(),
        first_partition,
        randomness,
        common: C2Outcome {
            proof: Vec::new(),
            partition_proofs: Vec::new(),
            proof_type: inputs[0].proof_type.to_string(),
            partitions: 0,
            backend: format!("{} ({})", backend.name(), backend.path().display()),
            device: device_info.name,
            pce_time,
            params_time,
            stages: StageTimes::default(),
            aggregate: None,
            verify_aggregate: None,
            verify_seal: None,
        },
    };
    let admission = Admission::new(slots);
    let pvk = prepare_verifying_key(&file.vk);
    let (sender, receiver) = channel::<Job<'_>>();
    let receiver = Mutex::new(receiver);
    let (shared, admission, pce) = (&shared, &admission, &pce);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for index in 0..inputs.len() {
                if let Err(e) = produce::<Tree>(shared, admission, pce, index, &sender) {
                    shared.finish(index, Err(e));
                }
            }
        });
        for _ in 0..jobs {
            let (receiver, prover, pvk) = (&receiver, &prover, &pvk);
            scope.spawn(move || loop {
                let job = receiver.lock().expect("job queue poisoned").recv();
                let Ok(job) = job else { break };
                if shared.is_finished(job.sector) {
                    continue; // an earlier partition failed
                }
                let (sector, partition) = (job.sector, job.partition);
                let (r, s) = shared.randomness[shared.first_partition[sector] + partition];
                let start = Instant::now();
                let proven = prover.prove(pce, &job.witness, r, s);
                let prove_time = start.elapsed();
                let public_inputs = job.public_inputs;
                drop(job.witness);
                let start = Instant::now();
                let checked = proven.map_err(C2Error::from).and_then(|proof| {
                    let valid = verify_proof(pvk, &proof, &public_inputs).map_err(|e| {
                        C2Error::Filecoin {
                            step: "verifying a partition proof",
                            message: e.to_string(),
                        }
                    })?;
                    valid
                        .then_some(proof)
                        .ok_or(C2Error::InvalidProof { partition })
                });
                let verify_time = start.elapsed();
                drop(job._permit);
                match checked {
                    Ok(proof) => {
                        info!(sector, partition, "partition proven and verified");
                        observer(Event::PartitionProven { sector, partition });
                        let proven = Proven {
                            proof,
                            public_inputs,
                            prove_time,
                            verify_time,
                        };
                        record::<Tree>(shared, sector, partition, proven);
                    }
                    Err(e) => shared.finish(sector, Err(e)),
                }
            });
        }
    });
    plan.peak_in_flight = admission.peak();
    let outcomes = shared
        .sectors
        .iter()
        .map(|state| {
            state
                .lock()
                .expect("sector state poisoned")
                .result
                .take()
                .expect("every sector is finished")
        })
        .collect();
    Ok(Run {
        outcomes,
        memory: plan,
    })
}

/// Generates the witnesses of sector `index` in partition order, each
/// after its admission, and hands them to the provers.
fn produce<'a, Tree: 'static + MerkleTreeTrait>(
    shared: &Shared<'_>,
    admission: &'a Admission,
    pce: &pce_core::PrecompiledCircuit,
    index: usize,
    sender: &std::sync::mpsc::Sender<Job<'a>>,
) -> Result<(), C2Error> {
    let c1 = shared.inputs[index].phase1_output::<Tree>()?;
    let circuits = PartitionCircuits::new(shared.config, &c1)?;
    shared.sector(index).seal = Some(SealInputs {
        comm_r: c1.comm_r,
        comm_d: c1.comm_d,
        ticket: c1.ticket,
        seed: c1.seed,
    });
    for partition in 0..circuits.num_partitions() {
        let permit = admission.admit();
        if shared.is_finished(index) {
            return Ok(());
        }
        let start = Instant::now();
        let witness = partition_witness(&circuits, partition, pce.num_inputs(), pce.num_aux())?;
        let public_inputs = circuits.public_inputs(partition)?;
        shared.sector(index).times.witness += start.elapsed();
        (shared.observer)(Event::WitnessReady {
            sector: index,
            partition,
        });
        let job = Job {
            sector: index,
            partition,
            witness,
            public_inputs,
            _permit: permit,
        };
        if sender.send(job).is_err() {
            break; // every prover thread is gone
        }
    }
    Ok(())
}

/// A verified partition proof and what it took.
struct Proven {
    proof: Proof<Bls12>,
    public_inputs: Vec<Scalar>,
    prove_time: Duration,
    verify_time: Duration,
}

/// Stores a partition proof; after the sector's last one, assembles and
/// checks the sector proof.
fn record<Tree: 'static + MerkleTreeTrait>(
    shared: &Shared<'_>,
    sector: usize,
    partition: usize,
    proven: Proven,
) {
    let (proofs, public_inputs, times, seal) = {
        let mut state = shared.sector(sector);
        state.proofs[partition] = Some(proven.proof);
        state.public_inputs[partition] = proven.public_inputs;
        state.times.prove += proven.prove_time;
        state.times.verify += proven.verify_time;
        state.remaining -= 1;
        if state.remaining > 0 {
            return;
        }
        let proofs: Vec<Proof<Bls12>> = state.proofs.drain(..).flatten().collect();
        let public_inputs = std::mem::take(&mut state.public_inputs);
        let seal = state
            .seal
            .take()
            .expect("the producer records the seal inputs before the first partition");
        (proofs, public_inputs, state.times.clone(), seal)
    };
    let result = finish_sector::<Tree>(shared, sector, &proofs, public_inputs, times, seal);
    shared.finish(sector, result);
}

/// Assembles the sector proof from its partition proofs (aggregating them
/// for non-interactive PoRep) and checks it.
fn finish_sector<Tree: 'static + MerkleTreeTrait>(
    shared: &Shared<'_>,
    sector: usize,
    proofs: &[Proof<Bls12>],
    public_inputs: Vec<Vec<Scalar>>,
    times: StageTimes,
    seal: SealInputs,
) -> Result<C2Outcome, C2Error> {
    let input = &shared.inputs[sector];
    let mut partition_proofs = Vec::with_capacity(192 * proofs.len());
    for proof in proofs {
        proof
            .write(&mut partition_proofs)
            .expect("writing to memory");
    }
    let non_interactive = input.proof_type.is_non_interactive();
    let (bytes, aggregate_time) = if non_interactive {
        let start = Instant::now();
        let bytes =
            aggregate::aggregate::<Tree>(shared.config, seal.comm_r, seal.seed, &partition_proofs)?;
        let elapsed = start.elapsed();
        info!(
            sector,
            bytes = bytes.len(),
            ?elapsed,
            "partition proofs aggregated (SnarkPack)"
        );
        (bytes, Some(elapsed))
    } else {
        (partition_proofs.clone(), None)
    };
    let sector_id = match shared.inputs.len() {
        1 => shared.options.sector_id.or(input.sector_num),
        _ => input.sector_num,
    };
    let verify_seal_time = match (shared.options.prover_id, sector_id) {
        (Some(prover_id), Some(sector_id)) => {
            let start = Instant::now();
            let valid = verify_seal::<Tree>(
                shared.config,
                seal.comm_r,
                seal.comm_d,
                prover_id,
                SectorId::from(sector_id),
                seal.ticket,
                seal.seed,
                &bytes,
            )
            .map_err(C2Error::filecoin("verify_seal"))?;
            if !valid {
                return Err(C2Error::VerifySealRejected);
            }
            Some(start.elapsed())
        }
        _ => None,
    };
    // Without the ids, an aggregate is still checked, against the public
    // inputs its partition proofs were verified with.
    let verify_aggregate_time = match verify_seal_time {
        None if non_interactive => {
            let start = Instant::now();
            let valid = aggregate::verify::<Tree>(
                shared.config,
                seal.comm_r,
                seal.seed,
                &bytes,
                public_inputs,
            )?;
            if !valid {
                return Err(C2Error::AggregateRejected);
            }
            Some(start.elapsed())
        }
        _ => None,
    };
    Ok(C2Outcome {
        proof: bytes,
        partition_proofs,
        partitions: proofs.len(),
        stages: times,
        aggregate: aggregate_time,
        verify_aggregate: verify_aggregate_time,
        verify_seal: verify_seal_time,
        ..shared.common.clone()
    })
}
