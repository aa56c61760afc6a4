//! Eight field multiplications at once with AVX-512 IFMA.
//!
//! blst multiplies one element at a time with 64-bit `mulx`; AVX-512 IFMA
//! multiplies eight 52-bit limb pairs per instruction. Eight elements are
//! held limb-sliced ([`Lanes`]: vector `i` holds limb `i` of all eight), so
//! independent multiplications (the additions of a batch-affine MSM, the
//! butterflies of an NTT stage) run eight at a time, about three times
//! blst's throughput on a Zen 4 core.
//!
//! The Montgomery radix is blst's own, `R = 2^(64·words)`, although the
//! limbs are 52 bits: the reduction runs whole 52-bit rounds, then one
//! shorter round for the remaining bits. So a lane holds exactly blst's
//! Montgomery value, and moving between blst's `[u64; words]` and lanes is
//! a repacking of bits, with no multiplication. Every operation takes and
//! returns canonical values (below the modulus).

use std::arch::x86_64::*;

const LIMB_BITS: u32 = 52;
const LIMB_MASK: u64 = (1 << LIMB_BITS) - 1;

/// Whether this CPU has the instructions the module needs.
pub fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512ifma")
}

/// A prime modulus below `2^(64·WORDS − 1)`, in `LIMBS` limbs of 52 bits
/// (`52·LIMBS ≥ 64·WORDS`).
pub struct Modulus<const WORDS: usize, const LIMBS: usize> {
    /// The modulus as little-endian 64-bit words.
    #[cfg(test)]
    words: [u64; WORDS],
    /// The modulus in 52-bit limbs.
    limbs: [u64; LIMBS],
    /// `−p⁻¹ mod 2^52`.
    inv: u64,
}

impl<const WORDS: usize, const LIMBS: usize> Modulus<WORDS, LIMBS> {
    /// The modulus given as little-endian 64-bit words.
    pub const fn new(words: [u64; WORDS]) -> Self {
        assert!(52 * LIMBS >= 64 * WORDS, "too few limbs for the words");
        // Newton's iteration doubles the correct low bits of p⁻¹ each step.
        let mut inv: u64 = 1;
        let mut i = 0;
        while i < 6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(words[0].wrapping_mul(inv)));
            i += 1;
        }
        Self {
            #[cfg(test)]
            words,
            limbs: to_limbs(&words),
            inv: inv.wrapping_neg() & LIMB_MASK,
        }
    }
}

/// Little-endian 64-bit words to 52-bit limbs.
const fn to_limbs<const WORDS: usize, const LIMBS: usize>(words: &[u64; WORDS]) -> [u64; LIMBS] {
    let mut limbs = [0u64; LIMBS];
    let mut i = 0;
    while i < LIMBS {
        let bit = i * LIMB_BITS as usize;
        let (word, shift) = (bit / 64, bit % 64);
        if word < WORDS {
            let mut value = words[word] >> shift;
            if shift > 64 - LIMB_BITS as usize && word + 1 < WORDS {
                value |= words[word + 1] << (64 - shift);
            }
            limbs[i] = value & LIMB_MASK;
        }
        i += 1;
    }
    limbs
}

/// Eight field elements, limb-sliced: `self.0[i]` holds limb `i` of each.
#[derive(Clone, Copy)]
pub struct Lanes<const LIMBS: usize>(pub [__m512i; LIMBS]);

impl<const LIMBS: usize> Lanes<LIMBS> {
    /// Eight elements from their 64-bit words (blst's layout).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub fn from_words<const WORDS: usize>(elements: &[[u64; WORDS]; 8]) -> Self {
        let rows: [[u64; 8]; WORDS] = std::array::from_fn(|k| elements.map(|e| e[k]));
        // SAFETY: unaligned loads of 64 bytes from arrays of 8 u64.
        let words = rows.map(|row| unsafe { _mm512_loadu_si512(row.as_ptr().cast()) });
        Self::from_word_vectors(&words)
    }

    /// The eight elements as 64-bit words (blst's layout).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub fn to_words<const WORDS: usize>(self) -> [[u64; WORDS]; 8] {
        let mut rows = [[0u64; 8]; WORDS];
        for (row, vector) in rows.iter_mut().zip(self.to_word_vectors::<WORDS>()) {
            // SAFETY: an unaligned store of 64 bytes into an array of 8 u64.
            unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), vector) };
        }
        std::array::from_fn(|lane| rows.map(|row| row[lane]))
    }

    /// Eight elements of `WORDS` words each, lane `l`'s starting at word
    /// `starts[l]` of `base`.
    ///
    /// # Safety
    /// Every `base + starts[l] .. + WORDS` must be readable `u64`s.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub unsafe fn gather<const WORDS: usize>(base: *const u64, starts: __m512i) -> Self {
        let words: [__m512i; WORDS] = std::array::from_fn(|k| {
            let at = _mm512_add_epi64(starts, _mm512_set1_epi64(k as i64));
            // SAFETY: readable by the caller's promise.
            unsafe { _mm512_i64gather_epi64::<8>(at, base.cast()) }
        });
        Self::from_word_vectors(&words)
    }

    /// Writes the lanes in `lanes` as `WORDS` words each, lane `l` from word
    /// `starts[l]` of `base` on.
    ///
    /// # Safety
    /// Every `base + starts[l] .. + WORDS` of a written lane must be
    /// writable `u64`s, and no two written lanes may overlap.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub unsafe fn scatter<const WORDS: usize>(
        self,
        base: *mut u64,
        starts: __m512i,
        lanes: __mmask8,
    ) {
        for (k, word) in self.to_word_vectors::<WORDS>().into_iter().enumerate() {
            let at = _mm512_add_epi64(starts, _mm512_set1_epi64(k as i64));
            // SAFETY: writable by the caller's promise.
            unsafe { _mm512_mask_i64scatter_epi64::<8>(base.cast(), lanes, at, word) };
        }
    }

    /// Repacks 64-bit words (vector `k`: word `k` of each lane) into limbs.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn from_word_vectors<const WORDS: usize>(words: &[__m512i; WORDS]) -> Self {
        let mask = _mm512_set1_epi64(LIMB_MASK as i64);
        Self(std::array::from_fn(|i| {
            let bit = i * LIMB_BITS as usize;
            let (word, shift) = (bit / 64, bit % 64);
            if word >= WORDS {
                return _mm512_setzero_si512();
            }
            let mut limb = _mm512_srlv_epi64(words[word], _mm512_set1_epi64(shift as i64));
            if shift > 64 - LIMB_BITS as usize && word + 1 < WORDS {
                let next =
                    _mm512_sllv_epi64(words[word + 1], _mm512_set1_epi64((64 - shift) as i64));
                limb = _mm512_or_si512(limb, next);
            }
            _mm512_and_si512(limb, mask)
        }))
    }

    /// Repacks the limbs (each below 2^52) into 64-bit words.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn to_word_vectors<const WORDS: usize>(self) -> [__m512i; WORDS] {
        let mut words = [_mm512_setzero_si512(); WORDS];
        for (i, limb) in self.0.into_iter().enumerate() {
            let bit = i * LIMB_BITS as usize;
            let (word, shift) = (bit / 64, bit % 64);
            if word < WORDS {
                let low = _mm512_sllv_epi64(limb, _mm512_set1_epi64(shift as i64));
                words[word] = _mm512_or_si512(words[word], low);
            }
            if shift > 64 - LIMB_BITS as usize && word + 1 < WORDS {
                let high = _mm512_srlv_epi64(limb, _mm512_set1_epi64((64 - shift) as i64));
                words[word + 1] = _mm512_or_si512(words[word + 1], high);
            }
        }
        words
    }
}

/// Propagates carries so that every limb is below 2^52; returns the carry
/// out of the top limb.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
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
#[target_feature(enable = "avx512f,avx512ifma")]
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
#[target_feature(enable = "avx512f,avx512ifma")]
fn reduce_once<const WORDS: usize, const LIMBS: usize>(
    value: [__m512i; LIMBS],
    modulus: &Modulus<WORDS, LIMBS>,
) -> [__m512i; LIMBS] {
    let p = modulus.limbs.map(|l| _mm512_set1_epi64(l as i64));
    let (reduced, negative) = subtract(&value, &p);
    std::array::from_fn(|i| _mm512_mask_blend_epi64(negative, reduced[i], value[i]))
}

/// `a·b·2^(−64·WORDS) mod p`, lane by lane.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub fn mul<const WORDS: usize, const LIMBS: usize>(
    a: &Lanes<LIMBS>,
    b: &Lanes<LIMBS>,
    modulus: &Modulus<WORDS, LIMBS>,
) -> Lanes<LIMBS> {
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
    // Montgomery reduction by 2^(64·WORDS): whole rounds of 52 bits, then
    // one round of the remaining bits.
    let radix_bits = 64 * WORDS as u32;
    let rounds = (radix_bits / LIMB_BITS) as usize;
    let last_bits = radix_bits % LIMB_BITS;
    let add_multiple = |t: &mut [__m512i; 24], at: usize, m: __m512i| {
        for j in 0..LIMBS {
            t[at + j] = _mm512_madd52lo_epu64(t[at + j], m, p[j]);
            t[at + j + 1] = _mm512_madd52hi_epu64(t[at + j + 1], m, p[j]);
        }
    };
    for i in 0..rounds {
        let m = _mm512_and_si512(_mm512_madd52lo_epu64(zero, t[i], inv), mask);
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
    Lanes(reduce_once(high, modulus))
}

/// `a + b mod p`, lane by lane.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
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
#[target_feature(enable = "avx512f,avx512ifma")]
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

/// BLS12-381's base field: blst's `blst_fp`, six words, eight limbs.
pub const FP: Modulus<6, 8> = Modulus::new([
    0xb9fe_ffff_ffff_aaab,
    0x1eab_fffe_b153_ffff,
    0x6730_d2a0_f6b0_f624,
    0x6477_4b84_f385_12bf,
    0x4b1b_a7b6_434b_acd7,
    0x1a01_11ea_397f_e69a,
]);

/// BLS12-381's scalar field: blst's `blst_fr`, four words, five limbs.
pub const FR: Modulus<4, 5> = Modulus::new([
    0xffff_ffff_0000_0001,
    0x53bd_a402_fffe_5bfe,
    0x3339_d808_09a1_d805,
    0x73ed_a753_299d_7d48,
]);

#[cfg(test)]
mod tests {
    use super::*;

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
        if !available() {
            eprintln!("no AVX-512 IFMA on this CPU: nothing to test");
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
        if !available() {
            eprintln!("no AVX-512 IFMA on this CPU: nothing to test");
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

    /// Gathering records out of order and scattering them to other places
    /// moves exactly the words of the chosen lanes.
    #[test]
    fn gather_and_scatter_move_records() {
        if !available() {
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
