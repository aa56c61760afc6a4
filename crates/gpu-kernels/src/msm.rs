//! The GPU MSM (kernels/msm.h) from the host.
//!
//! Bases stay in device buffers under their handle ([`Bases`]), cut into
//! chunks of at most one buffer, or on the host when they exceed the
//! device's memory (then each MSM uploads them chunk by chunk).
//!
//! PoRep witnesses are mostly zeros and ones, so the host first splits the
//! scalars ([`Terms`]): zeros are dropped, ones go to the `sum_bases`
//! kernel (plain additions spread over every thread, instead of all landing
//! in one bucket), and only the rest go to the bucket kernel, as
//! (base index, scalar) pairs. [`MsmPlan`] picks the window size for the
//! bucket kernel from the number of terms and the device's parallelism;
//! [`combine_windows`] turns the device's per-thread partial sums into the
//! result (a few thousand points: cheaper on the host than another launch).

use backend_api::ffi::{
    pce_g1_affine, pce_g1_projective, pce_g2_affine, pce_g2_projective, pce_scalar, PCE_G1, PCE_G2,
};
use backend_api::interop::{
    pce_g1_projectives, pce_g1_projectives_mut, pce_g2_projectives, pce_g2_projectives_mut,
};
use backend_api::plugin::{HostPoints, PluginError, Points, Storage};
use blstrs::{G1Projective, G2Projective};
use group::Group;

use crate::engine::{Arg, Engine, Plain};

/// Share of device memory the buckets of one MSM may occupy.
const BUCKET_SHARE: f64 = 0.25;

/// Bits the signed windows must cover: the 255 bits of a scalar plus the
/// carry a top window above half its range would produce.
const SIGNED_BITS: u32 = 256;

/// Widest window the plan considers.
const MAX_WINDOW_BITS: u32 = 16;

/// The terms of one MSM over one device buffer of bases, split by scalar.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Terms {
    /// Indices (into the device buffer) of the bases whose scalar is 1.
    pub ones: Vec<u32>,
    /// Indices of the bases whose scalar is neither 0 nor 1.
    pub indices: Vec<u32>,
    /// The scalars of `indices`, in the same order.
    pub scalars: Vec<pce_scalar>,
}

impl Terms {
    /// Splits `scalars`, whose first entry multiplies base `first_index` of
    /// the device buffer.
    pub fn split(scalars: &[pce_scalar], first_index: u32) -> Self {
        let mut terms = Terms::default();
        for (index, scalar) in (first_index..).zip(scalars) {
            match scalar.l {
                [0, 0, 0, 0] => {}
                [1, 0, 0, 0] => terms.ones.push(index),
                _ => {
                    terms.indices.push(index);
                    terms.scalars.push(*scalar);
                }
            }
        }
        terms
    }
}

/// How the bucket kernel runs: `windows` signed windows of `bits` bits, the
/// terms cut into `slices` slices, one thread per (slice, window).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsmPlan {
    /// Window width in bits.
    pub bits: u32,
    /// Number of windows covering 256 bits (signed digits carry).
    pub windows: u32,
    /// Number of slices the terms are cut into.
    pub slices: u32,
}

impl MsmPlan {
    /// The plan for `terms` terms on a device that runs about
    /// `parallel_threads` threads at once, with room for at most
    /// `max_buckets` buckets.
    ///
    /// Each thread adds its slice's terms to its buckets, then sums its
    /// 2^(bits−1) buckets with about 2^bits additions; threads beyond
    /// the device's parallelism run in further waves. The plan minimises
    /// waves × additions per thread.
    pub fn new(terms: usize, parallel_threads: u32, max_buckets: u64) -> Self {
        let terms = terms.max(1) as u64;
        let parallel = u64::from(parallel_threads.max(1));
        let mut best: Option<(u64, MsmPlan)> = None;
        for bits in 1..=MAX_WINDOW_BITS {
            let windows = SIGNED_BITS.div_ceil(bits);
            let slices = (parallel / u64::from(windows)).clamp(1, terms) as u32;
            let plan = MsmPlan {
                bits,
                windows,
                slices,
            };
            if plan.buckets() > max_buckets && bits > 1 {
                continue;
            }
            let threads = u64::from(plan.threads());
            let waves = threads.div_ceil(parallel);
            let per_thread = terms.div_ceil(u64::from(slices)) + (1u64 << bits);
            let cost = waves * per_thread;
            if best.is_none_or(|(best_cost, _)| cost < best_cost) {
                best = Some((cost, plan));
            }
        }
        best.expect("bits = 1 is always considered").1
    }

    /// Threads of the bucket kernel.
    pub fn threads(&self) -> u32 {
        self.windows * self.slices
    }

    /// Buckets the kernel needs: 2^(bits−1) per thread (one per digit
    /// magnitude).
    pub fn buckets(&self) -> u64 {
        u64::from(self.threads()) << (self.bits - 1)
    }
}

/// A group as the kernels see it: the ABI's affine bases and Jacobian
/// results (viewed as blstrs points for the host's arithmetic), its
/// bucket size and kernel names.
pub trait Curve {
    /// The ABI's affine point (the bases).
    type Affine: Plain;
    /// The ABI's Jacobian point (what the device writes).
    type Point: Plain + Default;
    /// `PCE_G1` or `PCE_G2`.
    const GROUP: u32;
    /// Bytes of one XYZZ bucket on the device.
    const BUCKET_BYTES: usize;
    /// The bucket kernel.
    const BUCKETS_KERNEL: &'static str;
    /// The kernel summing bases.
    const SUM_KERNEL: &'static str;
    /// The same point in blstrs.
    type Projective: Group;
    /// Views device results as blstrs points.
    fn view(points: &[Self::Point]) -> &[Self::Projective];
    /// The ABI form of a blstrs point.
    fn export(point: Self::Projective) -> Self::Point;
}

/// G1.
pub struct G1;

/// G2.
pub struct G2;

impl Curve for G1 {
    type Affine = pce_g1_affine;
    type Point = pce_g1_projective;
    const GROUP: u32 = PCE_G1;
    const BUCKET_BYTES: usize = 4 * 48;
    const BUCKETS_KERNEL: &'static str = "G1_msm_buckets";
    const SUM_KERNEL: &'static str = "G1_sum_bases";
    type Projective = G1Projective;
    fn view(points: &[pce_g1_projective]) -> &[G1Projective] {
        pce_g1_projectives(points)
    }
    fn export(point: G1Projective) -> pce_g1_projective {
        let mut out = [pce_g1_projective::default()];
        pce_g1_projectives_mut(&mut out)[0] = point;
        out[0]
    }
}

impl Curve for G2 {
    type Affine = pce_g2_affine;
    type Point = pce_g2_projective;
    const GROUP: u32 = PCE_G2;
    const BUCKET_BYTES: usize = 4 * 96;
    const BUCKETS_KERNEL: &'static str = "G2_msm_buckets";
    const SUM_KERNEL: &'static str = "G2_sum_bases";
    type Projective = G2Projective;
    fn view(points: &[pce_g2_projective]) -> &[G2Projective] {
        pce_g2_projectives(points)
    }
    fn export(point: G2Projective) -> pce_g2_projective {
        let mut out = [pce_g2_projective::default()];
        pce_g2_projectives_mut(&mut out)[0] = point;
        out[0]
    }
}

/// The sum of some device results (e.g. the `sum_bases` partials).
pub fn sum<C: Curve>(partials: &[C::Point]) -> C::Projective {
    C::view(partials).iter().copied().sum()
}

/// The MSM from the bucket kernel's partials, where
/// `partials[slice · windows + window]` is one slice's sum in one window:
/// Σ_window 2^(bits · window) · Σ_slice partial.
pub fn combine_windows<C: Curve>(plan: &MsmPlan, partials: &[C::Point]) -> C::Projective {
    let partials = C::view(partials);
    assert_eq!(
        partials.len(),
        plan.threads() as usize,
        "one partial per thread"
    );
    let window_sum = |window: usize| -> C::Projective {
        partials
            .iter()
            .skip(window)
            .step_by(plan.windows as usize)
            .copied()
            .sum()
    };
    let mut result = C::Projective::identity();
    for window in (0..plan.windows as usize).rev() {
        for _ in 0..plan.bits {
            result = result.double();
        }
        result += window_sum(window);
    }
    result
}

/// Where a run of bases lives.
enum Chunk<B> {
    /// In a device buffer.
    Resident(B),
    /// On the host, uploaded for each MSM.
    Streamed,
}

/// The bases of one group, cut into chunks of at most one device buffer.
pub struct GroupBases<A, B> {
    /// Host copy (or the host's lent memory) when streamed.
    host: Option<Storage<A>>,
    chunk_len: usize,
    chunks: Vec<Chunk<B>>,
    len: usize,
}

/// Bases of either group.
pub enum Bases<B> {
    /// G1 points.
    G1(GroupBases<pce_g1_affine, B>),
    /// G2 points.
    G2(GroupBases<pce_g2_affine, B>),
}

impl<B> Bases<B> {
    /// Keeps `points` on the device when they fit, else on the host.
    pub fn new<E: Engine<Buffer = B>>(engine: &E, points: Points) -> Result<Self, PluginError> {
        Ok(match points {
            Points::G1(points) => Bases::G1(GroupBases::new(engine, points)?),
            Points::G2(points) => Bases::G2(GroupBases::new(engine, points)?),
        })
    }

    /// Number of points and group.
    pub fn shape(&self) -> (usize, u32) {
        match self {
            Bases::G1(bases) => (bases.len, G1::GROUP),
            Bases::G2(bases) => (bases.len, G2::GROUP),
        }
    }
}

impl<A: Plain, B> GroupBases<A, B> {
    fn new<E: Engine<Buffer = B>>(engine: &E, points: HostPoints<A>) -> Result<Self, PluginError> {
        let limits = engine.limits();
        let len = points.as_slice().len();
        let point_bytes = size_of::<A>() as u64;
        // Indices on the device are 32-bit.
        let chunk_len = (limits.max_alloc / point_bytes).clamp(1, u64::from(u32::MAX)) as usize;
        let resident = len as u64 * point_bytes <= engine.memory_for_bases();
        let mut chunks = Vec::new();
        for slice in points.as_slice().chunks(chunk_len) {
            chunks.push(if resident {
                Chunk::Resident(engine.upload(slice)?)
            } else {
                Chunk::Streamed
            });
        }
        let host = (!resident).then(|| Storage::new(points));
        Ok(Self {
            host,
            chunk_len,
            chunks,
            len,
        })
    }
}

/// For each k, `out[k] = Σ_i scalars[k · count + i] · bases[offset + i]`.
pub fn msm<C: Curve, E: Engine>(
    engine: &E,
    bases: &GroupBases<C::Affine, E::Buffer>,
    offset: usize,
    count: usize,
    scalars: &[pce_scalar],
    out: &mut [C::Point],
) -> Result<(), PluginError> {
    let mut totals = vec![C::Projective::identity(); out.len()];
    for (c, chunk) in bases.chunks.iter().enumerate() {
        let chunk_start = c * bases.chunk_len;
        let chunk_end = (chunk_start + bases.chunk_len).min(bases.len);
        let lo = offset.max(chunk_start);
        let hi = (offset + count).min(chunk_end);
        if lo >= hi {
            continue;
        }
        let streamed;
        let buffer = match chunk {
            Chunk::Resident(buffer) => buffer,
            Chunk::Streamed => {
                let host = bases
                    .host
                    .as_ref()
                    .expect("streamed bases keep a host copy");
                streamed = engine.upload(&host.as_slice()[chunk_start..chunk_end])?;
                &streamed
            }
        };
        for (k, total) in totals.iter_mut().enumerate() {
            let scalars = &scalars[k * count + (lo - offset)..k * count + (hi - offset)];
            let terms = Terms::split(scalars, (lo - chunk_start) as u32);
            *total += run::<C, E>(engine, buffer, &terms)?;
        }
    }
    for (out, total) in out.iter_mut().zip(totals) {
        *out = C::export(total);
    }
    Ok(())
}

/// The MSM of `terms` over the bases in `bases`.
fn run<C: Curve, E: Engine>(
    engine: &E,
    bases: &E::Buffer,
    terms: &Terms,
) -> Result<C::Projective, PluginError> {
    let limits = engine.limits();
    let mut total = C::Projective::identity();
    if !terms.ones.is_empty() {
        let slices = limits.parallel_threads.min(terms.ones.len() as u32);
        let indices = engine.upload(&terms.ones)?;
        let mut partials = vec![C::Point::default(); slices as usize];
        let partial_buffer = engine.buffer(size_of_val(partials.as_slice()))?;
        engine.launch(
            C::SUM_KERNEL,
            slices as usize,
            None,
            &[
                Arg::Buffer(bases),
                Arg::Buffer(&indices),
                Arg::U32(terms.ones.len() as u32),
                Arg::U32(slices),
                Arg::Buffer(&partial_buffer),
            ],
        )?;
        engine.download(&partial_buffer, &mut partials)?;
        total += sum::<C>(&partials);
    }
    if !terms.indices.is_empty() {
        let bucket_budget = (limits.max_alloc as f64).min(limits.memory as f64 * BUCKET_SHARE)
            / C::BUCKET_BYTES as f64;
        let plan = MsmPlan::new(
            terms.indices.len(),
            limits.parallel_threads,
            bucket_budget as u64,
        );
        let indices = engine.upload(&terms.indices)?;
        let scalars = engine.upload(&terms.scalars)?;
        let buckets = engine.buffer(plan.buckets() as usize * C::BUCKET_BYTES)?;
        let mut partials = vec![C::Point::default(); plan.threads() as usize];
        let partial_buffer = engine.buffer(size_of_val(partials.as_slice()))?;
        engine.launch(
            C::BUCKETS_KERNEL,
            plan.threads() as usize,
            None,
            &[
                Arg::Buffer(bases),
                Arg::Buffer(&indices),
                Arg::Buffer(&scalars),
                Arg::U32(terms.indices.len() as u32),
                Arg::U32(plan.bits),
                Arg::U32(plan.windows),
                Arg::U32(plan.slices),
                Arg::Buffer(&buckets),
                Arg::Buffer(&partial_buffer),
            ],
        )?;
        engine.download(&partial_buffer, &mut partials)?;
        total += combine_windows::<C>(&plan, &partials);
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(l0: u64, l3: u64) -> pce_scalar {
        pce_scalar { l: [l0, 0, 0, l3] }
    }

    #[test]
    fn split_drops_zeros_and_separates_ones() {
        let scalars = [
            scalar(0, 0),
            scalar(1, 0),
            scalar(2, 0),
            scalar(1, 1),
            scalar(1, 0),
        ];
        let terms = Terms::split(&scalars, 10);
        assert_eq!(terms.ones, [11, 14]);
        assert_eq!(terms.indices, [12, 13]);
        assert_eq!(terms.scalars, [scalar(2, 0), scalar(1, 1)]);
    }

    #[test]
    fn plans_fit_the_bucket_budget_and_cover_the_scalar() {
        for terms in [1usize, 7, 1000, 1 << 16, 1 << 22] {
            for threads in [1u32, 8, 1 << 10, 1 << 15] {
                let plan = MsmPlan::new(terms, threads, 1 << 24);
                assert!(plan.buckets() <= 1 << 24, "{plan:?}");
                assert!(plan.bits * plan.windows >= SIGNED_BITS, "{plan:?}");
                assert!(u64::from(plan.slices) <= terms as u64, "{plan:?}");
            }
        }
        // Many terms on a small device: wide windows.
        assert!(MsmPlan::new(1 << 20, 8, 1 << 24).bits >= 10);
        // Few terms: narrow windows.
        assert!(MsmPlan::new(4, 8, 1 << 24).bits <= 3);
    }
}
