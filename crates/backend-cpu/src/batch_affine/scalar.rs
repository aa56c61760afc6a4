//! Batch-affine additions one at a time on blst's field operations: the
//! adder of [`super`]'s MSM on CPUs without AVX-512 (or with it switched
//! off, `PCE_CPU_AVX512=0`), in G1 and G2 (Fp2 operations there).
//!
//! The algorithm's saving over blst's XYZZ buckets (5 multiplications and
//! a squaring per addition instead of 8 and 2) only shows when the
//! multiplication is as fast as blst's, so every field operation here is
//! blst's assembly, called on its Montgomery values in place.
//!
//! For the batch's additions `k`, with `dₖ = x₂ − x₁`: a forward pass keeps
//! the prefix products `Pₖ = d₀·…·dₖ`; one inversion gives `P⁻¹` of the
//! last; a backward pass peels each `dₖ⁻¹ = P⁻¹ₖ·Pₖ₋₁` and carries
//! `P⁻¹ₖ₋₁ = P⁻¹ₖ·dₖ` (three multiplications per addition), then adds:
//! `λ = (y₂ − y₁)·dₖ⁻¹`, `x₃ = λ² − x₁ − x₂`, `y₃ = λ·(x₁ − x₃) − y₁`.

use super::{prefetch_addition, Adder, Addition, Curve, PREFETCH_DISTANCE};

/// The blst adder of group `C`: scratch for the forward pass.
pub(crate) struct BlstAdder<C: Curve> {
    /// `x₂ − x₁` of each addition.
    differences: Vec<C::Field>,
    /// The products of the differences up to each addition.
    prefix: Vec<C::Field>,
}

// Not derived: a derive would ask `C` itself (a marker type) for the traits.
impl<C: Curve> Default for BlstAdder<C> {
    fn default() -> Self {
        Self {
            differences: Vec::new(),
            prefix: Vec::new(),
        }
    }
}

impl<C: Curve> Clone for BlstAdder<C> {
    fn clone(&self) -> Self {
        Self {
            differences: self.differences.clone(),
            prefix: self.prefix.clone(),
        }
    }
}

impl<C: Curve> Adder for BlstAdder<C> {
    type Curve = C;
    /// G1: 17 bits at 2^22 points, 15 windows of [`super::halved`] scalars
    /// instead of 16 of 16 bits, each about as dear.
    const WIDEST_WINDOW: usize = C::WIDEST_WINDOW;

    fn add_batch(&mut self, sums: &mut [C::Affine], points: &[C::Affine], batch: &[Addition]) {
        let Some(last) = batch.len().checked_sub(1) else {
            return;
        };
        self.differences.clear();
        self.prefix.clear();
        // SAFETY (every block below): blst reads and writes valid field
        // elements; an output may be one of the inputs.
        for (k, addition) in batch.iter().enumerate() {
            if let Some(&ahead) = batch.get(k + PREFETCH_DISTANCE) {
                prefetch_addition(sums, points, ahead);
            }
            let mut difference = C::Field::default();
            let x1 = C::x(&sums[addition.bucket as usize]);
            let x2 = C::x(&points[addition.point as usize]);
            unsafe { C::sub(&mut difference, x2, x1) };
            let product = match self.prefix.last() {
                Some(before) => {
                    let mut product = C::Field::default();
                    unsafe { C::mul(&mut product, before, &difference) };
                    product
                }
                None => difference,
            };
            self.differences.push(difference);
            self.prefix.push(product);
        }
        let mut inverse = C::Field::default();
        // The batch never holds a zero difference (see `add_batch`), so the
        // product is invertible.
        unsafe { C::inverse(&mut inverse, &self.prefix[last]) };
        for (k, addition) in batch.iter().enumerate().rev() {
            if let Some(at) = k.checked_sub(PREFETCH_DISTANCE) {
                prefetch_addition(sums, points, batch[at]);
            }
            let inverse_difference = if k == 0 {
                inverse
            } else {
                let mut this = C::Field::default();
                unsafe {
                    C::mul(&mut this, &inverse, &self.prefix[k - 1]);
                    C::mul(&mut inverse, &inverse, &self.differences[k]);
                }
                this
            };
            let point = &points[addition.point as usize];
            let bucket = &mut sums[addition.bucket as usize];
            let (x1, y1) = (C::x(bucket), C::y(bucket));
            let (x2, y2) = (C::x(point), C::y(point));
            let mut lambda = C::Field::default();
            let mut x3 = C::Field::default();
            let mut y3 = C::Field::default();
            unsafe {
                // y₂ − y₁, with y₂ = −y of the point for a negative digit.
                if addition.negate {
                    C::add(&mut lambda, y2, y1);
                    C::neg(&mut lambda, &lambda);
                } else {
                    C::sub(&mut lambda, y2, y1);
                }
                C::mul(&mut lambda, &lambda, &inverse_difference);
                C::sqr(&mut x3, &lambda);
                C::sub(&mut x3, &x3, x1);
                C::sub(&mut x3, &x3, x2);
                C::sub(&mut y3, x1, &x3);
                C::mul(&mut y3, &y3, &lambda);
                C::sub(&mut y3, &y3, y1);
            }
            *bucket = C::point(x3, y3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::G1;
    use super::*;
    use backend_api::interop::{g1_affines_as_pce, g1_as_blst};
    use blst::{
        blst_p1, blst_p1_add_or_double_affine, blst_p1_affine, blst_p1_from_affine,
        blst_p1_is_equal,
    };
    use blstrs::{G1Affine, G1Projective};
    use group::{Curve as _, Group as _};
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn random_affine(n: usize, rng: &mut ChaCha8Rng) -> Vec<blst_p1_affine> {
        let points: Vec<G1Affine> = (0..n)
            .map(|_| G1Projective::random(&mut *rng).to_affine())
            .collect();
        g1_as_blst(g1_affines_as_pce(&points)).to_vec()
    }

    /// Batches of one to nine additions and of lengths around the prefetch
    /// distance (some negated), each addition against blst's: the first
    /// addition has no prefix product before it, the last one's is the
    /// inverted product, and the longer batches prefetch ahead.
    #[test]
    fn batches_of_many_lengths_match_blst() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut adder = BlstAdder::<G1>::default();
        let around_prefetch = [
            PREFETCH_DISTANCE,
            PREFETCH_DISTANCE + 1,
            2 * PREFETCH_DISTANCE + 1,
        ];
        for len in (1..=9).chain(around_prefetch) {
            let mut sums = random_affine(len, &mut rng);
            let points = random_affine(len, &mut rng);
            let batch: Vec<Addition> = (0..len)
                .map(|k| {
                    let mut addition = Addition::plain(len - 1 - k, k as u32);
                    addition.negate = k % 3 == 1;
                    addition
                })
                .collect();
            let expected: Vec<blst_p1> = batch
                .iter()
                .map(|addition| {
                    let point = super::super::signed_point::<G1>(&points, *addition);
                    let mut sum = blst_p1::default();
                    // SAFETY: blst converts and adds valid points.
                    unsafe {
                        blst_p1_from_affine(&mut sum, &sums[addition.bucket as usize]);
                        blst_p1_add_or_double_affine(&mut sum, &sum, &point);
                    }
                    sum
                })
                .collect();
            adder.add_batch(&mut sums, &points, &batch);
            for (addition, expected) in batch.iter().zip(&expected) {
                let mut ours = blst_p1::default();
                // SAFETY: as above.
                let equal = unsafe {
                    blst_p1_from_affine(&mut ours, &sums[addition.bucket as usize]);
                    blst_p1_is_equal(&ours, expected)
                };
                assert!(equal, "length {len}, bucket {}", addition.bucket);
            }
        }
    }
}
