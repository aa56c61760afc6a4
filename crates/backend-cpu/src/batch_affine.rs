//! Pippenger with batch-affine buckets, in G1 and G2.
//!
//! The dense H query of a C2 proof is an MSM of 2^22 random scalars (2 KiB
//! sectors) to 2^27 (32 GiB): the largest single cost of a proof on a CPU.
//! The B query's G2 MSM is the next (8 % of a 32 GiB PoRep partition, 15 %
//! of a WindowPoSt one, on blst's Pippenger). The algorithm is the same in
//! both groups ([`curve`] says what each provides); in G2 every field
//! operation is an Fp2 one.
//! blst's Pippenger keeps its buckets in XYZZ coordinates, 8
//! multiplications and 2 squarings per point added, one at a time. Here
//! the buckets are affine points, and a batch of additions to distinct
//! buckets shares one field inversion (Montgomery's trick): an addition
//! then costs 5 multiplications and 1 squaring. An [`Adder`] does a batch:
//! eight additions at a time on AVX-512 IFMA ([`crate::ifma`], about three
//! times blst's multiplication rate; G2's Fp2 products as three Fp ones)
//! where the CPU has it; eight at a time on AVX-512F's double-precision
//! FMA units ([`crate::fma`], about 1.7 times blst's rate) where it has
//! AVX-512 without IFMA; and elsewhere one at a time on blst's own
//! assembly field operations (`scalar`), so that the saving in
//! multiplications is not lost to a slower multiplication.
//! Buckets stay in blst's affine layout, so the bucket sums are finished
//! with blst.
//!
//! Scalars are cut into signed (Booth) digits of `c` bits, so a window
//! needs `2^(c−1)` buckets, and a negative digit adds `−P` (a negation in
//! affine coordinates). Where it saves a window, a scalar above `r/2` is
//! first replaced by `r − s` with `P` negated ([`halved`]), so that digits
//! cover 254 bits, not 255. Work is split into tasks of one bucket array
//! each ([`pieces`]): whole windows for the full rounds of threads, then
//! the windows left over in slices of the points, taken largest first by
//! whichever thread is free ([`run_in_order`]); a task's buckets are summed
//! with running sums, batch-affine as well (segments of buckets side by
//! side), and windows are combined by doubling.
//!
//! Known weak spot: a top window with few distinct digits (windows of 11
//! to 14 bits) fills the deferred list, and its additions go to the
//! Jacobian overflow, several times dearer (the deferred list holds one
//! batch, [`MAX_BATCH`] at most). The dense H queries (2^19 points and up,
//! 15- to 17-bit windows) are not affected.
//!
//! An addition whose bucket already has one pending in the batch waits for
//! the next batch. An addition that needs no inversion is done on the spot:
//! into an empty bucket (a copy), or with equal x-coordinates (the bucket
//! is ±P: a doubling or an empty bucket), so a batch never divides by zero.
//!
//! The lane adder (`batch_affine/lanes.rs`) is one source compiled three
//! times, once per lane arithmetic it is given: `hardware` on IFMA
//! ([`crate::ifma`]) and `fma_lanes` on the FMA units ([`crate::fma`]),
//! which production runs; `emulated` and `fma_emulated`, for tests, on
//! portable models of those instructions, on any CPU.

use backend_api::ffi::pce_scalar;
use blst::{blst_p1, blst_p1_affine, blst_p2, blst_p2_affine};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::msm::SCALAR_BITS;

pub(crate) mod curve;
mod scalar;

use curve::{words, Curve, G1, G2};

/// The affine points of an adder's group.
type Affine<A> = <<A as Adder>::Curve as Curve>::Affine;
/// The Jacobian points of an adder's group.
type Jacobian<A> = <<A as Adder>::Curve as Curve>::Jacobian;

/// Additions that share one inversion, at most. A batch's buckets and
/// points are read twice, in the forward and the backward pass: 1024 G1
/// additions touch about 400 KB, which stays in a 512 KB L2 cache between
/// the passes (the inversion, about 4.5 µs, is still under 1 % of the
/// batch; docs/benchmarks.md). Measured in G1; a G2 batch touches twice
/// that, and a smaller one was not tried for G2.
const MAX_BATCH: usize = 1024;
/// Buckets of [`sum`] (and additions per batch).
const SUM_BUCKETS: usize = 2048;
/// Points whose buckets are prefetched together.
const PREFETCH_BLOCK: usize = 32;
/// How many additions ahead the blst adder fetches the next bucket and
/// point into the cache: by the time a batch is added its buckets have left
/// the nearest caches (a window's buckets are megabytes), and without this
/// the first subtraction of each addition waits for them. The IFMA adder's
/// gathers load eight at once and measured no faster with it in G1
/// (docs/benchmarks.md; not measured in G2).
pub(crate) const PREFETCH_DISTANCE: usize = 16;
/// Segments of buckets whose running sums run side by side in the reduction
/// (additions per batch there).
const REDUCTION_SEGMENTS: usize = 512;

/// The window width for `terms` points with scalars below `2^scalar_bits`,
/// at most the adder's widest: the least work overall, with a bucket
/// costing the group's [`Curve::BUCKET_COST`] additions.
fn window_bits<A: Adder>(terms: usize, scalar_bits: usize) -> usize {
    let bits = scalar_bits.min(HALVED_BITS);
    let bucket_cost = A::Curve::BUCKET_COST;
    (2..=A::WIDEST_WINDOW)
        .min_by_key(|&c| windows(c, bits) * (terms + bucket_cost * (1usize << (c - 1))))
        .expect("the range is not empty")
}

/// Bits of a [`halved`] scalar: below `r/2 < 2^254`.
const HALVED_BITS: usize = SCALAR_BITS - 1;

/// The scalar field's modulus `r`, little-endian words.
const MODULUS: [u64; 4] = [
    0xffff_ffff_0000_0001,
    0x53bd_a402_fffe_5bfe,
    0x3339_d808_09a1_d805,
    0x73ed_a753_299d_7d48,
];

/// `scalar` (canonical, below `r`) or `r − scalar`, whichever is below
/// `r/2`, and whether it is the latter: `s·P = (r − s)·(−P)`, so the MSM
/// may add `−P` with the digits of `r − s`. Every scalar then fits in 254
/// bits, which saves a window wherever 254 bits need fewer than 255 do
/// (15 windows of 17 bits instead of 16).
fn halved(scalar: &pce_scalar) -> (pce_scalar, bool) {
    // r − s with the borrow chain; s > r − s exactly when s > (r − 1)/2.
    let mut negated = [0u64; 4];
    let mut borrow = false;
    for (i, word) in negated.iter_mut().enumerate() {
        let (d, b1) = MODULUS[i].overflowing_sub(scalar.l[i]);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        *word = d;
        borrow = b1 | b2;
    }
    debug_assert!(!borrow, "scalars below r");
    let larger = (0..4)
        .rev()
        .find(|&i| scalar.l[i] != negated[i])
        .is_some_and(|i| scalar.l[i] > negated[i]);
    if larger {
        (pce_scalar { l: negated }, true)
    } else {
        (*scalar, false)
    }
}

/// Signed windows of `c` bits that cover scalars below `2^bits`: the top
/// window's highest bit must be a zero bit of the scalar (bit `bits` or
/// above), so that its digit never borrows from a window beyond.
fn windows(c: usize, bits: usize) -> usize {
    (bits + 1).div_ceil(c)
}

/// `len ≤ 32` bits of `scalar` from bit `start` on (bits past 255 are zero).
fn bits(scalar: &pce_scalar, start: usize, len: usize) -> u32 {
    let limb = start / 64;
    if limb >= 4 {
        return 0;
    }
    let shift = start % 64;
    let mut value = scalar.l[limb] >> shift;
    if shift + len > 64 && limb + 1 < 4 {
        value |= scalar.l[limb + 1] << (64 - shift);
    }
    (value & ((1u64 << len) - 1)) as u32
}

/// The signed digit of `scalar` in window `w` of `c` bits, in
/// `[−2^(c−1), 2^(c−1)]`: the window's bits, plus the top bit of the window
/// below (its borrow), minus `2^c` when the window's own top bit is set.
/// `Σ_w 2^(c·w) · digit(w) = scalar` for scalars below 2^255.
fn booth_digit(scalar: &pce_scalar, w: usize, c: usize) -> i32 {
    let value = bits(scalar, w * c, c) as i32;
    let borrow = if w == 0 {
        0
    } else {
        bits(scalar, w * c - 1, 1) as i32
    };
    value + borrow - ((value >> (c - 1)) << c)
}

/// Whether `point` is blst's affine point at infinity (all zeros), word by
/// word, inline: it is asked of every point in every window.
fn is_infinity<C: Curve>(point: &C::Affine) -> bool {
    words(point).iter().fold(0, |any, word| any | word) == 0
}

/// Whether two canonical field elements are equal (word by word, inline).
fn same<C: Curve>(a: &C::Field, b: &C::Field) -> bool {
    words(a)
        .iter()
        .zip(words(b))
        .fold(0, |diff, (x, y)| diff | (x ^ y))
        == 0
}

/// Starts loading `point` (96 bytes in G1, 192 in G2) into the cache: a
/// fetch per 64-byte line it may straddle.
#[inline(always)]
fn prefetch_point<T>(point: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let at = (point as *const T).cast::<i8>();
        // SAFETY: a prefetch is a hint that never faults and has no effect
        // on memory; every address lies inside the point anyway.
        unsafe {
            for offset in (0..size_of::<T>()).step_by(64) {
                _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(offset));
            }
            _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(size_of::<T>() - 1));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = point;
}

/// Starts loading the bucket and the point of `addition` into the cache.
#[inline(always)]
pub(crate) fn prefetch_addition<T>(sums: &[T], points: &[T], addition: Addition) {
    prefetch_point(&sums[addition.bucket as usize]);
    prefetch_point(&points[addition.point as usize]);
}

/// One pending `bucket += ±points[point]`.
#[derive(Clone, Copy)]
pub(crate) struct Addition {
    bucket: u32,
    point: u32,
    negate: bool,
}

impl Addition {
    /// `bucket += points[point]`.
    fn plain(bucket: usize, point: u32) -> Self {
        Self {
            bucket: bucket as u32,
            point,
            negate: false,
        }
    }
}

/// `±points[point]` of an addition.
fn signed_point<C: Curve>(points: &[C::Affine], addition: Addition) -> C::Affine {
    let point = &points[addition.point as usize];
    if addition.negate {
        let mut y = C::Field::default();
        // SAFETY: blst negates a valid field element.
        unsafe { C::neg(&mut y, C::y(point)) };
        C::point(*C::x(point), y)
    } else {
        *point
    }
}

/// The IFMA adder on the AVX-512 instructions: what production runs.
// Its source, `batch_affine/lanes.rs`, is `emulated`'s too.
#[cfg(target_arch = "x86_64")]
#[path = "batch_affine"]
mod hardware {
    /// The lane arithmetic and instructions this instance is compiled for.
    use crate::ifma::hardware as field;

    mod lanes;
    pub(crate) use lanes::*;
}

/// The same adder on the portable emulation of the instructions, so that
/// tests check it on any CPU.
#[cfg(all(test, target_arch = "x86_64"))]
// Entering lane code takes `unsafe` on the hardware (its functions have
// target features); here the very same calls are safe.
#[allow(unused_unsafe)]
#[path = "batch_affine"]
mod emulated {
    /// The lane arithmetic and instructions this instance is compiled for.
    use crate::ifma::emulated as field;

    // The hardware instance's file, on purpose: one source for both.
    #[allow(clippy::duplicate_mod)]
    mod lanes;
    pub(crate) use lanes::*;
}

/// The same adder on the FMA units' lane arithmetic ([`crate::fma`]), for
/// CPUs with AVX-512 but without IFMA.
#[cfg(target_arch = "x86_64")]
#[path = "batch_affine"]
mod fma_lanes {
    /// The lane arithmetic and instructions this instance is compiled for.
    use crate::fma::hardware as field;

    // The hardware instance's file, on purpose: one source for all three.
    #[allow(clippy::duplicate_mod)]
    mod lanes;
    pub(crate) use lanes::*;
}

/// The FMA lanes' adder on the portable model of their instructions, so
/// that tests check it on any CPU.
#[cfg(all(test, target_arch = "x86_64"))]
#[allow(unused_unsafe)]
#[path = "batch_affine"]
mod fma_emulated {
    /// The lane arithmetic and instructions this instance is compiled for.
    use crate::fma::emulated as field;

    #[allow(clippy::duplicate_mod)]
    mod lanes;
    pub(crate) use lanes::*;
}

/// The fewest points of a G1 MSM for a lane adder (IFMA's or the FMA
/// units'): below, batches are too small to share their inversions well
/// (sums: [`LANES_SUM_MIN`]).
const LANES_MIN: usize = 1 << 12;
/// The same in G2 (measured: docs/benchmarks.md).
const LANES_MIN_G2: usize = 1 << 12;
/// The fewest points for the blst adder: below, blst's own Pippenger is as
/// fast or faster (docs/benchmarks.md).
const BLST_MIN: usize = 1 << 14;
/// The same in G2.
const BLST_MIN_G2: usize = 1 << 12;
/// The fewest points [`sum`] and [`sum_g2`] take with a lane adder
/// (below, blst's own batch addition is faster: a sum's few points per
/// bucket are mostly copies, and the buckets are then summed one by one;
/// docs/benchmarks.md).
const LANES_SUM_MIN: usize = 1 << 14;

/// Returns from the enclosing function `Some(body)` run with the lane
/// adder of `$lanes` (`G1LaneAdder` or `G2LaneAdder`) this CPU has, if
/// any (IFMA's, else the FMA units'), where the MSM has at least `$min`
/// points. The FMA lanes measured faster than the scalar paths from the
/// same sizes as IFMA's (docs/benchmarks.md).
macro_rules! with_lane_adder {
    ($lanes:ident, $len:expr, $min:expr, |$adder:ident| $body:expr) => {
        #[cfg(target_arch = "x86_64")]
        if $len >= $min {
            if let Some($adder) = hardware::$lanes::new() {
                let result = $body;
                return Some(result);
            }
            if let Some($adder) = fma_lanes::$lanes::new() {
                let result = $body;
                return Some(result);
            }
        }
    };
}
/// The fewest points [`sum`] takes with the blst adder.
const BLST_SUM_MIN: usize = 1 << 16;
/// The same in G2.
const BLST_SUM_MIN_G2: usize = 1 << 14;

/// The environment variable that switches batch-affine buckets off when
/// set to `0`: every MSM then runs blst's Pippenger (to compare against,
/// or to fall back to).
pub const SWITCH: &str = "PCE_CPU_BATCH_AFFINE";

/// Whether batch-affine buckets are not switched off ([`SWITCH`]). Decided
/// once per process.
pub(crate) fn enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var_os(SWITCH).is_none_or(|value| value != "0"))
}

/// Does a batch of bucket additions: `sums[bucket] += ±points[point]` for
/// each addition, with one shared inversion.
pub(crate) trait Adder: Clone + Send + Sync {
    /// The group of the points it adds.
    type Curve: Curve;

    /// The widest window worth its buckets with this adder: wider windows
    /// are fewer, but their buckets leave the caches (measured at 2^22
    /// points, docs/benchmarks.md; not measured at 2^27, where the cost
    /// model would go wider).
    const WIDEST_WINDOW: usize;

    /// The additions of `batch`: distinct buckets, each holding a point
    /// whose x differs from its added point's (so no x difference is zero),
    /// neither at infinity.
    fn add_batch(&mut self, sums: &mut [Affine<Self>], points: &[Affine<Self>], batch: &[Addition]);
}

/// Affine sums (buckets) and the batch of additions pending on them: one
/// task's buckets for one window, or the running sums that reduce them.
/// The added points are given with each call, by index into `points`.
struct Buckets<A: Adder> {
    /// Does the batches.
    adder: A,
    sums: Vec<Affine<A>>,
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
    overflow: Vec<Jacobian<A>>,
    batch_size: usize,
}

impl<A: Adder> Buckets<A> {
    fn new(adder: A, count: usize, batch_size: usize) -> Self {
        Self {
            adder,
            sums: vec![Affine::<A>::default(); count],
            filled: vec![false; count],
            busy: vec![false; count],
            batch: Vec::with_capacity(batch_size),
            deferred: Vec::with_capacity(batch_size),
            spare: Vec::with_capacity(batch_size),
            overflow: Vec::new(),
            batch_size,
        }
    }

    /// Adds `±points[point]` (not at infinity) to bucket `bucket`.
    fn add(&mut self, points: &[Affine<A>], addition: Addition) {
        self.place(points, addition);
        if self.batch.len() >= self.batch_size {
            self.flush(points);
            self.replace_deferred(points);
        }
    }

    /// Places the deferred additions again, after a flush has freed their
    /// buckets. Re-placed from a second list, so that neither loses its
    /// capacity.
    fn replace_deferred(&mut self, points: &[Affine<A>]) {
        let deferred = std::mem::replace(&mut self.deferred, std::mem::take(&mut self.spare));
        for &addition in &deferred {
            self.place(points, addition);
        }
        self.spare = deferred;
        self.spare.clear();
    }

    /// Puts an addition into the batch, or does it at once when it needs no
    /// inversion, or defers it when its bucket is busy.
    fn place(&mut self, points: &[Affine<A>], addition: Addition) {
        let index = addition.bucket as usize;
        if self.busy[index] {
            if self.deferred.len() < self.batch_size {
                self.deferred.push(addition);
            } else {
                self.add_to_overflow(index, &signed_point::<A::Curve>(points, addition));
            }
        } else if !self.filled[index] {
            self.sums[index] = signed_point::<A::Curve>(points, addition);
            self.filled[index] = true;
        } else if same::<A::Curve>(
            A::Curve::x(&self.sums[index]),
            A::Curve::x(&points[addition.point as usize]),
        ) {
            let point = signed_point::<A::Curve>(points, addition);
            if same::<A::Curve>(A::Curve::y(&self.sums[index]), A::Curve::y(&point)) {
                self.sums[index] = A::Curve::doubled(&self.sums[index]);
            } else {
                self.filled[index] = false;
            }
        } else {
            self.busy[index] = true;
            self.batch.push(addition);
        }
    }

    fn add_to_overflow(&mut self, index: usize, point: &Affine<A>) {
        if self.overflow.is_empty() {
            self.overflow = vec![Jacobian::<A>::default(); self.sums.len()];
        }
        A::Curve::add_affine_to(&mut self.overflow[index], point);
    }

    /// Does the pending additions, with one inversion.
    fn flush(&mut self, points: &[Affine<A>]) {
        if self.batch.is_empty() {
            return;
        }
        self.adder.add_batch(&mut self.sums, points, &self.batch);
        for addition in &self.batch {
            self.busy[addition.bucket as usize] = false;
        }
        self.batch.clear();
    }

    /// Completes the pending batch and the deferred additions: in further
    /// batches while each one at least halves them (a few collisions, the
    /// usual case), then, what is left (many additions to few buckets),
    /// in the Jacobian sums. The Jacobian sums cost a running sum over
    /// every bucket in [`Self::reduce`], so they are kept for the rare case.
    fn finish(&mut self, points: &[Affine<A>]) {
        self.flush(points);
        while !self.deferred.is_empty() {
            let before = self.deferred.len();
            self.replace_deferred(points);
            self.flush(points);
            if self.deferred.len() * 2 > before {
                break;
            }
        }
        for addition in std::mem::take(&mut self.deferred) {
            self.add_to_overflow(
                addition.bucket as usize,
                &signed_point::<A::Curve>(points, addition),
            );
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
    fn reduce(&self) -> Jacobian<A> {
        let count = self.sums.len();
        let segments = count.min(REDUCTION_SEGMENTS);
        let len = count / segments;
        debug_assert!(
            len.is_power_of_two(),
            "powers of two of buckets and segments"
        );
        let mut totals = Buckets::new(self.adder.clone(), segments, segments);
        let mut weighted = Buckets::new(self.adder.clone(), segments, segments);
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
        let mut sum = Jacobian::<A>::default();
        let mut running = Jacobian::<A>::default();
        let mut by_segment = Jacobian::<A>::default();
        for m in (0..segments).rev() {
            if weighted.filled[m] {
                A::Curve::add_affine_to(&mut sum, &weighted.sums[m]);
            }
            if m > 0 {
                if totals.filled[m] {
                    A::Curve::add_affine_to(&mut running, &totals.sums[m]);
                }
                A::Curve::add_to(&mut by_segment, &running);
            }
        }
        for _ in 0..len.trailing_zeros() {
            A::Curve::double(&mut by_segment);
        }
        A::Curve::add_to(&mut sum, &by_segment);
        if !self.overflow.is_empty() {
            let mut running = Jacobian::<A>::default();
            for overflow in self.overflow.iter().rev() {
                A::Curve::add_to(&mut running, overflow);
                A::Curve::add_to(&mut sum, &running);
            }
        }
        sum
    }

    /// `Σ_j bucket_j`.
    fn total(&self) -> Jacobian<A> {
        let mut sum = Jacobian::<A>::default();
        for (point, _) in self.sums.iter().zip(&self.filled).filter(|(_, &f)| f) {
            A::Curve::add_affine_to(&mut sum, point);
        }
        for overflow in &self.overflow {
            A::Curve::add_to(&mut sum, overflow);
        }
        sum
    }
}
/// Whether batch-affine buckets can index `points` points (by `u32`):
/// larger sums go to blst (192 GiB of G1 points and more).
fn indexable(points: usize) -> bool {
    points <= u32::MAX as usize
}

/// The checks every MSM entry makes; whether batch-affine buckets take it:
/// switched on ([`SWITCH`]) and [`indexable`].
fn admitted(points: usize, scalars: &[pce_scalar]) -> bool {
    assert_eq!(points, scalars.len(), "one scalar per point");
    // Canonical scalars, as the ABI has them: `halved` relies on it.
    debug_assert!(
        scalars
            .iter()
            .all(|s| s.l.iter().rev().cmp(MODULUS.iter().rev()).is_lt()),
        "scalars below r"
    );
    enabled() && indexable(points)
}

/// `Σ scalars[i] · points[i]` in G1 (scalars canonical, below the group
/// order), or `None` where blst's own Pippenger is as fast (fewer points
/// than the adder this CPU gets needs: [`LANES_MIN`], [`BLST_MIN`]) or
/// batch-affine buckets are switched off ([`SWITCH`]).
pub fn msm(points: &[blst_p1_affine], scalars: &[pce_scalar]) -> Option<blst_p1> {
    if !admitted(points.len(), scalars) {
        return None;
    }
    with_lane_adder!(G1LaneAdder, points.len(), LANES_MIN, |adder| {
        with_best_window(&adder, points, scalars)
    });
    (points.len() >= BLST_MIN)
        .then(|| with_best_window(&scalar::BlstAdder::<G1>::default(), points, scalars))
}

/// [`msm`] in G2, from [`LANES_MIN_G2`] points on with a lane adder,
/// from [`BLST_MIN_G2`] on with the blst one.
pub fn msm_g2(points: &[blst_p2_affine], scalars: &[pce_scalar]) -> Option<blst_p2> {
    if !admitted(points.len(), scalars) {
        return None;
    }
    with_lane_adder!(G2LaneAdder, points.len(), LANES_MIN_G2, |adder| {
        with_best_window(&adder, points, scalars)
    });
    (points.len() >= BLST_MIN_G2)
        .then(|| with_best_window(&scalar::BlstAdder::<G2>::default(), points, scalars))
}

/// [`with_window`] at the adder's best window for the number of points.
fn with_best_window<A: Adder>(
    adder: &A,
    points: &[Affine<A>],
    scalars: &[pce_scalar],
) -> Jacobian<A> {
    let c = window_bits::<A>(points.len(), SCALAR_BITS);
    with_window(adder, points, scalars, c, SCALAR_BITS)
}

/// `Σ points[i]` in G1, or `None` where blst's own batch addition is as
/// fast (fewer points than [`LANES_SUM_MIN`] with a lane adder,
/// [`BLST_SUM_MIN`] with the blst one) or batch-affine buckets are switched
/// off: the bases of the scalars 1 of a PoRep witness (a third of each
/// query).
pub fn sum(points: &[blst_p1_affine]) -> Option<blst_p1> {
    if !enabled() || !indexable(points.len()) {
        return None;
    }
    with_lane_adder!(G1LaneAdder, points.len(), LANES_SUM_MIN, |adder| sum_with(
        &adder, points
    ));
    (points.len() >= BLST_SUM_MIN).then(|| sum_with(&scalar::BlstAdder::<G1>::default(), points))
}

/// [`sum`] in G2, from [`LANES_SUM_MIN`] points on with a lane
/// adder, from [`BLST_SUM_MIN_G2`] on with the blst one.
pub fn sum_g2(points: &[blst_p2_affine]) -> Option<blst_p2> {
    if !enabled() || !indexable(points.len()) {
        return None;
    }
    with_lane_adder!(G2LaneAdder, points.len(), LANES_SUM_MIN, |adder| sum_with(
        &adder, points
    ));
    (points.len() >= BLST_SUM_MIN_G2).then(|| sum_with(&scalar::BlstAdder::<G2>::default(), points))
}

/// [`sum`] with `adder`: each thread adds its slice of the points into
/// [`SUM_BUCKETS`] buckets in turn (point `i` into bucket `i mod
/// SUM_BUCKETS`), so a batch rarely finds a bucket busy (only where points
/// at infinity were skipped).
fn sum_with<A: Adder>(adder: &A, points: &[Affine<A>]) -> Jacobian<A> {
    let slice = points.len().div_ceil(rayon::current_num_threads()).max(1);
    points
        .par_chunks(slice)
        .map(|part| {
            let mut buckets = Buckets::new(adder.clone(), SUM_BUCKETS, SUM_BUCKETS);
            for (i, point) in part.iter().enumerate() {
                if !is_infinity::<A::Curve>(point) {
                    buckets.add(part, Addition::plain(i % SUM_BUCKETS, i as u32));
                }
            }
            buckets.finish(part);
            buckets.total()
        })
        .reduce(Jacobian::<A>::default, |mut a, b| {
            A::Curve::add_to(&mut a, &b);
            a
        })
}

/// Into how many slices of the points to cut each of `windows` windows,
/// so that the `windows · slices` tasks (one bucket array each) keep
/// `threads` busy: the fewest rounds of tasks, each task costing its points
/// plus the running sums over its buckets (two additions a bucket). At
/// most one slice per 2^12 points, 64 at most.
fn slices(points: usize, windows: usize, buckets: usize, threads: usize) -> usize {
    let most = points.div_ceil(1 << 12).clamp(1, 64);
    (1..=most)
        .min_by_key(|&slices| {
            let rounds = (windows * slices).div_ceil(threads);
            rounds * (points.div_ceil(slices) + 2 * buckets)
        })
        .expect("at least one slice")
}

/// One task of [`with_window`]: window `window`'s additions of the points
/// `start..end`, into a bucket array of its own.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Piece {
    window: usize,
    start: usize,
    end: usize,
}

/// The tasks of an MSM, largest first: whole windows for as many full
/// rounds of `threads` as there are, then the windows left over cut by
/// [`slices`]. Taken in this order by whichever thread is free, the slices
/// even out the end. With 15 windows on two threads that is 14 whole
/// windows and two halves: each slice costs a running sum over its
/// buckets, so halving all 15 (30 sums) would cost 14 sums more for the
/// same balance.
fn pieces(points: usize, windows: usize, buckets: usize, threads: usize) -> Vec<Piece> {
    let whole = windows - windows % threads;
    let cut = if whole == windows {
        1
    } else {
        slices(points, windows - whole, buckets, threads)
    };
    (0..windows)
        .flat_map(|window| {
            let cut = if window < whole { 1 } else { cut };
            let slice_len = points.div_ceil(cut);
            (0..cut)
                .map(move |k| Piece {
                    window,
                    start: k * slice_len,
                    end: ((k + 1) * slice_len).min(points),
                })
                .filter(|piece| piece.start < piece.end)
        })
        .collect()
}

/// `run` on every piece, each piece taken in order by the next free one of
/// `threads` workers; the results as `(window, sum)`.
fn run_in_order<T, F>(pieces: &[Piece], threads: usize, run: F) -> Vec<(usize, T)>
where
    T: Send,
    F: Fn(&Piece) -> T + Sync,
{
    let next = AtomicUsize::new(0);
    (0..threads.min(pieces.len()))
        .into_par_iter()
        .flat_map_iter(|_| {
            let mut done = Vec::new();
            while let Some(piece) = pieces.get(next.fetch_add(1, Ordering::Relaxed)) {
                done.push((piece.window, run(piece)));
            }
            done
        })
        .collect()
}

/// [`msm`] with `adder` and windows of `c` bits, for scalars below
/// `2^scalar_bits`.
fn with_window<A: Adder>(
    adder: &A,
    points: &[Affine<A>],
    scalars: &[pce_scalar],
    c: usize,
    scalar_bits: usize,
) -> Jacobian<A> {
    if points.is_empty() {
        return Jacobian::<A>::default();
    }
    // Scalars are halved (below 2^254) only where that saves a window: it
    // costs a subtraction per scalar and window.
    let halve = windows(c, scalar_bits.min(HALVED_BITS)) < windows(c, scalar_bits);
    let window_count = windows(c, if halve { HALVED_BITS } else { scalar_bits });
    let bucket_count = 1usize << (c - 1);
    let batch_size = MAX_BATCH.min(bucket_count / 4).max(8);
    let threads = rayon::current_num_threads();
    let pieces = pieces(points.len(), window_count, bucket_count, threads);

    let piece_sums = run_in_order(&pieces, threads, |piece| {
        let (w, start, end) = (piece.window, piece.start, piece.end);
        let mut buckets = Buckets::new(adder.clone(), bucket_count, batch_size);
        // Digits are found a block ahead, and their buckets fetched into
        // the cache while the block before is added.
        let mut ahead = Vec::with_capacity(PREFETCH_BLOCK);
        let mut current = Vec::with_capacity(PREFETCH_BLOCK);
        for block in (start..end).step_by(PREFETCH_BLOCK).chain([end]) {
            ahead.clear();
            for i in block..(block + PREFETCH_BLOCK).min(end) {
                let (scalar, negated) = if halve {
                    halved(&scalars[i])
                } else {
                    (scalars[i], false)
                };
                let digit = booth_digit(&scalar, w, c);
                if digit != 0 && !is_infinity::<A::Curve>(&points[i]) {
                    let bucket = digit.unsigned_abs() - 1;
                    prefetch_point(&buckets.sums[bucket as usize]);
                    ahead.push(Addition {
                        bucket,
                        point: i as u32,
                        negate: (digit < 0) != negated,
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
    });

    let mut window_sums = vec![Jacobian::<A>::default(); window_count];
    for (w, sum) in &piece_sums {
        A::Curve::add_to(&mut window_sums[*w], sum);
    }
    let mut result = Jacobian::<A>::default();
    for sum in window_sums.iter().rev() {
        for _ in 0..c {
            A::Curve::double(&mut result);
        }
        A::Curve::add_to(&mut result, sum);
    }
    result
}

#[cfg(test)]
mod tests;

#[cfg(all(test, target_arch = "x86_64"))]
mod tune;
