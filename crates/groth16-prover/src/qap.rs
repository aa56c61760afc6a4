//! The R1CS-to-QAP reduction: the coefficients of `h`.
//!
//! With `a`, `b`, `c` the evaluations of the constraint rows at the domain
//! `H = {ω^i}` of size `n` (zero padded) and `A`, `B`, `C` their
//! interpolants (degree < n), `h = (A·B − C) / Z` with `Z(x) = x^n − 1`.
//! Since `deg C < n`, write `A·B = L + x^n·U` with `deg L, deg U < n`:
//! then `h = U`, the high half of `A·B`, and `C = L + U` (the reduction of
//! `A·B` modulo `x^n − 1`, which a satisfied R1CS makes equal to `C`).
//! On the coset `g·H`, where `x^n = γ = g^n`, `A·B` agrees with `L + γ·U`.
//! So, with six transforms instead of bellperson's seven:
//!
//! 1. interpolate a, b, c (three inverse NTTs): `A`, `B`, `C = L + U`;
//! 2. evaluate `A`, `B` on the coset (two coset NTTs) and multiply them;
//! 3. interpolate that product from the coset (one inverse coset NTT):
//!    `L + γ·U`;
//! 4. `h = U = (C − (L + γ·U)) / (1 − γ)`, the `n − 1` low coefficients.
//!
//! The result equals bellperson's seven-transform one (interpolate a, b,
//! c, evaluate all three on the coset, divide `a·b − c` by `Z` there,
//! interpolate) for every satisfied R1CS, h being unique; step 4 is only
//! valid for a satisfied R1CS, and for an unsatisfied one both results are
//! garbage (different garbage) and the proof fails to verify.
//!
//! This module is the one derivation of the step: the backend operation
//! `qap_h` (found by name, see `pce_backend.h`) has the same contract (a,
//! b, c of a satisfied R1CS, zero padded, in; the coefficients of h out),
//! the bundled GPU plugin runs exactly these four steps on the device
//! (keeping a, b, c there between the transforms), and backend-check
//! compares a plugin's `qap_h` with bellperson's on satisfied inputs only.
//! Without the operation the transforms run here, through the backend's
//! NTT.

use backend_api::interop::scalars_as_fr_mut;
use backend_api::{BackendError, Device, NttDirection, NttDomain};
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

/// Smallest `log2(n)` with `2^log2(n) ≥ constraints`, as bellperson's domain picks it.
pub fn domain_log_size(constraints: usize) -> u32 {
    constraints.max(1).next_power_of_two().trailing_zeros()
}

/// Turns `abc = a ‖ b ‖ c` (three vectors of the domain's size) into the
/// coefficients of `h`, left in the first vector's place (`n − 1` long) and
/// returned from there: no further vector of the domain's size is
/// allocated (fresh memory costs page faults).
pub fn h_coefficients<'a>(
    device: &Device,
    domain: &NttDomain<'_>,
    abc: &'a mut [Scalar],
) -> Result<&'a [Scalar], BackendError> {
    let n = domain.size();
    assert_eq!(abc.len(), 3 * n, "a, b, c must fill three domain vectors");
    if device.qap_h(domain, scalars_as_fr_mut(abc))? {
        return Ok(&abc[..n - 1]);
    }
    let fr = scalars_as_fr_mut(abc);
    device.ntt(domain, NttDirection::Inverse, false, fr)?;
    device.ntt(domain, NttDirection::Forward, true, &mut fr[..2 * n])?;

    let (a, bc) = abc.split_at_mut(n);
    let (b, c) = bc.split_at_mut(n);
    a.par_iter_mut()
        .zip(b.par_iter())
        .for_each(|(a, b)| *a *= b);
    device.ntt(domain, NttDirection::Inverse, true, scalars_as_fr_mut(a))?;

    let gamma = Scalar::MULTIPLICATIVE_GENERATOR.pow_vartime([n as u64]);
    let scale = (Scalar::ONE - gamma)
        .invert()
        .expect("g^n ≠ 1 outside the domain");
    a[..n - 1]
        .par_iter_mut()
        .zip(c[..n - 1].par_iter())
        .for_each(|(product, c)| *product = (*c - *product) * scale);
    Ok(&a[..n - 1])
}
