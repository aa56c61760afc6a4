//! Random Groth16 parameters from a pre-compiled circuit, for testing.
//!
//! **Insecure**: whoever runs this knows the toxic waste (τ, α, β, γ, δ) and
//! can forge proofs. It produces the same kind of parameters as bellperson's
//! `generate_random_parameters` (random generators, the same queries and
//! filtering), but much faster:
//!
//! - the QAP polynomials at τ come from the recorded matrices: with
//!   `L_i(τ)` the Lagrange basis of the domain at τ,
//!   `u = Aᵀ·L(τ)`, `v = Bᵀ·L(τ)`, `w = Cᵀ·L(τ)` (three transposed MatVecs
//!   instead of re-synthesizing the circuit into per-variable lists);
//! - every query point is a fixed-base multiplication of one of two
//!   generators, done with a windowed comb ([`crate::fixed_base`]).

use std::sync::Arc;

use bellperson::groth16::{Parameters, VerifyingKey};
use blstrs::{Bls12, G1Projective, G2Projective, Scalar};
use ff::{Field, PrimeField};
use group::{Curve, Group};
use pce_core::PrecompiledCircuit;
use rand::RngCore;
use rayon::prelude::*;
use tracing::info;

use crate::fixed_base::{best_window, FixedBase};
use crate::qap::domain_log_size;

/// Why parameters could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// An aux variable appears in no constraint (bellperson refuses those too).
    #[error("aux variable {0} is unconstrained: the L query would contain the point at infinity")]
    Unconstrained(usize),
    /// The random toxic waste hit a degenerate value (probability ~2^-250).
    #[error("degenerate random value; run again")]
    Degenerate,
}

/// `L_i(τ)` for `i < n`: the Lagrange basis of the size-n domain at τ,
/// `L_i(τ) = (τ^n − 1)/n · ω^i / (τ − ω^i)`.
fn lagrange_at(tau: Scalar, log_n: u32) -> Result<Vec<Scalar>, SetupError> {
    let n = 1usize << log_n;
    let mut omega = Scalar::ROOT_OF_UNITY;
    for _ in log_n..Scalar::S {
        omega = omega.square();
    }
    let z_over_n =
        (tau.pow_vartime([n as u64]) - Scalar::ONE) * Scalar::from(n as u64).invert().unwrap();
    if bool::from(z_over_n.is_zero()) {
        return Err(SetupError::Degenerate);
    }
    const CHUNK: usize = 1 << 14;
    let mut out = vec![Scalar::ZERO; n];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            // Batch inversion of (τ − ω^i) over the chunk, then scale.
            let start = omega.pow_vartime([(c * CHUNK) as u64]);
            let mut powers = Vec::with_capacity(chunk.len());
            let mut prefix = Vec::with_capacity(chunk.len());
            let (mut w, mut running) = (start, Scalar::ONE);
            for _ in 0..chunk.len() {
                powers.push(w);
                running *= tau - w;
                prefix.push(running);
                w *= omega;
            }
            let mut inverse = running.invert().unwrap();
            for i in (0..chunk.len()).rev() {
                let before = if i == 0 { Scalar::ONE } else { prefix[i - 1] };
                let inv_i = inverse * before;
                inverse *= tau - powers[i];
                chunk[i] = z_over_n * powers[i] * inv_i;
            }
        });
    Ok(out)
}

/// Generates random (insecure) parameters for `pce`'s circuit.
pub fn generate_random_parameters(
    pce: &PrecompiledCircuit,
    rng: &mut impl RngCore,
) -> Result<Parameters<Bls12>, SetupError> {
    let g1 = G1Projective::random(&mut *rng);
    let g2 = G2Projective::random(&mut *rng);
    let [alpha, beta, gamma, delta, tau] = [(); 5].map(|_| Scalar::random(&mut *rng));
    let gamma_inv = Option::<Scalar>::from(gamma.invert()).ok_or(SetupError::Degenerate)?;
    let delta_inv = Option::<Scalar>::from(delta.invert()).ok_or(SetupError::Degenerate)?;

    let log_n = domain_log_size(pce.num_constraints());
    let n = 1usize << log_n;
    let lagrange = lagrange_at(tau, log_n)?;
    if lagrange
        .iter()
        .take(pce.num_constraints())
        .any(|l| bool::from(l.is_zero()))
    {
        return Err(SetupError::Degenerate);
    }
    let rows = &lagrange[..pce.num_constraints()];
    let [a, b, c] = pce.matrices();
    let u = a.mul_transpose_vec(rows).expect("row count matches");
    let v = b.mul_transpose_vec(rows).expect("row count matches");
    let w = c.mul_transpose_vec(rows).expect("row count matches");
    drop(lagrange);
    info!(n, "QAP evaluated at tau");

    let num_inputs = pce.num_inputs();
    let combined = |j: usize, inv: Scalar| (beta * u[j] + alpha * v[j] + w[j]) * inv;
    let ic_scalars: Vec<Scalar> = (0..num_inputs)
        .into_par_iter()
        .map(|j| combined(j, gamma_inv))
        .collect();
    let l_scalars: Vec<Scalar> = (num_inputs..u.len())
        .into_par_iter()
        .map(|j| combined(j, delta_inv))
        .collect();
    if let Some(i) = l_scalars.iter().position(|s| bool::from(s.is_zero())) {
        return Err(SetupError::Unconstrained(i));
    }
    let z_over_delta = (tau.pow_vartime([n as u64]) - Scalar::ONE) * delta_inv;
    // τ^i · Z(τ)/δ for i < n − 1, each chunk starting from its own power.
    const CHUNK: usize = 1 << 14;
    let mut h_scalars = vec![Scalar::ZERO; n - 1];
    h_scalars
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut value = tau.pow_vartime([(c * CHUNK) as u64]) * z_over_delta;
            for slot in chunk {
                *slot = value;
                value *= tau;
            }
        });
    let nonzero = |values: &[Scalar]| -> Vec<Scalar> {
        values
            .iter()
            .copied()
            .filter(|s| !bool::from(s.is_zero()))
            .collect()
    };
    let a_scalars = nonzero(&u);
    let b_scalars = nonzero(&v);
    drop((u, v, w));

    let g1_count =
        h_scalars.len() + l_scalars.len() + a_scalars.len() + b_scalars.len() + num_inputs;
    let g1_table = FixedBase::new(g1, best_window(g1_count));
    let g2_table = FixedBase::new(g2, best_window(b_scalars.len()));
    info!(
        g1_count,
        g2_count = b_scalars.len(),
        "fixed-base tables built"
    );
    let h = g1_table.mul_all(&h_scalars);
    drop(h_scalars);
    let l = g1_table.mul_all(&l_scalars);
    drop(l_scalars);
    let a = g1_table.mul_all(&a_scalars);
    let b_g1 = g1_table.mul_all(&b_scalars);
    let b_g2 = g2_table.mul_all(&b_scalars);
    let ic = g1_table.mul_all(&ic_scalars);
    info!("query points computed");

    let (g1, g2) = (g1.to_affine(), g2.to_affine());
    let vk = VerifyingKey::<Bls12> {
        alpha_g1: (g1 * alpha).to_affine(),
        beta_g1: (g1 * beta).to_affine(),
        beta_g2: (g2 * beta).to_affine(),
        gamma_g2: (g2 * gamma).to_affine(),
        delta_g1: (g1 * delta).to_affine(),
        delta_g2: (g2 * delta).to_affine(),
        ic,
    };
    Ok(Parameters {
        vk,
        h: Arc::new(h),
        l: Arc::new(l),
        a: Arc::new(a),
        b_g1: Arc::new(b_g1),
        b_g2: Arc::new(b_g2),
    })
}
