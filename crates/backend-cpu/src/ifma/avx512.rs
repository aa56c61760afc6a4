//! The instructions of the lane code on the hardware: what production runs.
//!
//! The lane code names its instructions through this module (or through
//! `super::emulation` in its emulated instance), so that one source
//! compiles for both. Here they are the AVX-512 intrinsics themselves, and
//! [`lane_fns!`] compiles the lane functions for AVX-512F and IFMA.

pub use std::arch::x86_64::{
    __m256i, __m512i, __mmask8, _mm256_loadu_si256, _mm256_storeu_si256, _mm512_add_epi64,
    _mm512_and_si512, _mm512_castsi256_si512, _mm512_castsi512_si256, _mm512_extracti64x4_epi64,
    _mm512_i64gather_epi64, _mm512_inserti64x4, _mm512_loadu_si512, _mm512_madd52hi_epu64,
    _mm512_madd52lo_epu64, _mm512_mask_add_epi64, _mm512_mask_blend_epi64,
    _mm512_mask_i64scatter_epi64, _mm512_or_si512, _mm512_permutex2var_epi64, _mm512_set1_epi64,
    _mm512_set_epi64, _mm512_setzero_si512, _mm512_shuffle_i64x2, _mm512_sll_epi64,
    _mm512_slli_epi64, _mm512_sllv_epi64, _mm512_srai_epi64, _mm512_srl_epi64, _mm512_srli_epi64,
    _mm512_srlv_epi64, _mm512_storeu_si512, _mm512_sub_epi64, _mm512_test_epi64_mask,
    _mm_cvtsi32_si128,
};

/// Whether the lane code can run on this CPU: it has the instructions, and
/// they are not switched off ([`super::available`]).
pub fn available() -> bool {
    super::available()
}

/// Whether the lane code runs here; if not, names `module::test` as
/// skipped (`pce_testkit::skip`), for a test to return early.
#[cfg(test)]
pub fn runs_test(module: &str, test: &str) -> bool {
    let runs = available();
    if !runs {
        pce_testkit::skip(&format!("{module}::{test}"), "no AVX-512 IFMA on this CPU");
    }
    runs
}

/// The functions given, compiled for AVX-512F and IFMA: the intrinsics are
/// inlined only into functions with their target features. Calling them
/// from elsewhere is `unsafe`, allowed only where [`available`].
macro_rules! lane_fns {
    ($($function:item)*) => {
        $(
            #[target_feature(enable = "avx512f,avx512ifma")]
            $function
        )*
    };
}
pub(crate) use lane_fns;
