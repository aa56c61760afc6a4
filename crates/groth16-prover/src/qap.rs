//! The R1CS-to-QAP reduction: the coefficients of `h`.
//!
//! With `a`, `b`, `c` the evaluations of the constraint rows at the domain
//! `H` of size `n` (zero padded), `h = (A·B − C) / Z` where `Z(x) = x^n − 1`
//! vanishes on `H`. As in bellperson: interpolate a, b, c (inverse NTT),
//! evaluate them on the coset `g·H` (coset NTT, where `Z` is the constant
//! `g^n − 1`), combine pointwise, divide by that constant, and interpolate
//! back from the coset. The `n − 1` low coefficients are the H query's
//! scalars. The transforms run on the backend, three vectors per call, or
//! the whole step in one call when the backend offers it (`qap_h`: a GPU
//! then keeps a, b, c on the device between the transforms).

use backend_api::interop::{fr_as_scalars, scalars_as_fr_mut};
use backend_api::{BackendError, Device, NttDirection, NttDomain};
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

/// Smallest `log2(n)` with `2^log2(n) ≥ constraints`, as bellperson's domain picks it.
pub fn domain_log_size(constraints: usize) -> u32 {
    constraints.max(1).next_power_of_two().trailing_zeros()
}

/// Turns `abc = a ‖ b ‖ c` (three vectors of the domain's size) into the
/// coefficients of `h`, returned in the first vector's place, `n − 1` long.
pub fn h_coefficients(
    device: &Device,
    domain: &NttDomain<'_>,
    abc: &mut [Scalar],
) -> Result<Vec<Scalar>, BackendError> {
    let n = domain.size();
    assert_eq!(abc.len(), 3 * n, "a, b, c must fill three domain vectors");
    let fr = scalars_as_fr_mut(abc);
    if device.qap_h(domain, fr)? {
        return Ok(fr_as_scalars(&fr[..n - 1]).to_vec());
    }
    device.ntt(domain, NttDirection::Inverse, false, fr)?;
    device.ntt(domain, NttDirection::Forward, true, fr)?;

    let (a, bc) = abc.split_at_mut(n);
    let (b, c) = bc.split_at_mut(n);
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let z_inv = (g.pow_vartime([n as u64]) - Scalar::ONE)
        .invert()
        .expect("g^n ≠ 1 outside the domain");
    a.par_iter_mut()
        .zip(b.par_iter())
        .zip(c.par_iter())
        .for_each(|((a, b), c)| *a = (*a * b - c) * z_inv);

    let a = scalars_as_fr_mut(a);
    device.ntt(domain, NttDirection::Inverse, true, a)?;
    Ok(fr_as_scalars(&a[..n - 1]).to_vec())
}
