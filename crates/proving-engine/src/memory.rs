//! The memory model of proving, and the process's own memory figures.
//!
//! Memory, not compute, decides how many proofs a machine runs at once, so
//! the pipeline admits partitions against a byte budget computed from this
//! model (docs/memory.md derives and calibrates it):
//!
//! ```text
//! static        = process at start + PCE + SRS (decoded queries, when resident)
//!                 + NTT tables (the backend's ω^j of the domain: n · 32 B)
//!                 + what the open devices hold (a GPU's staging buffers)
//!                 + what a fallback backend holds once it proves a partition
//!                   (its device's own, and its NTT tables: n · 32 B)
//! per partition = witness + proving working set (+ one decoded query, when streamed)
//!   witness     = (inputs + aux) · 32 B, held from its generation to the end of its proof
//!   proving     = max(4n · 32 B  (a, b, c over the domain of size n, and h),
//!                     3n · 32 B + scratch  (a, b, c and the NTT scratch, the
//!                                           devices' or the fallback's if larger),
//!                     n · 32 B + 3 · witness  (h and the MSM scalars of L, A, B))
//! ```
//!
//! The witness of a partition is generated while earlier partitions are
//! proven: one reservation of `per partition` bytes covers a partition from
//! the start of its witness generation (which briefly needs twice the
//! witness, less than the proving set) to the end of its proof.

use std::mem::size_of;

use backend_api::{BackendError, Device, G1 as PointsG1, G2 as PointsG2};
use blstrs::{G1Affine, G2Affine, Scalar};
// What a model is computed from, for callers that plan without the
// crates below (the daemon).
pub use groth16_prover::SrsShape;
pub use pce_core::PceSize;
use pce_core::PrecompiledCircuit;

use crate::cgroup;
use crate::process::physical_memory;
use crate::EngineError;

/// Bytes of one scalar.
const SCALAR: u64 = size_of::<Scalar>() as u64;
/// Bytes of one decoded G1 affine point.
const G1: u64 = size_of::<G1Affine>() as u64;
/// Bytes of one decoded G2 affine point.
const G2: u64 = size_of::<G2Affine>() as u64;

/// What a run needs, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryModel {
    /// Resident memory of the process before the PCE and SRS are loaded.
    pub process: u64,
    /// The pre-compiled circuit (matrices and densities).
    pub pce: u64,
    /// The decoded SRS kept for all proofs (0 when streamed).
    pub srs: u64,
    /// The backend's tables for the NTT domain, kept for all proofs (the
    /// CPU plugin keeps one scalar per domain element).
    pub ntt: u64,
    /// Host memory the open devices hold for as long as they are open,
    /// all together (a GPU backend's staging buffers for its copies).
    pub devices: u64,
    /// Host memory a fallback backend holds once it proves a partition the
    /// devices failed: its device's own and its NTT tables for the domain
    /// (0 without a fallback).
    pub fallback: u64,
    /// One partition's witness.
    pub witness: u64,
    /// One partition's proving working set (a, b, c, h, MSM scalars, and
    /// the largest decoded query when the SRS is streamed).
    pub proving: u64,
}

/// Host memory a backend's devices take beyond the caller's data, as its
/// plugin reports it (`ntt_scratch_bytes`, `msm_scratch_bytes`,
/// `device_host_bytes`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BackendMemory {
    /// Held during one batch of transforms (or QAP step) of the circuit's
    /// domain: once per partition being proven.
    pub ntt_scratch: u64,
    /// Held during one MSM of the circuit's largest query (the domain's
    /// size in terms, either group): once per partition being proven.
    pub msm_scratch: u64,
    /// Held by the open devices, all together, while they are open.
    pub devices: u64,
    /// Held by the fallback backend once it proves a partition
    /// ([`MemoryModel::fallback`]).
    pub fallback: u64,
}

impl BackendMemory {
    /// What `devices` (all of one backend) take for transforms of
    /// `2^log_n`, with `fallback`, the device that proves again the
    /// partitions they fail. Any partition may end up on the fallback, so
    /// the scratch per partition is the larger of the two backends'; the
    /// fallback's tables are counted as the model counts the devices'
    /// (`n · 32` bytes), since a GPU backend does not hold its own on the
    /// host and the CPU backend's are about that.
    pub fn of(
        devices: &[&Device],
        fallback: Option<&Device>,
        log_n: u32,
    ) -> Result<Self, BackendError> {
        let mut memory = Self::default();
        for device in devices {
            memory.devices = memory.devices.saturating_add(device.device_host_bytes()?);
        }
        // A domain of one element runs no NTT (groth16_prover's prover).
        let scratch = |device: &Device| match log_n {
            0 => Ok(0),
            _ => device.ntt_scratch_bytes(log_n),
        };
        let msm_scratch = |device: &Device| -> Result<u64, BackendError> {
            let terms = 1u64 << log_n;
            Ok(device
                .msm_scratch_bytes::<PointsG1>(terms)?
                .max(device.msm_scratch_bytes::<PointsG2>(terms)?))
        };
        if let Some(first) = devices.first() {
            memory.ntt_scratch = scratch(first)?;
            memory.msm_scratch = msm_scratch(first)?;
        }
        if let Some(fallback) = fallback {
            memory.ntt_scratch = memory.ntt_scratch.max(scratch(fallback)?);
            memory.msm_scratch = memory.msm_scratch.max(msm_scratch(fallback)?);
            memory.fallback = fallback
                .device_host_bytes()?
                .saturating_add((1u64 << log_n) * SCALAR);
        }
        Ok(memory)
    }
}

/// The NTT domain of `pce`'s circuit: the constraints rounded up to a power of two.
pub fn domain_size(pce: &PrecompiledCircuit) -> u64 {
    domain_of(pce.num_constraints())
}

/// The NTT domain of a circuit of `constraints` constraints.
pub fn domain_of(constraints: usize) -> u64 {
    constraints.max(1).next_power_of_two() as u64
}

/// The shape bellperson's parameters of `pce`'s circuit have
/// ([`SrsShape::of_circuit`]). For projections where no parameter file
/// exists yet.
pub fn expected_shape(pce: &PrecompiledCircuit) -> SrsShape {
    SrsShape::of_circuit(pce)
}

/// The shape of the parameter file `params`, if it opens.
pub fn parameter_shape(params: &std::path::Path) -> Option<SrsShape> {
    groth16_prover::SrsFile::open(params)
        .ok()
        .map(|file| file.shape())
}

/// Bytes of the decoded queries of parameters of `shape`: what a resident
/// SRS holds.
pub fn decoded_queries(shape: &SrsShape) -> u64 {
    let g1_points = (shape.h + shape.l + shape.a + shape.b_g1) as u64;
    g1_points * G1 + shape.b_g2 as u64 * G2
}

/// What recording the circuit whose parameters are `params` is counted
/// for, before its PCE exists to plan from: its decoded parameters, if the
/// file opens. Recording peaked at a third of that or less for every
/// circuit measured but the smallest, whose few megabytes the model's
/// margin covers (docs/memory.md, "Recording a circuit"), and the circuit
/// holds all of it once loaded, so counting the recording so asks for no
/// memory the circuit would not need next.
pub fn recording_bytes(params: &std::path::Path) -> Option<u64> {
    parameter_shape(params).map(|shape| decoded_queries(&shape))
}

/// What the memory model of the circuit stored in `pce`, proven with the
/// parameters in `params`, is computed from, read from their headers
/// alone, before anything is decoded: `None` if either file does not open
/// (for a load to report) or the PCE's sections disagree with its shape.
pub fn planned_sizes(
    pce: &std::path::Path,
    params: &std::path::Path,
) -> Option<(PceSize, SrsShape)> {
    Some((PceSize::of_file(pce).ok()?, parameter_shape(params)?))
}

impl MemoryModel {
    /// The model for a circuit of size `pce` (its PCE's, loaded or
    /// planned from its file) proven with parameters of `shape`, the SRS
    /// resident (decoded once for all proofs) or streamed (each query
    /// decoded by the proof that uses it), in a process that already uses
    /// `process` bytes, on devices that take `backend` of host memory.
    pub fn new(
        pce: PceSize,
        shape: SrsShape,
        resident: bool,
        process: u64,
        backend: BackendMemory,
    ) -> Self {
        let n = domain_of(pce.num_constraints);
        let witness = (pce.num_inputs + pce.num_aux) as u64 * SCALAR;
        let queries = decoded_queries(&shape);
        let largest_query = [shape.h, shape.l, shape.a, shape.b_g1]
            .into_iter()
            .map(|count| count as u64 * G1)
            .chain([shape.b_g2 as u64 * G2])
            .max()
            .unwrap_or(0);
        let msm_scalars = [shape.h, shape.l, shape.a, shape.b_g1]
            .into_iter()
            .map(|count| count as u64 * SCALAR)
            .sum::<u64>();
        let working = (4 * n * SCALAR)
            // The scratch size is the plugin's word; near 2^64 it must not wrap.
            .max((3 * n * SCALAR).saturating_add(backend.ntt_scratch))
            // The MSMs' scalars (h's, and the witness's selections for L,
            // A and B), and what a plugin allocates for one MSM.
            .max(msm_scalars.saturating_add(backend.msm_scratch));
        Self {
            process,
            pce: pce.held_bytes,
            srs: if resident { queries } else { 0 },
            ntt: n * SCALAR,
            devices: backend.devices,
            fallback: backend.fallback,
            witness,
            proving: working.saturating_add(if resident { 0 } else { largest_query }),
        }
    }

    /// Bytes held whatever the number of partitions in flight.
    pub fn static_bytes(&self) -> u64 {
        [self.pce, self.srs, self.ntt, self.devices, self.fallback]
            .into_iter()
            .fold(self.process, u64::saturating_add)
    }

    /// Bytes reserved for one partition in flight.
    pub fn per_partition(&self) -> u64 {
        self.witness.saturating_add(self.proving)
    }

    /// How many partitions `budget` admits at once; an error when it does
    /// not admit even one.
    pub fn partitions_admitted(&self, budget: u64) -> Result<usize, EngineError> {
        let needed = self.static_bytes().saturating_add(self.per_partition());
        if budget < needed {
            return Err(EngineError::BudgetTooSmall {
                budget,
                needed,
                model: *self,
            });
        }
        Ok(((budget - self.static_bytes()) / self.per_partition()) as usize)
    }

    /// The stated bound on how far the peak resident memory may exceed the
    /// budget: allocator slack, backend scratch (MSM buckets, NTT twiddles)
    /// and thread stacks, which the model does not count. Calibrated on
    /// 2 KiB sectors (docs/memory.md).
    pub fn margin(&self) -> u64 {
        256 << 20
    }
}

/// The default budget: three quarters of the memory the process may use
/// (the machine's, or its container's limit where that is less), leaving
/// the rest to the system and other processes (8 GiB when it is unknown).
pub fn default_budget() -> u64 {
    let usable = [physical_memory(), cgroup::memory_limit()];
    usable
        .into_iter()
        .flatten()
        .min()
        .map_or(8 << 30, |total| total / 4 * 3)
}

/// Parses a size such as `4GiB`, `512MiB`, `3.5G`, `1000000` (bytes);
/// K/M/G/T are powers of 1000 and KiB/MiB/GiB/TiB of 1024.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size (e.g. 4GiB, 512MiB, 3.5G)"))?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "m" | "mb" => 1_000_000,
        "g" | "gb" => 1_000_000_000,
        "t" | "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        other => return Err(format!("unknown size unit {other:?} in {text:?}")),
    };
    Ok((number * scale as f64) as u64)
}

/// `bytes` in GiB for messages, e.g. `1.23 GiB`.
pub fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
    use blstrs::Scalar;
    use ff::Field;

    /// `x · x = y` with y public: 2 inputs (ONE, y), 1 aux, 1 + 2 rows.
    struct Square;

    impl Circuit<Scalar> for Square {
        fn synthesize<CS: ConstraintSystem<Scalar>>(
            self,
            cs: &mut CS,
        ) -> Result<(), SynthesisError> {
            let x = cs.alloc(|| "x", || Ok(Scalar::ONE))?;
            let y = cs.alloc_input(|| "y", || Ok(Scalar::ONE))?;
            cs.enforce(|| "x * x = y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
            Ok(())
        }
    }

    /// Parameters of the shape `Square`'s would have.
    fn square_shape() -> SrsShape {
        SrsShape {
            h: 3,
            l: 1,
            a: 3,
            b_g1: 2,
            b_g2: 2,
            ic: 2,
        }
    }

    /// A plugin's MSM scratch (a GPU plugin's term lists) is held beside
    /// the MSMs' scalars, once per partition, and nowhere else.
    #[test]
    fn a_plugins_msm_scratch_joins_the_msm_scalars() {
        let pce = PrecompiledCircuit::extract(Square).unwrap();
        let shape = square_shape();
        let model = |msm_scratch| {
            let backend = BackendMemory {
                msm_scratch,
                ..BackendMemory::default()
            };
            MemoryModel::new(pce.size(), shape, true, 0, backend)
        };
        let (without, with) = (model(0), model(1 << 20));
        // a, b, c and h over a domain of 4 are the larger phase without it.
        assert_eq!(without.proving, 4 * 4 * 32);
        // The scalars of H, L, A and B (3 + 1 + 3 + 2) and the scratch.
        assert_eq!(with.proving, 9 * 32 + (1 << 20));
        assert_eq!(with.static_bytes(), without.static_bytes());
        assert_eq!(with.witness, without.witness);
    }

    #[test]
    fn the_model_follows_the_circuit_and_the_parameters() {
        let pce = PrecompiledCircuit::extract(Square).unwrap();
        let shape = square_shape();
        let backend = BackendMemory {
            ntt_scratch: 4 * 40,
            msm_scratch: 0,
            devices: 2 * 768,
            fallback: 4 * 32,
        };
        let resident = MemoryModel::new(pce.size(), shape, true, 1000, backend);
        // 3 rows: a domain of 4.
        assert_eq!(resident.witness, 3 * 32);
        assert_eq!(resident.ntt, 4 * 32);
        assert_eq!(
            resident.proving,
            3 * 4 * 32 + 4 * 40,
            "a, b, c and the NTT scratch"
        );
        assert_eq!(resident.srs, (3 + 1 + 3 + 2) * 96 + 2 * 192);
        assert_eq!(
            resident.static_bytes(),
            1000 + resident.pce + resident.srs + 4 * 32 + 2 * 768 + 4 * 32,
            "the devices' staging and the fallback's tables held once, not per partition"
        );
        let streamed = MemoryModel::new(pce.size(), shape, false, 1000, backend);
        assert_eq!(streamed.srs, 0);
        assert_eq!(
            streamed.proving,
            3 * 4 * 32 + 4 * 40 + 2 * 192,
            "plus the largest query"
        );
    }

    #[test]
    fn the_budget_admits_whole_partitions_or_is_refused() {
        let model = MemoryModel {
            process: 100,
            pce: 200,
            srs: 300,
            ntt: 200,
            devices: 50,
            fallback: 150,
            witness: 50,
            proving: 950,
        };
        assert_eq!(model.static_bytes(), 1000);
        assert_eq!(model.per_partition(), 1000);
        assert_eq!(model.partitions_admitted(2000).unwrap(), 1);
        assert_eq!(model.partitions_admitted(4999).unwrap(), 3);
        let err = model.partitions_admitted(1999).unwrap_err();
        assert!(
            matches!(err, EngineError::BudgetTooSmall { needed: 2000, .. }),
            "{err}"
        );
        assert!(
            err.to_string().contains("too small: one partition needs"),
            "{err}"
        );
    }

    #[test]
    fn sizes_parse_with_binary_and_decimal_units() {
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_size("3.5G"), Ok(3_500_000_000));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
        assert!(parse_size("4 parsecs")
            .unwrap_err()
            .contains("unknown size unit"));
    }
}
