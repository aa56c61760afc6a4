//! Multi-scalar multiplication with blst's Pippenger, split by scalar.
//!
//! PoRep witnesses are 97–98 % zeros and ones. When most scalars are 0 or 1
//! the MSM is split: zeros are skipped, the bases of ones are summed with
//! blst's batch addition (no scalar multiplication at all), and only the
//! remaining points go through Pippenger. Dense inputs (the H query) go to
//! Pippenger directly over the bases in place.

use backend_api::ffi::pce_scalar;
use blst::{blst_p1, blst_p1_add_or_double, blst_p2, blst_p2_add_or_double, MultiPoint};

/// Bits of a BLS12-381 scalar.
const SCALAR_BITS: usize = 255;

fn is_zero(s: &pce_scalar) -> bool {
    s.l == [0; 4]
}

fn is_one(s: &pce_scalar) -> bool {
    s.l == [1, 0, 0, 0]
}

/// Operations of one group that the split MSM needs.
pub trait SplitMsm {
    /// Affine point (blst layout).
    type Affine: Copy + Sync;
    /// Jacobian point (blst layout).
    type Point: Copy + Default;
    /// Pippenger over `points` with little-endian scalar bytes.
    fn pippenger(points: &[Self::Affine], scalar_bytes: &[u8]) -> Self::Point;
    /// Sum of `points`.
    fn sum(points: &[Self::Affine]) -> Self::Point;
    /// `a + b`.
    fn add(a: &Self::Point, b: &Self::Point) -> Self::Point;
}

/// G1 through blst.
pub enum G1 {}
/// G2 through blst.
pub enum G2 {}

macro_rules! blst_split_msm {
    ($group:ty, $affine:ty, $point:ty, $add:ident) => {
        impl SplitMsm for $group {
            type Affine = $affine;
            type Point = $point;

            fn pippenger(points: &[$affine], scalar_bytes: &[u8]) -> $point {
                if points.is_empty() {
                    return <$point>::default();
                }
                points.mult(scalar_bytes, SCALAR_BITS)
            }

            fn sum(points: &[$affine]) -> $point {
                if points.is_empty() {
                    return <$point>::default();
                }
                MultiPoint::add(points)
            }

            fn add(a: &$point, b: &$point) -> $point {
                let mut out = <$point>::default();
                // SAFETY: blst reads two valid points and writes one.
                unsafe { $add(&mut out, a, b) };
                out
            }
        }
    };
}

blst_split_msm!(G1, blst::blst_p1_affine, blst_p1, blst_p1_add_or_double);
blst_split_msm!(G2, blst::blst_p2_affine, blst_p2, blst_p2_add_or_double);

/// `Σ scalars[i] · points[i]`.
pub fn msm<G: SplitMsm>(points: &[G::Affine], scalars: &[pce_scalar]) -> G::Point {
    debug_assert_eq!(points.len(), scalars.len());
    let trivial = scalars.iter().filter(|s| is_zero(s) || is_one(s)).count();
    if trivial * 2 < scalars.len() {
        return G::pippenger(points, backend_api::interop::scalar_bytes(scalars));
    }
    let mut ones = Vec::new();
    let mut rest_points = Vec::new();
    let mut rest_scalars = Vec::new();
    for (point, scalar) in points.iter().zip(scalars) {
        if is_one(scalar) {
            ones.push(*point);
        } else if !is_zero(scalar) {
            rest_points.push(*point);
            rest_scalars.push(*scalar);
        }
    }
    let ones = G::sum(&ones);
    let rest = G::pippenger(
        &rest_points,
        backend_api::interop::scalar_bytes(&rest_scalars),
    );
    G::add(&ones, &rest)
}

/// One MSM over `points` per batch of `points.len()` scalars, into `out`.
pub fn batch<G: SplitMsm, R>(
    points: &[G::Affine],
    scalars: &[pce_scalar],
    out: &mut [R],
    convert: impl Fn(G::Point) -> R,
) {
    let count = points.len();
    for (k, result) in out.iter_mut().enumerate() {
        *result = convert(msm::<G>(points, &scalars[k * count..(k + 1) * count]));
    }
}
