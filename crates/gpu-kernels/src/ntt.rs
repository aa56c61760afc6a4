//! The host side of the GPU NTT (kernels/ntt.h): twiddle tables and the
//! factors of the scaling pass, following the ABI's definition of the
//! domain (root of unity, coset generator g = 7, 1/n in the inverse).

use backend_api::ffi::pce_fr;
use backend_api::interop::{root_of_unity, scalars_as_fr};
use blstrs::Scalar;
use ff::{Field, PrimeField};

/// `w^i` for `i < n/2`, `w` the domain's root of unity (its inverse for an
/// inverse transform), in the kernels' layout.
pub fn twiddles(log_n: u32, inverse: bool) -> Vec<pce_fr> {
    let mut root = root_of_unity(log_n);
    if inverse {
        root = root.invert().expect("a root of unity is invertible");
    }
    let half = (1usize << log_n) / 2;
    let mut table = Vec::with_capacity(half);
    let mut power = Scalar::ONE;
    for _ in 0..half {
        table.push(power);
        power *= root;
    }
    scalars_as_fr(&table).to_vec()
}

/// One pass of `ntt_scale`: element `i` is multiplied by `scale · step^i`.
#[derive(Debug, Clone, Copy)]
pub struct Scaling {
    /// The factor of element 0.
    pub scale: pce_fr,
    /// The ratio between consecutive factors.
    pub step: pce_fr,
}

fn scaling(scale: Scalar, step: Scalar) -> Scaling {
    let [scale, step] = [scale, step].map(|value| scalars_as_fr(&[value])[0]);
    Scaling { scale, step }
}

/// The pass before the butterflies: the coset shift `g^i` of a forward
/// coset transform.
pub fn before(inverse: bool, coset: bool) -> Option<Scaling> {
    (coset && !inverse).then(|| scaling(Scalar::ONE, Scalar::MULTIPLICATIVE_GENERATOR))
}

/// The pass after the butterflies: `1/n` of an inverse transform, times
/// `g^-i` for an inverse coset transform.
pub fn after(log_n: u32, inverse: bool, coset: bool) -> Option<Scaling> {
    inverse.then(|| {
        let n_inv = Scalar::from(1u64 << log_n)
            .invert()
            .expect("n is invertible");
        let step = if coset {
            Scalar::MULTIPLICATIVE_GENERATOR
                .invert()
                .expect("the generator is invertible")
        } else {
            Scalar::ONE
        };
        scaling(n_inv, step)
    })
}
