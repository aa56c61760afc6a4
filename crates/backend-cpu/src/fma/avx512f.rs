//! The instructions of the FMA lane code on the hardware: what production
//! runs. AVX-512F's (and DQ's), named as in the IFMA instance so that the
//! batch-affine adder's one source compiles for both; [`lane_fns!`]
//! compiles the lane functions for AVX-512F and DQ.

pub use crate::ifma::avx512::*;
pub use std::arch::x86_64::{
    __m512d, _mm512_add_pd, _mm512_castpd_si512, _mm512_castsi512_pd, _mm512_fmadd_pd,
    _mm512_movepi64_mask, _mm512_mullo_epi64, _mm512_set1_pd, _mm512_setzero_pd, _mm512_sub_pd,
};

/// The environment variable that switches every AVX-512 path of this
/// backend off when set to `0` (this one and IFMA's), to run or
/// measure what a CPU without AVX-512 runs.
pub const SWITCH: &str = "PCE_CPU_AVX512";

/// Whether this lane code can run here: the CPU has AVX-512F and DQ,
/// and [`SWITCH`] does not turn them off. Decided once per process.
pub fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        std::env::var_os(SWITCH).is_none_or(|value| value != "0")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
    })
}

/// Whether the lane code runs here; if not, names `module::test` as
/// skipped (`pce_testkit::skip`), for a test to return early.
#[cfg(test)]
pub fn runs_test(module: &str, test: &str) -> bool {
    let runs = available();
    if !runs {
        pce_testkit::skip(
            &format!("{module}::{test}"),
            "no AVX-512F and DQ on this CPU",
        );
    }
    runs
}

/// The functions given, compiled for AVX-512F and DQ. Calling them
/// from elsewhere is `unsafe`, allowed only where [`available`].
macro_rules! lane_fns {
    ($($function:item)*) => {
        $(
            #[target_feature(enable = "avx512f,avx512dq")]
            $function
        )*
    };
}
pub(crate) use lane_fns;
