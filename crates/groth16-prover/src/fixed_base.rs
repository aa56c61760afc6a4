//! Many multiplications of one fixed point: a windowed comb.
//!
//! Parameter generation multiplies the generator of G1 (or G2) by millions
//! of different scalars. With the table `d · 2^(w·k) · P` for every window
//! `k` and digit `d < 2^w`, one multiplication is one mixed addition per
//! non-zero w-bit digit of the scalar (16 for w = 16), instead of the
//! ~255 doublings and additions of a general scalar multiplication.

use blstrs::Scalar;
use ff::PrimeField;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rayon::prelude::*;

/// Bits of a scalar.
const SCALAR_BITS: usize = 255;
/// Results normalised to affine together (one shared inversion).
const BATCH: usize = 4096;

/// Precomputed multiples of one point.
pub struct FixedBase<G: Curve> {
    window: usize,
    /// `table[k · 2^w + d] = d · 2^(w·k) · P`.
    table: Vec<G::AffineRepr>,
}

/// The window minimising table size plus additions for `count` multiplications.
pub fn best_window(count: usize) -> usize {
    (4..=16)
        .min_by_key(|&w| SCALAR_BITS.div_ceil(w) * ((1usize << w) + count))
        .expect("non-empty range")
}

impl<G> FixedBase<G>
where
    G: Curve + Group<Scalar = Scalar> + Send + Sync,
    G::AffineRepr: PrimeCurveAffine<Curve = G> + Send + Sync,
{
    /// The table of `base` with `window`-bit digits.
    pub fn new(base: G, window: usize) -> Self {
        let windows = SCALAR_BITS.div_ceil(window);
        let mut starts = Vec::with_capacity(windows);
        let mut start = base;
        for _ in 0..windows {
            starts.push(start);
            for _ in 0..window {
                start = start.double();
            }
        }
        let projective: Vec<G> = starts
            .par_iter()
            .flat_map_iter(|start| {
                let mut entry = G::identity();
                (0..1usize << window).map(move |_| {
                    let current = entry;
                    entry += start;
                    current
                })
            })
            .collect();
        let mut table = vec![G::AffineRepr::identity(); projective.len()];
        table
            .par_chunks_mut(BATCH)
            .zip(projective.par_chunks(BATCH))
            .for_each(|(out, points)| G::batch_normalize(points, out));
        Self { window, table }
    }

    /// `scalar · P`.
    fn mul(&self, scalar: &Scalar) -> G {
        let repr = scalar.to_repr();
        let bytes = repr.as_ref();
        let bit = |i: usize| (bytes[i / 8] >> (i % 8)) & 1 == 1;
        let mut acc = G::identity();
        for (k, first) in (0..SCALAR_BITS).step_by(self.window).enumerate() {
            let digit = (first..(first + self.window).min(SCALAR_BITS))
                .rev()
                .fold(0usize, |d, i| (d << 1) | bit(i) as usize);
            if digit != 0 {
                acc += self.table[(k << self.window) + digit];
            }
        }
        acc
    }

    /// `s · P` for every scalar, in affine form.
    pub fn mul_all(&self, scalars: &[Scalar]) -> Vec<G::AffineRepr> {
        let mut out = vec![G::AffineRepr::identity(); scalars.len()];
        out.par_chunks_mut(BATCH)
            .zip(scalars.par_chunks(BATCH))
            .for_each(|(out, scalars)| {
                let projective: Vec<G> = scalars.iter().map(|s| self.mul(s)).collect();
                G::batch_normalize(&projective, out);
            });
        out
    }
}
