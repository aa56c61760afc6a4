//! Batch-affine additions eight at a time on AVX-512 IFMA: the adder of
//! [`super`]'s MSM where the CPU has the instructions.
//!
//! Written once for both instances (`batch_affine::hardware` and, in
//! tests, `batch_affine::emulated`): it takes its lane arithmetic and
//! instructions from `super::ifma`. Buckets stay in blst's affine layout:
//! each addition's bucket and point are gathered into lanes and the sums
//! scattered back.

use blst::{blst_fp, blst_fp_inverse, blst_fp_mul, blst_p1_affine};

use super::ifma::{self, isa::*, Lanes};
use crate::batch_affine::{Adder, Addition, FP_WORDS, POINT_WORDS};
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

/// The IFMA adder: scratch for the first pass over a batch.
#[derive(Clone)]
pub struct LaneAdder {
    forward: Vec<Forward>,
}

impl LaneAdder {
    /// An adder, where this instance can run (the hardware one needs a CPU
    /// with AVX-512 IFMA, not switched off).
    pub fn new() -> Option<Self> {
        available().then(|| Self {
            forward: Vec::new(),
        })
    }
}

impl Adder for LaneAdder {
    type Curve = crate::batch_affine::curve::G1;
    /// 16 bits: 17 measured slower at 2^22 points even with a window
    /// fewer (its additions are cheap enough that the cache misses of the
    /// doubled bucket array weigh more).
    const WIDEST_WINDOW: usize = 16;

    fn add_batch(
        &mut self,
        sums: &mut [blst_p1_affine],
        points: &[blst_p1_affine],
        batch: &[Addition],
    ) {
        // SAFETY: a `LaneAdder` exists only where its instance runs (`new`).
        unsafe { self.flush(sums, points, batch) }
    }
}

impl LaneAdder {
    lane_fns!(
        /// The slots of lanes `8v..8v+8` of the batch.
        fn slots(batch: &[Addition], v: usize) -> Slots {
            let mut buckets = [0i64; 8];
            let mut points = [0i64; 8];
            let (mut negate, mut real) = (0u8, 0u8);
            for lane in 0..8 {
                let k = 8 * v + lane;
                let addition = match batch.get(k) {
                    Some(addition) => {
                        real |= 1 << lane;
                        addition
                    }
                    None => &batch[0],
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

        /// The additions of `batch`, with one inversion: `λ = (y₂ − y₁)/(x₂ − x₁)`,
        /// `x₃ = λ² − x₁ − x₂`, `y₃ = λ·(x₁ − x₃) − y₁`. Products that only feed
        /// other products (the prefix products, the inverses, λ) skip their final
        /// subtraction: below 2p, they stay below 2p (`R = 2^384 > 4p`); what is
        /// subtracted or stored is canonical.
        fn flush(
            &mut self,
            sums: &mut [blst_p1_affine],
            points: &[blst_p1_affine],
            batch: &[Addition],
        ) {
            if batch.is_empty() {
                return;
            }
            let vectors = batch.len().div_ceil(8);
            let sums = sums.as_mut_ptr().cast::<u64>();
            let points = points.as_ptr().cast::<u64>();
            let y_offset = _mm512_set1_epi64(FP_WORDS);
            let zero = FpLanes::from_words(&[[0u64; 6]; 8]);
            self.forward.clear();
            for v in 0..vectors {
                let slots = Self::slots(batch, v);
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
        }
    );
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
