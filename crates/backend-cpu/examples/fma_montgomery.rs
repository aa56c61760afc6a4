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
//! one more FMA. The program checks the product against blst's
//! `blst_fp_mul` on random values, then times both over independent
//! products (a batch-affine adder's situation: with one, two or three
//! groups of four lanes interleaved in one call) and as a dependent chain.
//! It does not decide for the backend: the MSM keeps blst's multiplication
//! unless this shows a win (docs/benchmarks.md records the outcome).

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

    /// `a·b·2^−384 mod p` (blst's Montgomery product), below 2p for
    /// factors below 2p; `N` groups of four lanes at once, interleaved, so
    /// that one group's dependent steps overlap another's.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub fn mul<const N: usize>(a: &[Lanes; N], b: &[Lanes; N], c: &Constants) -> [Lanes; N] {
        let mut m = [[_mm256_setzero_pd(); LIMBS]; N];
        let mut result = [[_mm256_setzero_pd(); LIMBS]; N];
        let mut high = [_mm256_set1_pd(HIGH_START); N];
        let mut carry = [_mm256_setzero_si256(); N];
        macro_rules! columns {
            ($($k:literal)*) => {
                $(step::<$k, N>(a, b, &mut m, &mut result, &mut high, &mut carry, c);)*
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
        let out = unsafe {
            let (x, y) = (from_limbs(&at(&a)), from_limbs(&at(&b)));
            to_limbs(&mul::<1>(&[x], &[y], &constants)[0])
        };
        for (lane, limbs) in out.iter().enumerate() {
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
    println!("checked {count} products against blst: {failures} wrong");
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
    fn throughput<const N: usize>(vectors: &[Lanes], constants: &Constants, repeats: usize) -> f64 {
        let mut out: Vec<[Lanes; N]> = vectors
            .chunks_exact(N)
            .map(|c| std::array::from_fn(|n| c[n]))
            .collect();
        let factors = out.clone();
        let start = Instant::now();
        for _ in 0..repeats {
            for (k, v) in out.iter_mut().enumerate() {
                // SAFETY: the CPU has AVX2 and FMA.
                *v = unsafe { mul::<N>(v, &factors[(k + 1) % factors.len()], constants) };
            }
        }
        std::hint::black_box(&out);
        start.elapsed().as_nanos() as f64 / (repeats * vectors.len() * 4) as f64
    }
    for round in 0..5 {
        let groups = [
            throughput::<1>(&vectors, &constants, repeats),
            throughput::<2>(&vectors, &constants, repeats),
            throughput::<3>(&vectors[..vectors.len() / 3 * 3], &constants, repeats),
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
        let best = groups.iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "round {round}: blst {blst_ns:.1} ns per product; FMA {:.1} ns (one group of four \
             lanes), {:.1} (two), {:.1} (three): the best at {:.2}x blst's speed",
            groups[0],
            groups[1],
            groups[2],
            blst_ns / best
        );
    }
    for round in 0..2 {
        let steps = 200_000;
        let start = Instant::now();
        let mut x = vectors[0];
        for k in 0..steps {
            // SAFETY: the CPU has AVX2 and FMA.
            x = unsafe { mul::<1>(&[x], &[vectors[k % vectors.len()]], &constants)[0] };
        }
        std::hint::black_box(&x);
        let fma_ns = start.elapsed().as_nanos() as f64 / steps as f64;
        let start = Instant::now();
        let mut y = blst_a[0];
        for k in 0..steps {
            // SAFETY: blst reads and writes valid field elements.
            unsafe { blst_fp_mul(&mut y, &y, &blst_b[k % count]) };
        }
        std::hint::black_box(&y);
        let blst_ns = start.elapsed().as_nanos() as f64 / steps as f64;
        println!(
            "chain {round}: FMA {fma_ns:.1} ns per four products, blst {blst_ns:.1} ns per product"
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
