//! The lane arithmetic of [`crate::fma`], written once for both instances
//! ([`super`] is `fma::hardware` or, in tests, `fma::emulated`): eight
//! elements of Fp in 48-bit integer limbs (repacked from and to blst's
//! words by the shared `lane_words.rs`), addition, subtraction and the
//! Montgomery product on the FMA units. It names its instructions through
//! `super::isa`.

use super::isa::*;
use crate::fma::{
    Modulus, HIGH_START, LIMBS, LIMB_BITS, LIMB_MASK, LOW_START, TWO_52, TWO_52_BITS,
};

// Moving between blst's words and limbs of `LIMB_BITS`: one source for
// every lane arithmetic, on purpose.
#[allow(clippy::duplicate_mod)]
#[path = "../lane_words.rs"]
mod words;
pub use words::Lanes;

lane_fns!(
    /// A limb (an integer below 2^52) as an exact double.
    #[inline]
    fn to_double(x: __m512i) -> __m512d {
        let biased = _mm512_or_si512(x, _mm512_set1_epi64(TWO_52_BITS as i64));
        _mm512_sub_pd(_mm512_castsi512_pd(biased), _mm512_set1_pd(TWO_52))
    }

    /// Adds `x·y` to the accumulators: its multiple of 2^48 to `high` (the
    /// next column's), the signed rest to `low`.
    #[inline]
    fn product(x: __m512d, y: __m512d, low: &mut __m512d, high: &mut __m512d) {
        let before = *high;
        *high = _mm512_fmadd_pd(x, y, before);
        let rest = _mm512_fmadd_pd(x, y, _mm512_sub_pd(before, *high));
        *low = _mm512_add_pd(*low, rest);
    }

    /// Carries signed limbs (each below `2^62` in magnitude) into 48 bits
    /// from the lowest; the mask of the lanes whose value is negative.
    #[inline]
    fn normalize(limbs: &mut [__m512i; LIMBS]) -> __mmask8 {
        let mask = _mm512_set1_epi64(LIMB_MASK as i64);
        let mut carry = _mm512_setzero_si512();
        for limb in limbs.iter_mut() {
            let value = _mm512_add_epi64(*limb, carry);
            carry = _mm512_srai_epi64::<48>(value);
            *limb = _mm512_and_si512(value, mask);
        }
        _mm512_movepi64_mask(carry)
    }

    /// `value − p` where that is not negative, else `value`.
    #[inline]
    fn subtract_if_not_below(value: [__m512i; LIMBS], modulus: &Modulus) -> [__m512i; LIMBS] {
        let mut reduced: [__m512i; LIMBS] = std::array::from_fn(|i| {
            _mm512_sub_epi64(value[i], _mm512_set1_epi64(modulus.limbs[i] as i64))
        });
        let negative = normalize(&mut reduced);
        std::array::from_fn(|i| _mm512_mask_blend_epi64(negative, reduced[i], value[i]))
    }

    /// `value mod p` for `value < 2p`.
    #[inline]
    pub fn reduce(value: &Lanes<LIMBS>, modulus: &Modulus) -> Lanes<LIMBS> {
        Lanes(subtract_if_not_below(value.0, modulus))
    }

    /// `a + b mod p`, lane by lane, for canonical operands.
    #[inline]
    pub fn add(a: &Lanes<LIMBS>, b: &Lanes<LIMBS>, modulus: &Modulus) -> Lanes<LIMBS> {
        let mut sum: [__m512i; LIMBS] = std::array::from_fn(|i| _mm512_add_epi64(a.0[i], b.0[i]));
        normalize(&mut sum);
        Lanes(subtract_if_not_below(sum, modulus))
    }

    /// `a − b mod p`, lane by lane, for canonical operands.
    #[inline]
    pub fn sub(a: &Lanes<LIMBS>, b: &Lanes<LIMBS>, modulus: &Modulus) -> Lanes<LIMBS> {
        let mut difference: [__m512i; LIMBS] =
            std::array::from_fn(|i| _mm512_sub_epi64(a.0[i], b.0[i]));
        let negative = normalize(&mut difference);
        for (limb, p) in difference.iter_mut().zip(modulus.limbs) {
            *limb = _mm512_mask_add_epi64(*limb, negative, *limb, _mm512_set1_epi64(p as i64));
        }
        normalize(&mut difference);
        Lanes(difference)
    }

    /// `a·b·2^−384 mod p`, lane by lane, canonical, for factors below 2p.
    #[inline]
    pub fn mul(a: &Lanes<LIMBS>, b: &Lanes<LIMBS>, modulus: &Modulus) -> Lanes<LIMBS> {
        reduce(&mul_unreduced(a, b, modulus), modulus)
    }

    /// [`mul`] without the final subtraction, for lazy reduction: below 2p
    /// for factors below 2p (`R = 2^384 > 4p`).
    #[inline]
    // Closures: on the hardware `to_double` has target features, so it is
    // no `Fn` to pass.
    #[allow(clippy::redundant_closure)]
    pub fn mul_unreduced(a: &Lanes<LIMBS>, b: &Lanes<LIMBS>, modulus: &Modulus) -> Lanes<LIMBS> {
        let mut product = Product {
            x: a.0.map(|limb| to_double(limb)),
            y: b.0.map(|limb| to_double(limb)),
            p: modulus.limbs.map(|limb| _mm512_set1_pd(limb as f64)),
            m: [_mm512_setzero_pd(); LIMBS],
            result: [_mm512_setzero_si512(); LIMBS],
            high: _mm512_set1_pd(HIGH_START),
            carry: _mm512_setzero_si512(),
        };
        // One call per column, each with constant bounds, so that every
        // index is known when compiled.
        macro_rules! columns {
            ($($k:literal)*) => {
                $(product.column::<$k>(modulus);)*
            };
        }
        columns!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        Lanes(product.result)
    }
);

/// The state of [`mul_unreduced`] between its columns.
struct Product {
    /// The factors' limbs as doubles.
    x: [__m512d; LIMBS],
    y: [__m512d; LIMBS],
    /// The modulus' limbs as doubles.
    p: [__m512d; LIMBS],
    /// The reduction's factors, one per low column.
    m: [__m512d; LIMBS],
    /// The result's limbs, one per high column.
    result: [__m512i; LIMBS],
    /// The multiples of 2^48 of the previous column's products.
    high: __m512d,
    /// The previous column's carry.
    carry: __m512i,
}

impl Product {
    lane_fns!(
        /// Column `K`: its limb products' rests, the previous column's
        /// `high` and `carry` make its value; leaves its own `high` and
        /// carry. Below `LIMBS`, also the reduction's factor `m[K]`; from
        /// there on, a limb of the result.
        #[inline]
        // `i` indexes one factor's limbs and, as `K − i`, the other's.
        #[allow(clippy::needless_range_loop)]
        fn column<const K: usize>(&mut self, modulus: &Modulus) {
            let mask = _mm512_set1_epi64(LIMB_MASK as i64);
            let mut low = _mm512_set1_pd(LOW_START);
            let mut next = _mm512_set1_pd(HIGH_START);
            let (first, last) = (K.saturating_sub(LIMBS - 1), K.min(LIMBS - 1));
            for i in first..=last {
                product(self.x[i], self.y[K - i], &mut low, &mut next);
            }
            // m[i]·p[K − i] for i < K: the column's reduction terms, the
            // last-known factor m[K − 1] last.
            for i in first..K.min(LIMBS) {
                product(self.m[i], self.p[K - i], &mut low, &mut next);
            }
            let column = _mm512_sub_epi64(
                _mm512_add_epi64(
                    _mm512_add_epi64(_mm512_castpd_si512(low), _mm512_castpd_si512(self.high)),
                    self.carry,
                ),
                _mm512_set1_epi64(modulus.offsets[K] as i64),
            );
            let value = _mm512_and_si512(column, mask);
            let shifted = _mm512_srli_epi64::<48>(column);
            self.high = next;
            if K < LIMBS {
                // m = value·(−p⁻¹) mod 2^48, and (value + m·p₀)/2^48, exact
                // and below 2^49, as the bits of 2^52 plus it. `value` enters
                // as the double 2^52 + value: scaled by 2^−48, less 16
                // (2^52 / 2^48), it is value / 2^48.
                let factor = _mm512_and_si512(
                    _mm512_mullo_epi64(value, _mm512_set1_epi64(modulus.inverse as i64)),
                    mask,
                );
                self.m[K] = to_double(factor);
                let scaled = _mm512_fmadd_pd(
                    _mm512_castsi512_pd(_mm512_or_si512(
                        value,
                        _mm512_set1_epi64(TWO_52_BITS as i64),
                    )),
                    _mm512_set1_pd(1.0 / (1u64 << LIMB_BITS) as f64),
                    _mm512_set1_pd(-16.0),
                );
                let sum = _mm512_fmadd_pd(self.m[K], _mm512_set1_pd(modulus.p0_scaled), scaled);
                let sum_bits = _mm512_castpd_si512(_mm512_add_pd(sum, _mm512_set1_pd(TWO_52)));
                self.carry = _mm512_add_epi64(shifted, sum_bits);
            } else {
                self.result[K - LIMBS] = value;
                self.carry = shifted;
            }
        }
    );
}
