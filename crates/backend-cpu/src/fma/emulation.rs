//! A portable model of the AVX-512F and DQ floating-point instructions the
//! FMA lane code uses, beside the integer ones of [`crate::ifma::emulation`],
//! so that its tests run on any x86_64 CPU: each function has its
//! intrinsic's name and signature and computes it lane by lane with
//! IEEE-754 double arithmetic (`f64::mul_add` is the fused, singly rounded
//! product and sum an FMA computes). Where the CPU has the instructions,
//! the tests below compare each with its intrinsic.

// The intrinsics' own names, so that the lane code reads the same on both.
#![allow(non_camel_case_types)]

pub use crate::ifma::emulation::*;

/// 512 bits: eight doubles, lane 0 first.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct __m512d(pub [f64; 8]);

/// `f` of each pair of lanes.
fn zip(a: __m512d, b: __m512d, f: impl Fn(f64, f64) -> f64) -> __m512d {
    __m512d(std::array::from_fn(|j| f(a.0[j], b.0[j])))
}

/// `a` in every lane.
#[inline]
pub fn _mm512_set1_pd(a: f64) -> __m512d {
    __m512d([a; 8])
}

/// All lanes zero.
#[inline]
pub fn _mm512_setzero_pd() -> __m512d {
    __m512d([0.0; 8])
}

/// `a + b`, each lane rounded to nearest.
#[inline]
pub fn _mm512_add_pd(a: __m512d, b: __m512d) -> __m512d {
    zip(a, b, |a, b| a + b)
}

/// `a − b`, each lane rounded to nearest.
#[inline]
pub fn _mm512_sub_pd(a: __m512d, b: __m512d) -> __m512d {
    zip(a, b, |a, b| a - b)
}

/// `a·b + c` with one rounding, each lane.
#[inline]
pub fn _mm512_fmadd_pd(a: __m512d, b: __m512d, c: __m512d) -> __m512d {
    __m512d(std::array::from_fn(|j| a.0[j].mul_add(b.0[j], c.0[j])))
}

/// The doubles' bits as 64-bit integers.
#[inline]
pub fn _mm512_castpd_si512(a: __m512d) -> __m512i {
    __m512i(a.0.map(f64::to_bits))
}

/// 64-bit integers' bits as doubles.
#[inline]
pub fn _mm512_castsi512_pd(a: __m512i) -> __m512d {
    __m512d(a.0.map(f64::from_bits))
}

/// The sign bit of each 64-bit lane.
#[inline]
pub fn _mm512_movepi64_mask(a: __m512i) -> __mmask8 {
    (0..8).fold(0, |mask, j| mask | (((a.0[j] >> 63) as u8) << j))
}

/// The low 64 bits of each lane's product.
#[inline]
pub fn _mm512_mullo_epi64(a: __m512i, b: __m512i) -> __m512i {
    __m512i(std::array::from_fn(|j| a.0[j].wrapping_mul(b.0[j])))
}

/// The emulation against the hardware, on values the lane code meets
/// (exact integers below 2^53, and at 2^52 and at 2^100 and beyond) and
/// signed fractions, where the CPU has the instructions.
#[cfg(test)]
mod tests {
    use super::*;
    use std::arch::x86_64 as hw;

    // The conversions below are `#[target_feature]` functions: the test
    // calls them only where `avx512f::available()`.
    macro_rules! hw_fns {
        ($($function:item)*) => {
            $(
                #[target_feature(enable = "avx512f,avx512dq")]
                $function
            )*
        };
    }

    hw_fns!(
        fn to_hw(a: __m512d) -> hw::__m512d {
            // SAFETY: an unaligned load of 64 bytes from an array of 8 f64.
            unsafe { hw::_mm512_loadu_pd(a.0.as_ptr()) }
        }

        fn bits(a: hw::__m512d) -> [u64; 8] {
            let mut out = [0f64; 8];
            // SAFETY: an unaligned store of 64 bytes into an array of 8 f64.
            unsafe { hw::_mm512_storeu_pd(out.as_mut_ptr(), a) };
            out.map(f64::to_bits)
        }

        fn integers(a: hw::__m512i) -> [u64; 8] {
            let mut out = [0u64; 8];
            // SAFETY: an unaligned store of 64 bytes into an array of 8 u64.
            unsafe { hw::_mm512_storeu_si512(out.as_mut_ptr().cast(), a) };
            out
        }

        fn compare(a: __m512d, b: __m512d, c: __m512d) {
            let (ha, hb, hc) = (to_hw(a), to_hw(b), to_hw(c));
            let same = |emulated: __m512d, hardware: hw::__m512d, name: &str| {
                assert_eq!(
                    emulated.0.map(f64::to_bits),
                    bits(hardware),
                    "{name} of {a:?}, {b:?}, {c:?}"
                );
            };
            same(_mm512_add_pd(a, b), hw::_mm512_add_pd(ha, hb), "add");
            same(_mm512_sub_pd(a, b), hw::_mm512_sub_pd(ha, hb), "sub");
            same(
                _mm512_fmadd_pd(a, b, c),
                hw::_mm512_fmadd_pd(ha, hb, hc),
                "fmadd",
            );
            let (ia, ib) = (_mm512_castpd_si512(a), _mm512_castpd_si512(b));
            let (hia, hib) = (hw::_mm512_castpd_si512(ha), hw::_mm512_castpd_si512(hb));
            assert_eq!(ia.0, integers(hia), "castpd_si512");
            assert_eq!(
                _mm512_mullo_epi64(ia, ib).0,
                integers(hw::_mm512_mullo_epi64(hia, hib)),
                "mullo"
            );
            assert_eq!(
                _mm512_movepi64_mask(ia),
                hw::_mm512_movepi64_mask(hia),
                "movepi64_mask"
            );
        }
    );

    #[test]
    fn emulation_matches_intrinsics() {
        if !crate::fma::avx512f::runs_test(module_path!(), "emulation_matches_intrinsics") {
            return;
        }
        let mut state = 0x0123_4567_89ab_cdefu64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let two_52 = 4_503_599_627_370_496.0;
        let two_100 = 1_267_650_600_228_229_401_496_703_205_376.0;
        for round in 0..2000 {
            let lane = |next: &mut dyn FnMut() -> u64| match round % 4 {
                0 => (next() >> 16) as f64,
                1 => two_52 + (next() >> 12) as f64,
                2 => two_100 + ((next() >> 16) as f64) * 281_474_976_710_656.0,
                _ => (next() as i64) as f64 / 1024.0,
            };
            let vector =
                |next: &mut dyn FnMut() -> u64| __m512d(std::array::from_fn(|_| lane(next)));
            let (a, b, c) = (vector(&mut next), vector(&mut next), vector(&mut next));
            // SAFETY: `runs_test` checked that the CPU has the instructions.
            unsafe { compare(a, b, c) };
        }
    }
}
