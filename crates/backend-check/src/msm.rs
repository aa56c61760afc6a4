//! MSM cases against ec-gpu-gen's CPU multiexp (bellperson's).

use std::sync::Arc;

use backend_api::ffi::PCE_ERR_UNSUPPORTED;
use backend_api::interop::{
    g1_affines_as_pce, g2_affines_as_pce, pce_g1_projectives, pce_g2_projectives, scalar_of,
};
use backend_api::{BackendError, Device, G1, G2};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ec_gpu_gen::multiexp_cpu::{multiexp_cpu, FullDensity};
use ec_gpu_gen::threadpool::Worker;
use ff::{Field, PrimeField};
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Limits, Verdict};

/// A group the check runs over: blstrs types and their ABI counterparts.
pub(crate) trait CheckedGroup {
    const NAME: &'static str;
    type Affine: PrimeCurveAffine<Scalar = Scalar, Curve = Self::Curve> + Send + Sync;
    type Curve: Curve<AffineRepr = Self::Affine> + Group<Scalar = Scalar> + Send;
    type Abi: backend_api::Group;
    fn abi_points(points: &[Self::Affine]) -> &[<Self::Abi as backend_api::Group>::Affine];
    fn from_abi(results: &[<Self::Abi as backend_api::Group>::Projective]) -> Vec<Self::Curve>;
}

impl CheckedGroup for G1 {
    const NAME: &'static str = "G1";
    type Affine = G1Affine;
    type Curve = G1Projective;
    type Abi = G1;
    fn abi_points(points: &[G1Affine]) -> &[backend_api::ffi::pce_g1_affine] {
        g1_affines_as_pce(points)
    }
    fn from_abi(results: &[backend_api::ffi::pce_g1_projective]) -> Vec<G1Projective> {
        pce_g1_projectives(results).to_vec()
    }
}

impl CheckedGroup for G2 {
    const NAME: &'static str = "G2";
    type Affine = G2Affine;
    type Curve = G2Projective;
    type Abi = G2;
    fn abi_points(points: &[G2Affine]) -> &[backend_api::ffi::pce_g2_affine] {
        g2_affines_as_pce(points)
    }
    fn from_abi(results: &[backend_api::ffi::pce_g2_projective]) -> Vec<G2Projective> {
        pce_g2_projectives(results).to_vec()
    }
}

/// How the scalars of a case are drawn.
#[derive(Debug, Clone, Copy)]
pub enum Scalars {
    /// Uniformly random.
    Random,
    /// All zero.
    Zero,
    /// All one.
    One,
    /// All r − 1.
    MinusOne,
    /// Mostly 0 and 1 like a PoRep witness (60 % zero, 36 % one), with
    /// some r − 1 and random values.
    PoRepMix,
}

impl Scalars {
    /// One scalar of this kind.
    pub fn draw(self, rng: &mut ChaCha8Rng) -> Scalar {
        match self {
            Scalars::Random => Scalar::random(rng),
            Scalars::Zero => Scalar::ZERO,
            Scalars::One => Scalar::ONE,
            Scalars::MinusOne => -Scalar::ONE,
            Scalars::PoRepMix => match rng.gen_range(0..100) {
                0..=59 => Scalar::ZERO,
                60..=95 => Scalar::ONE,
                96 => -Scalar::ONE,
                _ => Scalar::random(rng),
            },
        }
    }
}

/// `n` distinct random points of `C` (consecutive multiples of a random
/// step, cheap to make), with every 7th replaced by infinity and some
/// repeated or negated when `awkward` is set.
pub fn points<C>(n: usize, awkward: bool, rng: &mut ChaCha8Rng) -> Vec<C::AffineRepr>
where
    C: Curve + Group<Scalar = Scalar>,
    C::AffineRepr: PrimeCurveAffine,
{
    let step = C::generator() * Scalar::random(&mut *rng);
    let mut next = C::generator() * Scalar::random(&mut *rng);
    let mut projective = Vec::with_capacity(n);
    for _ in 0..n {
        projective.push(next);
        next += step;
    }
    if awkward {
        for i in 0..n {
            match i % 7 {
                3 => projective[i] = C::identity(),
                5 => projective[i] = projective[i / 2],
                6 => projective[i] = -projective[i - 1],
                _ => {}
            }
        }
    }
    let mut affine = vec![C::AffineRepr::identity(); n];
    C::batch_normalize(&projective, &mut affine);
    affine
}

/// `Σ scalars[i] · points[i]` by ec-gpu-gen's multiexp, which refuses
/// points at infinity: they add nothing, so they are left out.
fn reference<G: CheckedGroup>(points: &[G::Affine], scalars: &[Scalar]) -> G::Curve {
    let (points, exponents): (Vec<G::Affine>, Vec<_>) = points
        .iter()
        .zip(scalars)
        .filter(|(p, _)| !bool::from(p.is_identity()))
        .map(|(p, s)| (*p, s.to_repr()))
        .unzip();
    if points.is_empty() {
        return G::Curve::identity();
    }
    multiexp_cpu::<_, _, G::Affine, _>(
        &Worker::new(),
        (Arc::new(points), 0),
        FullDensity,
        Arc::new(exponents),
    )
    .wait()
    .expect("the CPU multiexp does not fail")
}

/// One case: `batch` MSMs of `n` terms over bases `[offset, offset + n)` of
/// `offset + n` points.
pub(crate) fn case<G: CheckedGroup>(
    device: &Device,
    n: usize,
    offset: usize,
    batch: usize,
    scalars: Scalars,
    awkward: bool,
    rng: &mut ChaCha8Rng,
) -> Result<bool, BackendError> {
    let points = points::<G::Curve>(offset + n, awkward, rng);
    let values: Vec<Scalar> = (0..n * batch).map(|_| scalars.draw(rng)).collect();
    let bases = device.upload_bases::<G::Abi>(G::abi_points(&points))?;
    let abi_scalars: Vec<_> = values.iter().map(scalar_of).collect();
    let results = G::from_abi(&device.msm(&bases, offset, n, batch, &abi_scalars)?);
    Ok(results.len() == batch
        && (0..batch)
            .all(|k| results[k] == reference::<G>(&points[offset..], &values[k * n..(k + 1) * n])))
}

/// A case's verdict: an MSM the plugin declines as unsupported (a G1-only
/// backend's G2 MSMs, or those of a GPU whose G2 kernels failed their
/// self-test; the host runs them on its fallback device) is absent, not
/// failed.
fn verdict(outcome: Result<bool, BackendError>) -> Result<Verdict, BackendError> {
    match outcome {
        Err(error) if error.status.0 == PCE_ERR_UNSUPPORTED => Ok(Verdict::Absent),
        outcome => outcome.map(Verdict::from),
    }
}

fn check_group<G: CheckedGroup>(
    device: &Device,
    max_log: u32,
    record: &mut dyn FnMut(String, Result<Verdict, BackendError>),
) {
    let mut rng = ChaCha8Rng::seed_from_u64(0x004d_534d);
    let small = [0usize, 1, 2, 3, 5, 17, 100, 257];
    let all_kinds = [
        Scalars::Random,
        Scalars::Zero,
        Scalars::One,
        Scalars::MinusOne,
        Scalars::PoRepMix,
    ];
    for n in small {
        for kind in all_kinds {
            for awkward in [false, true] {
                let points = if awkward {
                    "infinity+repeats"
                } else {
                    "distinct"
                };
                let outcome = case::<G>(device, n, 0, 1, kind, awkward, &mut rng);
                record(
                    format!("MSM {} n={n} {kind:?} {points}", G::NAME),
                    verdict(outcome),
                );
            }
        }
    }
    for (n, offset, batch) in [(100, 7, 2), (257, 3, 3)] {
        let outcome = case::<G>(device, n, offset, batch, Scalars::PoRepMix, true, &mut rng);
        record(
            format!("MSM {} n={n} offset={offset} batch={batch}", G::NAME),
            verdict(outcome),
        );
    }
    for log in 4..=max_log {
        let n = 1usize << log;
        for (kind, awkward) in [(Scalars::Random, false), (Scalars::PoRepMix, true)] {
            let outcome = case::<G>(device, n, 0, 1, kind, awkward, &mut rng);
            let points = if awkward {
                "infinity+repeats"
            } else {
                "distinct"
            };
            record(
                format!("MSM {} n=2^{log} {kind:?} {points}", G::NAME),
                verdict(outcome),
            );
        }
    }
}

/// Checks G1 and G2 MSMs up to the limits, calling `record` per case.
pub fn check(
    device: &Device,
    limits: Limits,
    record: &mut dyn FnMut(String, Result<Verdict, BackendError>),
) {
    check_group::<G1>(device, limits.max_log_msm_g1, record);
    check_group::<G2>(device, limits.max_log_msm_g2, record);
}
