//! The batch-affine MSM against blst's, in both groups, on both adders.

use super::*;
use backend_api::interop::{
    g1_affines_as_pce, g1_as_blst, g2_affines_as_pce, g2_as_blst, scalar_bytes, scalar_of,
};
use blst::{blst_p1_is_equal, blst_p2_is_equal, MultiPoint};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::Group as _;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Runs `$body` with `$adder` bound to each adder of group `$group`
/// in turn: blst's, the IFMA lanes (`$lanes`, `G1LaneAdder` or
/// `G2LaneAdder`) and the FMA lanes, each on its emulation and on the
/// hardware (named as skipped where the CPU cannot run them).
macro_rules! with_each_adder {
    ($group:ident, $lanes:ident, $test:literal, |$adder:ident| $body:block) => {{
        {
            let $adder = scalar::BlstAdder::<$group>::default();
            $body
        }
        #[cfg(target_arch = "x86_64")]
        {
            let $adder = emulated::$lanes::new().expect("the emulation runs anywhere");
            $body
        }
        #[cfg(target_arch = "x86_64")]
        match hardware::$lanes::new() {
            Some($adder) => $body,
            None => pce_testkit::skip(
                concat!(module_path!(), "::", $test, " (hardware lanes)"),
                "no AVX-512 IFMA on this CPU",
            ),
        }
        #[cfg(target_arch = "x86_64")]
        {
            let $adder = fma_emulated::$lanes::new().expect("the emulation runs anywhere");
            $body
        }
        #[cfg(target_arch = "x86_64")]
        match fma_lanes::$lanes::new() {
            Some($adder) => $body,
            None => pce_testkit::skip(
                concat!(module_path!(), "::", $test, " (FMA lanes)"),
                "no AVX-512F and DQ on this CPU",
            ),
        }
    }};
}

fn scalar(l: [u64; 4]) -> pce_scalar {
    pce_scalar { l }
}

/// The digits recompose the scalar for every window width.
#[test]
fn booth_digits_recompose() {
    let values = [
        [0, 0, 0, 0],
        [1, 0, 0, 0],
        [u64::MAX, u64::MAX, u64::MAX, u64::MAX >> 1],
        [
            0x0123_4567_89ab_cdef,
            0xfedc_ba98_7654_3210,
            0x8000_0000_0000_0001,
            0x7fff_0000_ffff_0000,
        ],
    ];
    for l in values {
        let s = scalar(l);
        for c in 2..=20 {
            // Rebuild the bits digit by digit, carrying between windows.
            let mut rebuilt = [0u64; 5];
            let mut carry: i64 = 0;
            for w in 0..windows(c, SCALAR_BITS) {
                let d = booth_digit(&s, w, c);
                assert!(d.unsigned_abs() <= 1 << (c - 1), "c={c} w={w} d={d}");
                let v = d as i64 + carry;
                carry = v.div_euclid(1 << c);
                let v = v.rem_euclid(1 << c);
                for bit in 0..c {
                    let pos = w * c + bit;
                    if (v >> bit) & 1 == 1 {
                        rebuilt[pos / 64] |= 1 << (pos % 64);
                    }
                }
            }
            assert_eq!(carry, 0, "c={c}");
            assert_eq!(rebuilt, [l[0], l[1], l[2], l[3], 0], "c={c}");
        }
    }
}

/// Whole windows where they keep every thread busy, then the windows
/// left over in slices; every window's points covered once.
#[test]
fn pieces_balance_threads() {
    let shape = |points, windows, buckets, threads| {
        let list = pieces(points, windows, buckets, threads);
        for w in 0..windows {
            let mut covered: Vec<_> = list
                .iter()
                .filter(|p| p.window == w)
                .map(|p| (p.start, p.end))
                .collect();
            covered.sort();
            assert_eq!(covered.first().map(|c| c.0), Some(0), "window {w}");
            assert_eq!(covered.last().map(|c| c.1), Some(points), "window {w}");
            assert!(covered.windows(2).all(|c| c[0].1 == c[1].0), "window {w}");
        }
        list.iter().map(|p| p.end - p.start).collect::<Vec<_>>()
    };
    let n = 1 << 22;
    assert_eq!(shape(n, 16, 1 << 15, 2), vec![n; 16]);
    let mut fifteen = vec![n; 14];
    fifteen.extend([n / 2, n / 2]);
    assert_eq!(shape(n, 15, 1 << 16, 2), fifteen);
    assert_eq!(shape(n, 15, 1 << 16, 1), vec![n; 15]);
    assert_eq!(
        shape(1 << 12, 15, 1 << 16, 2),
        vec![1 << 12; 15],
        "slices of 2^12 points at least"
    );
    // More threads than windows: sliced where that saves a round.
    assert_eq!(shape(n, 15, 1 << 16, 16), vec![n; 15]);
    assert_eq!(shape(n, 15, 1 << 16, 32), vec![n / 2; 30]);
    // A shorter last slice where the points do not divide evenly.
    assert_eq!(
        shape(10_001, 3, 1 << 10, 2),
        vec![10_001, 10_001, 5001, 5000]
    );
}

/// Halving keeps scalars up to `(r − 1)/2` and negates the rest: the
/// result is below 2^254 and `±` it is the scalar modulo r.
#[test]
fn halved_scalars_fit_254_bits() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let half = (-Scalar::ONE) * Scalar::from(2).invert().unwrap();
    let edges = [
        Scalar::ZERO,
        Scalar::ONE,
        half,
        half + Scalar::ONE,
        -Scalar::ONE,
    ];
    let randoms = (0..1000).map(|_| Scalar::random(&mut rng));
    for (i, value) in edges.into_iter().chain(randoms).enumerate() {
        let (h, negated) = halved(&scalar_of(&value));
        assert_eq!(h.l[3] >> 62, 0, "{i}: below 2^254");
        let back = Scalar::from_bytes_le(scalar_bytes(&[h]).try_into().unwrap())
            .expect("a canonical scalar");
        assert_eq!(if negated { -back } else { back }, value, "{i}");
        if i < edges.len() {
            assert_eq!(negated, i >= 3, "edge {i}");
        }
    }
}

/// `n` distinct G1 points: multiples of a random step.
fn g1_points(n: usize, rng: &mut ChaCha8Rng) -> Vec<G1Affine> {
    let step = G1Projective::random(&mut *rng);
    let mut next = G1Projective::random(&mut *rng);
    (0..n)
        .map(|_| {
            next += step;
            G1Affine::from(next)
        })
        .collect()
}

/// The MSM with `adder` equals blst's at the chosen window, at a narrow
/// one (many additions per bucket, so batches conflict and defer), at
/// ones where scalars are halved (5, 15 and 17 bits: 51, 17 and 15
/// windows of 254 bits against 52, 18 and 16 of 255; 15 and 17 are what
/// the H queries take) and at a wide one (more buckets than reduction
/// segments: several running-sum steps).
fn check<A: Adder<Curve = G1>>(adder: &A, points: &[G1Affine], scalars: &[pce_scalar]) {
    let points = g1_as_blst(g1_affines_as_pce(points));
    let blst = points.mult(scalar_bytes(scalars), 255);
    for c in [5, 15, 17] {
        assert!(windows(c, HALVED_BITS) < windows(c, SCALAR_BITS));
    }
    for c in [
        window_bits::<A>(points.len(), SCALAR_BITS),
        4,
        5,
        12,
        15,
        17,
    ] {
        let ours = with_window(adder, points, scalars, c, SCALAR_BITS);
        // SAFETY: two valid points.
        assert!(
            unsafe { blst_p1_is_equal(&ours, &blst) },
            "{}: n = {}, c = {c}",
            std::any::type_name::<A>(),
            points.len()
        );
    }
}

/// The sum equals blst's, with points at infinity, repeats (doublings)
/// and a point next to its negation (an emptied bucket).
#[test]
fn sum_matches_blst() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut points = g1_points(9000, &mut rng);
    for i in (0..points.len()).step_by(97) {
        points[i] = G1Affine::identity();
    }
    let p = points[1];
    points[1 + SUM_BUCKETS] = p;
    points[2 + 2 * SUM_BUCKETS] = -points[2];
    with_each_adder!(G1, G1LaneAdder, "sum_matches_blst", |adder| {
        for n in [0, 1, 5, 2 * SUM_BUCKETS + 3, points.len()] {
            let points = g1_as_blst(g1_affines_as_pce(&points[..n]));
            // blst's batch addition wants at least one point.
            let expected = if n == 0 {
                blst_p1::default()
            } else {
                points.add()
            };
            let ours = sum_with(&adder, points);
            // SAFETY: two valid points.
            assert!(
                unsafe { blst_p1_is_equal(&ours, &expected) },
                "{}: n = {n}",
                std::any::type_name_of_val(&adder)
            );
        }
    });
}

#[test]
fn random_scalars_match_blst() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let inputs: Vec<_> = [1, 2, 3, 9, 31, 600, 5000]
        .into_iter()
        .map(|n| {
            let points = g1_points(n, &mut rng);
            let scalars: Vec<_> = (0..n)
                .map(|_| scalar_of(&Scalar::random(&mut rng)))
                .collect();
            (points, scalars)
        })
        .collect();
    with_each_adder!(G1, G1LaneAdder, "random_scalars_match_blst", |adder| {
        for (points, scalars) in &inputs {
            check(&adder, points, scalars);
        }
    });
}

/// The MSM is the same on pools of 1, 3 and 16 threads: whole windows
/// only, whole windows and slices of the windows left over, and fewer
/// windows than threads (the CI machine has two cores, so the default
/// pool would take only one of these shapes).
#[test]
fn every_thread_count_matches_blst() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let n = 3 * (1 << 12) + 5;
    let points = g1_points(n, &mut rng);
    let scalars: Vec<_> = (0..n)
        .map(|_| scalar_of(&Scalar::random(&mut rng)))
        .collect();
    for threads in [1, 3, 16] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let adder = scalar::BlstAdder::<G1>::default();
        pool.install(|| check(&adder, &points, &scalars));
    }
}

/// Many additions to one bucket: conflicts within a batch, doublings
/// (P + P), cancellations (P + −P), points at infinity, r − 1.
#[test]
fn awkward_inputs_match_blst() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let distinct = g1_points(40, &mut rng);
    let mut points = Vec::new();
    for i in 0..3000 {
        let p = distinct[i % distinct.len()];
        points.push(match i % 5 {
            0 => -p,
            1 => G1Affine::identity(),
            _ => p,
        });
    }
    let small = |v: u64| scalar([v, 0, 0, 0]);
    let minus_one = scalar_of(&-Scalar::ONE);
    let same: Vec<_> = (0..points.len()).map(|_| small(3)).collect();
    let mixed: Vec<_> = (0..points.len())
        .map(|i| match rng.next_u32() % 4 {
            0 => minus_one,
            1 => small(1 + i as u64 % 3),
            2 => small(0),
            _ => scalar_of(&Scalar::random(&mut rng)),
        })
        .collect();
    // One point and its negation into one bucket: P + P doubles, P + −P
    // empties the bucket, and the batch sees both.
    let p = distinct[0];
    let pattern: Vec<G1Affine> = [1, 1, -1, 1, -1, -1, 1, 1, 1, -1, 1, 1]
        .iter()
        .cycle()
        .take(500)
        .map(|&sign| if sign > 0 { p } else { -p })
        .collect();
    with_each_adder!(G1, G1LaneAdder, "awkward_inputs_match_blst", |adder| {
        check(&adder, &points, &same);
        check(&adder, &points, &mixed);
        check(&adder, &pattern, &vec![small(1); pattern.len()]);
        check(&adder, &pattern[..2], &[small(1), small(1)]);
        check(&adder, &pattern[1..3], &[small(2), small(2)]);
    });
}

/// The Fp2 lane operations of `$instance` (`emulated` or `hardware`)
/// equal blst's on eight elements: products, squares, sums,
/// differences and negations, with zeros, ones, `p − 1` and parts
/// equal or opposite among them.
macro_rules! check_fp2_lanes {
    ($instance:ident, $rng:expr) => {{
        use blst::{blst_fp, blst_fp2, blst_fp_from_uint64, blst_fp_mul};
        use $instance::{Fp2Lanes, LaneField};
        let rng: &mut ChaCha8Rng = $rng;
        let fp = |value: u64| {
            let mut out = blst_fp::default();
            // SAFETY: blst reads six words and writes one element.
            unsafe { blst_fp_from_uint64(&mut out, [value, 0, 0, 0, 0, 0].as_ptr()) };
            out
        };
        let mut random = || {
            let (mut a, b) = (fp(rng.next_u64()), fp(rng.next_u64()));
            // SAFETY: blst multiplies valid elements (in place).
            unsafe { blst_fp_mul(&mut a, &a, &b) };
            a
        };
        let mut minus_one = blst_fp::default();
        // SAFETY: blst negates a valid element.
        unsafe { curve::G1::neg(&mut minus_one, &fp(1)) };
        let (x, y) = (random(), random());
        let mut minus_x = blst_fp::default();
        // SAFETY: as above.
        unsafe { curve::G1::neg(&mut minus_x, &x) };
        let parts = [
            [fp(0), fp(0)],
            [fp(1), fp(0)],
            [fp(0), minus_one],
            [minus_one, minus_one],
            [x, x],
            [x, minus_x],
            [x, y],
            [random(), random()],
        ];
        let a: [blst_fp2; 8] = parts.map(|fp| blst_fp2 { fp });
        let mut b = a;
        b.rotate_left(3);
        b[0] = blst_fp2 {
            fp: [random(), random()],
        };
        let words = |values: [blst_fp2; 8]| values.map(|v| v.fp.map(|part| part.l));
        let expected = |op: unsafe fn(*mut blst_fp2, *const blst_fp2, *const blst_fp2)| {
            words(std::array::from_fn(|i| {
                let mut out = blst_fp2::default();
                // SAFETY: blst operates on valid elements.
                unsafe { op(&mut out, &a[i], &b[i]) };
                out
            }))
        };
        // SAFETY: this instance runs here (the caller's check), and the
        // conversions and operations read and write lanes only.
        unsafe {
            let (la, lb) = (Fp2Lanes::from_elements(&a), Fp2Lanes::from_elements(&b));
            assert_eq!(words(la.mul(&lb).to_elements()), expected(curve::G2::mul));
            assert_eq!(
                words(la.mul_lazy(&lb).to_elements()),
                expected(curve::G2::mul)
            );
            assert_eq!(words(la.add(&lb).to_elements()), expected(curve::G2::add));
            assert_eq!(words(la.sub(&lb).to_elements()), expected(curve::G2::sub));
            let squares = words(std::array::from_fn(|i| {
                let mut out = blst_fp2::default();
                curve::G2::sqr(&mut out, &a[i]);
                out
            }));
            assert_eq!(words(la.square().to_elements()), squares);
            let negated = la.negated_where(0b1010_0101).to_elements();
            for (i, value) in negated.into_iter().enumerate() {
                let mut want = a[i];
                if 0b1010_0101 & (1 << i) != 0 {
                    curve::G2::neg(&mut want, &a[i]);
                }
                assert_eq!(words([value; 8]), words([want; 8]), "negation, lane {i}");
            }
        }
    }};
}

#[test]
#[cfg(target_arch = "x86_64")]
fn fp2_lanes_match_blst() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for _ in 0..20 {
        check_fp2_lanes!(emulated, &mut rng);
    }
    if hardware::G2LaneAdder::new().is_none() {
        pce_testkit::skip(
            concat!(module_path!(), "::fp2_lanes_match_blst (hardware lanes)"),
            "no AVX-512 IFMA on this CPU",
        );
        return;
    }
    for _ in 0..20 {
        check_fp2_lanes!(hardware, &mut rng);
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn fp2_fma_lanes_match_blst() {
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    for _ in 0..20 {
        check_fp2_lanes!(fma_emulated, &mut rng);
    }
    if fma_lanes::G2LaneAdder::new().is_none() {
        pce_testkit::skip(
            concat!(module_path!(), "::fp2_fma_lanes_match_blst"),
            "no AVX-512F and DQ on this CPU",
        );
        return;
    }
    for _ in 0..20 {
        check_fp2_lanes!(fma_lanes, &mut rng);
    }
}

/// G2 on Fp2 with each adder: the MSM (random scalars, r − 1 and
/// zeros; a point at infinity, a point next to its negation and a
/// repeated one) and the sum equal blst's, at the chosen window, narrow
/// ones (conflicts and deferrals) and halved ones (5 and 15 bits).
#[test]
fn g2_matches_blst() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let step = G2Projective::random(&mut rng);
    let mut next = G2Projective::random(&mut rng);
    let mut points: Vec<G2Affine> = (0..700)
        .map(|_| {
            next += step;
            G2Affine::from(next)
        })
        .collect();
    points[5] = G2Affine::identity();
    points[9] = -points[8];
    points[11] = points[10];
    let scalars: Vec<pce_scalar> = (0..points.len())
        .map(|i| match i % 7 {
            0 => scalar_of(&-Scalar::ONE),
            1 => scalar([0; 4]),
            _ => scalar_of(&Scalar::random(&mut rng)),
        })
        .collect();
    let cases: Vec<_> = [1, 2, 12, 31, points.len()]
        .into_iter()
        .map(|n| {
            let points = g2_as_blst(g2_affines_as_pce(&points[..n]));
            let scalars = &scalars[..n];
            (points, scalars, points.mult(scalar_bytes(scalars), 255))
        })
        .collect();
    with_each_adder!(G2, G2LaneAdder, "g2_matches_blst", |adder| {
        let name = std::any::type_name_of_val(&adder);
        for &(points, scalars, expected) in &cases {
            let n = points.len();
            for c in [
                window_bits::<scalar::BlstAdder<G2>>(n, SCALAR_BITS),
                4,
                5,
                15,
            ] {
                let ours = with_window(&adder, points, scalars, c, SCALAR_BITS);
                // SAFETY: two valid points.
                assert!(
                    unsafe { blst_p2_is_equal(&ours, &expected) },
                    "{name}: n = {n}, c = {c}"
                );
            }
            let ours = sum_with(&adder, points);
            // SAFETY: two valid points.
            assert!(
                unsafe { blst_p2_is_equal(&ours, &points.add()) },
                "{name}: sum of {n}"
            );
        }
    });
}
