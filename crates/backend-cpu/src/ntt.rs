//! Number-theoretic transforms over the BLS12-381 scalar field.
//!
//! Iterative radix-2 Cooley–Tukey on bit-reversed input. The domain keeps
//! the table `ω^j, j < n/2` (stage `s` reads it with stride `n / 2^s`, so one
//! table serves every stage and no twiddle is recomputed per butterfly, the
//! main cost of bellperson's CPU FFT). The first stages run on cache-sized
//! chunks, one chunk per task; later stages split every butterfly group
//! across threads. The inverse is the forward transform followed by the
//! index reversal `i ↦ n − i` and the factor 1/n; cosets multiply by powers
//! of the field's multiplicative generator before (forward) or after
//! (inverse) the transform, as bellperson's `coset_fft`/`icoset_fft` do.

use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

/// Stages that run inside one cache-resident chunk of `2^LOCAL_LOG` elements.
const LOCAL_LOG: u32 = 12;
/// Butterflies per task in the global stages, and elements per task elsewhere.
const GRAIN: usize = 1 << 12;

/// A prepared transform size.
pub struct Domain {
    log_n: u32,
    /// `ω^j` for `j < n/2`, ω a primitive n-th root of unity.
    twiddles: Vec<Scalar>,
    n_inv: Scalar,
}

/// `base^start · base^i` for `i < out.len()`, computed in parallel chunks.
fn powers_into(out: &mut [Scalar], base: Scalar, start: Scalar) {
    out.par_chunks_mut(GRAIN)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut value = start * base.pow_vartime([(c * GRAIN) as u64]);
            for slot in chunk {
                *slot = value;
                value *= base;
            }
        });
}

/// Multiplies `data[i]` by `start · base^i`.
fn scale_by_powers(data: &mut [Scalar], base: Scalar, start: Scalar) {
    data.par_chunks_mut(GRAIN)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut factor = start * base.pow_vartime([(c * GRAIN) as u64]);
            for value in chunk {
                *value *= factor;
                factor *= base;
            }
        });
}

/// A pointer that may cross threads; each index is written by one task only.
#[derive(Clone, Copy)]
struct SharedMut(*mut Scalar);
unsafe impl Send for SharedMut {}
unsafe impl Sync for SharedMut {}

impl SharedMut {
    fn at(self, index: usize) -> *mut Scalar {
        self.0.wrapping_add(index)
    }
}

/// Permutes `data` (of length 2^log_n) into bit-reversed order.
fn bit_reverse(data: &mut [Scalar], log_n: u32) {
    if log_n == 0 {
        return;
    }
    let shift = usize::BITS - log_n;
    let ptr = SharedMut(data.as_mut_ptr());
    (0..data.len())
        .into_par_iter()
        .with_min_len(GRAIN)
        .for_each(move |i| {
            let j = i.reverse_bits() >> shift;
            if i < j {
                // SAFETY: i < j < n; the pair {i, j} is swapped only by the task
                // that owns its smaller index, so no two tasks touch one element.
                unsafe { std::ptr::swap(ptr.at(i), ptr.at(j)) };
            }
        });
}

#[inline(always)]
fn butterfly(lo: &mut Scalar, hi: &mut Scalar, twiddle: &Scalar) {
    let t = *hi * twiddle;
    *hi = *lo - t;
    *lo += t;
}

impl Domain {
    /// Prepares transforms of size `2^log_n`, `1 ≤ log_n ≤ 32`.
    pub fn new(log_n: u32) -> Self {
        assert!(
            (1..=Scalar::S).contains(&log_n),
            "NTT size 2^{log_n} outside 2^1..=2^{}",
            Scalar::S
        );
        let mut omega = Scalar::ROOT_OF_UNITY;
        for _ in log_n..Scalar::S {
            omega = omega.square();
        }
        let n = 1usize << log_n;
        let mut twiddles = vec![Scalar::ZERO; n / 2];
        powers_into(&mut twiddles, omega, Scalar::ONE);
        let n_inv = Scalar::from(n as u64).invert().expect("n is invertible");
        Self {
            log_n,
            twiddles,
            n_inv,
        }
    }

    /// Number of elements of one vector.
    pub fn size(&self) -> usize {
        1 << self.log_n
    }

    /// Transforms one vector in place.
    pub fn transform(&self, data: &mut [Scalar], inverse: bool, coset: bool) {
        assert_eq!(
            data.len(),
            self.size(),
            "vector length differs from the domain size"
        );
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        if coset && !inverse {
            scale_by_powers(data, g, Scalar::ONE);
        }
        self.forward(data);
        if inverse {
            data[1..].reverse();
            if coset {
                let g_inv = g.invert().expect("the generator is invertible");
                scale_by_powers(data, g_inv, self.n_inv);
            } else {
                let n_inv = self.n_inv;
                data.par_chunks_mut(GRAIN)
                    .for_each(|chunk| chunk.iter_mut().for_each(|v| *v *= n_inv));
            }
        }
    }

    fn forward(&self, data: &mut [Scalar]) {
        let log_n = self.log_n;
        let n = data.len();
        bit_reverse(data, log_n);
        let local_log = log_n.min(LOCAL_LOG);
        let twiddles = &self.twiddles;
        data.par_chunks_mut(1 << local_log).for_each(|chunk| {
            for s in 1..=local_log {
                let half = 1usize << (s - 1);
                let stride = n / (2 * half);
                for block in chunk.chunks_exact_mut(2 * half) {
                    let (lo, hi) = block.split_at_mut(half);
                    for (j, (lo, hi)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                        butterfly(lo, hi, &twiddles[j * stride]);
                    }
                }
            }
        });
        for s in local_log + 1..=log_n {
            let half = 1usize << (s - 1);
            let stride = n / (2 * half);
            data.par_chunks_mut(2 * half).for_each(|block| {
                let (lo, hi) = block.split_at_mut(half);
                lo.par_chunks_mut(GRAIN)
                    .zip(hi.par_chunks_mut(GRAIN))
                    .enumerate()
                    .for_each(|(c, (lo, hi))| {
                        for (j, (lo, hi)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                            butterfly(lo, hi, &twiddles[(c * GRAIN + j) * stride]);
                        }
                    });
            });
        }
    }
}
