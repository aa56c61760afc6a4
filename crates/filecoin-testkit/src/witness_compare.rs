//! A partition's witness from storage-proofs' circuit and from this
//! prover's copy of it, timed and checked equal value for value.
//!
//! The copies (`porep_witness`, `post_witness`, `update_witness` in
//! `filecoin-prover`) must give exactly the real circuit's witness, or the
//! PCE recorded from the real circuit proves nothing. Their tests compare
//! them at test sizes; this compares them on a synthetic statement of a
//! production size ([`crate::synthetic_post`], [`crate::synthetic_update`]),
//! which is a check at full size as well as a benchmark.

use std::time::{Duration, Instant};

use filecoin_prover::compound::{Scheme, Statement};
use filecoin_prover::C2Error;
use pce_core::{synthesize_witness, Witness};
use proving_engine::process::ProcessMemory;

/// One way of computing the witness, measured.
#[derive(Debug, Clone, Copy)]
pub struct WitnessRun {
    /// Wall time.
    pub time: Duration,
    /// The process's peak resident memory while it ran, above what it held
    /// when it started (0 where `/proc` cannot say).
    pub peak_above_start: u64,
}

/// One round of [`compare_witness`].
#[derive(Debug, Clone, Copy)]
pub struct WitnessRound {
    /// storage-proofs' circuit built and synthesized into a `WitnessCS`.
    pub circuit: WitnessRun,
    /// This prover's copy.
    pub copy: WitnessRun,
}

/// What [`compare_witness`] measured.
#[derive(Debug, Clone)]
pub struct WitnessComparison {
    /// Inputs of the witness (ONE included).
    pub inputs: usize,
    /// Aux values of the witness.
    pub aux: usize,
    /// Each round, both ways.
    pub rounds: Vec<WitnessRound>,
}

/// The witness of `statement`'s first partition, `rounds` times both ways:
/// `copy` (this prover's copy of the circuit) first, with nothing else
/// held, then storage-proofs' circuit while the copy's witness is held
/// (its peak is counted above it), checked equal value for value in every
/// round.
pub fn compare_witness<S: Scheme>(
    statement: &Statement<S>,
    rounds: usize,
    copy: impl Fn(&Statement<S>, usize) -> Result<Witness, C2Error>,
) -> Result<WitnessComparison, C2Error> {
    let mut measured = WitnessComparison {
        inputs: 0,
        aux: 0,
        rounds: Vec::new(),
    };
    for _ in 0..rounds.max(1) {
        let (copied, copy_run) = measure(|| copy(statement, 0))?;
        let (real, circuit_run) = measure(|| {
            synthesize_witness(statement.circuit(0)?).map_err(|source| C2Error::Synthesis {
                partition: 0,
                source,
            })
        })?;
        if let Some(what) = first_difference(&real, &copied) {
            return Err(C2Error::WitnessLayout { partition: 0, what });
        }
        measured.inputs = real.inputs.len();
        measured.aux = real.aux.len();
        measured.rounds.push(WitnessRound {
            circuit: circuit_run,
            copy: copy_run,
        });
    }
    Ok(measured)
}

/// Runs `f`, its time and its peak memory above what the process held.
fn measure<T>(f: impl FnOnce() -> Result<T, C2Error>) -> Result<(T, WitnessRun), C2Error> {
    // Without `/proc` (or its `clear_refs`) the peak is the process's own
    // so far, and the figure below reads 0 rather than something false.
    let reset = ProcessMemory::reset_peak().is_ok();
    let before = ProcessMemory::now().rss;
    let start = Instant::now();
    let value = f()?;
    let time = start.elapsed();
    let peak_above_start = match reset {
        true => ProcessMemory::now().peak.saturating_sub(before),
        false => 0,
    };
    Ok((
        value,
        WitnessRun {
            time,
            peak_above_start,
        },
    ))
}

/// Where `copy` first differs from `real`, if it does.
fn first_difference(real: &Witness, copy: &Witness) -> Option<String> {
    for (name, real, copy) in [
        ("inputs", &real.inputs, &copy.inputs),
        ("aux", &real.aux, &copy.aux),
    ] {
        if real.len() != copy.len() {
            return Some(format!(
                "the copy's witness has {} {name}, storage-proofs' circuit {}",
                copy.len(),
                real.len()
            ));
        }
        if let Some(i) = real.iter().zip(copy.iter()).position(|(a, b)| a != b) {
            return Some(format!(
                "the copy's witness differs from storage-proofs' circuit at {name}[{i}]"
            ));
        }
    }
    None
}
