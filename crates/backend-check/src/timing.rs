//! Timing a backend's operations against another backend in one run, for
//! `pce-prover bench backend` (and `scripts/gpu-check.sh`, which runs on
//! GPU machines without Rust, so this lives in the binary rather than in a
//! cargo bench).
//!
//! Each MSM is timed on random scalars with the bases uploaded once
//! beforehand (as the prover keeps the SRS resident); each NTT is a forward
//! transform including its copies. Times are the best of `reps` runs.
//! Both devices compute the same thing from the same inputs, so their
//! results are compared too: on a GPU machine this is the only check of
//! the largest sizes (the conformance check stops at 2^20 for time).

use std::time::{Duration, Instant};

use backend_api::ffi::PCE_ERR_UNSUPPORTED;
use backend_api::interop::{
    g1_affines_as_pce, g2_affines_as_pce, pce_g1_projectives, pce_g2_projectives, scalar_of,
    scalars_as_fr_mut,
};
use backend_api::{BackendError, Device, NttDirection, G1, G2};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// One timed operation on both devices.
#[derive(Debug, Clone)]
pub struct Timing {
    /// E.g. "MSM G1 2^20".
    pub case: String,
    /// What came of it.
    pub outcome: Outcome,
}

/// How a case went.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Both devices ran it.
    Timed {
        /// Best time on the device under test.
        device: Duration,
        /// Best time on the comparison device.
        versus: Duration,
        /// Whether both devices computed the same result.
        agree: bool,
    },
    /// The device under test declined it as unsupported (a G2 MSM on a
    /// device whose G2 MSMs are refused), with its reason.
    Declined(String),
}
/// The sizes to time (log2 ranges, inclusive; empty when `min > max`).
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// G1 MSM sizes.
    pub msm_g1: (u32, u32),
    /// G2 MSM sizes.
    pub msm_g2: (u32, u32),
    /// NTT sizes.
    pub ntt: (u32, u32),
}

/// The best time of `reps` runs of `run` (at least one), each on what
/// `setup` makes for it (not timed), and the last run's result.
fn best<S, T>(
    reps: usize,
    mut setup: impl FnMut() -> S,
    mut run: impl FnMut(S) -> Result<T, BackendError>,
) -> Result<(Duration, T), BackendError> {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..reps.max(1) {
        let input = setup();
        let start = Instant::now();
        let result = std::hint::black_box(run(input)?);
        best = best.min(start.elapsed());
        last = Some(result);
    }
    Ok((best, last.expect("at least one run")))
}

/// The outcome of a case run by `on` on the device and on `versus`: a
/// device that declines it as unsupported is reported so, not an error,
/// and the other cases go on.
fn timing<T: PartialEq>(
    case: String,
    device: &Device,
    versus: &Device,
    on: impl Fn(&Device) -> Result<(Duration, T), BackendError>,
) -> Result<Timing, BackendError> {
    let outcome = match on(device) {
        Err(e) if e.status.0 == PCE_ERR_UNSUPPORTED => Outcome::Declined(e.message),
        Err(e) => return Err(e),
        Ok((time, result)) => {
            let (versus_time, versus_result) = on(versus)?;
            Outcome::Timed {
                device: time,
                versus: versus_time,
                agree: result == versus_result,
            }
        }
    };
    Ok(Timing { case, outcome })
}

/// `n` random points, made in parallel from consecutive multiples.
pub(crate) fn random_points<C>(n: usize, seed: u64) -> Vec<C::AffineRepr>
where
    C: Curve + Group<Scalar = Scalar> + Send + Sync,
    C::AffineRepr: PrimeCurveAffine + Send,
{
    const CHUNK: usize = 1 << 14;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let step = C::generator() * Scalar::random(&mut rng);
    let start = C::generator() * Scalar::random(&mut rng);
    let mut points = vec![C::AffineRepr::identity(); n];
    points
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, out)| {
            let mut next = start + step * Scalar::from((c * CHUNK) as u64);
            let projective: Vec<C> = (0..out.len())
                .map(|_| {
                    let point = next;
                    next += step;
                    point
                })
                .collect();
            C::batch_normalize(&projective, out);
        });
    points
}

fn random_scalars(n: usize, seed: u64) -> Vec<Scalar> {
    (0..n)
        .into_par_iter()
        .with_min_len(1 << 14)
        .map(|i| Scalar::random(ChaCha8Rng::seed_from_u64(seed ^ (i as u64) << 8)))
        .collect()
}

/// Times every size on `device` and `versus`, calling `report` after each.
pub fn compare(
    device: &Device,
    versus: &Device,
    sizes: Sizes,
    reps: usize,
    mut report: impl FnMut(&Timing),
) -> Result<Vec<Timing>, BackendError> {
    let mut timings = Vec::new();
    let mut record = |timing: Timing| {
        report(&timing);
        timings.push(timing);
    };
    let (lo, hi) = sizes.msm_g1;
    if lo <= hi {
        let points: Vec<G1Affine> = random_points::<G1Projective>(1 << hi, 1);
        let scalars: Vec<_> = random_scalars(1 << hi, 2).iter().map(scalar_of).collect();
        for log in lo..=hi {
            let n = 1usize << log;
            let on = |d: &Device| {
                let bases = d.lend_bases::<G1>(g1_affines_as_pce(&points[..n]))?;
                let (time, sums) = best(reps, || (), |()| d.msm(&bases, 0, n, 1, &scalars[..n]))?;
                Ok((time, pce_g1_projectives(&sums).to_vec()))
            };
            record(timing(format!("MSM G1 2^{log}"), device, versus, on)?);
        }
    }
    let (lo, hi) = sizes.msm_g2;
    if lo <= hi {
        let points: Vec<G2Affine> = random_points::<G2Projective>(1 << hi, 3);
        let scalars: Vec<_> = random_scalars(1 << hi, 4).iter().map(scalar_of).collect();
        for log in lo..=hi {
            let n = 1usize << log;
            let on = |d: &Device| {
                let bases = d.lend_bases::<G2>(g2_affines_as_pce(&points[..n]))?;
                let (time, sums) = best(reps, || (), |()| d.msm(&bases, 0, n, 1, &scalars[..n]))?;
                Ok((time, pce_g2_projectives(&sums).to_vec()))
            };
            record(timing(format!("MSM G2 2^{log}"), device, versus, on)?);
        }
    }
    let (lo, hi) = sizes.ntt;
    if lo <= hi {
        let input = random_scalars(1 << hi, 5);
        for log in lo..=hi {
            // Each run transforms a fresh copy of the input in place (the
            // copy not timed): the results compared are one transform's,
            // which a transform that goes wrong twice in a way that
            // cancels (a sign, the inverse roots) cannot pass.
            let on = |d: &Device| {
                let domain = d.ntt_domain(log)?;
                let fresh = || input[..1 << log].to_vec();
                best(reps, fresh, |mut data| {
                    d.ntt(
                        &domain,
                        NttDirection::Forward,
                        false,
                        scalars_as_fr_mut(&mut data),
                    )?;
                    Ok(data)
                })
            };
            record(timing(format!("NTT 2^{log}"), device, versus, on)?);
        }
    }
    Ok(timings)
}
