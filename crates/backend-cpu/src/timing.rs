//! Times of the IFMA paths, to compare a change against (not a test that
//! can fail): `cargo test --release -p backend-cpu --lib timing --
//! --ignored --nocapture` prints the fastest and the median wall time of a
//! few runs of a 2^20 G1 MSM on batch-affine buckets and a 2^20 NTT on
//! lanes, and the mean CPU time of a run (less disturbed by other load on
//! the machine than wall time).

use std::time::Instant;

use backend_api::interop::{g1_affines_as_pce, g1_as_blst, scalar_of};
use blstrs::{G1Affine, G1Projective, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve as _, Group as _};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::ntt::Domain;

const LOG: u32 = 20;
/// CPU seconds of this process so far, all threads.
pub(crate) fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .expect("fields after the name")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| fields[i].parse::<f64>().expect("a tick count");
    (ticks(11) + ticks(12)) / 100.0
}

/// The fastest and the median wall time of `runs` runs of `f` (after one
/// to warm up), and the mean CPU time of a run, in seconds.
fn times(runs: usize, mut f: impl FnMut()) -> (f64, f64, f64) {
    f();
    let cpu = cpu_seconds();
    let mut seconds: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    let cpu = (cpu_seconds() - cpu) / runs as f64;
    seconds.sort_by(f64::total_cmp);
    (seconds[0], seconds[runs / 2], cpu)
}

#[test]
#[ignore]
fn timing() {
    if !crate::ifma::available() {
        pce_testkit::skip("timing", "no AVX-512 IFMA on this CPU");
        return;
    }
    let n = 1usize << LOG;
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let step = G1Projective::random(&mut rng);
    let mut next = G1Projective::random(&mut rng);
    let projective: Vec<G1Projective> = (0..n)
        .map(|_| {
            next += step;
            next
        })
        .collect();
    let mut affine = vec![G1Affine::identity(); n];
    G1Projective::batch_normalize(&projective, &mut affine);
    let scalars: Vec<_> = (0..n)
        .map(|_| scalar_of(&Scalar::random(&mut rng)))
        .collect();
    let points = g1_as_blst(g1_affines_as_pce(&affine));
    let (fastest, median, cpu) = times(7, || {
        crate::batch_affine::msm(points, &scalars).expect("IFMA is available");
    });
    println!("msm 2^{LOG}: fastest {fastest:.3} s, median {median:.3} s, cpu {cpu:.3} s");

    let domain = Domain::new(LOG);
    let mut data: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
    let (fastest, median, cpu) = times(31, || domain.transform(&mut data, false, false));
    println!("ntt 2^{LOG}: fastest {fastest:.3} s, median {median:.3} s, cpu {cpu:.3} s");
}
