//! Eight base-field multiplications at once on the double-precision FMA
//! units of AVX-512F, for CPUs with AVX-512 but without IFMA (Skylake-SP
//! and Cascade Lake Xeons): the lane arithmetic of the batch-affine adder
//! there (`batch_affine::fma_lanes`), in place of blst's one-at-a-time
//! products.
//!
//! An FMA multiplies 53-bit mantissas exactly. The limbs are 48 bits, so
//! that a 48 × 48-bit product splits into a multiple of 2^48 and a signed
//! rest below 2^47, and a column's sixteen of each fit one double
//! accumulator apiece. For a column, `high` starts at 2^100, where doubles
//! are 2^48 apart: `high' = fma(x, y, high)` adds `xy` rounded to a
//! multiple of 2^48, and `fma(x, y, high − high')` is the exact rest, added
//! to `low`, which starts at 3·2^51, where doubles are the integers. Both
//! accumulators' bits read as integers give the column's value plus known
//! constants ([`Modulus::offsets`]). So a limb product costs two FMAs, a
//! subtraction and an addition.
//!
//! The product is Montgomery's with blst's radix `R = 2^384` (eight limbs
//! of 48 bits are exactly blst's six words, repacked), product scanning
//! with the reduction interleaved: a column's factor `m` is one 64-bit low
//! product (`vpmullq`, AVX-512DQ) of its low bits, and its carry
//! `(column + m·p₀)/2^48` one more FMA. The other operations (addition,
//! subtraction, the final subtraction of p) work on the limbs as integers;
//! the product converts its factors to doubles and returns integers.
//! `crates/backend-cpu/examples/fma_montgomery.rs` is the same product on
//! AVX2's four lanes, timed against blst's; the MSMs on these eight lanes
//! are timed by `bench backend` (docs/benchmarks.md).

pub mod avx512f;
#[cfg(test)]
pub mod emulation;

/// The lane arithmetic on AVX-512F's FMA units: what production runs.
// Its source, `fma/arithmetic.rs`, is `emulated`'s too.
#[path = "fma"]
pub mod hardware {
    /// The instructions this instance is compiled for.
    pub(crate) use super::avx512f as isa;
    pub use super::FP;

    mod arithmetic;
    pub use arithmetic::*;
}

/// The same lane arithmetic on a portable model of the instructions, so
/// that tests check it on any CPU.
#[cfg(test)]
// Entering lane code takes `unsafe` on the hardware (its functions have
// target features); here the very same calls are safe.
#[allow(unused_unsafe)]
#[path = "fma"]
pub mod emulated {
    /// The instructions this instance is compiled for.
    pub(crate) use super::emulation as isa;
    pub use super::FP;

    // The hardware instance's file, on purpose: one source for both.
    #[allow(clippy::duplicate_mod)]
    mod arithmetic;
    pub use arithmetic::*;
}

/// Bits of a limb.
pub const LIMB_BITS: u32 = 48;
/// Limbs of an element.
pub const LIMBS: usize = 8;
/// The bits of a limb, as a mask.
pub const LIMB_MASK: u64 = (1 << LIMB_BITS) - 1;

/// The high accumulator's start, `2^100`: doubles in [2^100, 2^101) are
/// 2^48 apart, one limb.
const HIGH_START: f64 = 1_267_650_600_228_229_401_496_703_205_376.0;
const HIGH_START_BITS: u64 = 0x4630_0000_0000_0000;
/// The low accumulator's start, `3·2^51`, the middle of [2^52, 2^53),
/// where doubles are the integers.
const LOW_START: f64 = 6_755_399_441_055_744.0;
const LOW_START_BITS: u64 = 0x4338_0000_0000_0000;
/// `2^52`, and its bits: a 52-bit integer OR-ed into these bits is
/// `2^52 + x` as a double.
const TWO_52: f64 = 4_503_599_627_370_496.0;
const TWO_52_BITS: u64 = 0x4330_0000_0000_0000;
/// Added to every column so that its 64-bit value stays non-negative (the
/// low halves are signed); the next column takes `BIAS / 2^48` back.
const BIAS: u64 = 1 << 52;

/// The base field's modulus and the product's constants derived from it.
pub struct Modulus {
    /// The modulus in 48-bit limbs.
    limbs: [u64; LIMBS],
    /// `−p⁻¹ mod 2^48`.
    inverse: u64,
    /// `p₀ / 2^48`, exact.
    p0_scaled: f64,
    /// What to subtract from the sum of column `k`'s accumulators' bits
    /// and its incoming carry to get its value (plus the bias).
    offsets: [u64; 2 * LIMBS],
}

impl Modulus {
    /// The constants of the modulus given as six little-endian words,
    /// below `2^382` (so that `R = 2^384 > 4p`).
    const fn new(words: [u64; 6]) -> Self {
        let mut limbs = [0u64; LIMBS];
        let mut i = 0;
        while i < LIMBS {
            let bit = i * LIMB_BITS as usize;
            let (word, shift) = (bit / 64, bit % 64);
            let mut limb = words[word] >> shift;
            if shift + LIMB_BITS as usize > 64 {
                limb |= words[word + 1] << (64 - shift);
            }
            limbs[i] = limb & LIMB_MASK;
            i += 1;
        }
        // Newton's iteration: each step doubles the correct low bits.
        let mut inverse: u64 = 1;
        let mut step = 0;
        while step < 6 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(words[0].wrapping_mul(inverse)));
            step += 1;
        }
        let mut offsets = [0u64; 2 * LIMBS];
        let mut k = 0;
        while k < 2 * LIMBS {
            let mut offset = LOW_START_BITS.wrapping_add(HIGH_START_BITS);
            if k < 2 * LIMBS - 1 {
                offset = offset.wrapping_sub(BIAS);
            }
            if k > 0 {
                offset = offset.wrapping_add(BIAS >> LIMB_BITS);
            }
            if k >= 1 && k <= LIMBS {
                // The carry of column k − 1 came as the bits of 2^52 + carry.
                offset = offset.wrapping_add(TWO_52_BITS);
            }
            offsets[k] = offset;
            k += 1;
        }
        Self {
            limbs,
            inverse: inverse.wrapping_neg() & LIMB_MASK,
            p0_scaled: limbs[0] as f64 / (1u64 << LIMB_BITS) as f64,
            offsets,
        }
    }
}

/// The base field Fp of BLS12-381.
pub const FP: Modulus = Modulus::new(crate::FP_MODULUS);

#[cfg(test)]
mod tests;
