//! How a run proves: the devices, the provers and partitions in flight,
//! the memory budget, the randomness, cancellation, the fallback backend
//! and what runs between partitions ([`EngineOptions`]).

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use backend_api::{Backend, DeviceInfo};
use blstrs::Scalar;

#[cfg(doc)]
use crate::memory::default_budget;
use crate::{DeviceProver, EngineError};

/// Which devices of the backend a run proves on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Devices {
    /// The device of this index.
    One(u32),
    /// Every device the backend lists.
    All,
}

impl Devices {
    /// The indices it names: none for every listed device.
    pub fn indices(&self) -> &[u32] {
        match self {
            Self::One(index) => std::slice::from_ref(index),
            Self::All => &[],
        }
    }
}

/// The devices of `backend` that `wanted` names, in that order (every
/// listed device when `wanted` is empty), or why there is none to prove
/// on. The listing is cheap and opening a GPU is not, so every caller
/// checks the indices this way before opening anything or recording a
/// circuit, and a wrong index is said at once, the same way everywhere.
pub fn pick_devices(backend: &Backend, wanted: &[u32]) -> Result<Vec<DeviceInfo>, EngineError> {
    let listed = backend.devices()?;
    if listed.is_empty() {
        return Err(EngineError::BackendListsNone {
            backend: backend.name().to_owned(),
        });
    }
    if wanted.is_empty() {
        return Ok(listed);
    }
    wanted
        .iter()
        .map(|&index| {
            listed
                .iter()
                .find(|device| device.index == index)
                .cloned()
                .ok_or_else(|| EngineError::NoSuchDevice {
                    backend: backend.name().to_owned(),
                    index,
                    listed: listed.len(),
                })
        })
        .collect()
}

/// How to prove.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Backend name or path.
    pub backend: String,
    /// The devices to prove on.
    pub devices: Devices,
    /// Partitions proven at once on each device (each job's partitions
    /// started in order, the jobs one after another; a job's partitions
    /// may overlap the next job's).
    pub jobs: usize,
    /// Partitions in flight beyond the provers' own, plus one: at most
    /// `provers + partitions_in_flight - 1` partitions (`provers` = `jobs`
    /// on each device) are in memory at once, and the witnesses of those
    /// not being proven are generated at once, one thread each.
    pub partitions_in_flight: usize,
    /// Bytes the run may use ([`crate::memory`]); `None` for
    /// [`default_budget`].
    pub memory_budget: Option<u64>,
    /// Fixed `(r, s)` per partition, the jobs' partitions one after
    /// another (tests comparing with bellperson); random when `None`.
    pub randomness: Option<Vec<(Scalar, Scalar)>>,
    /// Set to cancel the run: no partition starts its witness or proof
    /// after it is set, and every unfinished job fails with
    /// [`EngineError::Cancelled`] (a partition being proven runs to its end).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Backend that proves a partition again when the run's backend fails
    /// it (an error, or a proof that does not verify): the CPU backend
    /// behind a GPU, so that a device fault costs time, not the proof.
    /// Not used when it is the run's backend itself.
    pub fallback: Option<String>,
    /// Called on a prover's thread whenever it is done with a partition
    /// (and before its first) while a job of the run has partitions to
    /// come, before it waits for the next witness, while its device is
    /// idle: what it runs delays that prover's partitions and nothing else
    /// (witnesses go on being generated). Where it returns `true`, it is
    /// called again every 200 ms for as long as the prover still waits for
    /// that witness. Not after the last partition: the run returns its
    /// jobs then, and work there would hold them. The daemon proves a more
    /// urgent job there, on the same device, so that a WinningPoSt waits
    /// for one partition of a PoRep, not for all ten, nor for a witness
    /// being generated. It is handed that prover, idle meanwhile, for a job
    /// of the same circuit.
    pub between_partitions: Option<BetweenPartitions>,
}

/// Work a run lets in between its partitions
/// ([`EngineOptions::between_partitions`]). A panic in it fails the job
/// whose partition comes next, as a panic in proving that partition would.
#[derive(Clone)]
pub struct BetweenPartitions(Arc<dyn Fn(&DeviceProver<'_>) -> bool + Send + Sync>);

impl BetweenPartitions {
    /// `work`, run between partitions, given the idle prover; it returns
    /// whether to be run again while the prover goes on waiting for its
    /// next witness (`false`: not before the next partition, e.g. because
    /// what it found waiting could not be let in).
    pub fn new(work: impl Fn(&DeviceProver<'_>) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(work))
    }

    pub(super) fn run(&self, idle: &DeviceProver<'_>) -> bool {
        (self.0)(idle)
    }
}

impl fmt::Debug for BetweenPartitions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BetweenPartitions(..)")
    }
}

impl EngineOptions {
    /// Checks that the backend lists the devices these options name, and
    /// that the fallback backend loads and lists one, without opening
    /// any: a missing driver, a wrong `--device` or a mistyped fallback is
    /// said at once, not after minutes of loading the circuit.
    pub fn check_backends(&self) -> Result<(), EngineError> {
        let backend = Backend::load(&self.backend)?;
        pick_devices(&backend, self.devices.indices())?;
        match self.fallback.as_deref() {
            Some(fallback) if fallback != backend.name() => {
                pick_devices(&Backend::load(fallback)?, &[])?;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// One partition at a time on `backend`'s first device, witnesses two
    /// ahead, under the default budget, with nothing else set: a starting
    /// point for tests and benchmarks to change field by field.
    pub fn first_device(backend: &str) -> Self {
        Self {
            backend: backend.to_owned(),
            devices: Devices::One(0),
            jobs: 1,
            partitions_in_flight: 2,
            memory_budget: None,
            randomness: None,
            cancel: None,
            fallback: None,
            between_partitions: None,
        }
    }

    pub(super) fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}
