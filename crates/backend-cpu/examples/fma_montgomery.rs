//! A measured try of base-field (Fp, 381 bits) multiplication on the
//! double-precision FMA units of CPUs without AVX-512 IFMA (issue 18, the
//! H MSM's 2× goal), kept so that anyone can rerun it on their own CPU:
//! `cargo run --release -p backend-cpu --example fma_montgomery`.
//!
//! AVX2 has no 52-bit integer multiply-add, but its FMA units multiply
//! 53-bit mantissas exactly, four lanes at a time. The limbs are 48 bits,
//! held as exact doubles. For a column of the product, an accumulator
//! `high` starts at 2^100, where doubles are 2^48 apart (one limb): each
//! `high' = fma(x, y, high)` adds `xy` rounded to a multiple of 2^48, and
//! `fma(x, y, high − high')` is the exact signed rest, which is added to a
//! second accumulator `low` in [2^52, 2^53), where doubles are the
//! integers. At the column's end, both accumulators' bits, read as
//! integers, are the column's value plus known constants. So a
//! 48 × 48-bit product costs two FMAs, a subtraction and an addition,
//! which two FMA and two FADD pipes can issue every cycle.
//!
//! The product is Montgomery's with blst's radix `R = 2^384` (eight
//! limbs), product scanning with the reduction interleaved: a column's
//! factor `m` comes from its low bits by three 32-bit integer products
//! (`vpmuludq`), its carry `(column + m·p₀) / 2^48`, an exact integer, from
//! one more FMA. That chain of sixteen columns, each waiting for the
//! previous column's `m`, bounds it, so two more variants are timed:
//! - separated: `T = a·b`, then `m = (T mod R)·(−p⁻¹) mod R` as a whole
//!   (a half product), then `(T + m·p)/R`: three products of independent
//!   limb products joined by three carry chains of one-cycle integer
//!   operations;
//! - beside: the interleaved product with calls of blst's (scalar, `mulx`)
//!   product between its columns, since the integer multiplier and the FMA
//!   units are separate execution units a core could keep busy together.
//! - assembly: the interleaved product for two groups as straight-line
//!   assembly (`fma_montgomery.s`, unrolled by the assembler's macros), each
//!   value in a register of its own, where the compiled code spills a third
//!   of its instructions to the stack.
//!
//! The program checks the products against blst's `blst_fp_mul` on random
//! values, then times them over independent products (a batch-affine
//! adder's situation: with one, two or three groups of four lanes
//! interleaved in one call) and as a dependent chain.
//! It does not decide for the backend: on four lanes (AVX2) the MSM keeps
//! blst's multiplication, since this shows no win (docs/benchmarks.md).
//! The same product on AVX-512F's eight lanes is the backend's `fma`
//! module, for CPUs with AVX-512 but without IFMA.

#[cfg(target_arch = "x86_64")]
mod lanes {
    use std::arch::x86_64::*;

    /// Limbs per element.
    pub const LIMBS: usize = 8;
    /// Bits per limb.
    pub const BITS: u32 = 48;
    const MASK: u64 = (1 << BITS) - 1;
    /// The base field's modulus p, little-endian 64-bit words.
    pub const MODULUS: [u64; 6] = [
        0xb9fe_ffff_ffff_aaab,
        0x1eab_fffe_b153_ffff,
        0x6730_d2a0_f6b0_f624,
        0x6477_4b84_f385_12bf,
        0x4b1b_a7b6_434b_acd7,
        0x1a01_11ea_397f_e69a,
    ];

    /// Four elements, limb-sliced: `self[j]` holds limb j of each lane, as
    /// exact doubles.
    pub type Lanes = [__m256d; LIMBS];

    /// `2^52` as a double, and its bits.
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    const TWO_52_BITS: u64 = 0x4330_0000_0000_0000;
    /// The high halves' accumulator starts at `2^100`: doubles in
    /// [2^100, 2^101) are spaced 2^48 apart, one limb.
    const HIGH_START: f64 = 1_267_650_600_228_229_401_496_703_205_376.0;
    const HIGH_START_BITS: u64 = 0x4630_0000_0000_0000;
    /// The low halves' accumulator starts at `3·2^51`, the middle of
    /// [2^52, 2^53), where doubles are the integers.
    const LOW_START: f64 = 6_755_399_441_055_744.0;
    const LOW_START_BITS: u64 = 0x4338_0000_0000_0000;
    /// Added to every column so that its 64-bit value stays non-negative
    /// (low halves are signed); the next column takes `BIAS / 2^48` back.
    const BIAS: u64 = 1 << 52;

    /// The 48-bit limbs of a 384-bit value.
    pub fn limbs_of(words: &[u64; 6]) -> [u64; LIMBS] {
        std::array::from_fn(|j| {
            let bit = j * BITS as usize;
            let (word, shift) = (bit / 64, bit % 64);
            let mut value = words[word] >> shift;
            if shift + BITS as usize > 64 && word + 1 < 6 {
                value |= words[word + 1] << (64 - shift);
            }
            value & MASK
        })
    }

    /// The 384-bit value of eight 48-bit limbs.
    pub fn words_of(limbs: &[u64; LIMBS]) -> [u64; 6] {
        let mut words = [0u64; 6];
        for (j, &limb) in limbs.iter().enumerate() {
            let bit = j * BITS as usize;
            let (word, shift) = (bit / 64, bit % 64);
            words[word] |= limb << shift;
            if shift + BITS as usize > 64 && word + 1 < 6 {
                words[word + 1] |= limb >> (64 - shift);
            }
        }
        words
    }

    /// `−p⁻¹ mod 2^48`, by Newton's iteration.
    fn minus_inverse() -> u64 {
        let p0 = MODULUS[0];
        let mut inverse: u64 = 1;
        for _ in 0..6 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(p0.wrapping_mul(inverse)));
        }
        inverse.wrapping_neg() & MASK
    }

    /// What to subtract from the sum of a column's accumulators' bits and
    /// its incoming carry to get its value (plus the bias).
    fn offsets() -> [u64; 2 * LIMBS] {
        std::array::from_fn(|k| {
            let mut offset = LOW_START_BITS.wrapping_add(HIGH_START_BITS);
            if k < 2 * LIMBS - 1 {
                offset = offset.wrapping_sub(BIAS);
            }
            if k > 0 {
                offset = offset.wrapping_add(BIAS >> BITS);
            }
            if (1..=LIMBS).contains(&k) {
                // The carry of column k − 1 came as the bits of 2^52 + carry.
                offset = offset.wrapping_add(TWO_52_BITS);
            }
            offset
        })
    }

    /// The constants of the product, broadcast to every lane.
    pub struct Constants {
        modulus: Lanes,
        p0_scaled: __m256d,
        minus_inverse_low: __m256i,
        minus_inverse_high: __m256i,
        offsets: [__m256i; 2 * LIMBS],
    }

    impl Constants {
        /// # Safety
        /// The CPU must have AVX2 and FMA.
        #[target_feature(enable = "avx2,fma")]
        pub unsafe fn new() -> Self {
            let p = limbs_of(&MODULUS);
            let inverse = minus_inverse();
            Self {
                modulus: p.map(|limb| _mm256_set1_pd(limb as f64)),
                p0_scaled: _mm256_set1_pd(p[0] as f64 / (1u64 << BITS) as f64),
                minus_inverse_low: _mm256_set1_epi64x((inverse & 0xffff_ffff) as i64),
                minus_inverse_high: _mm256_set1_epi64x((inverse >> 32) as i64),
                offsets: offsets().map(|offset| _mm256_set1_epi64x(offset as i64)),
            }
        }
    }

    /// Four elements from limbs.
    #[target_feature(enable = "avx2,fma")]
    pub fn from_limbs(elements: &[[u64; LIMBS]; 4]) -> Lanes {
        std::array::from_fn(|j| {
            _mm256_set_pd(
                elements[3][j] as f64,
                elements[2][j] as f64,
                elements[1][j] as f64,
                elements[0][j] as f64,
            )
        })
    }

    /// The four elements' limbs.
    #[target_feature(enable = "avx2,fma")]
    pub fn to_limbs(lanes: &Lanes) -> [[u64; LIMBS]; 4] {
        let mut out = [[0u64; LIMBS]; 4];
        for (j, limb) in lanes.iter().enumerate() {
            let mut values = [0f64; 4];
            // SAFETY: an unaligned store of four doubles into an array of four.
            unsafe { _mm256_storeu_pd(values.as_mut_ptr(), *limb) };
            for (lane, value) in values.into_iter().enumerate() {
                out[lane][j] = value as u64;
            }
        }
        out
    }

    /// Adds `x·y` to the accumulators: its multiple of 2^48 to `high` (the
    /// next column's), the signed rest to `low`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn product(x: __m256d, y: __m256d, low: &mut __m256d, high: &mut __m256d) {
        let before = *high;
        *high = _mm256_fmadd_pd(x, y, before);
        let rest = _mm256_fmadd_pd(x, y, _mm256_sub_pd(before, *high));
        *low = _mm256_add_pd(*low, rest);
    }

    /// A 52-bit integer in each lane as an exact double.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn to_double(x: __m256i) -> __m256d {
        let biased = _mm256_or_si256(x, _mm256_set1_epi64x(TWO_52_BITS as i64));
        _mm256_sub_pd(_mm256_castsi256_pd(biased), _mm256_set1_pd(TWO_52))
    }

    std::arch::global_asm!(include_str!("fma_montgomery.s"));

    extern "sysv64" {
        /// [`mul`] of two groups in `fma_montgomery.s`.
        fn fma_montgomery_mul_x2(
            out: *mut f64,
            a: *const f64,
            b: *const f64,
            constants: *const AsmConstants,
            scratch: *mut f64,
        );
    }

    /// The constants of the assembly product, in the order
    /// `fma_montgomery.s` reads them, each in four lanes.
    #[repr(C, align(32))]
    pub struct AsmConstants {
        low_start: [f64; 4],
        high_start: [f64; 4],
        mask: [u64; 4],
        two_52_bits: [u64; 4],
        two_52: [f64; 4],
        inverse_2_48: [f64; 4],
        minus_16: [f64; 4],
        p0_scaled: [f64; 4],
        minus_inverse_low: [u64; 4],
        minus_inverse_high: [u64; 4],
        modulus: [[f64; 4]; LIMBS],
        offsets: [[u64; 4]; 2 * LIMBS],
    }

    impl AsmConstants {
        /// The constants of [`Constants`], laid out for the assembly.
        pub fn new() -> Self {
            let p = limbs_of(&MODULUS);
            let inverse = minus_inverse();
            Self {
                low_start: [LOW_START; 4],
                high_start: [HIGH_START; 4],
                mask: [MASK; 4],
                two_52_bits: [TWO_52_BITS; 4],
                two_52: [TWO_52; 4],
                inverse_2_48: [1.0 / (1u64 << BITS) as f64; 4],
                minus_16: [-16.0; 4],
                p0_scaled: [p[0] as f64 / (1u64 << BITS) as f64; 4],
                minus_inverse_low: [inverse & 0xffff_ffff; 4],
                minus_inverse_high: [inverse >> 32; 4],
                modulus: p.map(|limb| [limb as f64; 4]),
                offsets: offsets().map(|offset| [offset; 4]),
            }
        }
    }

    /// [`mul`] of two groups by the assembly.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    pub unsafe fn mul_asm(a: &[Lanes; 2], b: &[Lanes; 2], c: &AsmConstants) -> [Lanes; 2] {
        let mut out = std::mem::MaybeUninit::<[Lanes; 2]>::uninit();
        let mut scratch = std::mem::MaybeUninit::<[Lanes; 2]>::uninit();
        // SAFETY: the pointers are to 32-byte aligned values of the sizes
        // the assembly reads and writes; it writes all of `out`.
        unsafe {
            fma_montgomery_mul_x2(
                out.as_mut_ptr().cast(),
                a.as_ptr().cast(),
                b.as_ptr().cast(),
                c,
                scratch.as_mut_ptr().cast(),
            );
            out.assume_init()
        }
    }

    /// `−p⁻¹ mod 2^384` in 48-bit limbs, by Newton's iteration on six
    /// words (each step doubles the correct low bits).
    fn minus_inverse_wide() -> [u64; LIMBS] {
        let low_product = |x: &[u64; 6], y: &[u64; 6]| -> [u64; 6] {
            let mut out = [0u64; 6];
            for i in 0..6 {
                let mut carry = 0u128;
                for j in 0..6 - i {
                    let t = out[i + j] as u128 + x[i] as u128 * y[j] as u128 + carry;
                    out[i + j] = t as u64;
                    carry = t >> 64;
                }
            }
            out
        };
        let mut inverse = [1u64, 0, 0, 0, 0, 0];
        for _ in 0..9 {
            // inverse · (2 − p · inverse)
            let product = low_product(&MODULUS, &inverse);
            let mut two_minus = [0u64; 6];
            let mut borrow = 0u64;
            for (k, word) in two_minus.iter_mut().enumerate() {
                let minuend = if k == 0 { 2u64 } else { 0 };
                let (d, b1) = minuend.overflowing_sub(product[k]);
                let (d, b2) = d.overflowing_sub(borrow);
                *word = d;
                borrow = (b1 || b2) as u64;
            }
            inverse = low_product(&inverse, &two_minus);
        }
        // −inverse mod 2^384
        let mut negated = [0u64; 6];
        let mut borrow = 0u64;
        for (k, word) in negated.iter_mut().enumerate() {
            let (d, b1) = 0u64.overflowing_sub(inverse[k]);
            let (d, b2) = d.overflowing_sub(borrow);
            *word = d;
            borrow = (b1 || b2) as u64;
        }
        limbs_of(&negated)
    }

    /// The bias of the separated product's columns: column k < 15 carries
    /// `+SEPARATED_BIAS`, and column k > 0 the `−SEPARATED_BIAS / 2^48` its
    /// lower neighbour's carry brings, so each column's 64-bit value stays
    /// non-negative (logical shifts give its carry) and the total is
    /// unchanged. Large enough for a column of a·b plus one of m·p.
    const SEPARATED_BIAS: u64 = 1 << 56;

    /// The constants of [`mul_separated`], broadcast to every lane.
    pub struct SeparatedConstants {
        modulus: Lanes,
        minus_inverse: Lanes,
        /// Per column: the bias minus both accumulators' starting bits.
        offsets: [__m256i; 2 * LIMBS],
        /// The same for a sum of two products' columns.
        sum_offsets: [__m256i; 2 * LIMBS],
    }

    impl SeparatedConstants {
        /// # Safety
        /// The CPU must have AVX2 and FMA.
        #[target_feature(enable = "avx2,fma")]
        pub unsafe fn new() -> Self {
            let starts = LOW_START_BITS.wrapping_add(HIGH_START_BITS);
            let offset = |k: usize, products: u64| {
                let mut offset = 0u64.wrapping_sub(starts.wrapping_mul(products));
                if k < 2 * LIMBS - 1 {
                    offset = offset.wrapping_add(SEPARATED_BIAS);
                }
                if k > 0 {
                    offset = offset.wrapping_sub(SEPARATED_BIAS >> BITS);
                }
                _mm256_set1_epi64x(offset as i64)
            };
            let (mut offsets, mut sum_offsets) = (
                [_mm256_setzero_si256(); 2 * LIMBS],
                [_mm256_setzero_si256(); 2 * LIMBS],
            );
            for k in 0..2 * LIMBS {
                offsets[k] = offset(k, 1);
                sum_offsets[k] = offset(k, 2);
            }
            Self {
                modulus: limbs_of(&MODULUS).map(|limb| _mm256_set1_pd(limb as f64)),
                minus_inverse: minus_inverse_wide().map(|limb| _mm256_set1_pd(limb as f64)),
                offsets,
                sum_offsets,
            }
        }
    }

    /// The columns `0..COLUMNS` of `x·y` as 64-bit integers (each plus
    /// both accumulators' starting bits, not yet carried), column by
    /// column so that only one column's accumulators are live: no column
    /// waits for another, so the FMA units see long runs of independent
    /// work. (Plain loops here and below: a closure passed to
    /// `array::from_fn` is not compiled with the caller's AVX2, and its
    /// calls pass vectors through memory.)
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn columns<const COLUMNS: usize>(x: &Lanes, y: &Lanes) -> [__m256i; COLUMNS] {
        let mut out = [_mm256_setzero_si256(); COLUMNS];
        // The multiples of 2^48 of the previous column's products.
        let mut high = _mm256_set1_pd(HIGH_START);
        // Unrolled by hand: one call per column, each with constant bounds.
        macro_rules! columns {
            ($($k:literal)*) => {
                $(if $k < COLUMNS {
                    out[$k] = column::<$k>(x, y, &mut high);
                })*
            };
        }
        columns!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        out
    }

    /// Column `K` of `x·y`: its products' low halves plus `high`, the
    /// previous column's high halves, which it replaces by its own.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn column<const K: usize>(x: &Lanes, y: &Lanes, high: &mut __m256d) -> __m256i {
        let mut low = _mm256_set1_pd(LOW_START);
        let mut next = _mm256_set1_pd(HIGH_START);
        for i in K.saturating_sub(LIMBS - 1)..=K.min(LIMBS - 1) {
            product(x[i], y[K - i], &mut low, &mut next);
        }
        let column = _mm256_add_epi64(_mm256_castpd_si256(low), _mm256_castpd_si256(*high));
        *high = next;
        column
    }

    /// Adds `offsets` to the columns, and carries them into 48-bit limbs
    /// from the lowest: one add, mask and shift a column.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn carry<const COLUMNS: usize>(columns: &mut [__m256i; COLUMNS], offsets: &[__m256i]) {
        let mask = _mm256_set1_epi64x(MASK as i64);
        let mut carry = _mm256_setzero_si256();
        for (column, offset) in columns.iter_mut().zip(offsets) {
            let value = _mm256_add_epi64(_mm256_add_epi64(*column, *offset), carry);
            carry = _mm256_srli_epi64::<48>(value);
            *column = _mm256_and_si256(value, mask);
        }
    }

    /// The limbs `from..from + LIMBS` as exact doubles.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn doubles(limbs: &[__m256i], from: usize) -> Lanes {
        let mut out = [_mm256_setzero_pd(); LIMBS];
        for (value, &limb) in out.iter_mut().zip(&limbs[from..]) {
            *value = to_double(limb);
        }
        out
    }

    /// [`mul`] with the reduction separated from the product (Montgomery's
    /// reduction by whole numbers, not limb by limb): `T = a·b`,
    /// `m = (T mod R)·(−p⁻¹) mod R`, `(T + m·p)/R`. Three products of
    /// independent limb products joined by three carry chains of cheap
    /// integer operations, instead of a chain of sixteen columns each
    /// waiting for the previous column's factor.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub fn mul_separated<const N: usize>(
        a: &[Lanes; N],
        b: &[Lanes; N],
        c: &SeparatedConstants,
    ) -> [Lanes; N] {
        let mut result = [[_mm256_setzero_pd(); LIMBS]; N];
        for n in 0..N {
            let product: [__m256i; 2 * LIMBS] = columns(&a[n], &b[n]);
            let mut low = [_mm256_setzero_si256(); LIMBS];
            low.copy_from_slice(&product[..LIMBS]);
            carry(&mut low, &c.offsets);
            let mut m: [__m256i; LIMBS] = columns(&doubles(&low, 0), &c.minus_inverse);
            carry(&mut m, &c.offsets);
            let mut sum: [__m256i; 2 * LIMBS] = columns(&doubles(&m, 0), &c.modulus);
            for (total, part) in sum.iter_mut().zip(&product) {
                *total = _mm256_add_epi64(*total, *part);
            }
            carry(&mut sum, &c.sum_offsets);
            result[n] = doubles(&sum, LIMBS);
        }
        result
    }

    /// `a·b·2^−384 mod p` (blst's Montgomery product), below 2p for
    /// factors below 2p; `N` groups of four lanes at once, interleaved, so
    /// that one group's dependent steps overlap another's.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub fn mul<const N: usize>(a: &[Lanes; N], b: &[Lanes; N], c: &Constants) -> [Lanes; N] {
        mul_beside::<N, { 2 * LIMBS }>(a, b, c, || {})
    }

    /// [`mul`] with `beside` called after every `EVERY` columns: the
    /// integer multiplier (blst's products, called there) and the FMA
    /// units are separate execution units, so a core that overlaps the two
    /// streams gets both throughputs.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub fn mul_beside<const N: usize, const EVERY: usize>(
        a: &[Lanes; N],
        b: &[Lanes; N],
        c: &Constants,
        mut beside: impl FnMut(),
    ) -> [Lanes; N] {
        let mut m = [[_mm256_setzero_pd(); LIMBS]; N];
        let mut result = [[_mm256_setzero_pd(); LIMBS]; N];
        let mut high = [_mm256_set1_pd(HIGH_START); N];
        let mut carry = [_mm256_setzero_si256(); N];
        macro_rules! columns {
            ($($k:literal)*) => {
                $(
                    step::<$k, N>(a, b, &mut m, &mut result, &mut high, &mut carry, c);
                    if ($k + 1) % EVERY == 0 {
                        beside();
                    }
                )*
            };
        }
        columns!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        result
    }

    /// Column `K` of the product: its products' low halves, `high` (the
    /// previous column's high halves) and `carry` make its value; leaves
    /// the next column's high halves and this column's carry there. Below
    /// `LIMBS`, also the reduction's factor `m[K]`; from there on, a limb
    /// of the result.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    // `i` indexes one factor's limbs and, as `K − i`, the other's.
    #[allow(clippy::needless_range_loop)]
    fn step<const K: usize, const N: usize>(
        a: &[Lanes; N],
        b: &[Lanes; N],
        m: &mut [Lanes; N],
        result: &mut [Lanes; N],
        high: &mut [__m256d; N],
        carry: &mut [__m256i; N],
        c: &Constants,
    ) {
        let mask = _mm256_set1_epi64x(MASK as i64);
        let mut low = [_mm256_set1_pd(LOW_START); N];
        let mut next = [_mm256_set1_pd(HIGH_START); N];
        let (first, last) = (K.saturating_sub(LIMBS - 1), K.min(LIMBS - 1));
        // The factor m[K − 1] is the last to be known: its product last.
        for i in first..=last {
            for n in 0..N {
                product(a[n][i], b[n][K - i], &mut low[n], &mut next[n]);
            }
        }
        // m[i]·p[K − i] for i < K: column K's reduction terms.
        for i in first..=last.min(K.saturating_sub(1)) {
            if i >= K {
                break;
            }
            for n in 0..N {
                product(m[n][i], c.modulus[K - i], &mut low[n], &mut next[n]);
            }
        }
        for n in 0..N {
            let column = _mm256_sub_epi64(
                _mm256_add_epi64(
                    _mm256_add_epi64(_mm256_castpd_si256(low[n]), _mm256_castpd_si256(high[n])),
                    carry[n],
                ),
                c.offsets[K],
            );
            let x = _mm256_and_si256(column, mask);
            let shifted = _mm256_srli_epi64::<48>(column);
            high[n] = next[n];
            if K < LIMBS {
                // m = x·(−p⁻¹) mod 2^48 from 32-bit products.
                let x_high = _mm256_srli_epi64::<32>(x);
                let low = _mm256_mul_epu32(x, c.minus_inverse_low);
                let cross = _mm256_add_epi64(
                    _mm256_mul_epu32(x_high, c.minus_inverse_low),
                    _mm256_mul_epu32(x, c.minus_inverse_high),
                );
                let mk =
                    _mm256_and_si256(_mm256_add_epi64(low, _mm256_slli_epi64::<32>(cross)), mask);
                m[n][K] = to_double(mk);
                // (x + m·p₀) / 2^48: exact, and below 2^49.
                let x_scaled = _mm256_fmadd_pd(
                    _mm256_castsi256_pd(_mm256_or_si256(x, _mm256_set1_epi64x(TWO_52_BITS as i64))),
                    _mm256_set1_pd(1.0 / (1u64 << BITS) as f64),
                    _mm256_set1_pd(-16.0),
                );
                let sum = _mm256_fmadd_pd(m[n][K], c.p0_scaled, x_scaled);
                let sum_bits = _mm256_castpd_si256(_mm256_add_pd(sum, _mm256_set1_pd(TWO_52)));
                carry[n] = _mm256_add_epi64(shifted, sum_bits);
            } else {
                result[n][K - LIMBS] = to_double(x);
                carry[n] = shifted;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn main() {
    use blst::{blst_fp, blst_fp_mul};
    use lanes::*;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use std::time::Instant;

    if !(std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"))
    {
        println!("this CPU has no AVX2 and FMA; nothing to measure");
        return;
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(18);
    // Random values below p (the top word kept small).
    let mut element = || -> [u64; 6] {
        let mut words: [u64; 6] = std::array::from_fn(|_| rng.next_u64());
        words[5] &= 0x0fff_ffff_ffff_ffff;
        words
    };
    let blst_of = |words: [u64; 6]| blst_fp { l: words };
    // SAFETY: checked above that the CPU has AVX2 and FMA.
    let constants = unsafe { Constants::new() };
    // SAFETY: as above.
    let separated_constants = unsafe { SeparatedConstants::new() };
    let asm_constants = AsmConstants::new();

    // Correctness.
    let count = 4096;
    let a: Vec<[u64; 6]> = (0..count).map(|_| element()).collect();
    let b: Vec<[u64; 6]> = (0..count).map(|_| element()).collect();
    let mut failures = 0;
    for chunk in 0..count / 4 {
        let at = |v: &Vec<[u64; 6]>| -> [[u64; LIMBS]; 4] {
            std::array::from_fn(|l| limbs_of(&v[4 * chunk + l]))
        };
        // SAFETY: the CPU has AVX2 and FMA (checked above).
        let (interleaved, separated, assembly) = unsafe {
            let (x, y) = (from_limbs(&at(&a)), from_limbs(&at(&b)));
            (
                to_limbs(&mul::<1>(&[x], &[y], &constants)[0]),
                to_limbs(&mul_separated::<1>(&[x], &[y], &separated_constants)[0]),
                to_limbs(&mul_asm(&[x, y], &[y, x], &asm_constants)[1]),
            )
        };
        for (lane, limbs) in interleaved
            .iter()
            .chain(&separated)
            .chain(&assembly)
            .enumerate()
        {
            let lane = lane % 4;
            let k = 4 * chunk + lane;
            let mut expected = blst_fp::default();
            // SAFETY: blst reads and writes valid field elements.
            unsafe {
                blst_fp_mul(&mut expected, &blst_of(a[k]), &blst_of(b[k]));
            }
            let mut got = words_of(limbs);
            if !less_than(&got, &MODULUS) {
                got = subtract(&got, &MODULUS);
            }
            if got != expected.l {
                failures += 1;
            }
        }
    }
    println!(
        "checked {count} products against blst, each way (interleaved, separated, \
         assembly): {failures} wrong"
    );
    if failures > 0 {
        std::process::exit(1);
    }

    // Throughput over independent products, and a dependent chain.
    let vectors: Vec<Lanes> = (0..count / 4)
        .map(|chunk| {
            let limbs: [[u64; LIMBS]; 4] = std::array::from_fn(|l| limbs_of(&a[4 * chunk + l]));
            // SAFETY: the CPU has AVX2 and FMA.
            unsafe { from_limbs(&limbs) }
        })
        .collect();
    let blst_a: Vec<blst_fp> = a.iter().map(|&w| blst_of(w)).collect();
    let blst_b: Vec<blst_fp> = b.iter().map(|&w| blst_of(w)).collect();
    let repeats = 200;
    /// Nanoseconds per product of `product` over independent products,
    /// `N` groups of four lanes per call.
    fn throughput<const N: usize>(
        vectors: &[Lanes],
        repeats: usize,
        product: impl Fn(&[Lanes; N], &[Lanes; N]) -> [Lanes; N],
    ) -> f64 {
        let mut out: Vec<[Lanes; N]> = vectors
            .chunks_exact(N)
            .map(|c| std::array::from_fn(|n| c[n]))
            .collect();
        let factors = out.clone();
        let start = Instant::now();
        for _ in 0..repeats {
            for (k, v) in out.iter_mut().enumerate() {
                *v = product(v, &factors[(k + 1) % factors.len()]);
            }
        }
        std::hint::black_box(&out);
        start.elapsed().as_nanos() as f64 / (repeats * (vectors.len() / N * N) * 4) as f64
    }
    /// Nanoseconds per product with blst's products beside the FMA
    /// units': 16 / EVERY of them per four lanes.
    fn beside<const EVERY: usize>(
        vectors: &[Lanes],
        blst_a: &[blst_fp],
        blst_b: &[blst_fp],
        constants: &Constants,
        repeats: usize,
    ) -> f64 {
        let mut out = vectors.to_vec();
        let mut scalar = blst_a.to_vec();
        let calls = 16 / EVERY;
        let start = Instant::now();
        for _ in 0..repeats {
            let mut next = 0;
            for k in 0..out.len() {
                let factor = vectors[(k + 1) % vectors.len()];
                // SAFETY: the CPU has AVX2 and FMA; blst reads and
                // writes valid field elements.
                out[k] = unsafe {
                    mul_beside::<1, EVERY>(&[out[k]], &[factor], constants, || {
                        let at = next % scalar.len();
                        blst_fp_mul(&mut scalar[at], &scalar[at], &blst_b[at]);
                        next += 1;
                    })[0]
                };
            }
        }
        std::hint::black_box((&out, &scalar));
        let products = repeats * out.len() * (4 + calls);
        start.elapsed().as_nanos() as f64 / products as f64
    }
    for round in 0..5 {
        // SAFETY (each closure): the CPU has AVX2 and FMA (checked above).
        let interleaved = [
            throughput::<1>(&vectors, repeats, |x, y| unsafe { mul(x, y, &constants) }),
            throughput::<2>(&vectors, repeats, |x, y| unsafe { mul(x, y, &constants) }),
            throughput::<3>(&vectors, repeats, |x, y| unsafe { mul(x, y, &constants) }),
        ];
        let separated = [
            throughput::<1>(&vectors, repeats, |x, y| unsafe {
                mul_separated(x, y, &separated_constants)
            }),
            throughput::<2>(&vectors, repeats, |x, y| unsafe {
                mul_separated(x, y, &separated_constants)
            }),
        ];
        let assembly = throughput::<2>(&vectors, repeats, |x, y| unsafe {
            mul_asm(x, y, &asm_constants)
        });
        let mixed = [
            beside::<4>(&vectors, &blst_a, &blst_b, &constants, repeats),
            beside::<6>(&vectors, &blst_a, &blst_b, &constants, repeats),
            beside::<8>(&vectors, &blst_a, &blst_b, &constants, repeats),
        ];
        let start = Instant::now();
        let mut out = blst_a.clone();
        for _ in 0..repeats {
            for (k, v) in out.iter_mut().enumerate() {
                // SAFETY: blst reads and writes valid field elements.
                unsafe { blst_fp_mul(v, v, &blst_b[k]) };
            }
        }
        std::hint::black_box(&out);
        let blst_ns = start.elapsed().as_nanos() as f64 / (repeats * count) as f64;
        let best = |times: &[f64]| times.iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "round {round}: blst {blst_ns:.1} ns per product; FMA interleaved {:.1} ns (one \
             group of four lanes), {:.1} (two), {:.1} (three), the best at {:.2}x blst's speed; \
             separated {:.1} (one), {:.1} (two), the best at {:.2}x; beside blst's, {:.1} \
             (four of blst's per four lanes), {:.1} (two), {:.1} (two, later ones), the best at {:.2}x; \
             assembly (two groups) {:.1}, {:.2}x",
            interleaved[0],
            interleaved[1],
            interleaved[2],
            blst_ns / best(&interleaved),
            separated[0],
            separated[1],
            blst_ns / best(&separated),
            mixed[0],
            mixed[1],
            mixed[2],
            blst_ns / best(&mixed),
            assembly,
            blst_ns / assembly,
        );
    }
    /// Nanoseconds per step of a chain of dependent products.
    fn chain(vectors: &[Lanes], product: impl Fn(&Lanes, &Lanes) -> Lanes) -> f64 {
        let steps = 200_000;
        let start = Instant::now();
        let mut x = vectors[0];
        for k in 0..steps {
            x = product(&x, &vectors[k % vectors.len()]);
        }
        std::hint::black_box(&x);
        start.elapsed().as_nanos() as f64 / steps as f64
    }
    for round in 0..2 {
        // SAFETY (each closure): the CPU has AVX2 and FMA (checked above).
        let interleaved = chain(&vectors, |x, y| unsafe { mul(&[*x], &[*y], &constants)[0] });
        let separated = chain(&vectors, |x, y| unsafe {
            mul_separated(&[*x], &[*y], &separated_constants)[0]
        });
        let steps = 200_000;
        let start = Instant::now();
        let mut y = blst_a[0];
        for k in 0..steps {
            // SAFETY: blst reads and writes valid field elements.
            unsafe { blst_fp_mul(&mut y, &y, &blst_b[k % count]) };
        }
        std::hint::black_box(&y);
        let blst_ns = start.elapsed().as_nanos() as f64 / steps as f64;
        println!(
            "chain {round}: FMA interleaved {interleaved:.1} ns per four products, separated \
             {separated:.1}; blst {blst_ns:.1} ns per product"
        );
    }
}

/// `a < b` for little-endian words.
#[cfg(target_arch = "x86_64")]
fn less_than(a: &[u64; 6], b: &[u64; 6]) -> bool {
    for k in (0..6).rev() {
        if a[k] != b[k] {
            return a[k] < b[k];
        }
    }
    false
}

/// `a − b` for little-endian words, `a ≥ b`.
#[cfg(target_arch = "x86_64")]
fn subtract(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
    let mut borrow = false;
    std::array::from_fn(|k| {
        let (d, b1) = a[k].overflowing_sub(b[k]);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        borrow = b1 || b2;
        d
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("x86_64 only");
}
