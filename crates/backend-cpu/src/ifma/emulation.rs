//! A portable model of the AVX-512 instructions the lane code uses, so
//! that its tests run on any x86_64 CPU.
//!
//! Each function has the name and signature of its intrinsic in
//! `std::arch::x86_64` and computes what Intel's Intrinsics Guide says it
//! computes, lane by lane on plain integers, with no target feature: the
//! emulated instance of the lane code ([`super::emulated`]) is the very
//! source production runs, compiled against this module instead of
//! [`super::avx512`]. Where the CPU has the instructions, the tests below
//! compare every function with its intrinsic on random inputs, so that the
//! model cannot drift from the hardware unnoticed.

// The intrinsics' own names, so that the lane code reads the same on both.
#![allow(non_camel_case_types)]

/// 512 bits: eight 64-bit lanes, lane 0 first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct __m512i(pub [u64; 8]);

/// 256 bits: four 64-bit lanes, lane 0 first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct __m256i(pub [u64; 4]);

/// 128 bits: two 64-bit lanes, lane 0 first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct __m128i(pub [u64; 2]);

/// One bit per 64-bit lane of a 512-bit vector, lane 0 the lowest.
pub type __mmask8 = u8;

/// The emulation runs everywhere.
pub fn available() -> bool {
    true
}

/// Every test of the lane code runs on the emulation.
pub fn runs_test(_module: &str, _test: &str) -> bool {
    true
}

/// The functions given, as they are: no target features, so they run on
/// any CPU.
macro_rules! lane_fns {
    ($($function:item)*) => {
        $($function)*
    };
}
pub(crate) use lane_fns;

const LOW_52: u64 = (1 << 52) - 1;

/// `f` of each lane.
fn map(a: __m512i, f: impl Fn(u64) -> u64) -> __m512i {
    __m512i(a.0.map(f))
}

/// `f` of each pair of lanes.
fn zip(a: __m512i, b: __m512i, f: impl Fn(u64, u64) -> u64) -> __m512i {
    __m512i(std::array::from_fn(|j| f(a.0[j], b.0[j])))
}

/// `value << count`, zero from a count of 64 on (Intel's shifts saturate).
fn shift_left(value: u64, count: u64) -> u64 {
    value
        .checked_shl(count.try_into().unwrap_or(u32::MAX))
        .unwrap_or(0)
}

/// `value >> count` with zeros shifted in, zero from a count of 64 on.
fn shift_right(value: u64, count: u64) -> u64 {
    value
        .checked_shr(count.try_into().unwrap_or(u32::MAX))
        .unwrap_or(0)
}

/// All lanes zero.
#[inline]
pub fn _mm512_setzero_si512() -> __m512i {
    __m512i([0; 8])
}

/// `a` in every lane.
#[inline]
pub fn _mm512_set1_epi64(a: i64) -> __m512i {
    __m512i([a as u64; 8])
}

/// The lanes from the highest (`e7`) to the lowest (`e0`), as Intel orders
/// the arguments.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn _mm512_set_epi64(
    e7: i64,
    e6: i64,
    e5: i64,
    e4: i64,
    e3: i64,
    e2: i64,
    e1: i64,
    e0: i64,
) -> __m512i {
    __m512i([e0, e1, e2, e3, e4, e5, e6, e7].map(|e| e as u64))
}

/// 64 bytes from `mem_addr`, any alignment.
///
/// # Safety
///
/// `mem_addr` must be valid for reading 64 bytes.
#[inline]
pub unsafe fn _mm512_loadu_si512(mem_addr: *const __m512i) -> __m512i {
    // SAFETY: readable by the caller's promise; an unaligned read.
    unsafe { mem_addr.read_unaligned() }
}

/// Writes `a` as 64 bytes to `mem_addr`, any alignment.
///
/// # Safety
///
/// `mem_addr` must be valid for writing 64 bytes.
#[inline]
pub unsafe fn _mm512_storeu_si512(mem_addr: *mut __m512i, a: __m512i) {
    // SAFETY: writable by the caller's promise; an unaligned write.
    unsafe { mem_addr.write_unaligned(a) }
}

/// 32 bytes from `mem_addr`, any alignment.
///
/// # Safety
///
/// `mem_addr` must be valid for reading 32 bytes.
#[inline]
pub unsafe fn _mm256_loadu_si256(mem_addr: *const __m256i) -> __m256i {
    // SAFETY: readable by the caller's promise; an unaligned read.
    unsafe { mem_addr.read_unaligned() }
}

/// Writes `a` as 32 bytes to `mem_addr`, any alignment.
///
/// # Safety
///
/// `mem_addr` must be valid for writing 32 bytes.
#[inline]
pub unsafe fn _mm256_storeu_si256(mem_addr: *mut __m256i, a: __m256i) {
    // SAFETY: writable by the caller's promise; an unaligned write.
    unsafe { mem_addr.write_unaligned(a) }
}

/// Lane `j`: the 64 bits at byte address `slice + offsets[j]·SCALE`.
///
/// # Safety
///
/// Every such address must be valid for reading 8 bytes.
#[inline]
pub unsafe fn _mm512_i64gather_epi64<const SCALE: i32>(
    offsets: __m512i,
    slice: *const i64,
) -> __m512i {
    map(offsets, |offset| {
        let at = slice.wrapping_byte_offset(offset as isize * SCALE as isize);
        // SAFETY: readable by the caller's promise; an unaligned read.
        unsafe { at.read_unaligned() as u64 }
    })
}

/// Writes lane `j` of `src`, for each `j` set in `mask`, to byte address
/// `slice + offsets[j]·SCALE`, from lane 0 up (a later lane overwrites an
/// earlier one at the same address).
///
/// # Safety
///
/// Every such address of a lane in `mask` must be valid for writing 8 bytes.
#[inline]
pub unsafe fn _mm512_mask_i64scatter_epi64<const SCALE: i32>(
    slice: *mut i64,
    mask: __mmask8,
    offsets: __m512i,
    src: __m512i,
) {
    for j in (0..8).filter(|j| mask >> j & 1 == 1) {
        let at = slice.wrapping_byte_offset(offsets.0[j] as isize * SCALE as isize);
        // SAFETY: writable by the caller's promise; an unaligned write.
        unsafe { at.write_unaligned(src.0[j] as i64) };
    }
}

/// `a + b`, lane by lane, modulo 2^64.
#[inline]
pub fn _mm512_add_epi64(a: __m512i, b: __m512i) -> __m512i {
    zip(a, b, u64::wrapping_add)
}

/// `a − b`, lane by lane, modulo 2^64.
#[inline]
pub fn _mm512_sub_epi64(a: __m512i, b: __m512i) -> __m512i {
    zip(a, b, u64::wrapping_sub)
}

/// `a + b` in the lanes set in `k`, `src` in the others.
#[inline]
pub fn _mm512_mask_add_epi64(src: __m512i, k: __mmask8, a: __m512i, b: __m512i) -> __m512i {
    _mm512_mask_blend_epi64(k, src, _mm512_add_epi64(a, b))
}

/// `a & b`.
#[inline]
pub fn _mm512_and_si512(a: __m512i, b: __m512i) -> __m512i {
    zip(a, b, |a, b| a & b)
}

/// `a | b`.
#[inline]
pub fn _mm512_or_si512(a: __m512i, b: __m512i) -> __m512i {
    zip(a, b, |a, b| a | b)
}

/// `b` in the lanes set in `k`, `a` in the others.
#[inline]
pub fn _mm512_mask_blend_epi64(k: __mmask8, a: __m512i, b: __m512i) -> __m512i {
    __m512i(std::array::from_fn(|j| {
        if k >> j & 1 == 1 {
            b.0[j]
        } else {
            a.0[j]
        }
    }))
}

/// Bit `j` set where lane `j` of `a & b` is not zero.
#[inline]
pub fn _mm512_test_epi64_mask(a: __m512i, b: __m512i) -> __mmask8 {
    (0..8).fold(0, |mask, j| mask | (u8::from(a.0[j] & b.0[j] != 0) << j))
}

/// Lane `j` of `a` shifted left by lane `j` of `count` (zero from 64 on).
#[inline]
pub fn _mm512_sllv_epi64(a: __m512i, count: __m512i) -> __m512i {
    zip(a, count, shift_left)
}

/// Lane `j` of `a` shifted right by lane `j` of `count`, zeros shifted in
/// (zero from 64 on).
#[inline]
pub fn _mm512_srlv_epi64(a: __m512i, count: __m512i) -> __m512i {
    zip(a, count, shift_right)
}

/// Every lane shifted left by the low 64 bits of `count` (zero from 64 on).
#[inline]
pub fn _mm512_sll_epi64(a: __m512i, count: __m128i) -> __m512i {
    map(a, |a| shift_left(a, count.0[0]))
}

/// Every lane shifted right by the low 64 bits of `count`, zeros shifted in
/// (zero from 64 on).
#[inline]
pub fn _mm512_srl_epi64(a: __m512i, count: __m128i) -> __m512i {
    map(a, |a| shift_right(a, count.0[0]))
}

/// Every lane shifted left by `IMM8` (zero from 64 on).
#[inline]
pub fn _mm512_slli_epi64<const IMM8: u32>(a: __m512i) -> __m512i {
    map(a, |a| shift_left(a, IMM8.into()))
}

/// Every lane shifted right by `IMM8`, zeros shifted in (zero from 64 on).
#[inline]
pub fn _mm512_srli_epi64<const IMM8: u32>(a: __m512i) -> __m512i {
    map(a, |a| shift_right(a, IMM8.into()))
}

/// Every lane shifted right by `IMM8`, sign bits shifted in (a count from
/// 64 on shifts by 63).
#[inline]
pub fn _mm512_srai_epi64<const IMM8: u32>(a: __m512i) -> __m512i {
    map(a, |a| ((a as i64) >> IMM8.min(63)) as u64)
}

/// `a` in the low 32 bits, zeros above.
#[inline]
pub fn _mm_cvtsi32_si128(a: i32) -> __m128i {
    __m128i([u64::from(a as u32), 0])
}

/// Lane `j`: lane `idx[j] mod 8` of `a`, or of `b` where bit 3 of `idx[j]`
/// is set.
#[inline]
pub fn _mm512_permutex2var_epi64(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
    map(idx, |i| {
        let from = if i & 8 == 0 { a } else { b };
        from.0[(i & 7) as usize]
    })
}

/// 128-bit blocks: the low two of `a` and the high two of `b`, each chosen by
/// two bits of `MASK` (block 0 by bits 0–1, ...).
#[inline]
pub fn _mm512_shuffle_i64x2<const MASK: i32>(a: __m512i, b: __m512i) -> __m512i {
    __m512i(std::array::from_fn(|j| {
        let block = j / 2;
        let from = if block < 2 { a } else { b };
        let chosen = (MASK >> (2 * block) & 3) as usize;
        from.0[2 * chosen + j % 2]
    }))
}

/// `a` with its 256-bit half `IMM8 & 1` replaced by `b`.
#[inline]
pub fn _mm512_inserti64x4<const IMM8: i32>(a: __m512i, b: __m256i) -> __m512i {
    let mut out = a;
    let half = (IMM8 & 1) as usize * 4;
    out.0[half..half + 4].copy_from_slice(&b.0);
    out
}

/// The 256-bit half `IMM1 & 1` of `a`.
#[inline]
pub fn _mm512_extracti64x4_epi64<const IMM1: i32>(a: __m512i) -> __m256i {
    let half = (IMM1 & 1) as usize * 4;
    __m256i(std::array::from_fn(|j| a.0[half + j]))
}

/// `a` in the low half; Intel leaves the high half undefined, here zero.
#[inline]
pub fn _mm512_castsi256_si512(a: __m256i) -> __m512i {
    __m512i(std::array::from_fn(|j| if j < 4 { a.0[j] } else { 0 }))
}

/// The low half of `a`.
#[inline]
pub fn _mm512_castsi512_si256(a: __m512i) -> __m256i {
    __m256i(std::array::from_fn(|j| a.0[j]))
}

/// The 104-bit product of the low 52 bits of `b` and of `c`.
fn product_52(b: u64, c: u64) -> u128 {
    u128::from(b & LOW_52) * u128::from(c & LOW_52)
}

/// Lane by lane, `a` plus the low 52 bits of the 104-bit product of the low
/// 52 bits of `b` and `c`, modulo 2^64.
#[inline]
pub fn _mm512_madd52lo_epu64(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    __m512i(std::array::from_fn(|j| {
        a.0[j].wrapping_add(product_52(b.0[j], c.0[j]) as u64 & LOW_52)
    }))
}

/// Lane by lane, `a` plus the high 52 bits of the 104-bit product of the low
/// 52 bits of `b` and `c`, modulo 2^64.
#[inline]
pub fn _mm512_madd52hi_epu64(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    __m512i(std::array::from_fn(|j| {
        a.0[j].wrapping_add((product_52(b.0[j], c.0[j]) >> 52) as u64)
    }))
}

/// Each function above against its intrinsic, on random lanes (with small
/// values and shift counts around 64 mixed in, where the edge cases lie).
#[cfg(test)]
mod tests {
    use std::arch::x86_64 as hw;

    use super::*;

    /// A deterministic stream of lanes: random, or near a boundary.
    struct Stream(u64);

    impl Stream {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = self.0 ^ (self.0 >> 29);
            match x % 8 {
                0 => x % 70,
                1 => (1 << 52) - x % 3,
                2 => u64::MAX - x % 3,
                _ => x.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            }
        }

        fn vector(&mut self) -> __m512i {
            __m512i(std::array::from_fn(|_| self.next()))
        }
    }

    // The conversions below are `#[target_feature]` functions: the tests
    // call them only where `super::super::available()`.
    macro_rules! hw_fns {
        ($($function:item)*) => {
            $(
                #[target_feature(enable = "avx512f,avx512ifma")]
                $function
            )*
        };
    }

    hw_fns!(
        fn to_hw(a: __m512i) -> hw::__m512i {
            // SAFETY: an unaligned load of 64 bytes from an array of 8 u64.
            unsafe { hw::_mm512_loadu_si512(a.0.as_ptr().cast()) }
        }

        fn from_hw(a: hw::__m512i) -> __m512i {
            let mut out = [0u64; 8];
            // SAFETY: an unaligned store of 64 bytes into an array of 8 u64.
            unsafe { hw::_mm512_storeu_si512(out.as_mut_ptr().cast(), a) };
            __m512i(out)
        }

        fn to_hw_256(a: __m256i) -> hw::__m256i {
            // SAFETY: an unaligned load of 32 bytes from an array of 4 u64.
            unsafe { hw::_mm256_loadu_si256(a.0.as_ptr().cast()) }
        }

        fn from_hw_256(a: hw::__m256i) -> __m256i {
            let mut out = [0u64; 4];
            // SAFETY: an unaligned store of 32 bytes into an array of 4 u64.
            unsafe { hw::_mm256_storeu_si256(out.as_mut_ptr().cast(), a) };
            __m256i(out)
        }

        fn from_hw_128(a: hw::__m128i) -> __m128i {
            let mut out = [0u64; 2];
            // SAFETY: an unaligned store of 16 bytes into an array of 2 u64.
            unsafe { hw::_mm_storeu_si128(out.as_mut_ptr().cast(), a) };
            __m128i(out)
        }

        /// One round of every comparison, on fresh random inputs.
        fn compare(lanes: &mut Stream) {
            let (a, b, c) = (lanes.vector(), lanes.vector(), lanes.vector());
            let (ha, hb, hc) = (to_hw(a), to_hw(b), to_hw(c));
            let k = lanes.next() as u8;
            let shift = lanes.next() % 70;
            let counts = __m512i(a.0.map(|a| a % 70));
            let same = |emulated: __m512i, hardware: hw::__m512i, name: &str| {
                assert_eq!(emulated, from_hw(hardware), "{name} of {a:?}, {b:?}, {c:?}");
            };
            same(_mm512_add_epi64(a, b), hw::_mm512_add_epi64(ha, hb), "add");
            same(_mm512_sub_epi64(a, b), hw::_mm512_sub_epi64(ha, hb), "sub");
            same(_mm512_and_si512(a, b), hw::_mm512_and_si512(ha, hb), "and");
            same(_mm512_or_si512(a, b), hw::_mm512_or_si512(ha, hb), "or");
            same(
                _mm512_mask_add_epi64(c, k, a, b),
                hw::_mm512_mask_add_epi64(hc, k, ha, hb),
                "mask_add",
            );
            same(
                _mm512_mask_blend_epi64(k, a, b),
                hw::_mm512_mask_blend_epi64(k, ha, hb),
                "mask_blend",
            );
            assert_eq!(
                _mm512_test_epi64_mask(a, b),
                hw::_mm512_test_epi64_mask(ha, hb),
                "test_mask"
            );
            same(
                _mm512_madd52lo_epu64(a, b, c),
                hw::_mm512_madd52lo_epu64(ha, hb, hc),
                "madd52lo",
            );
            same(
                _mm512_madd52hi_epu64(a, b, c),
                hw::_mm512_madd52hi_epu64(ha, hb, hc),
                "madd52hi",
            );
            let hcounts = to_hw(counts);
            same(
                _mm512_sllv_epi64(b, counts),
                hw::_mm512_sllv_epi64(hb, hcounts),
                "sllv",
            );
            same(
                _mm512_srlv_epi64(b, counts),
                hw::_mm512_srlv_epi64(hb, hcounts),
                "srlv",
            );
            let count = _mm_cvtsi32_si128(shift as i32);
            let hcount = hw::_mm_cvtsi32_si128(shift as i32);
            assert_eq!(count, from_hw_128(hcount), "cvtsi32");
            same(
                _mm512_sll_epi64(a, count),
                hw::_mm512_sll_epi64(ha, hcount),
                "sll",
            );
            same(
                _mm512_srl_epi64(a, count),
                hw::_mm512_srl_epi64(ha, hcount),
                "srl",
            );
            same(
                _mm512_srli_epi64::<16>(a),
                hw::_mm512_srli_epi64::<16>(ha),
                "srli",
            );
            same(
                _mm512_srli_epi64::<52>(a),
                hw::_mm512_srli_epi64::<52>(ha),
                "srli",
            );
            same(
                _mm512_srli_epi64::<63>(a),
                hw::_mm512_srli_epi64::<63>(ha),
                "srli",
            );
            same(
                _mm512_srli_epi64::<64>(a),
                hw::_mm512_srli_epi64::<64>(ha),
                "srli",
            );
            same(
                _mm512_slli_epi64::<52>(a),
                hw::_mm512_slli_epi64::<52>(ha),
                "slli",
            );
            same(
                _mm512_slli_epi64::<64>(a),
                hw::_mm512_slli_epi64::<64>(ha),
                "slli",
            );
            same(
                _mm512_srai_epi64::<52>(a),
                hw::_mm512_srai_epi64::<52>(ha),
                "srai",
            );
            same(
                _mm512_srai_epi64::<70>(a),
                hw::_mm512_srai_epi64::<70>(ha),
                "srai",
            );
            same(
                _mm512_permutex2var_epi64(a, c, b),
                hw::_mm512_permutex2var_epi64(ha, hc, hb),
                "permutex2var",
            );
            same(
                _mm512_shuffle_i64x2::<0b01_00_01_00>(a, b),
                hw::_mm512_shuffle_i64x2::<0b01_00_01_00>(ha, hb),
                "shuffle_i64x2",
            );
            same(
                _mm512_shuffle_i64x2::<0b11_10_11_10>(a, b),
                hw::_mm512_shuffle_i64x2::<0b11_10_11_10>(ha, hb),
                "shuffle_i64x2",
            );
            same(
                _mm512_shuffle_i64x2::<0b00_11_10_01>(a, b),
                hw::_mm512_shuffle_i64x2::<0b00_11_10_01>(ha, hb),
                "shuffle_i64x2",
            );
            let half = _mm512_castsi512_si256(b);
            assert_eq!(half, from_hw_256(hw::_mm512_castsi512_si256(hb)), "cast");
            let hhalf = to_hw_256(half);
            same(
                _mm512_inserti64x4::<0>(a, half),
                hw::_mm512_inserti64x4::<0>(ha, hhalf),
                "inserti64x4",
            );
            same(
                _mm512_inserti64x4::<1>(a, half),
                hw::_mm512_inserti64x4::<1>(ha, hhalf),
                "inserti64x4",
            );
            for (emulated, hardware) in [
                (
                    _mm512_extracti64x4_epi64::<0>(a),
                    hw::_mm512_extracti64x4_epi64::<0>(ha),
                ),
                (
                    _mm512_extracti64x4_epi64::<1>(a),
                    hw::_mm512_extracti64x4_epi64::<1>(ha),
                ),
            ] {
                assert_eq!(emulated, from_hw_256(hardware), "extracti64x4");
            }
            // The high half of a cast from 256 bits is undefined: compare the low.
            let widened = hw::_mm512_castsi256_si512(hhalf);
            assert_eq!(
                _mm512_castsi512_si256(_mm512_castsi256_si512(half)),
                from_hw_256(hw::_mm512_castsi512_si256(widened)),
                "castsi256_si512"
            );
            let e = a.0.map(|e| e as i64);
            same(
                _mm512_set_epi64(e[7], e[6], e[5], e[4], e[3], e[2], e[1], e[0]),
                hw::_mm512_set_epi64(e[7], e[6], e[5], e[4], e[3], e[2], e[1], e[0]),
                "set",
            );
            same(_mm512_set1_epi64(e[3]), hw::_mm512_set1_epi64(e[3]), "set1");
            same(
                _mm512_setzero_si512(),
                hw::_mm512_setzero_si512(),
                "setzero",
            );
        }

        /// Gathers and a masked scatter through the same random offsets
        /// (repeats included: the scatter's later lane wins).
        fn compare_memory(lanes: &mut Stream) {
            let table: Vec<i64> = (0..64).map(|_| lanes.next() as i64).collect();
            let offsets = __m512i(std::array::from_fn(|_| lanes.next() % 60));
            let hoffsets = to_hw(offsets);
            // SAFETY: every offset (below 60, in words) lies inside `table`.
            unsafe {
                assert_eq!(
                    _mm512_i64gather_epi64::<8>(offsets, table.as_ptr()),
                    from_hw(hw::_mm512_i64gather_epi64::<8>(hoffsets, table.as_ptr())),
                    "gather"
                );
            }
            let (src, mask) = (lanes.vector(), lanes.next() as u8);
            let (mut emulated, mut hardware) = (table.clone(), table);
            // SAFETY: as above, into each copy.
            unsafe {
                _mm512_mask_i64scatter_epi64::<8>(emulated.as_mut_ptr(), mask, offsets, src);
                hw::_mm512_mask_i64scatter_epi64::<8>(
                    hardware.as_mut_ptr(),
                    mask,
                    hoffsets,
                    to_hw(src),
                );
            }
            assert_eq!(emulated, hardware, "scatter");
        }
    );

    #[test]
    fn emulation_matches_intrinsics() {
        if !super::super::available() {
            pce_testkit::skip(
                "ifma::emulation::emulation_matches_intrinsics",
                "no AVX-512 IFMA on this CPU",
            );
            return;
        }
        let mut lanes = Stream(17);
        for _ in 0..2000 {
            // SAFETY: the CPU has the features (checked above).
            unsafe {
                compare(&mut lanes);
                compare_memory(&mut lanes);
            }
        }
    }

    /// Two values whose product needs all 104 bits, by hand: the emulation
    /// alone, so that it is checked where there is no hardware to compare.
    #[test]
    fn madd52_splits_the_product_at_bit_52() {
        // The bits above 52 are ignored: the factors are 2^52 − 1.
        let top = __m512i([u64::MAX; 8]);
        let one = _mm512_set1_epi64(1);
        // (2^52 − 1)² = 2^104 − 2^53 + 1: low 52 bits 1, high 52 bits 2^52 − 2.
        assert_eq!(_mm512_madd52lo_epu64(one, top, top), _mm512_set1_epi64(2));
        assert_eq!(
            _mm512_madd52hi_epu64(one, top, top),
            _mm512_set1_epi64(LOW_52 as i64)
        );
        let max = _mm512_set1_epi64(-1);
        assert_eq!(
            _mm512_madd52lo_epu64(max, one, one),
            _mm512_setzero_si512(),
            "the sum wraps modulo 2^64"
        );
    }
}
