//! A known-answer test of an open device's kernels, run before the device
//! is handed out: a G1 and a G2 MSM of a few to a few thousand terms (as
//! many as make the bucket kernel run windows of a proof's kind on the
//! device, [`msm_terms`]) and NTTs of 2^9
//! (forward, and forward and inverse on the coset), each compared with the
//! result computed on the host with blst.
//!
//! Why: the kernels a device runs come from a compiler this project does
//! not control (NVRTC, a vendor's OpenCL compiler, or a compiled-kernel
//! cache built elsewhere by another version), and a miscompiled kernel
//! need not fail: it can return wrong points. The prover would then fail every
//! proof's verification and hand each partition to its fallback, slowly
//! and without saying why. The test covers every MSM kernel (terms of
//! scalar 1 go through the base sums, the others through the buckets with
//! signed digits in several windows) and the NTT's but the QAP step's own
//! two pointwise kernels (`qap_mul`, `qap_combine`), in a few milliseconds
//! (docs/benchmarks.md).

use backend_api::ffi::{pce_fr, pce_scalar, pce_status, PCE_ERR_OUT_OF_MEMORY};
use backend_api::interop::{
    fr_as_scalars, g1_affines_as_pce, g2_affines_as_pce, pce_g1_projectives, pce_g2_projectives,
    root_of_unity, scalar_of, scalars_as_fr,
};
use backend_api::plugin::PluginError;
use blstrs::{G1Affine, G2Affine, Scalar};
use ff::{Field, PrimeField};
use group::prime::PrimeCurveAffine;
use group::{Curve as GroupCurve, Group as _};

use crate::engine::Engine;
use crate::msm::{self, Curve, GroupBases, MsmPlan, G1, G2};
use crate::ntt;
use crate::NTT_MAX_LOCAL_LOG;

/// Log2 of the NTTs checked: one stage beyond the shared-memory stages.
const NTT_LOG: u32 = NTT_MAX_LOCAL_LOG + 1;

/// The scalars of the test MSM, `terms` of them: 1 and 0 (the terms the
/// host splits off), -1, a small one, then full-width values (powers of a
/// root of unity) to fill.
fn msm_scalars(terms: usize) -> Vec<Scalar> {
    let full = Scalar::ROOT_OF_UNITY;
    let special = [
        Scalar::ONE,
        Scalar::ZERO,
        -Scalar::ONE,
        Scalar::from(5u64),
        Scalar::ONE,
    ];
    let filler = std::iter::successors(Some(full), |s| Some(*s * full));
    special
        .into_iter()
        .chain(filler)
        .take(terms.max(special.len()))
        .collect()
}

/// The fewest terms (a power of two, at most 2^16) with which the bucket
/// kernel, on a device that runs `parallel_threads` of its threads at once,
/// works in windows of at least three bits, as it does in a proof's MSMs:
/// negative digits, several buckets a thread, digits that straddle the
/// scalar's 64-bit words. Fewer terms make the plan take one-bit windows on
/// a large GPU, which test none of these.
fn msm_terms(parallel_threads: u32) -> usize {
    (3..=16)
        .map(|log| 1usize << log)
        .find(|&terms| bucket_plan(terms, parallel_threads).bits >= 3)
        .unwrap_or(1 << 16)
}

/// The bucket kernel's plan for the test MSM of `terms` terms: the host
/// splits off its scalars 0 and 1 ([`SPLIT_OFF`] of them), and the test's
/// few points fit any device's budget.
fn bucket_plan(terms: usize, parallel_threads: u32) -> MsmPlan {
    MsmPlan::new(terms - SPLIT_OFF, parallel_threads, u64::MAX)
}

/// The test scalars that never reach the bucket kernel: two ones and a
/// zero ([`msm_scalars`]).
const SPLIT_OFF: usize = 3;

/// Whether the device's MSM of `bases` (the multiples 2, 3, ... of the
/// generator) by `scalars` equals the host's sum, which, the bases being
/// multiples of the generator, is one scalar multiplication.
fn msm_matches<C: Curve, E: Engine, A: PrimeCurveAffine<Scalar = Scalar>>(
    engine: &E,
    scalars: &[Scalar],
    as_device: fn(&[A]) -> &[C::Affine],
    as_host: fn(&[C::Point]) -> &[A::Curve],
) -> Result<bool, PluginError>
where
    C::Point: Default + Copy,
    A::Curve: GroupCurve<AffineRepr = A>,
{
    let generator = A::generator().to_curve();
    let bases: Vec<A::Curve> =
        std::iter::successors(Some(generator.double()), |b| Some(*b + generator))
            .take(scalars.len())
            .collect();
    let factor: Scalar = (2u64..)
        .zip(scalars)
        .map(|(multiple, s)| Scalar::from(multiple) * s)
        .sum();
    let expected = generator * factor;
    let mut affine = vec![A::identity(); bases.len()];
    A::Curve::batch_normalize(&bases, &mut affine);
    let device_bases = GroupBases::resident(engine, as_device(&affine))?;
    let terms: Vec<pce_scalar> = scalars.iter().map(scalar_of).collect();
    let mut out = [C::Point::default()];
    msm::msm::<C, E>(engine, &device_bases, 0, terms.len(), &terms, &mut out)?;
    Ok(as_host(&out)[0] == expected)
}

/// The polynomial's values at `offset · ω^j`, ω the root of unity of the
/// domain of size 2^[`NTT_LOG`] (Horner's rule at each point).
fn evaluations(coefficients: &[Scalar], offset: Scalar) -> Vec<Scalar> {
    let omega = root_of_unity(NTT_LOG);
    (0..coefficients.len() as u64)
        .map(|j| {
            let point = offset * omega.pow_vartime([j]);
            coefficients
                .iter()
                .rev()
                .fold(Scalar::ZERO, |acc, c| acc * point + c)
        })
        .collect()
}

/// The NTTs that go wrong on the device, of: the forward transform, the
/// forward transform on the coset g·H, and the inverse of that (back to
/// the coefficients), each compared with the host's evaluation. The coset
/// transforms run the scaling kernel; 2^[`NTT_LOG`] is above the largest
/// block of the shared-memory stages, so the global stages run too.
fn wrong_ntts<E: Engine>(engine: &E) -> Result<Vec<&'static str>, PluginError> {
    let n = 1usize << NTT_LOG;
    let coefficients: Vec<Scalar> = (0..n as u64)
        .map(|i| Scalar::ROOT_OF_UNITY.pow_vartime([i + 3]))
        .collect();
    let domain = ntt::Domain::new(engine, NTT_LOG)?;
    let transform = |inverse: bool, coset: bool, values: &[Scalar]| {
        let mut data: Vec<pce_fr> = scalars_as_fr(values).to_vec();
        domain
            .transform(engine, inverse, coset, &mut data)
            .map(|()| fr_as_scalars(&data).to_vec())
    };
    let mut wrong = Vec::new();
    if transform(false, false, &coefficients)? != evaluations(&coefficients, Scalar::ONE) {
        wrong.push("NTT");
    }
    let on_coset = evaluations(&coefficients, Scalar::MULTIPLICATIVE_GENERATOR);
    if transform(false, true, &coefficients)? != on_coset {
        wrong.push("coset NTT");
    }
    if transform(true, true, &on_coset)? != coefficients {
        wrong.push("inverse coset NTT");
    }
    Ok(wrong)
}

/// Why a device's kernels failed the test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The operations whose results differ from blst's ("G1 MSM", "G2
    /// MSM", "NTT", "coset NTT", "inverse coset NTT"); empty when an
    /// operation failed outright (the others then unchecked).
    pub wrong: Vec<&'static str>,
    /// The status of the operation that failed outright, if one did.
    pub status: Option<pce_status>,
    message: String,
}

impl Failure {
    /// The failure of kernels whose `wrong` operations (at least one)
    /// computed results that differ from blst's.
    pub(crate) fn of_wrong(wrong: Vec<&'static str>) -> Self {
        let message = format!("results differ from blst's: {}", wrong.join(", "));
        Self {
            wrong,
            status: None,
            message,
        }
    }

    /// The failure of kernels whose operation `what` failed outright with
    /// `error` (the others then unchecked).
    pub(crate) fn of_error(what: &str, error: &PluginError) -> Self {
        Self {
            wrong: Vec::new(),
            status: Some(error.status),
            message: format!("the {what} failed: {}", error.message),
        }
    }

    /// Whether the device ran out of memory (another process holds it), or
    /// an OpenCL kernel faulted (drivers report both as
    /// `CL_OUT_OF_RESOURCES`).
    pub fn out_of_memory(&self) -> bool {
        self.status == Some(PCE_ERR_OUT_OF_MEMORY)
    }

    /// Whether the G2 MSM alone computed wrong results: every other
    /// operation ran and was right.
    pub fn only_g2_msm(&self) -> bool {
        self.wrong == ["G2 MSM"]
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Runs the test on `engine`; the failure names the operations whose
/// results are wrong, or the one that failed outright and how.
pub fn check<E: Engine>(engine: &E) -> Result<(), Failure> {
    let failed = |what: &'static str| move |e: PluginError| Failure::of_error(what, &e);
    let limits = engine.limits();
    let mut wrong = Vec::new();
    let scalars = msm_scalars(msm_terms(G1::bucket_threads(&limits)));
    if !msm_matches::<G1, E, G1Affine>(engine, &scalars, g1_affines_as_pce, pce_g1_projectives)
        .map_err(failed("G1 MSM"))?
    {
        wrong.push("G1 MSM");
    }
    let scalars = msm_scalars(msm_terms(G2::bucket_threads(&limits)));
    if !msm_matches::<G2, E, G2Affine>(engine, &scalars, g2_affines_as_pce, pce_g2_projectives)
        .map_err(failed("G2 MSM"))?
    {
        wrong.push("G2 MSM");
    }
    wrong.extend(wrong_ntts(engine).map_err(failed("NTT"))?);
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(Failure::of_wrong(wrong))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On every device from a few threads to a large GPU's tens of
    /// thousands, the test MSM runs windows of at least three bits (a
    /// 7-term MSM ran one-bit windows on an H100's 33 792 threads).
    #[test]
    fn the_test_msm_runs_windows_of_a_proofs_kind_on_any_device() {
        for parallel in [1u32, 8, 256, 4096, 33_792, 1 << 17] {
            let terms = msm_terms(parallel);
            let plan = bucket_plan(terms, parallel);
            assert!(plan.bits >= 3, "{parallel} threads: {plan:?}");
            assert!(terms <= 1 << 16);
        }
        let scalars = msm_scalars(msm_terms(33_792));
        assert!(scalars.contains(&-Scalar::ONE) && scalars.contains(&Scalar::ZERO));
        let split_off = scalars
            .iter()
            .filter(|s| **s == Scalar::ONE || **s == Scalar::ZERO);
        assert_eq!(split_off.count(), SPLIT_OFF);
        assert_eq!(scalars.len(), 4096);
        assert_eq!(msm_scalars(1).len(), 5, "the special scalars at least");
    }
}
