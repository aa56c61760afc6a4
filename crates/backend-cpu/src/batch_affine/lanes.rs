//! Batch-affine additions eight at a time on AVX-512 lanes: the adder of
//! [`super`]'s MSM, in G1 and G2, where the CPU has the instructions.
//!
//! Written once for every instance: it takes its lane arithmetic and
//! instructions from `super::field`, which is IFMA's (`ifma::hardware` in
//! `batch_affine::hardware`, `ifma::emulated` in the tests'
//! `batch_affine::emulated`) or the FMA units' (`fma` in
//! `batch_affine::fma_lanes`). Buckets stay in blst's affine layout:
//! each addition's bucket and point are gathered into lanes and the sums
//! scattered back.
//!
//! The addition is the same in both groups; only the coordinates' field
//! differs ([`LaneField`]). G1's is Fp, one [`FpLanes`] per coordinate.
//! G2's is Fp2 = Fp[u]/(u² + 1), two of them ([`Fp2Lanes`]): a product
//! `(a₀ + a₁u)(b₀ + b₁u) = (a₀b₀ − a₁b₁) + ((a₀ + a₁)(b₀ + b₁) − a₀b₀ − a₁b₁)u`
//! takes three Fp products (Karatsuba), a square `(a₀ + a₁)(a₀ − a₁) + 2a₀a₁u`
//! two. So a G2 addition is about three G1 ones, on the same lanes.

use blst::{blst_fp, blst_fp2};

use super::field::{self, isa::*, Lanes, FP};
use crate::batch_affine::curve::{Curve, G1, G2};
use crate::batch_affine::{Adder, Addition, Affine};

/// Eight elements of the base field Fp.
pub(crate) type FpLanes = Lanes<8>;

/// Words of one Fp element in blst's layout.
const FP_WORDS: i64 = 6;

/// Eight elements of Fp2: their `c₀` and `c₁` parts.
#[derive(Clone, Copy)]
pub(crate) struct Fp2Lanes {
    c0: FpLanes,
    c1: FpLanes,
}

/// The field of a group's coordinates, eight elements at a time: what the
/// adder asks of it. Its operations need the instructions of the instance
/// (hence `unsafe`: callable where [`available`]). `mul`, `square` and
/// `reduce` return canonical values, and `add` and `sub` do for canonical
/// operands; `mul_lazy` returns one that may only be multiplied further
/// or reduced. `mul`, `square`, `mul_lazy` and `reduce` accept what
/// `mul_lazy` returns (below 2p in Fp; canonical in Fp2, whose `square`
/// subtracts its factor's parts).
pub(crate) trait LaneField: Copy {
    /// The group whose coordinates these are.
    type Curve: Curve;
    /// Words of one coordinate in blst's layout.
    const WORDS: i64;
    /// The widest window worth its buckets with this adder (see
    /// `Adder::WIDEST_WINDOW`).
    const WIDEST_WINDOW: usize;

    /// Eight coordinates, lane `l`'s starting at word `starts[l]` of `base`.
    ///
    /// # Safety
    /// Every `base + starts[l] .. + WORDS` must be readable `u64`s.
    unsafe fn gather(base: *const u64, starts: __m512i) -> Self;
    /// Writes the lanes in `lanes`, lane `l` from word `starts[l]` of `base` on.
    ///
    /// # Safety
    /// Every `base + starts[l] .. + WORDS` of a written lane must be
    /// writable `u64`s, and no two written lanes may overlap.
    unsafe fn scatter(self, base: *mut u64, starts: __m512i, lanes: __mmask8);
    /// `self + other`.
    unsafe fn add(&self, other: &Self) -> Self;
    /// `self − other`.
    unsafe fn sub(&self, other: &Self) -> Self;
    /// `self · other`.
    unsafe fn mul(&self, other: &Self) -> Self;
    /// `self²`.
    unsafe fn square(&self) -> Self;
    /// `self · other` for [`LaneField::reduce`] or further products only:
    /// at most below 2p where the factors are (`R = 2^384 > 4p`).
    unsafe fn mul_lazy(&self, other: &Self) -> Self;
    /// The canonical value of an element below 2p.
    unsafe fn reduce(&self) -> Self;
    /// `−self` in the lanes of `mask`, `self` in the others.
    unsafe fn negated_where(&self, mask: __mmask8) -> Self;
    /// The eight elements in blst's layout.
    unsafe fn to_elements(self) -> [<Self::Curve as Curve>::Field; 8];
    /// Eight elements from blst's layout.
    unsafe fn from_elements(elements: &[<Self::Curve as Curve>::Field; 8]) -> Self;
}

impl LaneField for FpLanes {
    type Curve = G1;
    const WORDS: i64 = FP_WORDS;
    /// 16 bits: 17 measured slower at 2^22 points even with a window
    /// fewer (its additions are cheap enough that the cache misses of the
    /// doubled bucket array weigh more).
    const WIDEST_WINDOW: usize = 16;

    lane_fns!(
        #[inline]
        unsafe fn gather(base: *const u64, starts: __m512i) -> Self {
            // SAFETY: readable by the caller's promise.
            unsafe { FpLanes::gather::<6>(base, starts) }
        }
        #[inline]
        unsafe fn scatter(self, base: *mut u64, starts: __m512i, lanes: __mmask8) {
            // SAFETY: writable by the caller's promise.
            unsafe { FpLanes::scatter::<6>(self, base, starts, lanes) }
        }
        #[inline]
        unsafe fn add(&self, other: &Self) -> Self {
            field::add(self, other, &FP)
        }
        #[inline]
        unsafe fn sub(&self, other: &Self) -> Self {
            field::sub(self, other, &FP)
        }
        #[inline]
        unsafe fn mul(&self, other: &Self) -> Self {
            field::mul(self, other, &FP)
        }
        #[inline]
        unsafe fn square(&self) -> Self {
            field::mul(self, self, &FP)
        }
        #[inline]
        unsafe fn mul_lazy(&self, other: &Self) -> Self {
            field::mul_unreduced(self, other, &FP)
        }
        #[inline]
        unsafe fn reduce(&self) -> Self {
            field::reduce(self, &FP)
        }
        #[inline]
        unsafe fn negated_where(&self, mask: __mmask8) -> Self {
            let zero = FpLanes::splat(&[0; 8]);
            let negated = field::sub(&zero, self, &FP);
            Lanes(std::array::from_fn(|i| {
                _mm512_mask_blend_epi64(mask, self.0[i], negated.0[i])
            }))
        }
        unsafe fn to_elements(self) -> [blst_fp; 8] {
            self.to_words::<6>().map(|l| blst_fp { l })
        }
        unsafe fn from_elements(elements: &[blst_fp; 8]) -> Self {
            FpLanes::from_words(&elements.map(|e| e.l))
        }
    );
}

impl LaneField for Fp2Lanes {
    type Curve = G2;
    const WORDS: i64 = 2 * FP_WORDS;
    /// G2's with blst's operations, 16 bits: capped at 14 it measured
    /// slower from 2^17 points on (docs/benchmarks.md).
    const WIDEST_WINDOW: usize = G2::WIDEST_WINDOW;

    lane_fns!(
        #[inline]
        unsafe fn gather(base: *const u64, starts: __m512i) -> Self {
            let c1 = _mm512_add_epi64(starts, _mm512_set1_epi64(FP_WORDS));
            // SAFETY: readable by the caller's promise (c₁ follows c₀).
            unsafe {
                Self {
                    c0: FpLanes::gather::<6>(base, starts),
                    c1: FpLanes::gather::<6>(base, c1),
                }
            }
        }
        #[inline]
        unsafe fn scatter(self, base: *mut u64, starts: __m512i, lanes: __mmask8) {
            let c1 = _mm512_add_epi64(starts, _mm512_set1_epi64(FP_WORDS));
            // SAFETY: writable by the caller's promise (c₁ follows c₀).
            unsafe {
                self.c0.scatter::<6>(base, starts, lanes);
                self.c1.scatter::<6>(base, c1, lanes);
            }
        }
        #[inline]
        unsafe fn add(&self, other: &Self) -> Self {
            Self {
                c0: field::add(&self.c0, &other.c0, &FP),
                c1: field::add(&self.c1, &other.c1, &FP),
            }
        }
        #[inline]
        unsafe fn sub(&self, other: &Self) -> Self {
            Self {
                c0: field::sub(&self.c0, &other.c0, &FP),
                c1: field::sub(&self.c1, &other.c1, &FP),
            }
        }
        #[inline]
        unsafe fn mul(&self, other: &Self) -> Self {
            let (a, b) = (self, other);
            let c0c0 = field::mul(&a.c0, &b.c0, &FP);
            let c1c1 = field::mul(&a.c1, &b.c1, &FP);
            let sums = field::mul(
                &field::add(&a.c0, &a.c1, &FP),
                &field::add(&b.c0, &b.c1, &FP),
                &FP,
            );
            Self {
                c0: field::sub(&c0c0, &c1c1, &FP),
                c1: field::sub(&field::sub(&sums, &c0c0, &FP), &c1c1, &FP),
            }
        }
        #[inline]
        unsafe fn square(&self) -> Self {
            let a = self;
            let product = field::mul(&a.c0, &a.c1, &FP);
            Self {
                c0: field::mul(
                    &field::add(&a.c0, &a.c1, &FP),
                    &field::sub(&a.c0, &a.c1, &FP),
                    &FP,
                ),
                c1: field::add(&product, &product, &FP),
            }
        }
        /// Canonical, not lazy: `square` subtracts its factor's parts,
        /// which needs them canonical.
        #[inline]
        unsafe fn mul_lazy(&self, other: &Self) -> Self {
            // SAFETY: the same instructions as this function's.
            unsafe { self.mul(other) }
        }
        #[inline]
        unsafe fn reduce(&self) -> Self {
            *self
        }
        #[inline]
        unsafe fn negated_where(&self, mask: __mmask8) -> Self {
            // SAFETY: the same instructions as this function's.
            unsafe {
                Self {
                    c0: self.c0.negated_where(mask),
                    c1: self.c1.negated_where(mask),
                }
            }
        }
        unsafe fn to_elements(self) -> [blst_fp2; 8] {
            let (c0, c1) = (self.c0.to_words::<6>(), self.c1.to_words::<6>());
            std::array::from_fn(|i| blst_fp2 {
                fp: [blst_fp { l: c0[i] }, blst_fp { l: c1[i] }],
            })
        }
        unsafe fn from_elements(elements: &[blst_fp2; 8]) -> Self {
            Self {
                c0: FpLanes::from_words(&elements.map(|e| e.fp[0].l)),
                c1: FpLanes::from_words(&elements.map(|e| e.fp[1].l)),
            }
        }
    );
}

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
struct Forward<F> {
    /// Where the eight additions read and write.
    slots: Slots,
    /// The buckets' x.
    x1: F,
    /// `x₂ − x₁`.
    dx: F,
    /// The product of the `dx` of this entry and all before it, below 2p
    /// (reduced lazily: R = 2^384 > 4p keeps products of values below 2p
    /// below 2p; canonical in Fp2).
    product: F,
}

/// The lane adder of points with coordinates in `F`: scratch for the first
/// pass over a batch.
#[derive(Clone)]
pub(crate) struct LaneAdder<F> {
    forward: Vec<Forward<F>>,
}

/// The lane adder of G1.
pub(crate) type G1LaneAdder = LaneAdder<FpLanes>;
/// The lane adder of G2.
pub(crate) type G2LaneAdder = LaneAdder<Fp2Lanes>;

impl<F> LaneAdder<F> {
    /// An adder, where this instance can run (on the hardware: a CPU with
    /// AVX-512 IFMA, or AVX-512F and DQ for the FMA lanes, not switched
    /// off).
    pub fn new() -> Option<Self> {
        available().then(|| Self {
            forward: Vec::new(),
        })
    }
}

impl<F: LaneField + Send + Sync> Adder for LaneAdder<F> {
    type Curve = F::Curve;
    const WIDEST_WINDOW: usize = F::WIDEST_WINDOW;

    fn add_batch(
        &mut self,
        sums: &mut [Affine<Self>],
        points: &[Affine<Self>],
        batch: &[Addition],
    ) {
        debug_assert_eq!(
            size_of::<Affine<Self>>(),
            16 * F::WORDS as usize,
            "an affine point is two coordinates of F::WORDS words"
        );
        // SAFETY: a `LaneAdder` exists only where its instance runs (`new`);
        // blst's affine points are words ([`crate::batch_affine::curve::Words`]),
        // and the batch's buckets and points lie in `sums` and `points`.
        unsafe { self.flush(sums.as_mut_ptr().cast(), points.as_ptr().cast(), batch) }
    }
}

impl<F: LaneField> LaneAdder<F> {
    lane_fns!(
        /// The slots of lanes `8v..8v+8` of the batch.
        fn slots(batch: &[Addition], v: usize) -> Slots {
            let point_words = 2 * F::WORDS;
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
                buckets[lane] = addition.bucket as i64 * point_words;
                points[lane] = addition.point as i64 * point_words;
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

        /// The additions of `batch` to the buckets at `sums` from the points
        /// at `points` (both blst's affine points of `F`'s group, as words),
        /// with one inversion: `λ = (y₂ − y₁)/(x₂ − x₁)`,
        /// `x₃ = λ² − x₁ − x₂`, `y₃ = λ·(x₁ − x₃) − y₁`. Products that only feed
        /// other products (the prefix products, the inverses, λ) may skip
        /// their final subtraction ([`LaneField::mul_lazy`]); what is
        /// subtracted or stored is canonical.
        ///
        /// # Safety
        /// The instance runs on this CPU; every addition's bucket lies in
        /// `sums` and its point in `points`, and the buckets of a batch are
        /// distinct.
        unsafe fn flush(&mut self, sums: *mut u64, points: *const u64, batch: &[Addition]) {
            if batch.is_empty() {
                return;
            }
            let vectors = batch.len().div_ceil(8);
            let y_offset = _mm512_set1_epi64(F::WORDS);
            self.forward.clear();
            // SAFETY: (the whole body) the field operations need only this
            // function's instructions; every lane indexes a bucket of `sums`
            // and a point of `points` (the caller's promise), and the real
            // lanes of a scatter distinct buckets.
            unsafe {
                for v in 0..vectors {
                    let slots = Self::slots(batch, v);
                    let x1 = F::gather(sums, slots.buckets);
                    let x2 = F::gather(points, slots.points);
                    let dx = x2.sub(&x1);
                    let product = match self.forward.last() {
                        Some(previous) => previous.product.mul_lazy(&dx),
                        None => dx,
                    };
                    self.forward.push(Forward {
                        slots,
                        x1,
                        dx,
                        product,
                    });
                }
                let mut inverse = inverted(self.forward[vectors - 1].product.reduce());
                for v in (0..vectors).rev() {
                    let Forward { slots, x1, dx, .. } = self.forward[v];
                    let bucket_y = _mm512_add_epi64(slots.buckets, y_offset);
                    let y1 = F::gather(sums, bucket_y);
                    let y2 = F::gather(points, _mm512_add_epi64(slots.points, y_offset))
                        .negated_where(slots.negate);
                    let inverse_dx = if v == 0 {
                        inverse
                    } else {
                        let this = inverse.mul_lazy(&self.forward[v - 1].product);
                        inverse = inverse.mul_lazy(&dx);
                        this
                    };
                    let lambda = y2.sub(&y1).mul_lazy(&inverse_dx);
                    // x₁ + x₂ = 2·x₁ + dx.
                    let x1_plus_x2 = x1.add(&x1).add(&dx);
                    let x3 = lambda.square().sub(&x1_plus_x2);
                    let y3 = lambda.mul(&x1.sub(&x3)).sub(&y1);
                    x3.scatter(sums, slots.buckets, slots.real);
                    y3.scatter(sums, bucket_y, slots.real);
                }
            }
        }
    );
}

lane_fns!(
    /// The inverses of eight non-zero elements, with one inversion.
    fn inverted<F: LaneField>(lanes: F) -> F {
        // SAFETY: this function has the instructions the conversions need,
        // and blst multiplies and inverts valid field elements.
        unsafe {
            let values = lanes.to_elements();
            let mut prefix = values;
            for i in 1..8 {
                F::Curve::mul(&mut prefix[i], &prefix[i - 1], &values[i]);
            }
            let mut inverse = prefix[7];
            F::Curve::inverse(&mut inverse, &prefix[7]);
            let mut out = values;
            for i in (1..8).rev() {
                F::Curve::mul(&mut out[i], &inverse, &prefix[i - 1]);
                F::Curve::mul(&mut inverse, &inverse, &values[i]);
            }
            out[0] = inverse;
            F::from_elements(&out)
        }
    }
);
