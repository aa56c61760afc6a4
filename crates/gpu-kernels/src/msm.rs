//! The host side of the GPU MSM (kernels/msm.h).
//!
//! PoRep witnesses are mostly zeros and ones, so the host first splits the
//! scalars ([`Terms`]): zeros are dropped, ones go to the `sum_bases`
//! kernel (plain additions spread over every thread, instead of all landing
//! in one bucket), and only the rest go to the bucket kernel, as
//! (base index, scalar) pairs. [`MsmPlan`] picks the window size for the
//! bucket kernel from the number of terms and the device's parallelism;
//! [`combine_windows`] turns the device's per-thread partial sums into the
//! result (a few thousand points: cheaper on the host than another launch).

use backend_api::ffi::{pce_g1_projective, pce_g2_projective, pce_scalar};
use backend_api::interop::{
    pce_g1_projectives, pce_g1_projectives_mut, pce_g2_projectives, pce_g2_projectives_mut,
};
use blstrs::{G1Projective, G2Projective};
use group::Group;

/// Bits of a BLS12-381 scalar.
const SCALAR_BITS: u32 = 255;

/// Widest window the kernels accept (digits are 32-bit, buckets 2^bits − 1).
const MAX_WINDOW_BITS: u32 = 16;

/// The terms of one MSM over one device buffer of bases, split by scalar.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Terms {
    /// Indices (into the device buffer) of the bases whose scalar is 1.
    pub ones: Vec<u32>,
    /// Indices of the bases whose scalar is neither 0 nor 1.
    pub indices: Vec<u32>,
    /// The scalars of `indices`, in the same order.
    pub scalars: Vec<pce_scalar>,
}

impl Terms {
    /// Splits `scalars`, whose first entry multiplies base `first_index` of
    /// the device buffer.
    pub fn split(scalars: &[pce_scalar], first_index: u32) -> Self {
        let mut terms = Terms::default();
        for (index, scalar) in (first_index..).zip(scalars) {
            match scalar.l {
                [0, 0, 0, 0] => {}
                [1, 0, 0, 0] => terms.ones.push(index),
                _ => {
                    terms.indices.push(index);
                    terms.scalars.push(*scalar);
                }
            }
        }
        terms
    }
}

/// How the bucket kernel runs: `windows` windows of `bits` bits, the terms
/// cut into `slices` slices, one thread per (slice, window).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsmPlan {
    /// Window width in bits.
    pub bits: u32,
    /// Number of windows covering the 255 scalar bits.
    pub windows: u32,
    /// Number of slices the terms are cut into.
    pub slices: u32,
}

impl MsmPlan {
    /// The plan for `terms` terms on a device that runs about
    /// `parallel_threads` threads at once, with room for at most
    /// `max_buckets` buckets.
    ///
    /// Each thread adds its slice's terms to its buckets, then sums its
    /// 2^bits − 1 buckets with about 2^(bits+1) additions; threads beyond
    /// the device's parallelism run in further waves. The plan minimises
    /// waves × additions per thread.
    pub fn new(terms: usize, parallel_threads: u32, max_buckets: u64) -> Self {
        let terms = terms.max(1) as u64;
        let parallel = u64::from(parallel_threads.max(1));
        let mut best: Option<(u64, MsmPlan)> = None;
        for bits in 1..=MAX_WINDOW_BITS {
            let windows = SCALAR_BITS.div_ceil(bits);
            let slices = (parallel / u64::from(windows)).clamp(1, terms) as u32;
            let plan = MsmPlan {
                bits,
                windows,
                slices,
            };
            if plan.buckets() > max_buckets && bits > 1 {
                continue;
            }
            let threads = u64::from(plan.threads());
            let waves = threads.div_ceil(parallel);
            let per_thread = terms.div_ceil(u64::from(slices)) + (2u64 << bits);
            let cost = waves * per_thread;
            if best.is_none_or(|(best_cost, _)| cost < best_cost) {
                best = Some((cost, plan));
            }
        }
        best.expect("bits = 1 is always considered").1
    }

    /// Threads of the bucket kernel.
    pub fn threads(&self) -> u32 {
        self.windows * self.slices
    }

    /// Buckets the kernel needs: 2^bits − 1 per thread.
    pub fn buckets(&self) -> u64 {
        u64::from(self.threads()) * ((1u64 << self.bits) - 1)
    }
}

/// A group as the kernels' results arrive on the host: the ABI's Jacobian
/// points, viewed as blstrs points for the arithmetic.
pub trait Curve {
    /// The ABI's Jacobian point (what the device writes).
    type Point: Copy + Default;
    /// The same point in blstrs.
    type Projective: Group;
    /// Views device results as blstrs points.
    fn view(points: &[Self::Point]) -> &[Self::Projective];
    /// The ABI form of a blstrs point.
    fn export(point: Self::Projective) -> Self::Point;
}

/// G1.
pub struct G1;

/// G2.
pub struct G2;

impl Curve for G1 {
    type Point = pce_g1_projective;
    type Projective = G1Projective;
    fn view(points: &[pce_g1_projective]) -> &[G1Projective] {
        pce_g1_projectives(points)
    }
    fn export(point: G1Projective) -> pce_g1_projective {
        let mut out = [pce_g1_projective::default()];
        pce_g1_projectives_mut(&mut out)[0] = point;
        out[0]
    }
}

impl Curve for G2 {
    type Point = pce_g2_projective;
    type Projective = G2Projective;
    fn view(points: &[pce_g2_projective]) -> &[G2Projective] {
        pce_g2_projectives(points)
    }
    fn export(point: G2Projective) -> pce_g2_projective {
        let mut out = [pce_g2_projective::default()];
        pce_g2_projectives_mut(&mut out)[0] = point;
        out[0]
    }
}

/// The sum of some device results (e.g. the `sum_bases` partials).
pub fn sum<C: Curve>(partials: &[C::Point]) -> C::Projective {
    C::view(partials).iter().copied().sum()
}

/// The MSM from the bucket kernel's partials, where
/// `partials[slice · windows + window]` is one slice's sum in one window:
/// Σ_window 2^(bits · window) · Σ_slice partial.
pub fn combine_windows<C: Curve>(plan: &MsmPlan, partials: &[C::Point]) -> C::Projective {
    let partials = C::view(partials);
    assert_eq!(
        partials.len(),
        plan.threads() as usize,
        "one partial per thread"
    );
    let window_sum = |window: usize| -> C::Projective {
        partials
            .iter()
            .skip(window)
            .step_by(plan.windows as usize)
            .copied()
            .sum()
    };
    let mut result = C::Projective::identity();
    for window in (0..plan.windows as usize).rev() {
        for _ in 0..plan.bits {
            result = result.double();
        }
        result += window_sum(window);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(l0: u64, l3: u64) -> pce_scalar {
        pce_scalar { l: [l0, 0, 0, l3] }
    }

    #[test]
    fn split_drops_zeros_and_separates_ones() {
        let scalars = [
            scalar(0, 0),
            scalar(1, 0),
            scalar(2, 0),
            scalar(1, 1),
            scalar(1, 0),
        ];
        let terms = Terms::split(&scalars, 10);
        assert_eq!(terms.ones, [11, 14]);
        assert_eq!(terms.indices, [12, 13]);
        assert_eq!(terms.scalars, [scalar(2, 0), scalar(1, 1)]);
    }

    #[test]
    fn plans_fit_the_bucket_budget_and_cover_the_scalar() {
        for terms in [1usize, 7, 1000, 1 << 16, 1 << 22] {
            for threads in [1u32, 8, 1 << 10, 1 << 15] {
                let plan = MsmPlan::new(terms, threads, 1 << 24);
                assert!(plan.buckets() <= 1 << 24, "{plan:?}");
                assert!(plan.bits * plan.windows >= SCALAR_BITS, "{plan:?}");
                assert!(u64::from(plan.slices) <= terms as u64, "{plan:?}");
            }
        }
        // Many terms on a small device: wide windows.
        assert!(MsmPlan::new(1 << 20, 8, 1 << 24).bits >= 10);
        // Few terms: narrow windows.
        assert!(MsmPlan::new(4, 8, 1 << 24).bits <= 3);
    }
}
