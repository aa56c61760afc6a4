//! The lane arithmetic, written once for both instances ([`super`] is
//! `ifma::hardware` or, in tests, `ifma::emulated`): it names its
//! instructions through `super::isa`, and its functions are declared with
//! `lane_fns!`, which gives them the instructions' target features where
//! they are real.

use super::isa::*;
use crate::ifma::{twice, Modulus, LIMB_BITS, LIMB_MASK};

// Moving between blst's words and limbs of `LIMB_BITS`: one source for
// every lane arithmetic, on purpose.
#[allow(clippy::duplicate_mod)]
#[path = "../lane_words.rs"]
mod words;
pub use words::Lanes;

lane_fns!(
    /// Indices for `_mm512_permutex2var_epi64` that interleave the four words
    /// of two pairs of elements: words 0 and 1 of four elements, and words 2
    /// and 3 (and back: the permutation is the same both ways).
    #[inline]
    fn pair_words() -> (__m512i, __m512i) {
        (
            _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0),
            _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2),
        )
    }

    /// Eight scalar-field elements (blst's `blst_fr` words), each read from its
    /// own address, to lanes: a transpose in registers and a repacking of bits,
    /// much cheaper than [`Lanes::from_words`].
    ///
    /// # Safety
    ///
    /// Every pointer must be valid for reading 32 bytes.
    #[inline]
    pub unsafe fn load_fr(elements: [*const [u64; 4]; 8]) -> Lanes<5> {
        // SAFETY: the caller guarantees 32 readable bytes at each address.
        let e = elements.map(|at| unsafe { _mm256_loadu_si256(at.cast()) });
        let pair = |a: __m256i, b: __m256i| _mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), b);
        let z = [
            pair(e[0], e[1]),
            pair(e[2], e[3]),
            pair(e[4], e[5]),
            pair(e[6], e[7]),
        ];
        let (low, high) = pair_words();
        // Words 0–1 and 2–3 of elements 0–3 (a) and 4–7 (b), then whole words.
        let a = [
            _mm512_permutex2var_epi64(z[0], low, z[1]),
            _mm512_permutex2var_epi64(z[0], high, z[1]),
        ];
        let b = [
            _mm512_permutex2var_epi64(z[2], low, z[3]),
            _mm512_permutex2var_epi64(z[2], high, z[3]),
        ];
        let w = [
            _mm512_shuffle_i64x2::<0b01_00_01_00>(a[0], b[0]),
            _mm512_shuffle_i64x2::<0b11_10_11_10>(a[0], b[0]),
            _mm512_shuffle_i64x2::<0b01_00_01_00>(a[1], b[1]),
            _mm512_shuffle_i64x2::<0b11_10_11_10>(a[1], b[1]),
        ];
        let mask = _mm512_set1_epi64(LIMB_MASK as i64);
        let join = |low: __m512i, high: __m512i, shift: u32| {
            let low = _mm512_srl_epi64(low, _mm_cvtsi32_si128(64 - shift as i32));
            let high = _mm512_sll_epi64(high, _mm_cvtsi32_si128(shift as i32));
            _mm512_and_si512(_mm512_or_si512(low, high), mask)
        };
        Lanes([
            _mm512_and_si512(w[0], mask),
            join(w[0], w[1], 12),
            join(w[1], w[2], 24),
            join(w[2], w[3], 36),
            _mm512_srli_epi64::<16>(w[3]),
        ])
    }

    /// The inverse of [`load_fr`]: eight elements, each written to its own
    /// address as blst's words.
    ///
    /// # Safety
    ///
    /// Every pointer must be valid for writing 32 bytes.
    #[inline]
    pub unsafe fn store_fr(lanes: &Lanes<5>, elements: [*mut [u64; 4]; 8]) {
        let l = &lanes.0;
        let join = |low: __m512i, high: __m512i, shift: u32| {
            let low = _mm512_srl_epi64(low, _mm_cvtsi32_si128(shift as i32));
            let high = _mm512_sll_epi64(high, _mm_cvtsi32_si128(52 - shift as i32));
            _mm512_or_si512(low, high)
        };
        // The limbs are below 2^52: each word is the top of one limb and the
        // bottom of the next.
        let w = [
            _mm512_or_si512(l[0], _mm512_slli_epi64::<52>(l[1])),
            join(l[1], l[2], 12),
            join(l[2], l[3], 24),
            join(l[3], l[4], 36),
        ];
        let a = [
            _mm512_shuffle_i64x2::<0b01_00_01_00>(w[0], w[1]),
            _mm512_shuffle_i64x2::<0b01_00_01_00>(w[2], w[3]),
        ];
        let b = [
            _mm512_shuffle_i64x2::<0b11_10_11_10>(w[0], w[1]),
            _mm512_shuffle_i64x2::<0b11_10_11_10>(w[2], w[3]),
        ];
        let (low, high) = pair_words();
        let z = [
            _mm512_permutex2var_epi64(a[0], low, a[1]),
            _mm512_permutex2var_epi64(a[0], high, a[1]),
            _mm512_permutex2var_epi64(b[0], low, b[1]),
            _mm512_permutex2var_epi64(b[0], high, b[1]),
        ];
        for (i, at) in elements.into_iter().enumerate() {
            let pair = z[i / 2];
            let element = if i % 2 == 0 {
                _mm512_castsi512_si256(pair)
            } else {
                _mm512_extracti64x4_epi64::<1>(pair)
            };
            // SAFETY: the caller guarantees 32 writable bytes at each address.
            unsafe { _mm256_storeu_si256(at.cast(), element) };
        }
    }

    /// Transposes eight lane vectors: lane `l` of `rows[k]` and lane `k` of
    /// `rows[l]` trade places, limb by limb (three rounds of exchanges).
    #[inline]
    pub fn transpose<const LIMBS: usize>(rows: &mut [Lanes<LIMBS>; 8]) {
        for d in [4usize, 2, 1] {
            // Row k (bit d clear) keeps its lanes with bit d clear and takes
            // those of row k + d shifted down by d; row k + d the converse.
            let index = |keep_low: bool| {
                let lanes: [i64; 8] = std::array::from_fn(|j| {
                    let j = j as i64;
                    let d = d as i64;
                    match (keep_low, j & d == 0) {
                        (true, true) => j,
                        (true, false) => 8 + j - d,
                        (false, true) => j + d,
                        (false, false) => 8 + j,
                    }
                });
                // SAFETY: an unaligned load of 64 bytes from an array of 8 i64.
                unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) }
            };
            let (low, high) = (index(true), index(false));
            for k in (0..8).filter(|k| k & d == 0) {
                for i in 0..LIMBS {
                    let (a, b) = (rows[k].0[i], rows[k + d].0[i]);
                    rows[k].0[i] = _mm512_permutex2var_epi64(a, low, b);
                    rows[k + d].0[i] = _mm512_permutex2var_epi64(a, high, b);
                }
            }
        }
    }

    /// Propagates carries so that every limb is below 2^52; returns the carry
    /// out of the top limb.
    #[inline]
    fn normalize<const LIMBS: usize>(limbs: &mut [__m512i; LIMBS]) -> __m512i {
        let mask = _mm512_set1_epi64(LIMB_MASK as i64);
        let mut carry = _mm512_setzero_si512();
        for limb in limbs.iter_mut() {
            let value = _mm512_add_epi64(*limb, carry);
            *limb = _mm512_and_si512(value, mask);
            carry = _mm512_srli_epi64::<52>(value);
        }
        carry
    }

    /// `a − b` limb by limb with borrows, limbs masked to 52 bits; returns the
    /// lanes where the result went negative.
    #[inline]
    fn subtract<const LIMBS: usize>(
        a: &[__m512i; LIMBS],
        b: &[__m512i; LIMBS],
    ) -> ([__m512i; LIMBS], __mmask8) {
        let mask = _mm512_set1_epi64(LIMB_MASK as i64);
        let mut borrow = _mm512_setzero_si512();
        let mut out = *a;
        for i in 0..LIMBS {
            let value = _mm512_sub_epi64(_mm512_sub_epi64(a[i], b[i]), borrow);
            out[i] = _mm512_and_si512(value, mask);
            borrow = _mm512_srli_epi64::<63>(value);
        }
        let negative = _mm512_test_epi64_mask(borrow, borrow);
        (out, negative)
    }

    /// `value − p` where that is not negative, else `value` (for `value < 2p`).
    #[inline]
    fn reduce_once<const WORDS: usize, const LIMBS: usize>(
        value: [__m512i; LIMBS],
        modulus: &Modulus<WORDS, LIMBS>,
    ) -> [__m512i; LIMBS] {
        subtract_if_not_below(value, &modulus.limbs)
    }

    /// `value − bound` where that is not negative, else `value`.
    #[inline]
    fn subtract_if_not_below<const LIMBS: usize>(
        value: [__m512i; LIMBS],
        bound: &[u64; LIMBS],
    ) -> [__m512i; LIMBS] {
        let bound = bound.map(|l| _mm512_set1_epi64(l as i64));
        let (reduced, negative) = subtract(&value, &bound);
        std::array::from_fn(|i| _mm512_mask_blend_epi64(negative, reduced[i], value[i]))
    }

    /// `value mod p` for `value < 2p`.
    #[inline]
    pub fn reduce<const WORDS: usize, const LIMBS: usize>(
        value: &Lanes<LIMBS>,
        modulus: &Modulus<WORDS, LIMBS>,
    ) -> Lanes<LIMBS> {
        Lanes(reduce_once(value.0, modulus))
    }

    /// A value below 2p congruent to `value < 4p`.
    #[inline]
    pub fn reduce_below_2p<const WORDS: usize, const LIMBS: usize>(
        value: &Lanes<LIMBS>,
        modulus: &Modulus<WORDS, LIMBS>,
    ) -> Lanes<LIMBS> {
        Lanes(subtract_if_not_below(value.0, &twice(modulus)))
    }

    /// `a + b`, unreduced: the caller keeps sums below `2^(52·LIMBS)` (for
    /// lazy reduction).
    #[inline]
    pub fn add_unreduced<const LIMBS: usize>(a: &Lanes<LIMBS>, b: &Lanes<LIMBS>) -> Lanes<LIMBS> {
        let mut sum: [__m512i; LIMBS] = std::array::from_fn(|i| _mm512_add_epi64(a.0[i], b.0[i]));
        normalize(&mut sum);
        Lanes(sum)
    }

    /// `a + 2p − b` for `b ≤ 2p`, unreduced: congruent to `a − b`, below
    /// `a + 2p` (for lazy reduction).
    #[inline]
    pub fn sub_unreduced<const WORDS: usize, const LIMBS: usize>(
        a: &Lanes<LIMBS>,
        b: &Lanes<LIMBS>,
        modulus: &Modulus<WORDS, LIMBS>,
    ) -> Lanes<LIMBS> {
        let twice = twice(modulus);
        let mask = _mm512_set1_epi64(LIMB_MASK as i64);
        let mut carry = _mm512_setzero_si512();
        // Limbs may go negative before the carries: a signed carry chain.
        Lanes(std::array::from_fn(|i| {
            let plus = _mm512_add_epi64(a.0[i], _mm512_set1_epi64(twice[i] as i64));
            let value = _mm512_add_epi64(_mm512_sub_epi64(plus, b.0[i]), carry);
            carry = _mm512_srai_epi64::<52>(value);
            _mm512_and_si512(value, mask)
        }))
    }

    /// `a·b·2^(−64·WORDS) mod p`, lane by lane.
    #[inline]
    pub fn mul<const WORDS: usize, const LIMBS: usize>(
        a: &Lanes<LIMBS>,
        b: &Lanes<LIMBS>,
        modulus: &Modulus<WORDS, LIMBS>,
    ) -> Lanes<LIMBS> {
        Lanes(reduce_once(
            montgomery(a, b, modulus, 64 * WORDS as u32),
            modulus,
        ))
    }

    /// [`mul`] without the final subtraction, for lazy reduction:
    /// `a·b·2^(−64·WORDS)` up to a multiple of p, below
    /// `a·b·2^(−64·WORDS) + p`. The limbs of `a` and `b` must be normalized; their values
    /// may exceed p.
    #[inline]
    pub fn mul_unreduced<const WORDS: usize, const LIMBS: usize>(
        a: &Lanes<LIMBS>,
        b: &Lanes<LIMBS>,
        modulus: &Modulus<WORDS, LIMBS>,
    ) -> Lanes<LIMBS> {
        Lanes(montgomery(a, b, modulus, 64 * WORDS as u32))
    }

    /// [`mul_unreduced`] by the radix `2^(52·LIMBS)` instead of blst's: whole
    /// rounds only, so cheaper, and a tighter bound, below
    /// `a·b·2^(−52·LIMBS) + p`. It gives blst's Montgomery form of `a·c` where
    /// `b` holds `c·2^(52·LIMBS − 64·WORDS)` in blst's form (`b` prescaled).
    #[inline]
    pub fn mul_unreduced_wide<const WORDS: usize, const LIMBS: usize>(
        a: &Lanes<LIMBS>,
        b: &Lanes<LIMBS>,
        modulus: &Modulus<WORDS, LIMBS>,
    ) -> Lanes<LIMBS> {
        Lanes(montgomery(a, b, modulus, LIMB_BITS * LIMBS as u32))
    }

    /// Montgomery multiplication by the radix `2^radix_bits`, with normalized
    /// limbs, without the final subtraction of p (see [`mul_unreduced`]).
    #[inline]
    fn montgomery<const WORDS: usize, const LIMBS: usize>(
        a: &Lanes<LIMBS>,
        b: &Lanes<LIMBS>,
        modulus: &Modulus<WORDS, LIMBS>,
        radix_bits: u32,
    ) -> [__m512i; LIMBS] {
        let zero = _mm512_setzero_si512();
        let mask = _mm512_set1_epi64(LIMB_MASK as i64);
        let p = modulus.limbs.map(|l| _mm512_set1_epi64(l as i64));
        let inv = _mm512_set1_epi64(modulus.inv as i64);
        // The product, 2·LIMBS limbs (+1 for the top carry), each a sum of
        // at most 4·LIMBS + 1 terms below 2^52: far from overflowing 64 bits.
        let mut t = [zero; 24];
        debug_assert!(2 * LIMBS < t.len());
        for i in 0..LIMBS {
            for j in 0..LIMBS {
                t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.0[i], b.0[j]);
                t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.0[i], b.0[j]);
            }
        }
        // Montgomery reduction by 2^radix_bits: whole rounds of 52 bits, then
        // one round of the remaining bits.
        let rounds = (radix_bits / LIMB_BITS) as usize;
        let last_bits = radix_bits % LIMB_BITS;
        let add_multiple = |t: &mut [__m512i; 24], at: usize, m: __m512i| {
            for j in 0..LIMBS {
                t[at + j] = _mm512_madd52lo_epu64(t[at + j], m, p[j]);
                t[at + j + 1] = _mm512_madd52hi_epu64(t[at + j + 1], m, p[j]);
            }
        };
        for i in 0..rounds {
            // The low half of a 52×52-bit product added to zero: below 2^52
            // already, no mask needed.
            let m = _mm512_madd52lo_epu64(zero, t[i], inv);
            add_multiple(&mut t, i, m);
            t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64::<52>(t[i]));
        }
        let mut high: [__m512i; LIMBS] = std::array::from_fn(|i| t[rounds + i]);
        let top = t[rounds + LIMBS];
        if last_bits > 0 {
            let last_mask = _mm512_set1_epi64(((1u64 << last_bits) - 1) as i64);
            let m = _mm512_and_si512(_mm512_madd52lo_epu64(zero, high[0], inv), last_mask);
            for j in 0..LIMBS {
                high[j] = _mm512_madd52lo_epu64(high[j], m, p[j]);
            }
            // The high halves of m·p land one limb up, the last one above `high`.
            let mut above = top;
            for j in 0..LIMBS {
                let hi = _mm512_madd52hi_epu64(zero, m, p[j]);
                if j + 1 < LIMBS {
                    high[j + 1] = _mm512_add_epi64(high[j + 1], hi);
                } else {
                    above = _mm512_add_epi64(above, hi);
                }
            }
            let carry = normalize(&mut high);
            above = _mm512_add_epi64(above, carry);
            // Shift everything right by `last_bits`; the low bits are zero.
            let shift = _mm512_set1_epi64(last_bits as i64);
            let back = _mm512_set1_epi64((LIMB_BITS - last_bits) as i64);
            for j in 0..LIMBS {
                let next = if j + 1 < LIMBS { high[j + 1] } else { above };
                high[j] = _mm512_and_si512(
                    _mm512_or_si512(
                        _mm512_srlv_epi64(high[j], shift),
                        _mm512_sllv_epi64(next, back),
                    ),
                    mask,
                );
            }
        } else {
            normalize(&mut high);
        }
        high
    }

    /// `a + b mod p`, lane by lane.
    #[inline]
    pub fn add<const WORDS: usize, const LIMBS: usize>(
        a: &Lanes<LIMBS>,
        b: &Lanes<LIMBS>,
        modulus: &Modulus<WORDS, LIMBS>,
    ) -> Lanes<LIMBS> {
        let mut sum: [__m512i; LIMBS] = std::array::from_fn(|i| _mm512_add_epi64(a.0[i], b.0[i]));
        normalize(&mut sum);
        Lanes(reduce_once(sum, modulus))
    }

    /// `a − b mod p`, lane by lane.
    #[inline]
    pub fn sub<const WORDS: usize, const LIMBS: usize>(
        a: &Lanes<LIMBS>,
        b: &Lanes<LIMBS>,
        modulus: &Modulus<WORDS, LIMBS>,
    ) -> Lanes<LIMBS> {
        let (mut difference, negative) = subtract(&a.0, &b.0);
        for (limb, p) in difference.iter_mut().zip(modulus.limbs) {
            *limb = _mm512_mask_add_epi64(*limb, negative, *limb, _mm512_set1_epi64(p as i64));
        }
        normalize(&mut difference);
        Lanes(difference)
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ifma::{FP, FR};

    /// A deterministic stream of field elements (blst Montgomery values).
    fn fp_elements(seed: u64, count: usize) -> Vec<[u64; 6]> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                let mut bytes = [0u8; 64];
                for byte in bytes.iter_mut() {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    *byte = (state >> 56) as u8;
                }
                let mut fp = blst::blst_fp::default();
                // SAFETY: blst reduces 64 bytes into a field element.
                unsafe { blst::blst_fp_from_lendian(&mut fp, bytes.as_ptr()) };
                fp.l
            })
            .collect()
    }

    fn fr_elements(seed: u64, count: usize) -> Vec<[u64; 4]> {
        fp_elements(seed, count)
            .into_iter()
            .map(|fp| {
                let mut fr = blst::blst_fr::default();
                let mut bytes = [0u8; 48];
                bytes
                    .iter_mut()
                    .zip(fp.iter().flat_map(|w| w.to_le_bytes()))
                    .for_each(|(b, v)| *b = v);
                let mut scalar = blst::blst_scalar::default();
                // SAFETY: 32 of the bytes become a reduced scalar, then an element.
                unsafe {
                    blst::blst_scalar_from_le_bytes(&mut scalar, bytes.as_ptr(), 48);
                    blst::blst_fr_from_scalar(&mut fr, &scalar);
                }
                fr.l
            })
            .collect()
    }

    /// Special values that exercise the carries: 0, 1, p − 1 (as words).
    fn edges<const W: usize>(p: [u64; W]) -> Vec<[u64; W]> {
        let mut one = [0u64; W];
        one[0] = 1;
        let mut p_minus_one = p;
        p_minus_one[0] -= 1;
        vec![[0u64; W], one, p_minus_one]
    }

    fn chunk8<const W: usize>(values: &[[u64; W]], at: usize) -> [[u64; W]; 8] {
        std::array::from_fn(|i| values[(at + i) % values.len()])
    }

    /// `mul`, `add` and `sub` of `a[i]` and `b[i]` against `blst(a[i], b[i])`
    /// (product, sum, difference), with the edge values mixed in.
    fn check_against_blst<const W: usize, const L: usize>(
        modulus: &Modulus<W, L>,
        mut a: Vec<[u64; W]>,
        mut b: Vec<[u64; W]>,
        blst: impl Fn(&[u64; W], &[u64; W]) -> [[u64; W]; 3],
    ) {
        a.extend(edges(modulus.words));
        b.extend(edges(modulus.words).into_iter().rev());
        a.extend(edges(modulus.words));
        b.extend(edges(modulus.words));
        for at in (0..a.len()).step_by(8) {
            let (x, y) = (chunk8(&a, at), chunk8(&b, at));
            // SAFETY: the callers checked that the CPU has the features.
            let results = unsafe {
                let (lx, ly) = (Lanes::<L>::from_words(&x), Lanes::<L>::from_words(&y));
                [
                    mul(&lx, &ly, modulus),
                    add(&lx, &ly, modulus),
                    sub(&lx, &ly, modulus),
                ]
                .map(|lanes| lanes.to_words::<W>())
            };
            for lane in 0..8 {
                let expected = blst(&x[lane], &y[lane]);
                for (op, name) in ["product", "sum", "difference"].iter().enumerate() {
                    assert_eq!(
                        results[op][lane], expected[op],
                        "{name}, lane {lane} at {at}"
                    );
                }
            }
        }
    }

    #[test]
    fn fp_matches_blst() {
        if !runs_test(module_path!(), "fp_matches_blst") {
            return;
        }
        check_against_blst(&FP, fp_elements(1, 256), fp_elements(2, 256), |x, y| {
            let (u, v) = (blst::blst_fp { l: *x }, blst::blst_fp { l: *y });
            let mut out = [blst::blst_fp::default(); 3];
            // SAFETY: blst field operations on valid elements.
            unsafe {
                blst::blst_fp_mul(&mut out[0], &u, &v);
                blst::blst_fp_add(&mut out[1], &u, &v);
                blst::blst_fp_sub(&mut out[2], &u, &v);
            }
            out.map(|e| e.l)
        });
    }

    #[test]
    fn fr_matches_blst() {
        if !runs_test(module_path!(), "fr_matches_blst") {
            return;
        }
        check_against_blst(&FR, fr_elements(3, 256), fr_elements(4, 256), |x, y| {
            let (u, v) = (blst::blst_fr { l: *x }, blst::blst_fr { l: *y });
            let mut out = [blst::blst_fr::default(); 3];
            // SAFETY: blst field operations on valid elements.
            unsafe {
                blst::blst_fr_mul(&mut out[0], &u, &v);
                blst::blst_fr_add(&mut out[1], &u, &v);
                blst::blst_fr_sub(&mut out[2], &u, &v);
            }
            out.map(|e| e.l)
        });
    }

    lane_fns!(
        /// Lanes of `values` plus `k·p` (k < 4) in lane order.
        fn plus_multiples(values: &[[u64; 4]; 8], k: [u64; 8]) -> Lanes<5> {
            let mut lanes = Lanes::<5>::from_words(values);
            let p: Lanes<5> = Lanes::from_words(&[FR.words; 8]);
            let zero = Lanes::<5>::from_words(&[[0; 4]; 8]);
            for round in 1..4 {
                let add: [u64; 8] = std::array::from_fn(|l| u64::from(k[l] >= round));
                let mask = add
                    .iter()
                    .enumerate()
                    .fold(0u8, |m, (l, &a)| m | ((a as u8) << l));
                {
                    let step = Lanes(std::array::from_fn(|i| {
                        _mm512_mask_blend_epi64(mask, zero.0[i], p.0[i])
                    }));
                    lanes = add_unreduced(&lanes, &step);
                }
            }
            lanes
        }

        /// Canonical words of a value below 4p.
        fn canonical(value: &Lanes<5>) -> [[u64; 4]; 8] {
            reduce(&reduce_below_2p(value, &FR), &FR).to_words::<4>()
        }
    );

    #[test]
    fn fr_lazy_matches_blst() {
        if !runs_test(module_path!(), "fr_lazy_matches_blst") {
            return;
        }
        // SAFETY: the CPU has the features (checked above).
        unsafe { fr_lazy_matches_blst_on_ifma() }
    }

    lane_fns!(
        fn fr_lazy_matches_blst_on_ifma() {
            let p = FR.words;
            let mut a = fr_elements(6, 256);
            let mut b = fr_elements(7, 256);
            a.extend(edges(p));
            b.extend(edges(p).into_iter().rev());
            for at in (0..a.len()).step_by(8) {
                let (x, y) = (chunk8(&a, at), chunk8(&b, at));
                let k: [u64; 8] = std::array::from_fn(|l| ((at / 8 + l) % 4) as u64);
                let (four, two) = (plus_multiples(&x, k), plus_multiples(&x, k.map(|k| k % 2)));
                let y2 = plus_multiples(&y, k.map(|k| k / 2 % 2));
                // y·2^4 (the prescaled y), by doubling its words four times.
                let y16 = y.map(|y| {
                    let mut v = blst::blst_fr { l: y };
                    for _ in 0..4 {
                        // SAFETY: blst addition of valid elements.
                        unsafe { blst::blst_fr_add(&mut v, &v, &v) };
                    }
                    v.l
                });
                let (canonical_y, y16) = (Lanes::<5>::from_words(&y), Lanes::<5>::from_words(&y16));
                let (products, sum, difference) = {
                    (
                        [
                            mul_unreduced(&two, &canonical_y, &FR),
                            mul_unreduced_wide(&four, &y16, &FR),
                        ],
                        add_unreduced(&two, &y2),
                        sub_unreduced(&two, &y2, &FR),
                    )
                };
                for product in &products {
                    // Below 2p: reducing below 2p changes nothing.
                    let unchanged = reduce_below_2p(product, &FR);
                    assert_eq!(unchanged.to_words::<4>(), product.to_words::<4>());
                }
                for lane in 0..8 {
                    let (u, v) = (blst::blst_fr { l: x[lane] }, blst::blst_fr { l: y[lane] });
                    let mut expected = [blst::blst_fr::default(); 3];
                    // SAFETY: blst field operations on valid elements.
                    unsafe {
                        blst::blst_fr_mul(&mut expected[0], &u, &v);
                        blst::blst_fr_add(&mut expected[1], &u, &v);
                        blst::blst_fr_sub(&mut expected[2], &u, &v);
                    }
                    for product in &products {
                        assert_eq!(
                            canonical(product)[lane],
                            expected[0].l,
                            "product {lane} at {at}"
                        );
                    }
                    assert_eq!(canonical(&sum)[lane], expected[1].l, "sum {lane} at {at}");
                    assert_eq!(
                        canonical(&difference)[lane],
                        expected[2].l,
                        "difference {lane} at {at}"
                    );
                }
            }
        }
    );

    #[test]
    fn fr_conversions_match_words() {
        if !runs_test(module_path!(), "fr_conversions_match_words") {
            return;
        }
        // SAFETY: the CPU has the features (checked above).
        unsafe { fr_conversions_match_words_on_ifma() }
    }

    lane_fns!(
        fn fr_conversions_match_words_on_ifma() {
            let values = fr_elements(8, 64);
            let rows: [Lanes<5>; 8] =
                std::array::from_fn(|k| Lanes::from_words(&chunk8(&values, 8 * k)));
            // SAFETY: the CPU has the features; the pointers address `values`.
            let loaded =
                unsafe { load_fr(std::array::from_fn(|l| &values[8 * 3 + l] as *const _)) };
            assert_eq!(loaded.to_words::<4>(), rows[3].to_words::<4>());
            let mut out = [[0u64; 4]; 8];
            // SAFETY: as above, into `out`.
            unsafe { store_fr(&rows[5], std::array::from_fn(|l| &mut out[l] as *mut _)) };
            assert_eq!(out, rows[5].to_words::<4>());
            let mut transposed = rows;
            transpose(&mut transposed);
            for (k, row) in transposed.iter().enumerate() {
                let expected: [[u64; 4]; 8] = std::array::from_fn(|l| values[8 * l + k]);
                assert_eq!(row.to_words::<4>(), expected, "row {k}");
            }
        }
    );

    /// Gathering records out of order and scattering them to other places
    /// moves exactly the words of the chosen lanes.
    #[test]
    fn gather_and_scatter_move_records() {
        if !runs_test(module_path!(), "gather_and_scatter_move_records") {
            return;
        }
        let records = fp_elements(6, 16);
        let source: Vec<u64> = records.iter().flatten().copied().collect();
        let mut target = vec![0u64; source.len()];
        let picks = [3i64, 15, 0, 7, 9, 1, 12, 5];
        // SAFETY: the CPU has the features; every record lies inside both vectors.
        unsafe {
            let from = _mm512_loadu_si512(picks.map(|i| i * 6).as_ptr().cast());
            let lanes = Lanes::<8>::gather::<6>(source.as_ptr(), from);
            assert_eq!(lanes.to_words::<6>(), picks.map(|i| records[i as usize]));
            let to = _mm512_loadu_si512(
                std::array::from_fn::<i64, 8, _>(|l| l as i64 * 12)
                    .as_ptr()
                    .cast(),
            );
            lanes.scatter::<6>(target.as_mut_ptr(), to, 0b1011_0101);
        }
        for (l, pick) in picks.iter().enumerate() {
            let written = &target[l * 12..l * 12 + 6];
            let expected = if 0b1011_0101 & (1 << l) != 0 {
                records[*pick as usize]
            } else {
                [0; 6]
            };
            assert_eq!(written, expected, "lane {l}");
        }
    }
}
