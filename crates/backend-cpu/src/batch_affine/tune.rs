//! Window widths timed against blst, for tuning (not a test that can fail):
//! `PCE_MSM_TUNE=22 PCE_MSM_WINDOWS=15,16 cargo test --release -p backend-cpu
//! --lib tune -- --ignored --nocapture`. It times the adder the CPU gets
//! (`PCE_CPU_IFMA=0`: the FMA lanes where the CPU has AVX-512F;
//! `PCE_CPU_AVX512=0`: blst's field operations) against blst's Pippenger on
//! the same `2^PCE_MSM_TUNE` points, and the sum against blst's.
//! `PCE_MSM_SKIP_BLST=1` times ours only. `PCE_MSM_GLV_PROXY=1` times ours
//! on what a GLV split would leave, twice the points with 128-bit scalars
//! (the best case of the split: the decomposition itself not counted).
//! `PCE_MSM_PRECOMPUTED_PROXY=C` also times what precomputed bases would
//! leave (lever 3 of issue 18): with each base's `2^(kC)`-multiples stored,
//! the MSM is one window of `C` bits over `⌈256/C⌉` times the points, so it
//! is timed as that (copies of the points, `C − 1`-bit scalars; computing
//! the multiples not counted).

use super::*;
use crate::timing::cpu_seconds;
use backend_api::interop::{g1_affines_as_pce, g1_as_blst, scalar_bytes, scalar_of};
use blst::MultiPoint;
use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// CPU seconds of `f`.
/// (CPU time: less disturbed by other load than wall time.)
fn timed<R>(f: impl FnOnce() -> R) -> f64 {
    let start = cpu_seconds();
    std::hint::black_box(f());
    cpu_seconds() - start
}

#[test]
#[ignore]
fn tune() {
    if let Some(adder) = hardware::G1LaneAdder::new() {
        return run(&adder);
    }
    if let Some(adder) = fma_lanes::G1LaneAdder::new() {
        return run(&adder);
    }
    run(&scalar::BlstAdder::<G1>::default());
}

/// The IFMA adder's sums against blst's batch addition, G1 and G2, from
/// 2^10 points to 2^17 (G2: 2^16), each size repeated to the same total
/// of points: where [`LANES_SUM_MIN`] comes from
/// (`cargo test --release -p backend-cpu --lib sum_thresholds --
/// --ignored --nocapture`).
#[test]
#[ignore]
fn sum_thresholds() {
    let (Some(g1), Some(g2)) = (hardware::G1LaneAdder::new(), hardware::G2LaneAdder::new()) else {
        pce_testkit::skip("tune::sum_thresholds", "no AVX-512 IFMA on this CPU");
        return;
    };
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let g1_points = random_points::<G1Projective>(1 << 17, &mut rng);
    let g2_points = random_points::<blstrs::G2Projective>(1 << 16, &mut rng);
    for round in 0..3 {
        time_sums("G1", round, &g1, g1_as_blst(g1_affines_as_pce(&g1_points)));
        let g2_points = backend_api::interop::g2_affines_as_pce(&g2_points);
        time_sums(
            "G2",
            round,
            &g2,
            backend_api::interop::g2_as_blst(g2_points),
        );
    }
}

/// `n` distinct points: multiples of a random step.
fn random_points<G>(n: usize, rng: &mut ChaCha8Rng) -> Vec<G::AffineRepr>
where
    G: group::Curve,
    G::AffineRepr: PrimeCurveAffine,
{
    let step = G::random(&mut *rng);
    let mut next = G::random(&mut *rng);
    let projective: Vec<G> = (0..n)
        .map(|_| {
            next += step;
            next
        })
        .collect();
    let mut affine = vec![G::AffineRepr::identity(); n];
    G::batch_normalize(&projective, &mut affine);
    affine
}

/// Prints, per size, the CPU seconds of blst's sum and of `adder`'s.
fn time_sums<A: Adder>(group: &str, round: usize, adder: &A, points: &[Affine<A>])
where
    [Affine<A>]: MultiPoint,
{
    let most = points.len().trailing_zeros();
    for log in 10..=most {
        let part = &points[..1 << log];
        let repeats = 1 << (most - log);
        let blst = timed(|| (0..repeats).map(|_| part.add()).last());
        let ours = timed(|| (0..repeats).map(|_| sum_with(adder, part)).last());
        println!(
            "round {round} {group} sum of 2^{log}, {repeats} times: blst {blst:.3} s, lanes {ours:.3} s, ratio {:.2}",
            blst / ours
        );
    }
}

fn run<A: Adder<Curve = G1>>(adder: &A) {
    let env = |name: &str| std::env::var(name).ok();
    let log: u32 = env("PCE_MSM_TUNE").map_or(18, |v| v.parse().unwrap());
    let glv = env("PCE_MSM_GLV_PROXY").is_some_and(|v| v == "1");
    let n = 1usize << log;
    let ours_n = if glv { 2 * n } else { n };
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let affine = random_points::<G1Projective>(ours_n, &mut rng);
    let scalars: Vec<_> = (0..n)
        .map(|_| scalar_of(&Scalar::random(&mut rng)))
        .collect();
    let all_points = g1_as_blst(g1_affines_as_pce(&affine));
    let points = &all_points[..n];
    let (ours_scalars, bits) = if glv {
        let halves = (0..ours_n)
            .map(|_| pce_scalar {
                l: [rng.next_u64(), rng.next_u64() >> 1, 0, 0],
            })
            .collect();
        (halves, 127)
    } else {
        (scalars.clone(), SCALAR_BITS)
    };
    let best = window_bits::<A>(ours_n, bits);
    let widths: Vec<usize> = env("PCE_MSM_WINDOWS").map_or(vec![best - 1, best, best + 1], |v| {
        v.split(',').map(|c| c.parse().unwrap()).collect()
    });
    let adder_name = std::any::type_name::<A>();
    println!("adder {adder_name}, glv proxy {glv}, model's window {best}");
    // Precomputed bases' MSM: one window of c bits over the copies.
    let precomputed = env("PCE_MSM_PRECOMPUTED_PROXY").map(|c| {
        let c: usize = c.parse().unwrap();
        assert!((2..=32).contains(&c), "window bits from 2 to 32");
        let copies = windows(c, SCALAR_BITS);
        let stored: Vec<blst_p1_affine> =
            (0..copies).flat_map(|_| points.iter().copied()).collect();
        let digits: Vec<pce_scalar> = (0..stored.len())
            .map(|_| pce_scalar {
                l: [rng.next_u64() & ((1 << (c - 1)) - 1), 0, 0, 0],
            })
            .collect();
        (c, stored, digits)
    });
    for round in 0..2 {
        let blst = if env("PCE_MSM_SKIP_BLST").is_none() {
            timed(|| points.mult(scalar_bytes(&scalars), SCALAR_BITS))
        } else {
            f64::NAN
        };
        for &c in &widths {
            let ours = timed(|| with_window(adder, all_points, &ours_scalars, c, bits));
            println!(
                "round {round} 2^{log} c={c}: ours {ours:.2} s blst {blst:.2} s ratio {:.2}",
                blst / ours
            );
        }
        if let Some((c, stored, digits)) = &precomputed {
            let ours = timed(|| with_window(adder, stored, digits, *c, c - 1));
            println!(
                "round {round} 2^{log} precomputed proxy c={c}, {} copies: ours {ours:.2} s blst {blst:.2} s ratio {:.2}",
                stored.len() / n,
                blst / ours
            );
        }
        let blst_sum = timed(|| points.add());
        let ours_sum = timed(|| sum_with(adder, points));
        println!(
            "round {round} 2^{log} sum: ours {ours_sum:.2} s blst {blst_sum:.2} s ratio {:.2}",
            blst_sum / ours_sum
        );
    }
}
