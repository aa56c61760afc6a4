//! Batch-affine additions one at a time on blst's field operations: the
//! adder of [`super`]'s MSM on CPUs without AVX-512 IFMA.
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

use blst::{
    blst_fp, blst_fp_add, blst_fp_cneg, blst_fp_inverse, blst_fp_mul, blst_fp_sqr, blst_fp_sub,
    blst_p1_affine,
};

use super::{prefetch_addition, Adder, Addition, PREFETCH_DISTANCE};

/// The blst adder: scratch for the forward pass.
#[derive(Clone, Default)]
pub(crate) struct BlstAdder {
    /// `x₂ − x₁` of each addition.
    differences: Vec<blst_fp>,
    /// The products of the differences up to each addition.
    prefix: Vec<blst_fp>,
}

impl Adder for BlstAdder {
    /// 17 bits at 2^22 points: 15 windows of [`super::halved`] scalars
    /// instead of 16 of 16 bits, each about as dear.
    const WIDEST_WINDOW: usize = 17;

    fn add_batch(
        &mut self,
        sums: &mut [blst_p1_affine],
        points: &[blst_p1_affine],
        batch: &[Addition],
    ) {
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
            let mut difference = blst_fp::default();
            let x1 = &sums[addition.bucket as usize].x;
            let x2 = &points[addition.point as usize].x;
            unsafe { blst_fp_sub(&mut difference, x2, x1) };
            let product = match self.prefix.last() {
                Some(before) => {
                    let mut product = blst_fp::default();
                    unsafe { blst_fp_mul(&mut product, before, &difference) };
                    product
                }
                None => difference,
            };
            self.differences.push(difference);
            self.prefix.push(product);
        }
        let mut inverse = blst_fp::default();
        // The batch never holds a zero difference (see `add_batch`), so the
        // product is invertible.
        unsafe { blst_fp_inverse(&mut inverse, &self.prefix[last]) };
        for (k, addition) in batch.iter().enumerate().rev() {
            if let Some(at) = k.checked_sub(PREFETCH_DISTANCE) {
                prefetch_addition(sums, points, batch[at]);
            }
            let inverse_difference = if k == 0 {
                inverse
            } else {
                let mut this = blst_fp::default();
                unsafe {
                    blst_fp_mul(&mut this, &inverse, &self.prefix[k - 1]);
                    blst_fp_mul(&mut inverse, &inverse, &self.differences[k]);
                }
                this
            };
            let point = &points[addition.point as usize];
            let bucket = &mut sums[addition.bucket as usize];
            let mut lambda = blst_fp::default();
            let mut x3 = blst_fp::default();
            let mut y3 = blst_fp::default();
            unsafe {
                // y₂ − y₁, with y₂ = −y of the point for a negative digit.
                if addition.negate {
                    blst_fp_add(&mut lambda, &point.y, &bucket.y);
                    blst_fp_cneg(&mut lambda, &lambda, true);
                } else {
                    blst_fp_sub(&mut lambda, &point.y, &bucket.y);
                }
                blst_fp_mul(&mut lambda, &lambda, &inverse_difference);
                blst_fp_sqr(&mut x3, &lambda);
                blst_fp_sub(&mut x3, &x3, &bucket.x);
                blst_fp_sub(&mut x3, &x3, &point.x);
                blst_fp_sub(&mut y3, &bucket.x, &x3);
                blst_fp_mul(&mut y3, &y3, &lambda);
                blst_fp_sub(&mut y3, &y3, &bucket.y);
            }
            bucket.x = x3;
            bucket.y = y3;
        }
    }
}
