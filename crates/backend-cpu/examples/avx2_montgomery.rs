//! The measured try of an AVX2 scalar-field multiplication for the NTT on
//! CPUs without AVX-512 IFMA (issue 18, lever 4), kept so that anyone can
//! rerun it on their own CPU: `cargo run --release -p backend-cpu
//! --example avx2_montgomery`.
//!
//! AVX2 multiplies 32-bit halves of four 64-bit lanes at once
//! (`vpmuludq`). A Montgomery product of 255-bit values in nine 29-bit
//! limbs (R = 2^261, so that sums of 58-bit partial products never leave
//! a lane) takes 9 × 19 = 171 of them for four products, against 32 `mulx`
//! for one product in blst's `mul_mont_sparse_256`. This program checks the
//! four-lane product against blst, then times both as throughput over
//! independent products (the NTT's situation). It does not decide for the
//! backend: the scalar NTT keeps blst unless this shows a win
//! (docs/benchmarks.md records the outcome).

#[cfg(target_arch = "x86_64")]
mod lanes {
    use std::arch::x86_64::*;

    /// Limbs per element.
    pub const LIMBS: usize = 9;
    /// Bits per limb.
    pub const BITS: u32 = 29;
    const MASK: u64 = (1 << BITS) - 1;
    /// The modulus r, little-endian 64-bit words.
    pub const MODULUS: [u64; 4] = [
        0xffff_ffff_0000_0001,
        0x53bd_a402_fffe_5bfe,
        0x3339_d808_09a1_d805,
        0x73ed_a753_299d_7d48,
    ];

    /// Four elements, limb-sliced: `limb[j]` holds limb j of each lane.
    pub type Lanes = [__m256i; LIMBS];

    /// The 29-bit limbs of a 256-bit value.
    pub fn limbs_of(words: &[u64; 4]) -> [u64; LIMBS] {
        std::array::from_fn(|j| {
            let bit = j * BITS as usize;
            let (word, shift) = (bit / 64, bit % 64);
            let mut value = words[word] >> shift;
            if shift + BITS as usize > 64 && word + 1 < 4 {
                value |= words[word + 1] << (64 - shift);
            }
            value & MASK
        })
    }

    /// The 256-bit value of nine 29-bit limbs (below 2^256).
    pub fn words_of(limbs: &[u64; LIMBS]) -> [u64; 4] {
        let mut words = [0u64; 4];
        for (j, &limb) in limbs.iter().enumerate() {
            let bit = j * BITS as usize;
            let (word, shift) = (bit / 64, bit % 64);
            words[word] |= limb << shift;
            if shift + BITS as usize > 64 && word + 1 < 4 {
                words[word + 1] |= limb >> (64 - shift);
            }
        }
        words
    }

    /// `−r⁻¹ mod 2^29`, by Newton's iteration.
    fn minus_inverse() -> u64 {
        let r0 = MODULUS[0];
        let mut inverse: u64 = 1;
        for _ in 0..5 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(r0.wrapping_mul(inverse)));
        }
        inverse.wrapping_neg() & MASK
    }

    /// The constants of the product, broadcast to every lane.
    pub struct Constants {
        modulus: Lanes,
        minus_inverse: __m256i,
        mask: __m256i,
    }

    impl Constants {
        /// Broadcasts r and `−r⁻¹ mod 2^29`.
        ///
        /// # Safety
        /// The CPU must have AVX2.
        #[target_feature(enable = "avx2")]
        pub unsafe fn new() -> Self {
            let modulus = limbs_of(&MODULUS);
            Self {
                modulus: std::array::from_fn(|j| _mm256_set1_epi64x(modulus[j] as i64)),
                minus_inverse: _mm256_set1_epi64x(minus_inverse() as i64),
                mask: _mm256_set1_epi64x(MASK as i64),
            }
        }
    }

    /// `a·b·2^−261 mod r` in four lanes, for limbs below 2^29 and values
    /// below 2r (so products of products can be chained); the result's
    /// limbs are 29-bit and its value below 2r (not fully reduced).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn product(a: &Lanes, b: &Lanes, k: &Constants) -> Lanes {
        let mut t = [_mm256_setzero_si256(); LIMBS + 1];
        for &a_i in a {
            for (t_j, b_j) in t.iter_mut().zip(b) {
                *t_j = _mm256_add_epi64(*t_j, _mm256_mul_epu32(a_i, *b_j));
            }
            let m = _mm256_and_si256(_mm256_mul_epu32(t[0], k.minus_inverse), k.mask);
            for (t_j, r_j) in t.iter_mut().zip(&k.modulus) {
                *t_j = _mm256_add_epi64(*t_j, _mm256_mul_epu32(m, *r_j));
            }
            // t[0] is now a multiple of 2^29: shift one limb down.
            t[1] = _mm256_add_epi64(t[1], _mm256_srli_epi64(t[0], BITS as i32));
            t.copy_within(1.., 0);
            t[LIMBS] = _mm256_setzero_si256();
        }
        let mut out = [_mm256_setzero_si256(); LIMBS];
        let mut carry = _mm256_setzero_si256();
        for (out_j, t_j) in out.iter_mut().zip(t) {
            let value = _mm256_add_epi64(t_j, carry);
            *out_j = _mm256_and_si256(value, k.mask);
            carry = _mm256_srli_epi64(value, BITS as i32);
        }
        out
    }
}

#[cfg(target_arch = "x86_64")]
fn main() {
    use blst::{blst_fr, blst_fr_from_uint64, blst_fr_inverse, blst_fr_mul};
    use lanes::*;
    use std::arch::x86_64::*;
    use std::time::Instant;

    if !is_x86_feature_detected!("avx2") {
        println!("this CPU has no AVX2: nothing to measure");
        return;
    }
    let field = |words: &[u64; 4]| {
        let mut out = blst_fr::default();
        // SAFETY: blst reads four words (below 2^256) and writes an element.
        unsafe { blst_fr_from_uint64(&mut out, words.as_ptr()) };
        out
    };
    let mul = |a: &blst_fr, b: &blst_fr| {
        let mut out = blst_fr::default();
        // SAFETY: blst multiplies two valid elements.
        unsafe { blst_fr_mul(&mut out, a, b) };
        out
    };
    // 2^−261 as a field element.
    let two = field(&[2, 0, 0, 0]);
    let mut power = field(&[1, 0, 0, 0]);
    for _ in 0..LIMBS as u32 * BITS {
        power = mul(&power, &two);
    }
    let mut inverse_r = blst_fr::default();
    // SAFETY: 2^261 is not zero modulo r.
    unsafe { blst_fr_inverse(&mut inverse_r, &power) };

    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // Values below 2^254 < r.
    let mut element = || [next(), next(), next(), next() >> 2];
    // SAFETY: AVX2 is present (checked above).
    let k = unsafe { Constants::new() };
    let slice = |values: &[[u64; 4]; 4]| -> Lanes {
        let limbs = values.map(|v| limbs_of(&v));
        // SAFETY: AVX2 is present (checked above).
        std::array::from_fn(|j| unsafe {
            _mm256_set_epi64x(
                limbs[3][j] as i64,
                limbs[2][j] as i64,
                limbs[1][j] as i64,
                limbs[0][j] as i64,
            )
        })
    };
    for _ in 0..250 {
        let x = [element(), element(), element(), element()];
        let y = [element(), element(), element(), element()];
        // SAFETY: AVX2 is present.
        let z = unsafe { product(&slice(&x), &slice(&y), &k) };
        for lane in 0..4 {
            let limbs: [u64; LIMBS] = std::array::from_fn(|j| {
                let mut words = [0u64; 4];
                // SAFETY: an unaligned store of one vector into four words.
                unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), z[j]) };
                words[lane]
            });
            let expected = mul(&mul(&field(&x[lane]), &field(&y[lane])), &inverse_r);
            assert_eq!(field(&words_of(&limbs)).l, expected.l, "lane {lane}");
        }
    }
    println!("AVX2 four-lane Montgomery product: 1000 products equal blst's");

    // Throughput over independent products, in cache (4096 elements).
    let vectors = 1024;
    let reps = 400;
    let products = (reps * vectors * 4) as f64;
    let mut xs: Vec<Lanes> = (0..vectors)
        .map(|_| slice(&[element(), element(), element(), element()]))
        .collect();
    let ys = xs.clone();
    let mut fx: Vec<blst_fr> = (0..4 * vectors).map(|_| field(&element())).collect();
    let fy = fx.clone();
    for round in 0..3 {
        let start = Instant::now();
        for _ in 0..reps {
            for (x, y) in xs.iter_mut().zip(&ys) {
                // SAFETY: AVX2 is present.
                *x = unsafe { product(x, y, &k) };
            }
        }
        let avx2 = start.elapsed().as_secs_f64() / products;
        let start = Instant::now();
        for _ in 0..reps {
            for (x, y) in fx.iter_mut().zip(&fy) {
                *x = mul(x, y);
            }
        }
        let blst = start.elapsed().as_secs_f64() / products;
        std::hint::black_box((&xs, &fx));
        println!(
            "round {round}: AVX2 {:.1} ns per product, blst {:.1} ns: AVX2 at {:.2}x blst's speed",
            avx2 * 1e9,
            blst * 1e9,
            blst / avx2
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("AVX2 is an x86_64 extension: nothing to measure here");
}
