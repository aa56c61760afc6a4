//! The QAP step (`qap_h`) on the scalar transform: one bit reversal
//! instead of six, and the factors folded into passes that run anyway.
//!
//! The math is groth16-prover's `qap.rs`: with `A`, `B`, `C` the
//! interpolants of a, b, c on the domain of size `n = 2^k`, and `P` the
//! interpolant from the coset `gH` of `A·B`'s values there,
//! `h = (C − P) / (1 − γ)`, `γ = g^n`. Composed from [`Domain::transform`]
//! that is six transforms, each opened by a bit-reversal permutation (a
//! random access to every element) and closed by a pass for 1/n or the
//! coset powers. Here:
//!
//! - the inverse transforms are decimations in frequency (natural order
//!   in, bit-reversed out, no 1/n) and the forward ones decimations in
//!   time (bit-reversed in, natural out): A and B go from their values to
//!   the coset's without a permutation, and C and P come out in the same
//!   (bit-reversed) order;
//! - the coset factors `g^i / n` are applied to A and B between the
//!   inverse transform's last stages and the forward one's first, on the
//!   same cache-sized chunk;
//! - `h_i = (C_i − P_i) / (1 − γ)` with `C_i = c_j / n` and
//!   `P_i = g^−i · p_j / n` (`j` the position of `i` in bit-reversed order)
//!   is computed on each chunk of `p` right after its last stages;
//! - one bit reversal puts h in natural order.
//!
//! The factor at position `j = q·2^L + t` of a vector cut into chunks of
//! `2^L`: `rev_k(j) = rev_L(t)·2^(k−L) + rev_(k−L)(q)`, so
//! `g^rev(j) = G^rev_L(t) · g^rev(q)` with `G = g^(2^(k−L))`: a table of
//! `2^L` powers and one power per chunk.

use blst::{blst_fr, blst_fr_mul, blst_fr_sub};
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use super::{bit_reverse, fr, fr_mut, reverse, Domain, GRAIN};

/// `x ↦ x · g^rev(j) · scale` over the positions `j` of a vector, chunk by chunk.
struct BitReversedPowers {
    /// `G^rev_L(t)`, `t < 2^L`.
    in_chunk: Vec<Scalar>,
    g: Scalar,
    scale: Scalar,
    /// Bits of a chunk's index: `k − L`.
    chunk_bits: u32,
}

impl BitReversedPowers {
    fn new(domain: &Domain, g: Scalar, scale: Scalar) -> Self {
        let chunk_log = domain.chunk_size().trailing_zeros();
        let chunk_bits = domain.log_n - chunk_log;
        let step = g.pow_vartime([1u64 << chunk_bits]);
        let mut in_chunk: Vec<Scalar> =
            std::iter::successors(Some(Scalar::ONE), |x| Some(x * step))
                .take(domain.chunk_size())
                .collect();
        bit_reverse(&mut in_chunk, chunk_log);
        Self {
            in_chunk,
            g,
            scale,
            chunk_bits,
        }
    }

    /// `g^rev(q) · scale`, the factor shared by chunk `q`.
    fn chunk_factor(&self, q: usize) -> Scalar {
        self.g.pow_vartime([reverse(q, self.chunk_bits) as u64]) * self.scale
    }
}

/// `x ← x · y` in place on blst (see [`fr`] for why not `*=`).
#[inline(always)]
fn mul_assign(x: &mut Scalar, y: &Scalar) {
    let x = fr_mut(x) as *mut blst_fr;
    // SAFETY: blst reads and writes valid field elements; the output may
    // be an input.
    unsafe { blst_fr_mul(x, x, fr(y)) };
}

impl Domain {
    /// The QAP step (see the module doc): `abc = a ‖ b ‖ c`, three vectors
    /// of the domain's size, the values of a satisfied R1CS; on return the
    /// first vector holds the `n` coefficients of h. `false`, with `abc`
    /// untouched, where this size's transforms take the IFMA path, which
    /// has no permutation to save: the caller composes the step from
    /// [`Domain::transform`].
    pub fn qap_h(&self, abc: &mut [Scalar]) -> bool {
        if Self::uses_lanes(self.log_n) {
            return false;
        }
        self.qap_h_scalar(abc);
        true
    }

    fn qap_h_scalar(&self, abc: &mut [Scalar]) {
        let n = self.size();
        assert_eq!(abc.len(), 3 * n, "a, b, c must fill three domain vectors");
        let chunk = self.chunk_size();
        let (a, bc) = abc.split_at_mut(n);
        let (b, c) = bc.split_at_mut(n);
        let g = Scalar::MULTIPLICATIVE_GENERATOR;

        // A and B, from their values on H to their values on gH.
        let to_coset = BitReversedPowers::new(self, g, self.n_inv);
        for values in [&mut *a, &mut *b] {
            self.dif_passes(values);
            values
                .par_chunks_mut(chunk)
                .enumerate()
                .for_each(|(q, values)| {
                    self.dif_chunk(values);
                    let shared = to_coset.chunk_factor(q);
                    for (x, power) in values.iter_mut().zip(&to_coset.in_chunk) {
                        let mut factor = *power;
                        mul_assign(&mut factor, &shared);
                        mul_assign(x, &factor);
                    }
                    self.dit_chunk(values);
                });
            self.dit_passes(values);
        }

        // C·n, bit-reversed.
        self.dif_passes(c);
        c.par_chunks_mut(chunk)
            .for_each(|values| self.dif_chunk(values));

        // A·B on gH, then P·n (without its coset factors), bit-reversed.
        a.par_chunks_mut(GRAIN)
            .zip(b.par_chunks(GRAIN))
            .for_each(|(a, b)| a.iter_mut().zip(b).for_each(|(a, b)| mul_assign(a, b)));
        self.dif_passes(a);

        // h_i = (c_j − g^−i · p_j) / (n (1 − γ)), still bit-reversed.
        let gamma = g.pow_vartime([n as u64]);
        let scale = ((Scalar::ONE - gamma) * Scalar::from(n as u64))
            .invert()
            .expect("g^n ≠ 1 outside the domain");
        let g_inv = g.invert().expect("the generator is invertible");
        let from_coset = BitReversedPowers::new(self, g_inv, Scalar::ONE);
        a.par_chunks_mut(chunk)
            .zip(c.par_chunks(chunk))
            .enumerate()
            .for_each(|(q, (p, c))| {
                self.dif_chunk(p);
                let shared = from_coset.chunk_factor(q);
                for ((p, c), power) in p.iter_mut().zip(c).zip(&from_coset.in_chunk) {
                    let mut factor = *power;
                    mul_assign(&mut factor, &shared);
                    mul_assign(p, &factor);
                    let p_fr = fr_mut(p) as *mut blst_fr;
                    // SAFETY: as in `mul_assign`.
                    unsafe { blst_fr_sub(p_fr, fr(c), p_fr) };
                    mul_assign(p, &scale);
                }
            });
        bit_reverse(a, self.log_n);
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::super::tests::elements;
    use super::super::LOCAL_LOG;
    use super::*;

    /// `(C − P) / (1 − γ)` composed from the scalar transforms, on any
    /// input (satisfied or not: both sides compute the same formula).
    fn composed(domain: &Domain, abc: &[Scalar]) -> Vec<Scalar> {
        let n = domain.size();
        let mut v = abc.to_vec();
        for vector in v.chunks_exact_mut(n) {
            domain.transform_scalar(vector, true, false);
        }
        for vector in v[..2 * n].chunks_exact_mut(n) {
            domain.transform_scalar(vector, false, true);
        }
        let (a, bc) = v.split_at_mut(n);
        a.iter_mut().zip(&bc[..n]).for_each(|(a, b)| *a *= b);
        domain.transform_scalar(a, true, true);
        let gamma = Scalar::MULTIPLICATIVE_GENERATOR.pow_vartime([n as u64]);
        let scale = (Scalar::ONE - gamma).invert().unwrap();
        a.iter()
            .zip(&bc[n..])
            .map(|(p, c)| (c - p) * scale)
            .collect()
    }

    /// Every coefficient, on sizes within one chunk and across chunks, on
    /// inputs that are not an R1CS's (so no term cancels).
    #[test]
    fn qap_h_matches_the_composed_transforms() {
        for log_n in [1, 2, 3, 7, LOCAL_LOG, LOCAL_LOG + 1, LOCAL_LOG + 3] {
            let domain = Domain::new(log_n);
            let n = domain.size();
            let abc = elements(3 * n, u64::from(log_n));
            let mut fused = abc.clone();
            domain.qap_h_scalar(&mut fused);
            assert!(fused[..n] == composed(&domain, &abc)[..], "2^{log_n}");
        }
    }

    /// The IFMA path declines and leaves the data alone.
    #[test]
    fn qap_h_declines_where_the_lanes_run() {
        let domain = Domain::new(LOCAL_LOG);
        let abc = elements(3 * domain.size(), 3);
        let mut data = abc.clone();
        let done = domain.qap_h(&mut data);
        assert_eq!(done, !Domain::uses_lanes(LOCAL_LOG));
        if !done {
            assert!(data == abc);
        }
    }
}
