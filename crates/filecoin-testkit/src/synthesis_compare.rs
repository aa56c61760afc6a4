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
//! The partitions are a sealed sector's, or a synthetic sector's of any
//! size ([`crate::synthetic_c1`]: how a 32 GiB partition is measured).

use std::time::{Duration, Instant};

use blstrs::Scalar;
use filecoin_proofs::{with_shape, PoRepConfig, SealCommitPhase1Output};
use pce_core::{synthesize_enforcing, Evaluations, PrecompiledCircuit};
use storage_proofs_core::merkle::MerkleTreeTrait;

use filecoin_prover::c1::C1Input;
use filecoin_prover::cache::CircuitFiles;
use filecoin_prover::partition::PartitionCircuits;
use filecoin_prover::witness::partition_witness;
use filecoin_prover::C2Error;
use proving_engine::process::ProcessMemory;

use crate::synthetic_c1::synthetic_phase1_output;

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

/// One path's measurement on one partition (the digest of its a, b, c,
/// taken afterwards, not included).
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
    /// The PCE path (witness, allocating a, b, c, and the MatVec).
    pub pce: PhaseMeasure,
    /// The part of the PCE path's time spent on the witness.
    pub pce_witness: Duration,
    /// The part spent on the products `A·w`, `B·w`, `C·w` alone; what is
    /// left of the path's time is allocating and zeroing `a`, `b`, `c`.
    pub pce_products: Duration,
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

/// Where the compared partitions come from.
#[derive(Debug, Clone)]
pub enum SectorSource<'a> {
    /// A sealed sector's commit-phase-1 output: every partition.
    C1(&'a C1Input),
    /// A [`synthetic_c1`](crate::synthetic_c1) output: the first
    /// `partitions` partitions of a sector of `config`, its values drawn
    /// from `seed`.
    Synthetic {
        /// The PoRep configuration (sector size, porep id, API version).
        config: PoRepConfig,
        /// How many partitions to build.
        partitions: usize,
        /// The seed of the random values.
        seed: u64,
    },
}

impl SectorSource<'_> {
    /// The PoRep configuration of the sector.
    pub fn config(&self) -> PoRepConfig {
        match self {
            Self::C1(input) => input.proof_type.config(),
            Self::Synthetic { config, .. } => config.clone(),
        }
    }

    fn phase1_output<Tree: 'static + MerkleTreeTrait>(
        &self,
    ) -> Result<SealCommitPhase1Output<Tree>, C2Error> {
        match self {
            Self::C1(input) => Ok(input.phase1_output::<Tree>()?),
            Self::Synthetic {
                config,
                partitions,
                seed,
            } => synthetic_phase1_output::<Tree>(config, *partitions, *seed),
        }
    }
}

/// Runs both paths on every partition of `source`, `reps` times, the PCE
/// taken from (or recorded into) the parameter cache. The enforce-time
/// path runs first, on every partition, before the PCE is loaded, so that
/// its memory is its own.
pub fn compare_paths(source: &SectorSource, reps: usize) -> Result<Comparison, CompareError> {
    let config = source.config();
    with_shape!(
        u64::from(config.sector_size),
        compare_shape,
        source,
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
    source: &SectorSource,
    config: &PoRepConfig,
    reps: usize,
) -> Result<Comparison, CompareError> {
    let circuits = PartitionCircuits::new(config, source.phase1_output::<Tree>()?)?;
    let runs: Vec<usize> = (0..reps.max(1))
        .flat_map(|_| 0..circuits.num_partitions())
        .collect();
    let enforced = runs
        .iter()
        .map(|&k| {
            let (cs, measured) = measure(|| {
                synthesize_enforcing(circuits.circuit(k)?).map_err(|source| CompareError::Enforce {
                    partition: k,
                    source,
                })
            })?;
            Ok::<_, CompareError>((abc_digest([&cs.a, &cs.b, &cs.c]), measured))
        })
        .collect::<Result<Vec<_>, _>>()?;

    let start = Instant::now();
    let pce: PrecompiledCircuit =
        CircuitFiles::of::<Tree>(config)?.load_or_extract_pce::<Tree>(config)?;
    let pce_load = start.elapsed();
    let mut partitions = Vec::new();
    for (&k, (old, enforce)) in runs.iter().zip(enforced) {
        // The witness and a, b, c leave the measured phase alive, as the
        // enforce-time path's constraint system does: neither path's
        // figure includes freeing its memory, nor the digest.
        let ((eval, witness, pce_witness, pce_products), pce_measure) = measure(|| {
            let start = Instant::now();
            let witness = partition_witness(&circuits, k, pce.num_inputs(), pce.num_aux())?;
            let witness_time = start.elapsed();
            let mut eval = Evaluations::zeroed(pce.num_constraints());
            let start = Instant::now();
            pce.evaluate_into(&witness, &mut eval.a, &mut eval.b, &mut eval.c)?;
            Ok((eval, witness, witness_time, start.elapsed()))
        })?;
        let new = abc_digest([&eval.a, &eval.b, &eval.c]);
        drop((eval, witness));
        if old != new {
            return Err(CompareError::Mismatch { partition: k });
        }
        partitions.push(PartitionComparison {
            partition: k,
            enforce,
            pce: pce_measure,
            pce_witness,
            pce_products,
            digest: new,
        });
    }
    Ok(Comparison {
        constraints: pce.num_constraints(),
        nnz: pce.nnz(),
        pce_bytes: pce.matrix_bytes(),
        pce_load,
        partitions,
    })
}
