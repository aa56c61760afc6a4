//! The GPU MSM (kernels/msm.h) from the host.
//!
//! Bases stay in device buffers under their handle ([`Bases`]), cut into
//! chunks of at most one buffer, or on the host when they exceed the
//! device's memory (then each MSM uploads them chunk by chunk).
//!
//! PoRep witnesses are mostly zeros and ones, so the host first splits the
//! scalars (backend-api's [`Split`], over base indices): zeros are dropped,
//! ones go to the `sum_bases`
//! kernel (plain additions spread over every thread, instead of all landing
//! in one bucket), and only the rest go to the bucket kernel, as
//! (base index, scalar) pairs. [`MsmPlan`] picks the window size for the
//! bucket kernel from the number of terms and the device's parallelism.
//! `PCE_GPU_MSM=sorted` ([`Method`]) sends them to the sorted MSM instead
//! (the digits sorted by bucket on the device, each bucket summed in
//! registers, [`SortedPlan`]), which leaves to the bucket kernel a job
//! whose entries do not fit.
//!
//! Everything after the upload of the terms happens on the device: the
//! per-thread partial sums are reduced there (`msm_reduce`, then
//! `msm_combine` joins the windows), added to one accumulator per MSM of
//! the batch, and only those accumulators come back, one point per MSM.
//! Copying every thread's partial sum back (over 10^5 points on a large
//! GPU) and adding them on the host cost more than the MSM's kernels.
//!
//! Device memory is budgeted from what the engine has free when the MSM
//! starts ([`Engine::free_memory`], every buffer of the device counted:
//! resident bases, NTT twiddles, other operations' buffers): the streamed
//! chunks and accumulators first, then half of the rest for the two slots
//! of terms (which caps the terms of one job) and the other half for the
//! buckets and partial sums (which caps the window width). A device
//! buffer refused all the same (another process, fragmentation), the MSM
//! starts over in half the budget, narrower windows and shorter jobs, at
//! most [`MAX_NARROWING`] times and never below
//! [`MIN_JOB_TERMS`](budget::MIN_JOB_TERMS) terms a job, before it fails;
//! other errors, those reported as out of memory included, fail at once
//! ([`AllocationWatch`]).
//! Bases are kept on the device only while they leave a quarter of the
//! device free for those working sets and the NTTs; else, or when their
//! upload runs out of memory, they are streamed.
//!
//! An MSM is a sequence of jobs, one per (range of at most the budget's
//! terms within a chunk of bases, MSM of the batch). The uploads of job
//! j + 1 (its terms, and a streamed chunk's points) are started with
//! [`Engine::write_async`] before the kernels of job j are launched, into
//! the other of two slots: copies overlap kernels, and the host splits the
//! next job's scalars meanwhile. The modules: [`plan`] (the kernels'
//! shapes), [`budget`] (the memory they plan in), [`bases`] (where the
//! bases live), [`run`] (the buffers and launches of one call).

mod bases;
mod budget;
mod plan;
mod run;
#[cfg(test)]
mod tests;

use std::ops::Range;

use backend_api::ffi::{pce_scalar, PCE_ERR_OUT_OF_MEMORY};
use backend_api::plugin::split::Split;
use backend_api::plugin::PluginError;
use tracing::warn;

pub use bases::{Bases, Curve, GroupBases, G1, G2};
pub use plan::{Method, MsmPlan, SortedPlan};

use budget::{Budget, MAX_NARROWING};
use run::Run;

use crate::engine::{AllocationWatch, Engine};

/// The terms of one MSM over one device buffer of bases, split by scalar:
/// indices into the buffer of the ones' bases and of the others' bases,
/// and the others' scalars.
type Terms = Split<u32>;

/// The most host memory one MSM of `count` terms holds beyond the
/// caller's data: the term lists of one job (a base index for every term
/// not zero, and the scalar of every term neither zero nor one), built
/// on the host before their upload, and at most all the terms. (The other
/// host vectors of a call, the jobs and the sorted method's bucket counts,
/// are a few megabytes, within the host's margin.)
pub fn host_scratch_bytes(count: u64) -> u64 {
    let per_term = size_of::<u32>() + size_of::<pce_scalar>();
    count.saturating_mul(per_term as u64)
}

/// One run of the kernels: the terms of MSM `k` of the batch that fall in
/// `range` (indices into all the bases), part of chunk `chunk` of the
/// bases.
struct Job {
    /// Position of the chunk among the chunks this MSM touches (which of
    /// the two streaming slots holds it).
    position: usize,
    chunk: usize,
    range: Range<usize>,
    /// Whether this is the chunk's first job.
    first: bool,
    k: usize,
}

/// How many terms of each kind a staged job uploaded.
#[derive(Clone, Copy)]
struct Staged {
    ones: u32,
    terms: u32,
}

/// For each k, `out[k] = Σ_i scalars[k · count + i] · bases[offset + i]`.
///
/// Within the [`Budget`] of the engine's free memory; when a device buffer
/// is refused, again in half the budget, until the least one fails too or
/// [`MAX_NARROWING`] retries have. By the [`Method`] `PCE_GPU_MSM` names.
pub fn msm<C: Curve, E: Engine>(
    engine: &E,
    bases: &GroupBases<C::Affine, E::Buffer>,
    offset: usize,
    count: usize,
    scalars: &[pce_scalar],
    out: &mut [C::Point],
) -> Result<(), PluginError> {
    msm_by::<C, E>(
        Method::from_env(),
        engine,
        bases,
        offset,
        count,
        scalars,
        out,
    )
}

/// [`msm`] by `method`.
fn msm_by<C: Curve, E: Engine>(
    method: Method,
    engine: &E,
    bases: &GroupBases<C::Affine, E::Buffer>,
    offset: usize,
    count: usize,
    scalars: &[pce_scalar],
    out: &mut [C::Point],
) -> Result<(), PluginError> {
    if out.is_empty() {
        return Ok(());
    }
    let watch = AllocationWatch::new(engine);
    let mut budget = Budget::new::<C, E>(engine, bases, count, out.len());
    let mut narrowed = 0;
    loop {
        let within = (method, budget);
        match msm_within::<C, _>(&watch, bases, (offset, count), scalars, out, within) {
            Err(error) if watch.refused(&error) && narrowed < MAX_NARROWING => {
                match budget.narrower() {
                    Some(narrower) => {
                        warn!(?budget, ?narrower, %error.message, "MSM out of device memory; again in less");
                        budget = narrower;
                        narrowed += 1;
                    }
                    None => return Err(error),
                }
            }
            result => return result,
        }
    }
}

/// [`msm`] by `method` within `budget`.
fn msm_within<C: Curve, E: Engine>(
    engine: &E,
    bases: &GroupBases<C::Affine, E::Buffer>,
    (offset, count): (usize, usize),
    scalars: &[pce_scalar],
    out: &mut [C::Point],
    (method, budget): (Method, Budget),
) -> Result<(), PluginError> {
    let chunks: Vec<(usize, Range<usize>)> = (0..bases.len.div_ceil(bases.chunk_len))
        .filter_map(|chunk| {
            let span = bases.chunk(chunk);
            let range = offset.max(span.start)..(offset + count).min(span.end);
            (!range.is_empty()).then_some((chunk, range))
        })
        .collect();
    let step = budget.job_terms.max(1);
    let batch = out.len();
    let jobs: Vec<Job> = chunks
        .iter()
        .enumerate()
        .flat_map(|(position, (chunk, range))| {
            range.clone().step_by(step).flat_map(move |start| {
                let part = start..(start + step).min(range.end);
                (0..batch).map(move |k| Job {
                    position,
                    chunk: *chunk,
                    range: part.clone(),
                    first: start == range.start,
                    k,
                })
            })
        })
        .collect();
    let terms_of = |job: &Job| {
        let start = job.k * count + job.range.start - offset;
        let first = job.range.start - bases.chunk(job.chunk).start;
        Terms::new(&scalars[start..start + job.range.len()], first as u32..).map_err(|_| {
            PluginError::new(
                PCE_ERR_OUT_OF_MEMORY,
                format!(
                    "the host refused the memory of an MSM job's terms ({} terms, up to 36 bytes each)",
                    job.range.len()
                ),
            )
        })
    };

    let mut run = Run::<C, E>::new(engine, bases, out.len(), method, budget)?;
    if let Some((chunk, _)) = chunks.first() {
        run.stage_bases(*chunk, 0)?;
    }
    let mut staged = match jobs.first() {
        Some(job) => Some(run.stage_terms(&terms_of(job)?, 0)?),
        None => None,
    };
    for (j, job) in jobs.iter().enumerate() {
        let current = staged.expect("each job is staged before it runs");
        // The kernels of job j see everything uploaded so far; what is
        // uploaded from here on overlaps them.
        engine.wait_writes()?;
        // The next chunk's streamed points, once the previous chunk's
        // kernels (the last readers of its slot) have all been launched.
        if job.k == 0 && job.first {
            if let Some((chunk, _)) = chunks.get(job.position + 1) {
                run.stage_bases(*chunk, (job.position + 1) % 2)?;
            }
        }
        staged = match jobs.get(j + 1) {
            Some(next) => Some(run.stage_terms(&terms_of(next)?, (j + 1) % 2)?),
            None => None,
        };
        run.launch(job, current, j % 2)?;
    }
    run.finish(out)
}
