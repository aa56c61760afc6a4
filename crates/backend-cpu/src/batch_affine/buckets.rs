//! The lane code of the batch-affine MSM, written once for both instances
//! ([`super`] is `batch_affine::hardware` or, in tests,
//! `batch_affine::emulated`): it takes its lane arithmetic and instructions
//! from `super::ifma`.

use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};

use backend_api::ffi::pce_scalar;
use blst::{
    blst_fp, blst_fp_inverse, blst_fp_mul, blst_p1, blst_p1_add_or_double,
    blst_p1_add_or_double_affine, blst_p1_affine, blst_p1_double,
};
use rayon::prelude::*;

use super::ifma::{self, isa::*, Lanes};
use crate::batch_affine::{
    booth_digit, doubled, is_infinity, same, signed_point, window_bits, windows, Addition,
    FP_WORDS, MAX_BATCH, POINT_WORDS, PREFETCH_BLOCK, REDUCTION_SEGMENTS, SUM_BUCKETS,
};
use crate::ifma::FP;

/// Eight field elements of the base field.
type FpLanes = Lanes<8>;

/// Where eight additions of a batch read and write: the first words of
/// their buckets and points, the lanes to negate, the lanes that are real
/// additions (the last vector is padded with copies of the first addition,
/// which are computed but not written).
#[derive(Clone, Copy)]
struct Slots {
    buckets: __m512i,
    points: __m512i,
    negate: __mmask8,
    real: __mmask8,
}

/// What the first pass over a batch keeps for the second, per eight additions.
#[derive(Clone, Copy)]
struct Forward {
    /// Where the eight additions read and write.
    slots: Slots,
    /// The buckets' x.
    x1: FpLanes,
    /// `x₂ − x₁`.
    dx: FpLanes,
    /// The product of the `dx` of this entry and all before it, below 2p
    /// (reduced lazily: R = 2^384 > 4p keeps products of values below 2p
    /// below 2p).
    product: FpLanes,
}

/// Affine sums (buckets) and the batch of additions pending on them: one
/// task's buckets for one window, or the running sums that reduce them.
/// The added points are given with each call, by index into `points`.
struct Buckets {
    sums: Vec<blst_p1_affine>,
    filled: Vec<bool>,
    /// Buckets with an addition in `batch`.
    busy: Vec<bool>,
    /// Additions that share the next inversion.
    batch: Vec<Addition>,
    /// Additions whose bucket was busy: they go into a later batch.
    deferred: Vec<Addition>,
    /// An empty list of `deferred`'s capacity, to swap with it.
    spare: Vec<Addition>,
    /// Jacobian sums per bucket of the additions that found both their
    /// bucket busy and `deferred` full: many scalars sharing a digit (a
    /// top window, a repeated value) would otherwise wait batch after batch.
    /// Allocated on first use.
    overflow: Vec<blst_p1>,
    /// The first pass over the batch, eight additions per entry.
    forward: Vec<Forward>,
    batch_size: usize,
}

impl Buckets {
    fn new(count: usize, batch_size: usize) -> Self {
        Self {
            sums: vec![blst_p1_affine::default(); count],
            filled: vec![false; count],
            busy: vec![false; count],
            batch: Vec::with_capacity(batch_size),
            deferred: Vec::with_capacity(batch_size),
            spare: Vec::with_capacity(batch_size),
            overflow: Vec::new(),
            forward: Vec::with_capacity(batch_size / 8 + 1),
            batch_size,
        }
    }

    lane_fns!(
        /// Adds `±points[point]` (not at infinity) to bucket `bucket`.
        fn add(&mut self, points: &[blst_p1_affine], addition: Addition) {
            self.place(points, addition);
            if self.batch.len() >= self.batch_size {
                self.flush(points);
                // Re-placed from a second list, so that neither loses its capacity.
                let deferred =
                    std::mem::replace(&mut self.deferred, std::mem::take(&mut self.spare));
                for &addition in &deferred {
                    self.place(points, addition);
                }
                self.spare = deferred;
                self.spare.clear();
            }
        }
    );

    /// Puts an addition into the batch, or does it at once when it needs no
    /// inversion, or defers it when its bucket is busy.
    fn place(&mut self, points: &[blst_p1_affine], addition: Addition) {
        let index = addition.bucket as usize;
        if self.busy[index] {
            if self.deferred.len() < self.batch_size {
                self.deferred.push(addition);
            } else {
                self.add_to_overflow(index, &signed_point(points, addition));
            }
        } else if !self.filled[index] {
            self.sums[index] = signed_point(points, addition);
            self.filled[index] = true;
        } else if same(&self.sums[index].x, &points[addition.point as usize].x) {
            if same(&self.sums[index].y, &signed_point(points, addition).y) {
                self.sums[index] = doubled(&self.sums[index]);
            } else {
                self.filled[index] = false;
            }
        } else {
            self.busy[index] = true;
            self.batch.push(addition);
        }
    }

    /// Starts loading bucket `bucket` into the cache.
    fn prefetch(&self, bucket: u32) {
        let at = self.sums[bucket as usize..].as_ptr().cast::<i8>();
        // SAFETY: prefetching has no effect on memory; both addresses lie
        // inside the bucket (96 bytes, at most two cache lines).
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(at);
            _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(88));
        }
    }

    fn add_to_overflow(&mut self, index: usize, point: &blst_p1_affine) {
        if self.overflow.is_empty() {
            self.overflow = vec![blst_p1::default(); self.sums.len()];
        }
        let sum = &mut self.overflow[index];
        // SAFETY: blst adds a valid affine point to a valid Jacobian point.
        unsafe { blst_p1_add_or_double_affine(sum, sum, point) };
    }

    lane_fns!(
        /// The slots of lanes `8v..8v+8` of the batch.
        fn slots(&self, v: usize) -> Slots {
            let mut buckets = [0i64; 8];
            let mut points = [0i64; 8];
            let (mut negate, mut real) = (0u8, 0u8);
            for lane in 0..8 {
                let k = 8 * v + lane;
                let addition = match self.batch.get(k) {
                    Some(addition) => {
                        real |= 1 << lane;
                        addition
                    }
                    None => &self.batch[0],
                };
                buckets[lane] = addition.bucket as i64 * POINT_WORDS;
                points[lane] = addition.point as i64 * POINT_WORDS;
                negate |= (addition.negate as u8) << lane;
            }
            // SAFETY: unaligned loads of two arrays of 8 i64.
            let (buckets, points) = unsafe {
                (
                    _mm512_loadu_si512(buckets.as_ptr().cast()),
                    _mm512_loadu_si512(points.as_ptr().cast()),
                )
            };
            Slots {
                buckets,
                points,
                negate,
                real,
            }
        }

        /// The pending additions, with one inversion: `λ = (y₂ − y₁)/(x₂ − x₁)`,
        /// `x₃ = λ² − x₁ − x₂`, `y₃ = λ·(x₁ − x₃) − y₁`. Products that only feed
        /// other products (the prefix products, the inverses, λ) skip their final
        /// subtraction: below 2p, they stay below 2p (`R = 2^384 > 4p`); what is
        /// subtracted or stored is canonical.
        fn flush(&mut self, points: &[blst_p1_affine]) {
            if self.batch.is_empty() {
                return;
            }
            let vectors = self.batch.len().div_ceil(8);
            let sums = self.sums.as_mut_ptr().cast::<u64>();
            let points = points.as_ptr().cast::<u64>();
            let y_offset = _mm512_set1_epi64(FP_WORDS);
            let zero = FpLanes::from_words(&[[0u64; 6]; 8]);
            self.forward.clear();
            for v in 0..vectors {
                let slots = self.slots(v);
                // SAFETY: every lane indexes a bucket of `sums` and a point of `points`.
                let (x1, x2) = unsafe {
                    (
                        FpLanes::gather::<6>(sums, slots.buckets),
                        FpLanes::gather::<6>(points, slots.points),
                    )
                };
                let dx = ifma::sub(&x2, &x1, &FP);
                let product = match self.forward.last() {
                    Some(previous) => ifma::mul_unreduced(&previous.product, &dx, &FP),
                    None => dx,
                };
                self.forward.push(Forward {
                    slots,
                    x1,
                    dx,
                    product,
                });
            }
            let mut inverse = inverted(ifma::reduce(&self.forward[vectors - 1].product, &FP));
            for v in (0..vectors).rev() {
                let Forward { slots, x1, dx, .. } = self.forward[v];
                let bucket_y = _mm512_add_epi64(slots.buckets, y_offset);
                // SAFETY: as above.
                let (y1, y2) = unsafe {
                    (
                        FpLanes::gather::<6>(sums, bucket_y),
                        FpLanes::gather::<6>(points, _mm512_add_epi64(slots.points, y_offset)),
                    )
                };
                let minus_y2 = ifma::sub(&zero, &y2, &FP);
                let y2 = Lanes(std::array::from_fn(|i| {
                    _mm512_mask_blend_epi64(slots.negate, y2.0[i], minus_y2.0[i])
                }));
                let inverse_dx = if v == 0 {
                    inverse
                } else {
                    let this = ifma::mul_unreduced(&inverse, &self.forward[v - 1].product, &FP);
                    inverse = ifma::mul_unreduced(&inverse, &dx, &FP);
                    this
                };
                let lambda = ifma::mul_unreduced(&ifma::sub(&y2, &y1, &FP), &inverse_dx, &FP);
                // x₁ + x₂ = 2·x₁ + dx.
                let x1_plus_x2 = ifma::add(&ifma::add(&x1, &x1, &FP), &dx, &FP);
                let x3 = ifma::sub(&ifma::mul(&lambda, &lambda, &FP), &x1_plus_x2, &FP);
                let y3 = ifma::sub(
                    &ifma::mul(&lambda, &ifma::sub(&x1, &x3, &FP), &FP),
                    &y1,
                    &FP,
                );
                // SAFETY: the real lanes index distinct buckets of `sums`.
                unsafe {
                    x3.scatter::<6>(sums, slots.buckets, slots.real);
                    y3.scatter::<6>(sums, bucket_y, slots.real);
                }
            }
            for addition in &self.batch {
                self.busy[addition.bucket as usize] = false;
            }
            self.batch.clear();
        }

        /// Completes the pending batch; the deferred additions (at most one
        /// batch, often many to few buckets) go to the Jacobian sums.
        fn finish(&mut self, points: &[blst_p1_affine]) {
            self.flush(points);
            for addition in std::mem::take(&mut self.deferred) {
                self.add_to_overflow(addition.bucket as usize, &signed_point(points, addition));
            }
        }

        /// `Σ_j (j + 1) · bucket_j`, with the batch-affine additions too.
        ///
        /// The `B` buckets are cut into `S` segments of `L`. Running sums from
        /// the top of every segment down, all segments at once (each step one
        /// batch of `S` independent additions, twice), give each segment's sum
        /// `T_m` and `U_m = Σ_i (i + 1) · bucket_(mL+i)`; the whole is then
        /// `Σ_m U_m + L · Σ_m m·T_m`, the last a running sum over `S` points.
        /// The rare Jacobian overflow gets a running sum of its own.
        fn reduce(&self) -> blst_p1 {
            let count = self.sums.len();
            let segments = count.min(REDUCTION_SEGMENTS);
            let len = count / segments;
            debug_assert!(
                len.is_power_of_two(),
                "powers of two of buckets and segments"
            );
            let mut totals = Buckets::new(segments, segments);
            let mut weighted = Buckets::new(segments, segments);
            for i in (0..len).rev() {
                for m in (0..segments).filter(|m| self.filled[m * len + i]) {
                    let point = (m * len + i) as u32;
                    totals.add(&self.sums, Addition::plain(m, point));
                }
                totals.finish(&self.sums);
                for m in (0..segments).filter(|&m| totals.filled[m]) {
                    weighted.add(&totals.sums, Addition::plain(m, m as u32));
                }
                weighted.finish(&totals.sums);
            }
            debug_assert!(totals.overflow.is_empty() && weighted.overflow.is_empty());
            let mut sum = blst_p1::default();
            let mut running = blst_p1::default();
            let mut by_segment = blst_p1::default();
            // SAFETY: blst adds and doubles valid points.
            unsafe {
                for m in (0..segments).rev() {
                    if weighted.filled[m] {
                        blst_p1_add_or_double_affine(&mut sum, &sum, &weighted.sums[m]);
                    }
                    if m > 0 {
                        if totals.filled[m] {
                            blst_p1_add_or_double_affine(&mut running, &running, &totals.sums[m]);
                        }
                        blst_p1_add_or_double(&mut by_segment, &by_segment, &running);
                    }
                }
                for _ in 0..len.trailing_zeros() {
                    blst_p1_double(&mut by_segment, &by_segment);
                }
                blst_p1_add_or_double(&mut sum, &sum, &by_segment);
                if !self.overflow.is_empty() {
                    let mut running = blst_p1::default();
                    for overflow in self.overflow.iter().rev() {
                        blst_p1_add_or_double(&mut running, &running, overflow);
                        blst_p1_add_or_double(&mut sum, &sum, &running);
                    }
                }
            }
            sum
        }
    );

    /// `Σ_j bucket_j`.
    fn total(&self) -> blst_p1 {
        let mut sum = blst_p1::default();
        // SAFETY: blst adds valid points.
        unsafe {
            for (point, _) in self.sums.iter().zip(&self.filled).filter(|(_, &f)| f) {
                blst_p1_add_or_double_affine(&mut sum, &sum, point);
            }
            for overflow in &self.overflow {
                blst_p1_add_or_double(&mut sum, &sum, overflow);
            }
        }
        sum
    }
}

lane_fns!(
    /// The inverses of eight non-zero elements, with one inversion.
    fn inverted(lanes: FpLanes) -> FpLanes {
        let values = lanes.to_words::<6>().map(|l| blst_fp { l });
        let mut prefix = values;
        // SAFETY: blst multiplies and inverts valid field elements.
        unsafe {
            for i in 1..8 {
                blst_fp_mul(&mut prefix[i], &prefix[i - 1], &values[i]);
            }
            let mut inverse = blst_fp::default();
            blst_fp_inverse(&mut inverse, &prefix[7]);
            let mut out = [[0u64; 6]; 8];
            for i in (1..8).rev() {
                let mut this = blst_fp::default();
                blst_fp_mul(&mut this, &inverse, &prefix[i - 1]);
                out[i] = this.l;
                blst_fp_mul(&mut inverse, &inverse, &values[i]);
            }
            out[0] = inverse.l;
            FpLanes::from_words(&out)
        }
    }
);

/// `Σ scalars[i] · points[i]` (scalars canonical, below the group order),
/// or `None` where this instance cannot run (the hardware one on a CPU
/// without AVX-512 IFMA).
pub fn msm(points: &[blst_p1_affine], scalars: &[pce_scalar]) -> Option<blst_p1> {
    assert_eq!(points.len(), scalars.len(), "one scalar per point");
    assert!(
        points.len() <= u32::MAX as usize,
        "points are indexed by u32"
    );
    // Digits cover 256 bits with the top one a zero bit (see `windows`).
    debug_assert!(
        scalars.iter().all(|s| s.l[3] >> 63 == 0),
        "scalars below 2^255"
    );
    available().then(|| {
        // SAFETY: the CPU has the features (checked just above).
        unsafe { with_window(points, scalars, window_bits(points.len())) }
    })
}

/// `Σ points[i]`, or `None` where this instance cannot run (as [`msm`]):
/// the bases of the scalars 1 of a PoRep witness (a third of each query).
pub fn sum(points: &[blst_p1_affine]) -> Option<blst_p1> {
    assert!(
        points.len() <= u32::MAX as usize,
        "points are indexed by u32"
    );
    // SAFETY: the CPU has the features (checked first).
    available().then(|| unsafe { sum_on_ifma(points) })
}

lane_fns!(
    /// [`sum`]: each thread adds its slice of the points into
    /// [`SUM_BUCKETS`] buckets in turn (point `i` into bucket `i mod
    /// SUM_BUCKETS`), so a batch rarely finds a bucket busy (only where points
    /// at infinity were skipped).
    fn sum_on_ifma(points: &[blst_p1_affine]) -> blst_p1 {
        let slice = points.len().div_ceil(rayon::current_num_threads()).max(1);
        points
            .par_chunks(slice)
            .map(|part| {
                let mut buckets = Buckets::new(SUM_BUCKETS, SUM_BUCKETS);
                for (i, point) in part.iter().enumerate() {
                    if !is_infinity(point) {
                        buckets.add(part, Addition::plain(i % SUM_BUCKETS, i as u32));
                    }
                }
                buckets.finish(part);
                buckets.total()
            })
            .reduce(blst_p1::default, |mut a, b| {
                // SAFETY: blst adds valid points.
                unsafe { blst_p1_add_or_double(&mut a, &a, &b) };
                a
            })
    }

    /// [`msm`] with windows of `c` bits.
    pub(crate) fn with_window(
        points: &[blst_p1_affine],
        scalars: &[pce_scalar],
        c: usize,
    ) -> blst_p1 {
        if points.is_empty() {
            return blst_p1::default();
        }
        let window_count = windows(c);
        let bucket_count = 1usize << (c - 1);
        let batch_size = MAX_BATCH.min(bucket_count / 4).max(8);
        // Enough tasks for every thread, in slices of at least 2^12 points.
        let threads = rayon::current_num_threads();
        let slices = threads
            .div_ceil(window_count)
            .min(points.len().div_ceil(1 << 12))
            .max(1);
        let slice_len = points.len().div_ceil(slices);

        let window_sums: Vec<blst_p1> = (0..window_count * slices)
            .into_par_iter()
            .map(|task| {
                let (w, slice) = (task / slices, task % slices);
                let start = slice * slice_len;
                let end = (start + slice_len).min(points.len());
                let mut buckets = Buckets::new(bucket_count, batch_size);
                // Digits are found a block ahead, and their buckets fetched into
                // the cache while the block before is added.
                let mut ahead = Vec::with_capacity(PREFETCH_BLOCK);
                let mut current = Vec::with_capacity(PREFETCH_BLOCK);
                for block in (start..end).step_by(PREFETCH_BLOCK).chain([end]) {
                    ahead.clear();
                    for i in block..(block + PREFETCH_BLOCK).min(end) {
                        let digit = booth_digit(&scalars[i], w, c);
                        if digit != 0 && !is_infinity(&points[i]) {
                            let bucket = digit.unsigned_abs() - 1;
                            buckets.prefetch(bucket);
                            ahead.push(Addition {
                                bucket,
                                point: i as u32,
                                negate: digit < 0,
                            });
                        }
                    }
                    for &addition in &current {
                        buckets.add(points, addition);
                    }
                    std::mem::swap(&mut ahead, &mut current);
                }
                buckets.finish(points);
                buckets.reduce()
            })
            .collect();

        let mut result = blst_p1::default();
        for window in window_sums.chunks(slices).rev() {
            // SAFETY: blst doubles and adds valid points.
            unsafe {
                for _ in 0..c {
                    blst_p1_double(&mut result, &result);
                }
                for sum in window {
                    blst_p1_add_or_double(&mut result, &result, sum);
                }
            }
        }
        result
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use backend_api::interop::{g1_affines_as_pce, g1_as_blst, scalar_bytes, scalar_of};
    use blst::{blst_p1_is_equal, MultiPoint};
    use blstrs::{G1Affine, G1Projective, Scalar};
    use ff::Field;
    use group::prime::PrimeCurveAffine;
    use group::Group as _;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn scalar(l: [u64; 4]) -> pce_scalar {
        pce_scalar { l }
    }

    /// `n` distinct G1 points: multiples of a random step.
    fn g1_points(n: usize, rng: &mut ChaCha8Rng) -> Vec<G1Affine> {
        let step = G1Projective::random(&mut *rng);
        let mut next = G1Projective::random(&mut *rng);
        (0..n)
            .map(|_| {
                next += step;
                G1Affine::from(next)
            })
            .collect()
    }

    /// Our MSM equals blst's at the chosen window, at a narrow one (many
    /// additions per bucket, so batches conflict and defer) and at a wide
    /// one (more buckets than reduction segments: several running-sum steps).
    fn check(points: &[G1Affine], scalars: &[pce_scalar]) {
        let points = g1_as_blst(g1_affines_as_pce(points));
        let blst = points.mult(scalar_bytes(scalars), 255);
        let chosen = msm(points, scalars).expect("the calling test skips where it cannot run");
        // SAFETY: two valid points.
        assert!(
            unsafe { blst_p1_is_equal(&chosen, &blst) },
            "n = {}, chosen window",
            points.len()
        );
        for c in [4, 12] {
            // SAFETY: the CPU has the features (`msm` ran).
            let ours = unsafe { with_window(points, scalars, c) };
            // SAFETY: two valid points.
            assert!(
                unsafe { blst_p1_is_equal(&ours, &blst) },
                "n = {}, c = {c}",
                points.len()
            );
        }
    }

    /// The sum equals blst's, with points at infinity, repeats (doublings)
    /// and a point next to its negation (an emptied bucket).
    #[test]
    fn sum_matches_blst() {
        if !runs_test(module_path!(), "sum_matches_blst") {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut points = g1_points(9000, &mut rng);
        for i in (0..points.len()).step_by(97) {
            points[i] = G1Affine::identity();
        }
        let p = points[1];
        points[1 + SUM_BUCKETS] = p;
        points[2 + 2 * SUM_BUCKETS] = -points[2];
        for n in [0, 1, 5, 2 * SUM_BUCKETS + 3, points.len()] {
            let points = g1_as_blst(g1_affines_as_pce(&points[..n]));
            // blst's batch addition wants at least one point.
            let expected = if n == 0 {
                blst_p1::default()
            } else {
                points.add()
            };
            let ours = sum(points).expect("IFMA is available");
            // SAFETY: two valid points.
            assert!(unsafe { blst_p1_is_equal(&ours, &expected) }, "n = {n}");
        }
    }

    #[test]
    fn random_scalars_match_blst() {
        if !runs_test(module_path!(), "random_scalars_match_blst") {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for n in [1, 2, 3, 9, 31, 600, 5000] {
            let points = g1_points(n, &mut rng);
            let scalars: Vec<_> = (0..n)
                .map(|_| scalar_of(&Scalar::random(&mut rng)))
                .collect();
            check(&points, &scalars);
        }
    }

    /// Many additions to one bucket: conflicts within a batch, doublings
    /// (P + P), cancellations (P + −P), points at infinity, r − 1.
    #[test]
    fn awkward_inputs_match_blst() {
        if !runs_test(module_path!(), "awkward_inputs_match_blst") {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let distinct = g1_points(40, &mut rng);
        let mut points = Vec::new();
        for i in 0..3000 {
            let p = distinct[i % distinct.len()];
            points.push(match i % 5 {
                0 => -p,
                1 => G1Affine::identity(),
                _ => p,
            });
        }
        let small = |v: u64| scalar([v, 0, 0, 0]);
        let minus_one = scalar_of(&-Scalar::ONE);
        let same: Vec<_> = (0..points.len()).map(|_| small(3)).collect();
        check(&points, &same);
        let mixed: Vec<_> = (0..points.len())
            .map(|i| match rng.next_u32() % 4 {
                0 => minus_one,
                1 => small(1 + i as u64 % 3),
                2 => small(0),
                _ => scalar_of(&Scalar::random(&mut rng)),
            })
            .collect();
        check(&points, &mixed);

        // One point and its negation into one bucket: P + P doubles, P + −P
        // empties the bucket, and the batch sees both.
        let p = distinct[0];
        let pattern: Vec<G1Affine> = [1, 1, -1, 1, -1, -1, 1, 1, 1, -1, 1, 1]
            .iter()
            .cycle()
            .take(500)
            .map(|&sign| if sign > 0 { p } else { -p })
            .collect();
        check(&pattern, &vec![small(1); pattern.len()]);
        check(&pattern[..2], &[small(1), small(1)]);
        check(&pattern[1..3], &[small(2), small(2)]);
    }
}
