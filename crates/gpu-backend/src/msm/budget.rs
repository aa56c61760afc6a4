//! The device memory one MSM call plans with, from the engine's free
//! memory when it starts, and how it narrows after a refused buffer (see
//! the module doc of [`super`]).

use backend_api::ffi::pce_scalar;

use super::bases::{Curve, GroupBases, Place};
use super::plan::MIN_PLAN_POINTS;
use crate::engine::Engine;

/// Device bytes per term in one slot at most: a one costs a 4-byte index,
/// another term a 4-byte index and a 32-byte scalar, and each of a slot's
/// three buffers grows to the largest count of its kind over the jobs.
const TERM_BYTES: u64 = 40;

/// Fewest terms of one job (unless the MSM or a chunk of its bases has
/// fewer): 5 MiB of terms in both slots. However little memory the budget
/// sees (a free-memory query that failed, memory taken since), jobs stay
/// this long, so an MSM that cannot run fails out of memory instead of
/// crawling through millions of jobs of a few terms.
pub(super) const MIN_JOB_TERMS: u64 = 1 << 16;

/// Most times an MSM starts over in half the budget after a device buffer
/// was refused: by then its buckets have a sixteenth of the room they
/// first had, and a device that refuses that much less is not short by a
/// margin that narrowing further would find.
pub(super) const MAX_NARROWING: u32 = 4;

/// The part of the free memory (one sixteenth) an MSM leaves out of its
/// budget: allocation granularity, alignment and the driver's own needs.
const HEADROOM_DIVISOR: u64 = 16;

/// The device memory one MSM call plans with (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Budget {
    /// Most terms (ones and others) of one job.
    pub(super) job_terms: usize,
    /// Fewest terms of one job: [`Self::narrower`] stops there.
    pub(super) least_job_terms: usize,
    /// Most points of buckets and partial sums (in one buffer).
    pub(super) points: u64,
    /// Most bytes of the sorted MSM's buffers together (each within the
    /// device's largest buffer).
    pub(super) bytes: u64,
}

impl Budget {
    /// The budget of a batch of `batch` MSMs of `count` terms each over
    /// `bases` in the engine's free memory now. A job never holds more
    /// terms than one MSM has within one chunk of the bases, so the terms'
    /// share is sized for at most that many and the rest goes to buckets:
    /// the 2^27 terms of a large MSM take at most 10.7 GB in both slots,
    /// where half of an H200's free memory would reserve some 28 GB.
    pub(super) fn new<C: Curve, E: Engine>(
        engine: &E,
        bases: &GroupBases<C::Affine, E::Buffer>,
        count: usize,
        batch: usize,
    ) -> Self {
        let limits = engine.limits();
        let xyzz = C::XYZZ_BYTES as u64;
        let streamed = match bases.place {
            Place::Host(_) => 2 * (bases.chunk_len * size_of::<C::Affine>()) as u64,
            Place::Device(_) => 0,
        };
        let fixed = batch as u64 * (xyzz + size_of::<C::Point>() as u64) + streamed;
        let mut available = engine.free_memory().saturating_sub(fixed);
        available -= available / HEADROOM_DIVISOR;
        let most = (count.min(bases.chunk_len) as u64)
            .min(limits.max_alloc / size_of::<pce_scalar>() as u64)
            .max(1);
        let least = most.min(MIN_JOB_TERMS);
        let job_terms = (available / 2 / (2 * TERM_BYTES)).clamp(least, most);
        let room = available - (2 * TERM_BYTES * job_terms).min(available);
        Self {
            job_terms: job_terms as usize,
            least_job_terms: least as usize,
            points: room.min(limits.max_alloc) / xyzz,
            bytes: room,
        }
    }

    /// Half this budget (jobs no shorter than [`Self::least_job_terms`]),
    /// or `None` when neither half would be less: the least jobs and the
    /// least bucket plan.
    pub(super) fn narrower(self) -> Option<Self> {
        let narrower = Self {
            job_terms: (self.job_terms / 2).max(self.least_job_terms),
            points: self.points / 2,
            bytes: self.bytes / 2,
            ..self
        };
        (narrower.job_terms < self.job_terms || self.points > MIN_PLAN_POINTS).then_some(narrower)
    }
}
