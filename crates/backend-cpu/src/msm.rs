//! Multi-scalar multiplication, split by scalar.
//!
//! PoRep witnesses are 97–98 % zeros and ones. When most scalars are 0 or 1
//! the MSM is split by the rule of [`backend_api::plugin::split`]: zeros are
//! skipped, the bases of ones are summed with batch additions (no scalar
//! multiplication at all), and only the remaining points go through
//! Pippenger, those of equal scalars summed first ([`crate::repeated`]).
//! The split runs on chunks in parallel, each writing straight
//! into its own ranges of the outputs. Dense inputs (the H query) go to
//! Pippenger directly over the bases in place.
//!
//! Pippenger and the sum of the ones run on the batch-affine buckets of
//! [`crate::batch_affine`] from a few thousand points on (which size depends
//! on the group and on whether the CPU has AVX-512 IFMA: docs/benchmarks.md),
//! blst's below.

use backend_api::ffi::pce_scalar;
use backend_api::plugin::split::{split_into, Counts, Slots};
use blst::{
    blst_p1, blst_p1_add_or_double, blst_p1_add_or_double_affine, blst_p1_affine,
    blst_p1s_to_affine, blst_p2, blst_p2_add_or_double, blst_p2_add_or_double_affine,
    blst_p2_affine, blst_p2s_to_affine, MultiPoint,
};
use rayon::prelude::*;

use crate::repeated;

/// Bits of a BLS12-381 scalar.
pub(crate) const SCALAR_BITS: usize = 255;

/// Operations of one group that the split MSM needs.
pub trait SplitMsm {
    /// Affine point (blst layout).
    type Affine: Copy + Send + Sync;
    /// Jacobian point (blst layout).
    type Point: Copy + Default + Send + Sync;
    /// Pippenger over `points`.
    fn pippenger(points: &[Self::Affine], scalars: &[pce_scalar]) -> Self::Point;
    /// Sum of `points`.
    fn sum(points: &[Self::Affine]) -> Self::Point;
    /// `a + b`.
    fn add(a: &Self::Point, b: &Self::Point) -> Self::Point;
    /// `a + b`, `b` affine.
    fn add_affine(a: &Self::Point, b: &Self::Affine) -> Self::Point;
    /// The affine forms of `points` (infinity as blst's all-zero point),
    /// with one inversion.
    fn to_affine(points: &[Self::Point]) -> Vec<Self::Affine>;
}

/// `SplitMsm::add_affine` and `SplitMsm::to_affine` on blst's functions.
macro_rules! blst_affine_ops {
    ($affine:ident, $point:ident, $add_affine:ident, $to_affine:ident) => {
        fn add_affine(a: &$point, b: &$affine) -> $point {
            let mut out = $point::default();
            // SAFETY: blst reads two valid points and writes one.
            unsafe { $add_affine(&mut out, a, b) };
            out
        }

        fn to_affine(points: &[$point]) -> Vec<$affine> {
            let mut out = vec![$affine::default(); points.len()];
            if !points.is_empty() {
                // A list of one pointer, then null: blst reads the points
                // that follow the first in memory.
                let list = [points.as_ptr(), std::ptr::null()];
                // SAFETY: `points.len()` valid points lie from `list[0]` on,
                // and `out` has room for as many.
                unsafe { $to_affine(out.as_mut_ptr(), list.as_ptr(), points.len()) };
            }
            out
        }
    };
}

/// G1 through blst.
pub enum G1 {}
/// G2 through blst.
pub enum G2 {}

/// The sum of `points` with blst's batch addition.
fn blst_sum<P: Default, A>(points: &[A]) -> P
where
    [A]: MultiPoint<Output = P>,
{
    if points.is_empty() {
        return P::default();
    }
    MultiPoint::add(points)
}

/// blst's Pippenger.
fn blst_pippenger<P: Default, A>(points: &[A], scalars: &[pce_scalar]) -> P
where
    [A]: MultiPoint<Output = P>,
{
    if points.is_empty() {
        return P::default();
    }
    points.mult(backend_api::interop::scalar_bytes(scalars), SCALAR_BITS)
}

impl SplitMsm for G1 {
    type Affine = blst_p1_affine;
    type Point = blst_p1;

    blst_affine_ops!(
        blst_p1_affine,
        blst_p1,
        blst_p1_add_or_double_affine,
        blst_p1s_to_affine
    );

    fn pippenger(points: &[Self::Affine], scalars: &[pce_scalar]) -> blst_p1 {
        crate::batch_affine::msm(points, scalars).unwrap_or_else(|| blst_pippenger(points, scalars))
    }

    fn sum(points: &[Self::Affine]) -> blst_p1 {
        crate::batch_affine::sum(points).unwrap_or_else(|| blst_sum(points))
    }

    fn add(a: &blst_p1, b: &blst_p1) -> blst_p1 {
        let mut out = blst_p1::default();
        // SAFETY: blst reads two valid points and writes one.
        unsafe { blst_p1_add_or_double(&mut out, a, b) };
        out
    }
}

impl SplitMsm for G2 {
    type Affine = blst_p2_affine;
    type Point = blst_p2;

    blst_affine_ops!(
        blst_p2_affine,
        blst_p2,
        blst_p2_add_or_double_affine,
        blst_p2s_to_affine
    );

    fn pippenger(points: &[Self::Affine], scalars: &[pce_scalar]) -> blst_p2 {
        crate::batch_affine::msm_g2(points, scalars)
            .unwrap_or_else(|| blst_pippenger(points, scalars))
    }

    fn sum(points: &[Self::Affine]) -> blst_p2 {
        crate::batch_affine::sum_g2(points).unwrap_or_else(|| blst_sum(points))
    }

    fn add(a: &blst_p2, b: &blst_p2) -> blst_p2 {
        let mut out = blst_p2::default();
        // SAFETY: blst reads two valid points and writes one.
        unsafe { blst_p2_add_or_double(&mut out, a, b) };
        out
    }
}

/// `Σ scalars[i] · points[i]`.
pub fn msm<G: SplitMsm>(points: &[G::Affine], scalars: &[pce_scalar]) -> G::Point {
    assert_eq!(points.len(), scalars.len(), "one scalar per point");
    let counts: Vec<Counts> = scalars.par_chunks(SPLIT_CHUNK).map(Counts::of).collect();
    let total = counts.iter().fold(Counts::default(), |sum, c| sum.plus(*c));
    if total.others * 2 > scalars.len() {
        return merged_pippenger::<G>(points, scalars);
    }
    let split = split(points, scalars, &counts, total);
    let ones = G::sum(&split.ones);
    let rest = merged_pippenger::<G>(&split.rest_points, &split.rest_scalars);
    G::add(&ones, &rest)
}

/// Pippenger over `points` and `scalars`, with the terms of equal scalars
/// merged first where they repeat enough ([`repeated::merge`]): the split's
/// other terms, and the whole of an MSM whose witness values are mostly
/// neither 0 nor 1 but still repeat (a PoSt circuit's B query: 66,132
/// terms, 3,692 distinct values; docs/benchmarks.md).
fn merged_pippenger<G: SplitMsm>(points: &[G::Affine], scalars: &[pce_scalar]) -> G::Point {
    match repeated::merge::<G>(points, scalars) {
        Some(merged) => G::pippenger(&merged.points, &merged.scalars),
        None => G::pippenger(points, scalars),
    }
}

/// Scalars per task when splitting by scalar.
const SPLIT_CHUNK: usize = 1 << 14;

/// The terms of an MSM split by scalar: bases of ones, the other non-zero terms.
struct Split<A> {
    ones: Vec<A>,
    rest_points: Vec<A>,
    rest_scalars: Vec<pce_scalar>,
}

/// Splits the terms in parallel: each chunk of `SPLIT_CHUNK` writes
/// straight into its own ranges of the outputs, sized from its `counts`
/// (one per chunk, [`Counts::of`]) and their `total`.
fn split<A: Copy + Send + Sync>(
    points: &[A],
    scalars: &[pce_scalar],
    counts: &[Counts],
    total: Counts,
) -> Split<A> {
    let mut out = Split {
        ones: Vec::with_capacity(total.ones),
        rest_points: Vec::with_capacity(total.others),
        rest_scalars: Vec::with_capacity(total.others),
    };
    let mut ones = &mut out.ones.spare_capacity_mut()[..total.ones];
    let mut rest_points = &mut out.rest_points.spare_capacity_mut()[..total.others];
    let mut rest_scalars = &mut out.rest_scalars.spare_capacity_mut()[..total.others];
    let mut ranges = Vec::with_capacity(counts.len());
    for count in counts {
        let (chunk_ones, tail) = std::mem::take(&mut ones).split_at_mut(count.ones);
        ones = tail;
        let (chunk_points, tail) = std::mem::take(&mut rest_points).split_at_mut(count.others);
        rest_points = tail;
        let (chunk_scalars, tail) = std::mem::take(&mut rest_scalars).split_at_mut(count.others);
        rest_scalars = tail;
        ranges.push((
            *count,
            Slots {
                ones: chunk_ones,
                others: chunk_points,
                other_scalars: chunk_scalars,
            },
        ));
    }
    ranges
        .into_par_iter()
        .zip(
            points
                .par_chunks(SPLIT_CHUNK)
                .zip(scalars.par_chunks(SPLIT_CHUNK)),
        )
        .for_each(|((counted, slots), (points, scalars))| {
            let written = split_into(scalars, points.iter().copied(), slots);
            assert_eq!(written, counted, "a chunk split as it was counted");
        });
    // SAFETY: the chunks' ranges tile the outputs, and each chunk wrote
    // exactly as many elements of each as it had counted (asserted above,
    // and `split_into` initialises the first `written` slots).
    unsafe {
        out.ones.set_len(total.ones);
        out.rest_points.set_len(total.others);
        out.rest_scalars.set_len(total.others);
    }
    out
}

/// One MSM over `points` per batch of `points.len()` scalars, into `out`.
pub fn batch<G: SplitMsm, R>(
    points: &[G::Affine],
    scalars: &[pce_scalar],
    out: &mut [R],
    convert: impl Fn(G::Point) -> R,
) {
    let count = points.len();
    for (k, result) in out.iter_mut().enumerate() {
        *result = convert(msm::<G>(points, &scalars[k * count..(k + 1) * count]));
    }
}
