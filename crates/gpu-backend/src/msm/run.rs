//! The device state of one MSM call ([`Run`]): accumulators, the two slots
//! of streamed bases and of terms, the kernels' working buffers, and the
//! launches of each job's kernels.

use std::marker::PhantomData;

use backend_api::plugin::PluginError;
use tracing::debug;

use super::bases::{Curve, GroupBases, Place};
use super::budget::Budget;
use super::plan::{Method, MsmPlan, SortedPlan, SCAN_THREADS, SORTED_SUMS_BLOCK};
use super::{Job, Staged, Terms};
use crate::engine::{bytes_of, Arg, Engine, Plain};

/// Partial sums one thread of `msm_reduce` adds per pass: three passes
/// take the 10^5 partial sums of a large GPU down to one per window.
const REDUCE_FAN_IN: u32 = 32;

/// A device buffer reused from job to job, replaced when one needs more.
struct Scratch<B> {
    buffer: Option<B>,
    bytes: usize,
}

impl<B> Default for Scratch<B> {
    fn default() -> Self {
        Self {
            buffer: None,
            bytes: 0,
        }
    }
}

impl<B> Scratch<B> {
    /// The buffer, with room for at least `bytes`. A buffer it replaces may
    /// still be in use by kernels: engines free buffers only after the
    /// work queued on them.
    fn get<E: Engine<Buffer = B>>(
        &mut self,
        engine: &E,
        bytes: usize,
    ) -> Result<&mut B, PluginError> {
        if self.buffer.is_none() || self.bytes < bytes {
            self.buffer = None;
            self.buffer = Some(engine.buffer(bytes)?);
            self.bytes = bytes;
        }
        Ok(self.buffer.as_mut().expect("just allocated"))
    }

    /// [`Self::get`], with a buffer it allocates filled with zeros.
    fn zeroed<E: Engine<Buffer = B>>(
        &mut self,
        engine: &E,
        bytes: usize,
    ) -> Result<&mut B, PluginError> {
        if self.buffer.is_none() || self.bytes < bytes {
            let mut buffer = engine.buffer(bytes)?;
            engine.write(&mut buffer, &vec![0; bytes])?;
            self.buffer = Some(buffer);
            self.bytes = bytes;
        }
        Ok(self.buffer.as_mut().expect("just allocated"))
    }

    /// The buffer the last job staged.
    fn staged(&self) -> &B {
        self.buffer.as_ref().expect("staged before the kernels run")
    }

    /// Starts uploading `values` into the buffer.
    fn write_async<E: Engine<Buffer = B>, T: Plain>(
        &mut self,
        engine: &E,
        values: &[T],
    ) -> Result<(), PluginError> {
        if values.is_empty() {
            return Ok(());
        }
        let buffer = self.get(engine, size_of_val(values))?;
        engine.write_async(buffer, bytes_of(values))
    }
}

/// The device buffers of one job's terms.
struct TermBuffers<B> {
    ones: Scratch<B>,
    indices: Scratch<B>,
    scalars: Scratch<B>,
}

impl<B> Default for TermBuffers<B> {
    fn default() -> Self {
        Self {
            ones: Scratch::default(),
            indices: Scratch::default(),
            scalars: Scratch::default(),
        }
    }
}

/// The device state of one MSM call: accumulators, the two slots of
/// streamed bases and of terms, and the kernels' working memory.
pub(super) struct Run<'a, C: Curve, E: Engine> {
    engine: &'a E,
    bases: &'a GroupBases<C::Affine, E::Buffer>,
    /// One XYZZ sum per MSM of the batch.
    acc: E::Buffer,
    streamed: [Scratch<E::Buffer>; 2],
    terms: [TermBuffers<E::Buffer>; 2],
    buckets: Scratch<E::Buffer>,
    partials: Scratch<E::Buffer>,
    /// The sorted MSM's buffers ([`Method::Sorted`]).
    sorted: SortedBuffers<E::Buffer>,
    method: Method,
    budget: Budget,
    curve: PhantomData<C>,
}

/// The device buffers of the sorted MSM, reused from job to job.
struct SortedBuffers<B> {
    /// Entries per bucket; all zero between jobs (`msm_scan` zeroes what
    /// it read).
    counts: Scratch<B>,
    offsets: Scratch<B>,
    cursors: Scratch<B>,
    /// The number of entries, for the host.
    total: Scratch<B>,
    entries: Scratch<B>,
    sums: Scratch<B>,
    heads: Scratch<B>,
    tails: Scratch<B>,
}

impl<B> Default for SortedBuffers<B> {
    fn default() -> Self {
        Self {
            counts: Scratch::default(),
            offsets: Scratch::default(),
            cursors: Scratch::default(),
            total: Scratch::default(),
            entries: Scratch::default(),
            sums: Scratch::default(),
            heads: Scratch::default(),
            tails: Scratch::default(),
        }
    }
}

impl<'a, C: Curve, E: Engine> Run<'a, C, E> {
    pub(super) fn new(
        engine: &'a E,
        bases: &'a GroupBases<C::Affine, E::Buffer>,
        batch: usize,
        method: Method,
        budget: Budget,
    ) -> Result<Self, PluginError> {
        let bytes = batch * C::XYZZ_BYTES;
        let mut acc = engine.buffer(bytes)?;
        // All-zero is the point at infinity.
        engine.write(&mut acc, &vec![0; bytes])?;
        Ok(Self {
            engine,
            bases,
            acc,
            streamed: Default::default(),
            terms: Default::default(),
            buckets: Scratch::default(),
            partials: Scratch::default(),
            sorted: SortedBuffers::default(),
            method,
            budget,
            curve: PhantomData,
        })
    }

    /// Starts uploading chunk `chunk` into streaming slot `slot`, when the
    /// bases are streamed.
    pub(super) fn stage_bases(&mut self, chunk: usize, slot: usize) -> Result<(), PluginError> {
        if let Place::Host(host) = &self.bases.place {
            let points = &host.as_slice()[self.bases.chunk(chunk)];
            self.streamed[slot].write_async(self.engine, points)?;
        }
        Ok(())
    }

    /// Starts uploading `terms` into terms slot `slot`.
    pub(super) fn stage_terms(
        &mut self,
        terms: &Terms,
        slot: usize,
    ) -> Result<Staged, PluginError> {
        let buffers = &mut self.terms[slot];
        buffers.ones.write_async(self.engine, &terms.ones)?;
        buffers.indices.write_async(self.engine, &terms.others)?;
        buffers
            .scalars
            .write_async(self.engine, &terms.other_scalars)?;
        Ok(Staged {
            ones: terms.ones.len() as u32,
            terms: terms.others.len() as u32,
        })
    }

    /// Launches the kernels of `job`, whose terms are in slot `slot`.
    pub(super) fn launch(
        &mut self,
        job: &Job,
        staged: Staged,
        slot: usize,
    ) -> Result<(), PluginError> {
        let engine = self.engine;
        let limits = engine.limits();
        let bases = job_bases(self.bases, &self.streamed, job);
        let terms = &self.terms[slot];
        if staged.ones > 0 {
            let room = u32::try_from(self.budget.points).unwrap_or(u32::MAX);
            let slices = limits.parallel_threads.min(room).clamp(1, staged.ones);
            let partials = self.partials.get(engine, slices as usize * C::XYZZ_BYTES)?;
            engine.launch(
                C::SUM_KERNEL,
                slices as usize,
                None,
                &[
                    Arg::Buffer(bases),
                    Arg::Buffer(terms.ones.staged()),
                    Arg::U32(staged.ones),
                    Arg::U32(slices),
                    Arg::Buffer(partials),
                ],
            )?;
            accumulate::<C, E>(engine, partials, 0, 1, slices, &self.acc, job.k)?;
        }
        if staged.terms > 0 {
            match self.method {
                Method::Buckets => self.buckets(job, slot, staged.terms)?,
                Method::Sorted => self.sorted(job, slot, staged.terms)?,
            }
        }
        Ok(())
    }

    /// The bucket kernel over the `count` terms of `job` in terms slot
    /// `slot`, its sums added to the job's accumulator.
    fn buckets(&mut self, job: &Job, slot: usize, count: u32) -> Result<(), PluginError> {
        let engine = self.engine;
        let bases = job_bases(self.bases, &self.streamed, job);
        let terms = &self.terms[slot];
        let plan = MsmPlan::new(
            count as usize,
            C::bucket_threads(&engine.limits()),
            self.budget.points,
        );
        let buckets = self
            .buckets
            .get(engine, plan.buckets() as usize * C::XYZZ_BYTES)?;
        let partials = self
            .partials
            .get(engine, plan.threads() as usize * C::XYZZ_BYTES)?;
        engine.launch(
            C::BUCKETS_KERNEL,
            plan.threads() as usize,
            None,
            &[
                Arg::Buffer(bases),
                Arg::Buffer(terms.indices.staged()),
                Arg::Buffer(terms.scalars.staged()),
                Arg::U32(count),
                Arg::U32(plan.bits),
                Arg::U32(plan.windows),
                Arg::U32(plan.slices),
                Arg::Buffer(buckets),
                Arg::Buffer(partials),
            ],
        )?;
        accumulate::<C, E>(
            engine,
            partials,
            plan.bits,
            plan.windows,
            plan.slices,
            &self.acc,
            job.k,
        )
    }

    /// The sorted MSM over the `count` terms of `job` in terms slot `slot`,
    /// its sums added to the job's accumulator: the digits counted per bucket, the counts scanned
    /// into each bucket's first entry, the entries placed, the buckets
    /// summed, then each window's buckets (kernels/sort.h, kernels/msm.h).
    fn sorted(&mut self, job: &Job, slot: usize, count: u32) -> Result<(), PluginError> {
        let engine = self.engine;
        let bases = job_bases(self.bases, &self.streamed, job);
        let terms = &self.terms[slot];
        let k = job.k;
        let xyzz = C::XYZZ_BYTES;
        let limits = engine.limits();
        // Each buffer within what the bucket kernel's buckets may take (the
        // device's largest buffer, halved with the budget after a refusal).
        let max_buffer = self.budget.points.saturating_mul(xyzz as u64);
        let Some(plan) = SortedPlan::new(
            count as usize,
            C::bucket_threads(&limits),
            (self.budget.bytes, max_buffer),
            xyzz as u64,
        ) else {
            debug!(terms = count, budget = ?self.budget, "no sorted MSM plan fits; the bucket kernel instead");
            return self.buckets(job, slot, count);
        };
        let buckets = plan.buckets() as usize;
        let most = plan.entries(u64::from(count));
        let parallel = C::bucket_threads(&limits);
        let most_segments = SortedPlan::most_segments(most, parallel) as usize;
        let buffers = &mut self.sorted;
        let counts = buffers.counts.zeroed(engine, 4 * buckets)?;
        let offsets = buffers.offsets.get(engine, 4 * (buckets + 1))?;
        let cursors = buffers.cursors.get(engine, 4 * buckets)?;
        let total = buffers.total.get(engine, 4)?;
        let entries = buffers.entries.get(engine, 4 * most as usize)?;
        let sums = buffers.sums.get(engine, xyzz * buckets)?;
        let heads = buffers.heads.get(engine, xyzz * most_segments)?;
        let tails = buffers.tails.get(engine, xyzz * most_segments)?;
        let partials = self
            .partials
            .get(engine, xyzz * plan.reduce_threads() as usize)?;
        let digits = |place: u32| {
            engine.launch(
                "msm_digits",
                count as usize,
                None,
                &[
                    Arg::Buffer(terms.scalars.staged()),
                    Arg::Buffer(terms.indices.staged()),
                    Arg::U32(count),
                    Arg::U32(plan.bits),
                    Arg::U32(plan.windows),
                    Arg::U32(place),
                    Arg::Buffer(counts),
                    Arg::Buffer(cursors),
                    Arg::Buffer(entries),
                ],
            )
        };
        digits(0)?;
        engine.launch(
            "msm_scan",
            SCAN_THREADS,
            Some(SCAN_THREADS),
            &[
                Arg::Buffer(counts),
                Arg::U32(buckets as u32),
                Arg::Buffer(offsets),
                Arg::Buffer(cursors),
                Arg::Buffer(total),
            ],
        )?;
        digits(1)?;
        // How many digits are not zero (small scalars leave most windows
        // empty) decides how the sums spread over the threads: a wait for
        // two short kernels and four bytes.
        let mut found = [0u32];
        engine.download(total, &mut found)?;
        let segment = SortedPlan::segment(u64::from(found[0]), parallel);
        let threads = found[0].div_ceil(segment) as usize;
        debug!(
            ?plan,
            terms = count,
            entries = found[0],
            segment,
            "sorted MSM job"
        );
        // Terms here have scalars other than 0 and 1, so one digit at least;
        // no entries would leave every bucket empty, and no thread to launch.
        if threads > 0 {
            engine.launch(
                C::SORTED_SUMS_KERNEL,
                threads,
                Some(SORTED_SUMS_BLOCK),
                &[
                    Arg::Buffer(bases),
                    Arg::Buffer(entries),
                    Arg::Buffer(offsets),
                    Arg::U32(buckets as u32),
                    Arg::U32(segment),
                    Arg::Buffer(sums),
                    Arg::Buffer(heads),
                    Arg::Buffer(tails),
                ],
            )?;
        }
        engine.launch(
            C::SORTED_REDUCE_KERNEL,
            plan.reduce_threads() as usize,
            None,
            &[
                Arg::Buffer(offsets),
                Arg::U32(plan.bits),
                Arg::U32(plan.windows),
                Arg::U32(plan.parts),
                Arg::U32(segment),
                Arg::Buffer(sums),
                Arg::Buffer(heads),
                Arg::Buffer(tails),
                Arg::Buffer(partials),
            ],
        )?;
        accumulate::<C, E>(
            engine,
            partials,
            plan.bits,
            plan.windows,
            plan.parts,
            &self.acc,
            k,
        )
    }

    /// The accumulators as Jacobian points, copied into `out`.
    pub(super) fn finish(self, out: &mut [C::Point]) -> Result<(), PluginError> {
        let results = self.engine.buffer(size_of_val(out))?;
        self.engine.launch(
            C::FINISH_KERNEL,
            out.len(),
            None,
            &[
                Arg::Buffer(&self.acc),
                Arg::U32(out.len() as u32),
                Arg::Buffer(&results),
            ],
        )?;
        self.engine.download(&results, out)
    }
}

/// The device buffer of `job`'s bases: resident, or the streaming slot its
/// chunk was uploaded to.
fn job_bases<'b, A, B>(
    bases: &'b GroupBases<A, B>,
    streamed: &'b [Scratch<B>; 2],
    job: &Job,
) -> &'b B {
    match &bases.place {
        Place::Device(buffers) => &buffers[job.chunk],
        Place::Host(_) => streamed[job.position % 2].staged(),
    }
}

/// Adds the partial sums of one MSM, `partials[slice · windows + window]`
/// for `slices` slices, to `acc[index]`: reduction passes down to one
/// slice, then the windows joined (`bits` doublings apart).
fn accumulate<C: Curve, E: Engine>(
    engine: &E,
    partials: &E::Buffer,
    bits: u32,
    windows: u32,
    mut slices: u32,
    acc: &E::Buffer,
    index: usize,
) -> Result<(), PluginError> {
    while slices > 1 {
        let parts = slices.div_ceil(REDUCE_FAN_IN);
        engine.launch(
            C::REDUCE_KERNEL,
            (windows * parts) as usize,
            None,
            &[
                Arg::Buffer(partials),
                Arg::U32(windows),
                Arg::U32(slices),
                Arg::U32(parts),
            ],
        )?;
        slices = parts;
    }
    engine.launch(
        C::COMBINE_KERNEL,
        1,
        None,
        &[
            Arg::Buffer(partials),
            Arg::U32(bits),
            Arg::U32(windows),
            Arg::Buffer(acc),
            Arg::U32(index as u32),
        ],
    )
}
