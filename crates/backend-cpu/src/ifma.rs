//! Eight field multiplications at once with AVX-512 IFMA.
//!
//! blst multiplies one element at a time with 64-bit `mulx`; AVX-512 IFMA
//! multiplies eight 52-bit limb pairs per instruction. Eight elements are
//! held limb-sliced ([`hardware::Lanes`]: vector `i` holds limb `i` of all eight), so
//! independent multiplications (the additions of a batch-affine MSM, the
//! butterflies of an NTT stage) run eight at a time, about three times
//! blst's throughput on a Zen 4 core.
//!
//! The Montgomery radix is blst's own, `R = 2^(64·words)`, although the
//! limbs are 52 bits: the reduction runs whole 52-bit rounds, then one
//! shorter round for the remaining bits. So a lane holds exactly blst's
//! Montgomery value, and moving between blst's `[u64; words]` and lanes is
//! a repacking of bits, with no multiplication. `mul` and `reduce` return
//! canonical values (below the modulus), and `add` and `sub` do for
//! canonical operands; the `_unreduced`
//! operations and `reduce_below_2p` serve lazy reduction, each with its
//! stated bounds.
//!
//! The lane code (here [`hardware`], and the lane parts of
//! [`crate::batch_affine`] and of the NTT) is written once and compiled
//! twice: against [`avx512`], the intrinsics with their target features,
//! which production runs; and, for tests, against `emulation`, a portable
//! model of the same intrinsics with no target feature (`emulated`). So
//! the tests compare the very code production runs with blst on any x86_64
//! CPU, not only on one with the instructions.

/// Bits of a limb.
const LIMB_BITS: u32 = 52;
/// The bits of a limb, as a mask.
const LIMB_MASK: u64 = (1 << LIMB_BITS) - 1;

/// The environment variable that switches this module off when set to `0`:
/// then the backend runs what a CPU with AVX-512 but without IFMA runs (the
/// FMA lanes, `crate::fma`, for the MSMs; `PCE_CPU_AVX512=0` switches those
/// off too, for the scalar code).
pub const SWITCH: &str = "PCE_CPU_IFMA";

/// Whether this CPU has the instructions the module needs, and they are not
/// switched off with [`SWITCH`]` = 0`. Decided once per process.
pub fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        [SWITCH, crate::fma::avx512f::SWITCH]
            .iter()
            .all(|switch| std::env::var_os(switch).is_none_or(|value| value != "0"))
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512ifma")
    })
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

/// One element's 52-bit limbs, from its 64-bit words (blst's layout).
pub fn limbs_of<const WORDS: usize, const LIMBS: usize>(words: &[u64; WORDS]) -> [u64; LIMBS] {
    to_limbs(words)
}

/// 2p in normalized limbs.
fn twice<const WORDS: usize, const LIMBS: usize>(modulus: &Modulus<WORDS, LIMBS>) -> [u64; LIMBS] {
    let mut carry = 0;
    modulus.limbs.map(|limb| {
        let value = (limb << 1) + carry;
        carry = value >> LIMB_BITS;
        value & LIMB_MASK
    })
}

/// BLS12-381's base field: blst's `blst_fp`, six words, eight limbs.
pub const FP: Modulus<6, 8> = Modulus::new(crate::FP_MODULUS);

/// BLS12-381's scalar field: blst's `blst_fr`, four words, five limbs.
pub const FR: Modulus<4, 5> = Modulus::new([
    0xffff_ffff_0000_0001,
    0x53bd_a402_fffe_5bfe,
    0x3339_d808_09a1_d805,
    0x73ed_a753_299d_7d48,
]);

pub mod avx512;
#[cfg(test)]
pub mod emulation;

/// The lane arithmetic on the AVX-512 IFMA instructions: what production
/// runs.
// Its source, `ifma/arithmetic.rs`, is `emulated`'s too.
#[path = "ifma"]
pub mod hardware {
    /// The instructions this instance is compiled for.
    pub(crate) use super::avx512 as isa;
    pub use super::FP;

    mod arithmetic;
    pub use arithmetic::*;
}

/// The same lane arithmetic on the portable emulation of the instructions,
/// so that tests check it on any CPU.
#[cfg(test)]
// Entering lane code takes `unsafe` on the hardware (its functions have
// target features); here the very same calls are safe.
#[allow(unused_unsafe)]
#[path = "ifma"]
pub mod emulated {
    /// The instructions this instance is compiled for.
    pub(crate) use super::emulation as isa;
    pub use super::FP;

    // The hardware instance's file, on purpose: one source for both.
    #[allow(clippy::duplicate_mod)]
    mod arithmetic;
    pub use arithmetic::*;
}

/// The emulated instance against the hardware one, on random inputs (not
/// only field elements): a check that the emulation is faithful, so that
/// its passing tests stand for the hardware's.
#[cfg(test)]
mod tests {
    use super::avx512::lane_fns;
    use super::{emulated, hardware, Modulus, FP, FR};

    /// Eight random values of `W` words.
    fn words<const W: usize>(state: &mut u64) -> [[u64; W]; 8] {
        std::array::from_fn(|_| {
            std::array::from_fn(|_| {
                *state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *state ^ (*state >> 31)
            })
        })
    }

    /// Every operation of the instance `$lanes` on `$x` and `$y`, as words.
    macro_rules! results {
        ($lanes:ident, $x:expr, $y:expr, $modulus:expr) => {{
            use $lanes as ifma;
            let (a, b) = (ifma::Lanes::from_words($x), ifma::Lanes::from_words($y));
            let m = $modulus;
            let below_2p = ifma::reduce_below_2p(&b, m);
            let mut rows = [a, b, a, b, a, b, a, b];
            ifma::transpose(&mut rows);
            [
                ifma::mul(&a, &b, m),
                ifma::mul_unreduced(&a, &b, m),
                ifma::mul_unreduced_wide(&a, &b, m),
                ifma::add(&a, &b, m),
                ifma::sub(&a, &b, m),
                ifma::add_unreduced(&a, &b),
                ifma::sub_unreduced(&a, &below_2p, m),
                below_2p,
                ifma::reduce(&below_2p, m),
                rows[3],
            ]
            .map(|lanes| lanes.to_words())
        }};
    }

    lane_fns!(
        fn compare<const W: usize, const L: usize>(modulus: &Modulus<W, L>, seed: u64) {
            let mut state = seed;
            for round in 0..500 {
                let (x, y) = (words::<W>(&mut state), words::<W>(&mut state));
                let hardware: [[[u64; W]; 8]; 10] = results!(hardware, &x, &y, modulus);
                let emulated: [[[u64; W]; 8]; 10] = results!(emulated, &x, &y, modulus);
                for (op, (h, e)) in hardware.iter().zip(&emulated).enumerate() {
                    assert_eq!(h, e, "operation {op}, round {round}, {x:?}, {y:?}");
                }
            }
        }
    );

    #[test]
    fn emulated_arithmetic_matches_hardware() {
        if !super::available() {
            pce_testkit::skip(
                "ifma::emulated_arithmetic_matches_hardware",
                "no AVX-512 IFMA on this CPU",
            );
            return;
        }
        // SAFETY: the CPU has the features (checked above).
        unsafe {
            compare(&FP, 1);
            compare(&FR, 2);
        }
    }
}
