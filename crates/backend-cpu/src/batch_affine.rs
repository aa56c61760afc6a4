//! G1 Pippenger with batch-affine buckets, eight additions at a time.
//!
//! The dense H query of a C2 proof is an MSM of 2^22 random scalars (2 KiB
//! sectors) to 2^27 (32 GiB): the largest single cost of a proof on a CPU.
//! blst's Pippenger keeps its buckets in XYZZ coordinates, 8
//! multiplications and 2 squarings per point added, one at a time. Here
//! the buckets are affine points, and a batch of additions to distinct
//! buckets shares one field inversion (Montgomery's trick): an addition
//! then costs 5 multiplications and 1 squaring. The batch's additions are
//! independent, so they run eight at a time on AVX-512 IFMA ([`crate::ifma`]),
//! which multiplies at about three times blst's rate. Buckets stay in
//! blst's affine layout (gathered into lanes and scattered back), so the
//! bucket sums are finished with blst.
//!
//! Scalars are cut into signed (Booth) digits of `c` bits, so a window
//! needs `2^(c−1)` buckets, and a negative digit adds `−P` (a negation in
//! affine coordinates). Work is split into (window, slice of points)
//! tasks, one bucket array each; a task's buckets are summed with running
//! sums, batch-affine as well (segments of buckets side by side), and
//! windows are combined by doubling.
//!
//! Known weak spot: a top window with few distinct digits (windows of 11
//! to 15 bits) fills the deferred list, and its additions go to the
//! Jacobian overflow, several times dearer. The dense H query (2^22 points
//! and up, 16-bit windows) is not affected.
//!
//! An addition whose bucket already has one pending in the batch waits for
//! the next batch. An addition that needs no inversion is done on the spot:
//! into an empty bucket (a copy), or with equal x-coordinates (the bucket
//! is ±P: a doubling or an empty bucket), so a batch never divides by zero.
//!
//! The lane code (`batch_affine/buckets.rs`) is compiled twice, like the
//! lane arithmetic it uses ([`crate::ifma`]): [`hardware`] is what
//! production runs; `emulated`, for tests, runs it on the portable
//! emulation of the instructions, on any CPU.

use backend_api::ffi::pce_scalar;
use blst::{
    blst_fp, blst_fp_cneg, blst_p1, blst_p1_affine, blst_p1_double, blst_p1_from_affine,
    blst_p1_to_affine,
};

/// Widest window considered: the widest measured best (2^20 and 2^22
/// points). Wider windows looked cheaper to the cost model at 2^27 (the
/// H query of a 32 GiB sector), but their bucket arrays (48 MiB at 20 bits,
/// per task) were never measured.
const MAX_WINDOW_BITS: usize = 16;
/// Additions that share one inversion, at most.
const MAX_BATCH: usize = 2048;
/// Buckets of [`sum`] (and additions per batch).
const SUM_BUCKETS: usize = 2048;
/// Points whose buckets are prefetched together.
const PREFETCH_BLOCK: usize = 32;
/// Words of a `blst_p1_affine`: x, then y.
const POINT_WORDS: i64 = 12;
/// Words of one coordinate.
const FP_WORDS: i64 = 6;
/// The cost of a bucket, in additions of the main pass: two additions in
/// the reduction, and the cache misses of a wider bucket array. Fitted to
/// the best measured windows here: 11 bits at 2^16 points, 13 at 2^18,
/// 16 at 2^20 and 2^22.
const BUCKET_COST: usize = 8;
/// Segments of buckets whose running sums run side by side in the reduction
/// (additions per batch there).
const REDUCTION_SEGMENTS: usize = 512;

/// The window width for `terms` points: the least work overall.
pub fn window_bits(terms: usize) -> usize {
    (2..=MAX_WINDOW_BITS)
        .min_by_key(|&c| windows(c) * (terms + BUCKET_COST * (1usize << (c - 1))))
        .expect("the range is not empty")
}

/// Signed windows of `c` bits that cover a 255-bit scalar: the top window's
/// highest bit must be a zero bit of the scalar (bit 255 or above), so that
/// its digit never borrows from a window beyond.
fn windows(c: usize) -> usize {
    256usize.div_ceil(c)
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

fn is_infinity(point: &blst_p1_affine) -> bool {
    point.x.l == [0; 6] && point.y.l == [0; 6]
}

/// Whether two canonical field elements are equal (word by word, inline).
fn same(a: &blst_fp, b: &blst_fp) -> bool {
    a.l.iter().zip(&b.l).fold(0, |diff, (x, y)| diff | (x ^ y)) == 0
}

fn negated(y: &blst_fp) -> blst_fp {
    let mut out = blst_fp::default();
    // SAFETY: blst negates a valid field element.
    unsafe { blst_fp_cneg(&mut out, y, true) };
    out
}

/// One pending `bucket += ±points[point]`.
#[derive(Clone, Copy)]
struct Addition {
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
fn signed_point(points: &[blst_p1_affine], addition: Addition) -> blst_p1_affine {
    let point = points[addition.point as usize];
    if addition.negate {
        blst_p1_affine {
            x: point.x,
            y: negated(&point.y),
        }
    } else {
        point
    }
}

/// `2·point` in affine coordinates (rare: equal points in one bucket).
fn doubled(point: &blst_p1_affine) -> blst_p1_affine {
    let mut jacobian = blst_p1::default();
    let mut out = blst_p1_affine::default();
    // SAFETY: blst converts and doubles a valid point.
    unsafe {
        blst_p1_from_affine(&mut jacobian, point);
        blst_p1_double(&mut jacobian, &jacobian);
        blst_p1_to_affine(&mut out, &jacobian);
    }
    out
}

/// The MSM on the AVX-512 IFMA instructions: what production runs.
// Its source, `batch_affine/buckets.rs`, is `emulated`'s too.
#[path = "batch_affine"]
mod hardware {
    /// The lane arithmetic and instructions this instance is compiled for.
    use crate::ifma::hardware as ifma;

    mod buckets;
    pub use buckets::*;
}

/// The same MSM on the portable emulation of the instructions, so that
/// tests check it on any CPU.
#[cfg(test)]
// Entering lane code takes `unsafe` on the hardware (its functions have
// target features); here the very same calls are safe.
#[allow(unused_unsafe)]
#[path = "batch_affine"]
mod emulated {
    /// The lane arithmetic and instructions this instance is compiled for.
    use crate::ifma::emulated as ifma;

    // The hardware instance's file, on purpose: one source for both.
    #[allow(clippy::duplicate_mod)]
    mod buckets;
}

pub use hardware::{msm, sum};

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(l: [u64; 4]) -> pce_scalar {
        pce_scalar { l }
    }

    /// The digits recompose the scalar for every window width.
    #[test]
    fn booth_digits_recompose() {
        let values = [
            [0, 0, 0, 0],
            [1, 0, 0, 0],
            [u64::MAX, u64::MAX, u64::MAX, u64::MAX >> 1],
            [
                0x0123_4567_89ab_cdef,
                0xfedc_ba98_7654_3210,
                0x8000_0000_0000_0001,
                0x7fff_0000_ffff_0000,
            ],
        ];
        for l in values {
            let s = scalar(l);
            for c in 2..=MAX_WINDOW_BITS {
                // Rebuild the bits digit by digit, carrying between windows.
                let mut rebuilt = [0u64; 5];
                let mut carry: i64 = 0;
                for w in 0..windows(c) {
                    let d = booth_digit(&s, w, c);
                    assert!(d.unsigned_abs() <= 1 << (c - 1), "c={c} w={w} d={d}");
                    let v = d as i64 + carry;
                    carry = v.div_euclid(1 << c);
                    let v = v.rem_euclid(1 << c);
                    for bit in 0..c {
                        let pos = w * c + bit;
                        if (v >> bit) & 1 == 1 {
                            rebuilt[pos / 64] |= 1 << (pos % 64);
                        }
                    }
                }
                assert_eq!(carry, 0, "c={c}");
                assert_eq!(rebuilt, [l[0], l[1], l[2], l[3], 0], "c={c}");
            }
        }
    }
}

/// Window widths timed against blst, for tuning (not a test that can fail):
/// `PCE_MSM_TUNE=22 PCE_MSM_WINDOWS=15,16 cargo test --release -p backend-cpu
/// --lib tune -- --ignored --nocapture` (`PCE_MSM_SKIP_BLST=1` times ours only).
#[cfg(test)]
mod tune {
    use super::*;
    use backend_api::interop::{g1_affines_as_pce, g1_as_blst, scalar_bytes, scalar_of};
    use blst::MultiPoint;
    use blstrs::{G1Affine, G1Projective, Scalar};
    use ff::Field;
    use group::prime::PrimeCurveAffine;
    use group::Curve as _;
    use group::Group as _;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    #[ignore]
    fn tune() {
        if !crate::ifma::available() {
            return;
        }
        let log: u32 = std::env::var("PCE_MSM_TUNE").map_or(18, |v| v.parse().unwrap());
        let n = 1usize << log;
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let step = G1Projective::random(&mut rng);
        let mut next = G1Projective::random(&mut rng);
        let projective: Vec<G1Projective> = (0..n)
            .map(|_| {
                next += step;
                next
            })
            .collect();
        let mut affine = vec![G1Affine::identity(); n];
        G1Projective::batch_normalize(&projective, &mut affine);
        drop(projective);
        let scalars: Vec<_> = (0..n)
            .map(|_| scalar_of(&Scalar::random(&mut rng)))
            .collect();
        let points = g1_as_blst(g1_affines_as_pce(&affine));
        // CPU seconds of this process: less disturbed by other load than wall time.
        let cpu_seconds = || {
            let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
            let fields: Vec<&str> = stat
                .rsplit(')')
                .next()
                .unwrap()
                .split_whitespace()
                .collect();
            (fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap()) / 100.0
        };
        for round in 0..2 {
            let start = cpu_seconds();
            if std::env::var("PCE_MSM_SKIP_BLST").is_err() {
                let _ = points.mult(scalar_bytes(&scalars), 255);
            }
            let blst = cpu_seconds() - start;
            let widths: Vec<usize> = std::env::var("PCE_MSM_WINDOWS").map_or(
                vec![window_bits(n) - 1, window_bits(n), window_bits(n) + 1],
                |v| v.split(',').map(|c| c.parse().unwrap()).collect(),
            );
            for &c in &widths {
                let start = cpu_seconds();
                // SAFETY: the CPU has the features (checked above).
                let _ = unsafe { hardware::with_window(points, &scalars, c) };
                let ours = cpu_seconds() - start;
                println!(
                    "round {round} 2^{log} c={c}: ours {ours:.2} s blst {blst:.2} s ratio {:.2}",
                    blst / ours
                );
            }
        }
    }
}
