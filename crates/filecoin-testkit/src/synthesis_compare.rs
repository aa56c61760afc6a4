//! The enforce-time path against the PCE path on the same partition
//! circuits, for benchmarks.
//!
//! The old path is bellperson's enforce-time synthesis (`EnforcingCS`):
//! every constraint builds and evaluates its linear combinations. The PCE
//! path generates the witness only (challenges in parallel) and multiplies
//! by the recorded matrices. Both produce `a`, `b`, `c`; they are compared
//! by digest, so only one path's vectors are alive at a time and neither
//! path's measurement includes the other's memory. Each phase's peak
//! resident memory is measured on its own (the peak is reset before it).

use std::time::{Duration, Instant};

use blstrs::Scalar;
use filecoin_proofs::{with_shape, PoRepConfig};
use pce_core::{synthesize_enforcing, PrecompiledCircuit};
use storage_proofs_core::merkle::MerkleTreeTrait;

use filecoin_prover::c1::C1Input;
use filecoin_prover::cache::CircuitFiles;
use filecoin_prover::partition::PartitionCircuits;
use filecoin_prover::witness::partition_witness;
use filecoin_prover::C2Error;
use proving_engine::process::ProcessMemory;

/// Why the comparison could not be made, or failed.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A Filecoin step (C1 output, circuits, witnesses, the PCE cache) failed.
    #[error(transparent)]
    Filecoin(#[from] C2Error),
    /// Enforce-time synthesis or the PCE's evaluation failed.
    #[error(transparent)]
    Pce(#[from] pce_core::PceError),
    /// The enforce-time path's circuit failed.
    #[error("partition {partition}: enforce-time synthesis")]
    Enforce {
        /// The partition.
        partition: usize,
        /// The circuit's error.
        #[source]
        source: bellpepper_core::SynthesisError,
    },
    /// The two paths computed different `a`, `b`, `c`.
    #[error("partition {partition}: the enforce-time and PCE paths computed different a, b, c")]
    Mismatch {
        /// The partition.
        partition: usize,
    },
}

/// BLAKE3 of `a ‖ b ‖ c`, each value in canonical little-endian form.
pub fn abc_digest(vectors: [&[Scalar]; 3]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    for vector in vectors {
        for value in vector {
            hasher.update(&value.to_bytes_le());
        }
    }
    *hasher.finalize().as_bytes()
}

/// One path's measurement on one partition.
#[derive(Debug, Clone, Copy)]
pub struct PhaseMeasure {
    /// Wall time from the circuit to `a`, `b`, `c`.
    pub time: Duration,
    /// Peak resident memory of the process during the phase.
    pub peak_rss: u64,
    /// Resident memory when the phase started.
    pub start_rss: u64,
}

/// Both paths on one partition.
#[derive(Debug, Clone)]
pub struct PartitionComparison {
    /// The partition.
    pub partition: usize,
    /// The enforce-time path.
    pub enforce: PhaseMeasure,
    /// The PCE path (witness and MatVec).
    pub pce: PhaseMeasure,
    /// The digest of `a`, `b`, `c`, equal for both paths.
    pub digest: [u8; 32],
}

/// The comparison over a sector's partitions.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// Constraints of one partition (with the `input · 0 = 0` rows).
    pub constraints: usize,
    /// Non-zeros of A, B and C.
    pub nnz: usize,
    /// Bytes of the matrices in memory.
    pub pce_bytes: usize,
    /// Loading (or recording) the PCE.
    pub pce_load: Duration,
    /// One entry per partition and repetition.
    pub partitions: Vec<PartitionComparison>,
}

/// Runs both paths on every partition of `input`, `reps` times, the PCE
/// taken from (or recorded into) the parameter cache.
pub fn compare_paths(input: &C1Input, reps: usize) -> Result<Comparison, CompareError> {
    let config = input.proof_type.config();
    with_shape!(
        input.proof_type.sector_size,
        compare_shape,
        input,
        &config,
        reps
    )
}

fn measure<T>(
    work: impl FnOnce() -> Result<T, CompareError>,
) -> Result<(T, PhaseMeasure), CompareError> {
    // Without /proc the peak cannot be reset; the figures then read 0.
    let _ = ProcessMemory::reset_peak();
    let start_rss = ProcessMemory::now().rss;
    let start = Instant::now();
    let value = work()?;
    let time = start.elapsed();
    Ok((
        value,
        PhaseMeasure {
            time,
            peak_rss: ProcessMemory::now().peak,
            start_rss,
        },
    ))
}

fn compare_shape<Tree: 'static + MerkleTreeTrait>(
    input: &C1Input,
    config: &PoRepConfig,
    reps: usize,
) -> Result<Comparison, CompareError> {
    let start = Instant::now();
    let pce: PrecompiledCircuit =
        CircuitFiles::of::<Tree>(config)?.load_or_extract_pce::<Tree>(config)?;
    let pce_load = start.elapsed();
    let c1 = input.phase1_output::<Tree>().map_err(C2Error::from)?;
    let circuits = PartitionCircuits::new(config, c1)?;
    let mut partitions = Vec::new();
    for _ in 0..reps.max(1) {
        for k in 0..circuits.num_partitions() {
            let (old, enforce) = measure(|| {
                let cs = synthesize_enforcing(circuits.circuit(k)?).map_err(|source| {
                    CompareError::Enforce {
                        partition: k,
                        source,
                    }
                })?;
                Ok(abc_digest([&cs.a, &cs.b, &cs.c]))
            })?;
            let (new, pce_measure) = measure(|| {
                let witness = partition_witness(&circuits, k, pce.num_inputs(), pce.num_aux())?;
                let eval = pce.evaluate(&witness)?;
                Ok(abc_digest([&eval.a, &eval.b, &eval.c]))
            })?;
            if old != new {
                return Err(CompareError::Mismatch { partition: k });
            }
            partitions.push(PartitionComparison {
                partition: k,
                enforce,
                pce: pce_measure,
                digest: new,
            });
        }
    }
    Ok(Comparison {
        constraints: pce.num_constraints(),
        nnz: pce.nnz(),
        pce_bytes: pce.matrix_bytes(),
        pce_load,
        partitions,
    })
}
