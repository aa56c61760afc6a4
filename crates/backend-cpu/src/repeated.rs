//! Terms with equal scalars merged before Pippenger.
//!
//! `s·P₁ + … + s·P_k = s·(P₁ + … + P_k)`: where a scalar repeats, its
//! points can be added first, one addition per repeat, and Pippenger run
//! over one term per distinct scalar; each repeat then saves an addition in
//! every window (15 to 26 of them). Witnesses repeat values: in a 2 KiB
//! PoRep partition, once the zeros and ones are split off, the B query's
//! 31 830 other scalars hold 9 606 distinct values (docs/benchmarks.md).
//! Repeats cost the batch-affine buckets more than their count, too: equal
//! scalars have equal digits in every window, so their additions collide in
//! one bucket, wait batch after batch, and end in the Jacobian overflow.
//!
//! Sorting the terms by scalar finds the groups; each group of two or more
//! is summed in Jacobian coordinates, and the sums are brought back to
//! affine with one inversion per chunk (blst's `…s_to_affine`). Where
//! repeats are fewer than one term in [`MIN_SHARE`], the terms are left as
//! they are: the sort would cost more than it saves.
//!
//! Random scalars (the H query's) have no repeats, and sorting 2^21 of them
//! to find none costs a tenth of their MSM; so a large MSM's terms are first
//! sampled ([`sample_repeats`]), and only a sample with an equal pair leads
//! to the sort. At the threshold, `n − d ≥ n/MIN_SHARE` for `d` distinct
//! values among `n`, so the equal pairs number `Σ C(c_v, 2) ≥ n/MIN_SHARE`
//! (`c_v` the count of value `v`), and a sample of `m` terms drawn at random
//! holds `m²/n² · n/MIN_SHARE` of them on average: [`SAMPLE_PAIRS`] with
//! `m² = SAMPLE_PAIRS · MIN_SHARE · n` (16,384 terms of 2^21). A miss costs
//! only the merge's saving, never a wrong sum.

use backend_api::ffi::pce_scalar;
use rayon::prelude::*;

use crate::msm::SplitMsm;

/// Merging pays from one repeat in this many terms.
const MIN_SHARE: usize = 16;
/// Fewer terms than this are left as they are (blst's Pippenger takes them,
/// and a sort is not worth it).
const MIN_TERMS: usize = 1 << 10;
/// Sums brought to affine per inversion (and per task).
const AFFINE_CHUNK: usize = 1 << 12;
/// Equal pairs a sample holds on average when repeats are at the threshold.
const SAMPLE_PAIRS: usize = 8;

/// An MSM's terms, one per distinct scalar.
pub(crate) struct Merged<A> {
    /// The sum of the points of each distinct scalar.
    pub points: Vec<A>,
    /// The distinct scalars.
    pub scalars: Vec<pce_scalar>,
}

/// `points` and `scalars` with the points of equal scalars summed, or
/// `None` where repeats are too few to be worth it.
pub(crate) fn merge<G: SplitMsm>(
    points: &[G::Affine],
    scalars: &[pce_scalar],
) -> Option<Merged<G::Affine>> {
    assert_eq!(points.len(), scalars.len(), "one scalar per point");
    // Indexed by u32: larger MSMs (2^32 terms and more) are not merged.
    let index = u32::try_from(scalars.len()).ok()?;
    if scalars.len() < MIN_TERMS || !sample_repeats(scalars) {
        return None;
    }
    let mut order: Vec<u32> = (0..index).collect();
    order.par_sort_unstable_by_key(|&i| scalars[i as usize].l);
    let groups: Vec<&[u32]> = order
        .chunk_by(|&a, &b| scalars[a as usize].l == scalars[b as usize].l)
        .collect();
    if (order.len() - groups.len()) * MIN_SHARE < order.len() {
        return None;
    }
    let sums: Vec<G::Point> = groups
        .par_iter()
        .filter(|group| group.len() > 1)
        .map(|group| {
            group.iter().fold(G::Point::default(), |sum, &i| {
                G::add_affine(&sum, &points[i as usize])
            })
        })
        .collect();
    let affine: Vec<G::Affine> = sums
        .par_chunks(AFFINE_CHUNK)
        .flat_map_iter(G::to_affine)
        .collect();
    let mut summed = affine.into_iter();
    let points = groups
        .iter()
        .map(|group| match group {
            [only] => points[*only as usize],
            _ => summed.next().expect("one sum per group of two or more"),
        })
        .collect();
    let scalars = groups
        .iter()
        .map(|group| scalars[group[0] as usize])
        .collect();
    Some(Merged { points, scalars })
}

/// Whether a random sample of `scalars` (all of them, if the sample would
/// be a quarter or more) holds two equal ones.
fn sample_repeats(scalars: &[pce_scalar]) -> bool {
    let n = scalars.len();
    let m = ((SAMPLE_PAIRS * MIN_SHARE * n) as f64).sqrt() as usize;
    if m * 4 >= n {
        return true;
    }
    // SplitMix64 from a fixed seed: positions independent of the terms'
    // order (a strided sample misses repeats that sit side by side).
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut positions: Vec<usize> = (0..m)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) % n as u64) as usize
        })
        .collect();
    positions.sort_unstable();
    positions.dedup();
    let mut sample: Vec<[u64; 4]> = positions.iter().map(|&i| scalars[i].l).collect();
    sample.sort_unstable();
    sample.windows(2).any(|pair| pair[0] == pair[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msm::{G1, G2};
    use backend_api::interop::{g1_affines_as_pce, g1_as_blst, g2_affines_as_pce, g2_as_blst};
    use backend_api::interop::{scalar_bytes, scalar_of};
    use blst::{blst_p1_is_equal, blst_p2_is_equal, MultiPoint};
    use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
    use ff::Field;
    use group::prime::PrimeCurveAffine;
    use group::{Curve as _, Group as _};
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// `n` scalars drawn from `distinct` random values.
    fn repeated_terms(n: usize, distinct: usize, rng: &mut ChaCha8Rng) -> Vec<Scalar> {
        let values: Vec<Scalar> = (0..distinct).map(|_| Scalar::random(&mut *rng)).collect();
        (0..n)
            .map(|_| values[rng.next_u32() as usize % distinct])
            .collect()
    }

    /// Merges `points` and `scalars` and checks the MSM against blst's on
    /// the terms as given, or that they were left as they are.
    fn check_g1(points: &[G1Affine], scalars: &[Scalar], merges: bool) {
        let abi: Vec<_> = scalars.iter().map(scalar_of).collect();
        let blst_points = g1_as_blst(g1_affines_as_pce(points));
        let merged = merge::<G1>(blst_points, &abi);
        assert_eq!(merged.is_some(), merges, "{} terms", points.len());
        let Some(merged) = merged else { return };
        assert!(merged.points.len() < points.len());
        let expected = blst_points.mult(scalar_bytes(&abi), 255);
        let got = merged.points.mult(scalar_bytes(&merged.scalars), 255);
        // SAFETY: two valid points.
        assert!(
            unsafe { blst_p1_is_equal(&got, &expected) },
            "{} terms",
            points.len()
        );
    }

    fn g1_points(n: usize, rng: &mut ChaCha8Rng) -> Vec<G1Affine> {
        (0..n)
            .map(|_| G1Projective::random(&mut *rng).to_affine())
            .collect()
    }

    #[test]
    fn merged_g1_terms_give_the_same_sum() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for (n, distinct) in [(4096, 300), (2048, 2048), (3000, 1)] {
            let mut points = g1_points(n, &mut rng);
            let scalars = repeated_terms(n, distinct, &mut rng);
            // A pair that cancels within a larger group, a doubling, and a
            // point at infinity.
            let group: Vec<usize> = (0..n).filter(|&i| scalars[i] == scalars[0]).collect();
            if let [first, second, third, ..] = group[..] {
                points[second] = -points[first];
                points[third] = points[first];
            }
            points[n / 2] = G1Affine::identity();
            // A group of two whose sum is the point at infinity.
            let mut scalars = scalars;
            if distinct > 1 {
                let value = Scalar::random(&mut rng);
                scalars[n - 2] = value;
                scalars[n - 1] = value;
                points[n - 1] = -points[n - 2];
            }
            check_g1(&points, &scalars, true);
        }
    }

    #[test]
    fn few_repeats_are_left_as_they_are() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let n = 2048;
        let points = g1_points(n, &mut rng);
        let mut scalars: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        for i in 1..n / MIN_SHARE {
            scalars[i] = scalars[0];
        }
        check_g1(&points, &scalars, false);
        scalars[n / MIN_SHARE] = scalars[0];
        check_g1(&points, &scalars, true);
        check_g1(
            &points[..MIN_TERMS - 1],
            &vec![scalars[0]; MIN_TERMS - 1],
            false,
        );
    }

    #[test]
    fn large_msms_are_sampled_for_repeats() {
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        let n = 1 << 15;
        let distinct: Vec<_> = (0..n)
            .map(|_| scalar_of(&Scalar::random(&mut rng)))
            .collect();
        assert!(!sample_repeats(&distinct));
        // Repeats at the threshold, each value twice and side by side.
        let mut paired = distinct.clone();
        for i in (0..2 * n / MIN_SHARE).step_by(2) {
            paired[i + 1] = paired[i];
        }
        assert!(sample_repeats(&paired));
        // Few values, in runs.
        let runs: Vec<_> = (0..n).map(|i| distinct[i / 64]).collect();
        assert!(sample_repeats(&runs));
    }

    #[test]
    fn merged_g2_terms_give_the_same_sum() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let n = 1500;
        let points: Vec<G2Affine> = (0..n)
            .map(|_| G2Projective::random(&mut rng).to_affine())
            .collect();
        let scalars = repeated_terms(n, 200, &mut rng);
        let abi: Vec<_> = scalars.iter().map(scalar_of).collect();
        let blst_points = g2_as_blst(g2_affines_as_pce(&points));
        let expected = blst_points.mult(scalar_bytes(&abi), 255);
        let merged = merge::<G2>(blst_points, &abi).expect("many repeats: merged");
        let got = merged.points.mult(scalar_bytes(&merged.scalars), 255);
        // SAFETY: two valid points.
        assert!(unsafe { blst_p2_is_equal(&got, &expected) });
    }
}
