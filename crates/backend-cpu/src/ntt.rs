//! Number-theoretic transforms over the BLS12-381 scalar field.
//!
//! Iterative radix-2 Cooley–Tukey on bit-reversed input. The domain keeps
//! the table `ω^j, j < n/2`; stage `s` needs every `n / 2^s`-th entry, which
//! is gathered into a contiguous array per stage (and once per domain for
//! the in-chunk stages), so no twiddle is recomputed per butterfly (the
//! main cost of bellperson's CPU FFT) and twiddle reads stay sequential.
//! The first stages run on cache-sized chunks, one chunk per task; later
//! stages split every butterfly group across threads. The inverse is the
//! forward transform followed by the index reversal `i ↦ n − i` and the
//! factor 1/n; cosets multiply by powers of the field's multiplicative
//! generator before (forward) or after (inverse) the transform, as
//! bellperson's `coset_fft`/`icoset_fft` do. The inverse also exists as a
//! decimation in frequency (natural order in, bit-reversed out), which
//! lets the QAP step ([`qap`]) chain transforms without permuting between
//! them.
//!
//! Where the CPU has AVX-512 IFMA, sizes from 2^6 on take the eight-lane
//! path of [`lanes`] instead (faster, same results; docs/benchmarks.md); it
//! keeps a further 5 bytes an element of twiddles per domain and
//! allocates 40 bytes an element (`SCRATCH_BYTES_PER_ELEMENT`) of
//! scratch per transform (the scalar path 8, its largest stage's gathered
//! twiddles), which [`Domain::scratch_bytes`] reports to the host.

use std::collections::TryReserveError;

use backend_api::interop::root_of_unity;
use blst::{blst_fr, blst_fr_add, blst_fr_mul, blst_fr_sub};
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

#[cfg(target_arch = "x86_64")]
mod lanes;
mod qap;
#[cfg(target_arch = "x86_64")]
use lanes::{SCRATCH_BYTES_PER_ELEMENT, TABLE_BYTES_PER_ELEMENT};
/// Without the IFMA path there is no limb-sliced copy.
#[cfg(not(target_arch = "x86_64"))]
const SCRATCH_BYTES_PER_ELEMENT: u64 = 0;
/// Without the IFMA path there are no limb-sliced tables.
#[cfg(not(target_arch = "x86_64"))]
const TABLE_BYTES_PER_ELEMENT: u64 = 0;

/// Stages that run inside one cache-resident chunk of `2^LOCAL_LOG` elements.
const LOCAL_LOG: u32 = 12;
/// Butterflies per task in the global stages, and elements per task elsewhere.
const GRAIN: usize = 1 << 12;

/// A prepared transform size.
pub struct Domain {
    log_n: u32,
    /// `ω^j` for `j < n/2`, ω a primitive n-th root of unity.
    twiddles: Vec<Scalar>,
    /// The twiddles of the in-chunk stages, contiguous so they stay in
    /// cache: `ω_c^j` for `j < c/2`, `c = 2^LOCAL_LOG` (or n if smaller).
    local_twiddles: Vec<Scalar>,
    n_inv: Scalar,
    /// The tables of the AVX-512 IFMA path, where the CPU has IFMA and the
    /// size suits it.
    #[cfg(target_arch = "x86_64")]
    lanes: Option<lanes::Tables>,
}

/// `table[j · stride]` for `j < len`: one stage's twiddles, contiguous.
fn gather(table: &[Scalar], stride: usize, len: usize) -> Vec<Scalar> {
    (0..len)
        .into_par_iter()
        .with_min_len(GRAIN)
        .map(|j| table[j * stride])
        .collect()
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
struct SharedMut<T>(*mut T);
impl<T> Clone for SharedMut<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SharedMut<T> {}
// SAFETY: the pointer is only dereferenced at indices that one task owns
// (see each use), while the borrowed slice outlives the parallel loop.
unsafe impl<T> Send for SharedMut<T> {}
// SAFETY: as above: sharing the pointer never lets two tasks touch one index.
unsafe impl<T> Sync for SharedMut<T> {}

impl<T> SharedMut<T> {
    fn at(self, index: usize) -> *mut T {
        self.0.wrapping_add(index)
    }
}

/// The `bits`-bit reversal of `x < 2^bits`.
fn reverse(x: usize, bits: u32) -> usize {
    x.reverse_bits()
        .checked_shr(usize::BITS - bits)
        .unwrap_or(0)
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

/// `value` as the blst element it wraps, for calling blst on it in place:
/// going through blstrs' operators copies each operand and result, and a
/// copy read right after blst's assembly wrote it waits for the stores
/// (no store-to-load forwarding into a wider load).
fn fr(value: &Scalar) -> &blst_fr {
    // SAFETY: blstrs' `Scalar` is a `#[repr(transparent)]` `blst_fr` (the
    // ABI asserts both share `pce_fr`'s layout).
    unsafe { &*(value as *const Scalar).cast::<blst_fr>() }
}

/// [`fr`], mutable.
fn fr_mut(value: &mut Scalar) -> &mut blst_fr {
    // SAFETY: as in `fr`, with the unique borrow carried over.
    unsafe { &mut *(value as *mut Scalar).cast::<blst_fr>() }
}

#[inline(always)]
fn butterfly(lo: &mut Scalar, hi: &mut Scalar, twiddle: &Scalar) {
    let (lo, hi) = (fr_mut(lo), fr_mut(hi));
    let mut t = blst_fr::default();
    // SAFETY: blst reads and writes valid field elements; an output may be
    // an input.
    unsafe {
        blst_fr_mul(&mut t, hi, fr(twiddle));
        blst_fr_sub(hi, lo, &t);
        blst_fr_add(lo, lo, &t);
    }
}

/// [`butterfly`] with the twiddle `ω^0 = 1`: no multiplication.
#[inline(always)]
fn unit_butterfly(lo: &mut Scalar, hi: &mut Scalar) {
    let (lo, hi) = (fr_mut(lo), fr_mut(hi));
    let t = *hi;
    // SAFETY: as in `butterfly`.
    unsafe {
        blst_fr_sub(hi, lo, &t);
        blst_fr_add(lo, lo, &t);
    }
}

/// The decimation-in-frequency butterfly of the inverse transform, given
/// the forward twiddle `t = ω_m^(m/2−j)` that mirrors its own: since
/// `ω_m^−j = −t`, the pair becomes `(lo + hi, (hi − lo)·t)`. Reading the
/// forward tables backwards saves keeping inverse ones.
#[inline(always)]
fn dif_butterfly(lo: &mut Scalar, hi: &mut Scalar, mirrored_twiddle: &Scalar) {
    let (lo, hi) = (fr_mut(lo), fr_mut(hi));
    let mut t = blst_fr::default();
    // SAFETY: as in `butterfly`.
    unsafe {
        blst_fr_sub(&mut t, hi, lo);
        blst_fr_add(lo, lo, hi);
        blst_fr_mul(hi, &t, fr(mirrored_twiddle));
    }
}

/// The decimation-in-frequency butterfly with the twiddle 1: `(lo + hi, lo − hi)`.
#[inline(always)]
fn dif_unit_butterfly(lo: &mut Scalar, hi: &mut Scalar) {
    let (lo, hi) = (fr_mut(lo), fr_mut(hi));
    let t = *lo;
    // SAFETY: as in `butterfly`.
    unsafe {
        blst_fr_add(lo, lo, hi);
        blst_fr_sub(hi, &t, hi);
    }
}

impl Domain {
    /// Prepares transforms of size `2^log_n`, `1 ≤ log_n ≤ 32`; an error
    /// where its tables cannot be allocated.
    pub fn try_new(log_n: u32) -> Result<Self, TryReserveError> {
        let omega = root_of_unity(log_n);
        let n = 1usize << log_n;
        // Gigabytes from 2^27 on: refused, not aborted, where they do not fit.
        let mut twiddles = large_buffers::try_filled(n / 2, Scalar::ONE)?;
        scale_by_powers(&mut twiddles, omega, Scalar::ONE);
        let n_inv = Scalar::from(n as u64).invert().expect("n is invertible");
        // At most 2^LOCAL_LOG / 2 elements.
        let local = 1usize << log_n.min(LOCAL_LOG);
        let local_twiddles = gather(&twiddles, n / local, local / 2);
        #[cfg(target_arch = "x86_64")]
        let lanes = Self::uses_lanes(log_n)
            .then(|| lanes::Tables::new(log_n, &twiddles))
            .transpose()?;
        Ok(Self {
            log_n,
            twiddles,
            local_twiddles,
            n_inv,
            #[cfg(target_arch = "x86_64")]
            lanes,
        })
    }

    /// [`Self::try_new`], for sizes whose tables are known to fit (tests).
    pub fn new(log_n: u32) -> Self {
        Self::try_new(log_n).expect("the domain's tables fit in memory")
    }

    /// Number of elements of one vector.
    pub fn size(&self) -> usize {
        1 << self.log_n
    }

    /// Whether transforms of size `2^log_n` take the IFMA path.
    fn uses_lanes(log_n: u32) -> bool {
        #[cfg(target_arch = "x86_64")]
        return crate::ifma::available() && log_n >= lanes::MIN_LOG;
        #[cfg(not(target_arch = "x86_64"))]
        return {
            let _ = log_n;
            false
        };
    }

    /// Bytes of the tables [`Domain::new`] allocates for `2^log_n`: the
    /// twiddles `ω^j, j < n/2`, the in-chunk copy, and the IFMA path's
    /// tables where it runs.
    pub fn table_bytes(log_n: u32) -> u64 {
        let n = 1u64 << log_n;
        let element = size_of::<Scalar>() as u64;
        let local = 1u64 << log_n.min(LOCAL_LOG);
        let lanes = if Self::uses_lanes(log_n) {
            TABLE_BYTES_PER_ELEMENT * n
        } else {
            0
        };
        n / 2 * element + local / 2 * element + lanes
    }

    /// Host memory one transform of `2^log_n` allocates beyond its data:
    /// the IFMA path's limb-sliced copy; on the scalar path, the largest
    /// stage's gathered twiddles ([`Self::stage_twiddles`]: `n/4` of them,
    /// 8 bytes per element, once a stage across chunks has a stride).
    pub fn scratch_bytes(log_n: u32) -> u64 {
        if Self::uses_lanes(log_n) {
            SCRATCH_BYTES_PER_ELEMENT << log_n
        } else if log_n >= LOCAL_LOG + 2 {
            (size_of::<Scalar>() as u64) << (log_n - 2)
        } else {
            0
        }
    }

    /// Transforms each vector of `data` (a whole number of vectors) in place.
    pub fn transform(&self, data: &mut [Scalar], inverse: bool, coset: bool) {
        assert_eq!(
            data.len() % self.size(),
            0,
            "data length is not a multiple of the domain size"
        );
        #[cfg(target_arch = "x86_64")]
        if let Some(tables) = &self.lanes {
            let mut scratch = lanes::hardware::scratch(self.size());
            for vector in data.chunks_exact_mut(self.size()) {
                // SAFETY: the tables exist only where `ifma::available()`.
                unsafe {
                    lanes::hardware::transform(
                        tables,
                        &self.twiddles,
                        vector,
                        inverse,
                        coset,
                        self.n_inv,
                        &mut scratch,
                    )
                };
            }
            return;
        }
        for vector in data.chunks_exact_mut(self.size()) {
            self.transform_scalar(vector, inverse, coset);
        }
    }

    /// [`Self::transform`] with blst's one-at-a-time arithmetic.
    fn transform_scalar(&self, data: &mut [Scalar], inverse: bool, coset: bool) {
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
        bit_reverse(data, self.log_n);
        data.par_chunks_mut(self.chunk_size())
            .for_each(|chunk| self.dit_chunk(chunk));
        self.dit_passes(data);
    }

    /// Elements of the cache-sized chunks the first (DIT) or last (DIF)
    /// stages run on: `2^LOCAL_LOG`, or the whole vector if smaller.
    fn chunk_size(&self) -> usize {
        1 << self.log_n.min(LOCAL_LOG)
    }

    /// The forward transform's stages inside one chunk (decimation in
    /// time: the chunk's input in bit-reversed order).
    fn dit_chunk(&self, chunk: &mut [Scalar]) {
        let local = &self.local_twiddles;
        for s in 1..=self.log_n.min(LOCAL_LOG) {
            let stride = chunk.len() >> s;
            // The first butterfly of a block has the twiddle 1: the whole
            // first stage, half the second... (about one multiplication
            // per element saved of log2(n)/2).
            chunk_stage(chunk, s, |lo, hi, j| match j {
                0 => unit_butterfly(lo, hi),
                _ => butterfly(lo, hi, &local[j * stride]),
            });
        }
    }

    /// The forward transform's stages across chunks, after [`Self::dit_chunk`]
    /// ran on every chunk: natural order out.
    fn dit_passes(&self, data: &mut [Scalar]) {
        for s in LOCAL_LOG + 1..=self.log_n {
            let twiddles = self.stage_twiddles(s);
            pass(data, s, |lo, hi, j| butterfly(lo, hi, &twiddles[j]));
        }
    }

    /// The inverse transform's stages across chunks, without the factor
    /// 1/n (decimation in frequency: natural order in); [`Self::dif_chunk`]
    /// finishes it on every chunk, leaving the result in bit-reversed order.
    fn dif_passes(&self, data: &mut [Scalar]) {
        for s in (LOCAL_LOG + 1..=self.log_n).rev() {
            let twiddles = self.stage_twiddles(s);
            let half = twiddles.len();
            pass(data, s, |lo, hi, j| match j {
                0 => dif_unit_butterfly(lo, hi),
                _ => dif_butterfly(lo, hi, &twiddles[half - j]),
            });
        }
    }

    /// The inverse transform's stages inside one chunk (see
    /// [`Self::dif_passes`]).
    fn dif_chunk(&self, chunk: &mut [Scalar]) {
        let local = &self.local_twiddles;
        for s in (1..=self.log_n.min(LOCAL_LOG)).rev() {
            let stride = chunk.len() >> s;
            let half = 1usize << (s - 1);
            chunk_stage(chunk, s, |lo, hi, j| match j {
                0 => dif_unit_butterfly(lo, hi),
                _ => dif_butterfly(lo, hi, &local[(half - j) * stride]),
            });
        }
    }

    /// The twiddles of stage `s` (butterflies of half-size `2^(s−1)`), contiguous.
    fn stage_twiddles(&self, s: u32) -> std::borrow::Cow<'_, [Scalar]> {
        let half = 1usize << (s - 1);
        let stride = self.size() / (2 * half);
        if stride == 1 {
            std::borrow::Cow::Borrowed(&self.twiddles[..])
        } else {
            std::borrow::Cow::Owned(gather(&self.twiddles, stride, half))
        }
    }
}

/// One stage inside a chunk, on the calling thread: each block's
/// butterflies `j < 2^(s−1)`, as `butterfly(lo, hi, j)`.
fn chunk_stage<B>(chunk: &mut [Scalar], s: u32, butterfly: B)
where
    B: Fn(&mut Scalar, &mut Scalar, usize),
{
    let half = 1usize << (s - 1);
    for block in chunk.chunks_exact_mut(2 * half) {
        let (lo, hi) = block.split_at_mut(half);
        for (j, (lo, hi)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
            butterfly(lo, hi, j);
        }
    }
}

/// One stage across chunks: each block's butterflies `j < 2^(s−1)`, as
/// `butterfly(lo, hi, j)`, split over threads.
fn pass<B>(data: &mut [Scalar], s: u32, butterfly: B)
where
    B: Fn(&mut Scalar, &mut Scalar, usize) + Sync,
{
    let half = 1usize << (s - 1);
    data.par_chunks_mut(2 * half).for_each(|block| {
        let (lo, hi) = block.split_at_mut(half);
        lo.par_chunks_mut(GRAIN)
            .zip(hi.par_chunks_mut(GRAIN))
            .enumerate()
            .for_each(|(task, (lo, hi))| {
                let first = task * GRAIN;
                for (i, (lo, hi)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                    butterfly(lo, hi, first + i);
                }
            });
    });
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Pseudo-random elements with 0, 1 and −1 at the start.
    pub(crate) fn elements(n: usize, seed: u64) -> Vec<Scalar> {
        let mut x = Scalar::from(seed);
        let edges = [Scalar::ZERO, Scalar::ONE, -Scalar::ONE];
        (0..n)
            .map(|i| match edges.get(i) {
                Some(&edge) => edge,
                None => {
                    x = x.square() + Scalar::from(i as u64);
                    x
                }
            })
            .collect()
    }

    /// Whichever path the CPU takes against the scalar one (the lane code
    /// itself is checked on both its instances in `lanes`).
    #[test]
    fn transform_matches_scalar() {
        for log_n in [3, lanes::MIN_LOG, 10] {
            let domain = Domain::new(log_n);
            for (inverse, coset) in [(false, false), (true, true)] {
                let input = elements(1 << log_n, 5);
                let (mut fast, mut scalar) = (input.clone(), input);
                domain.transform(&mut fast, inverse, coset);
                domain.transform_scalar(&mut scalar, inverse, coset);
                assert!(
                    fast == scalar,
                    "2^{log_n}, inverse {inverse}, coset {coset}"
                );
            }
        }
    }

    /// The scalar transform evaluates the polynomial at the powers of ω
    /// (Horner's rule as the reference), with one, two and three stages
    /// beyond a chunk.
    #[test]
    fn scalar_transform_evaluates_at_the_roots() {
        for log_n in LOCAL_LOG + 1..=LOCAL_LOG + 3 {
            let n = 1usize << log_n;
            let domain = Domain::new(log_n);
            let coefficients = elements(n, 11);
            let mut values = coefficients.clone();
            domain.transform_scalar(&mut values, false, false);
            let omega = root_of_unity(log_n);
            for k in [
                0,
                1,
                2,
                3,
                n / 4 + 1,
                n / 2 - 1,
                n / 2,
                n / 2 + 3,
                n - 1,
                12345 % n,
            ] {
                let x = omega.pow_vartime([k as u64]);
                let expected = coefficients
                    .iter()
                    .rev()
                    .fold(Scalar::ZERO, |acc, c| acc * x + c);
                assert!(values[k] == expected, "2^{log_n}, k = {k}");
            }
        }
    }

    #[test]
    fn scratch_is_the_lane_copy_where_ifma_runs_else_the_gathered_twiddles() {
        assert_eq!(SCRATCH_BYTES_PER_ELEMENT, 40);
        assert_eq!(TABLE_BYTES_PER_ELEMENT, 5);
        let expected = if crate::ifma::available() {
            40 << 20
        } else {
            8 << 20
        };
        assert_eq!(Domain::scratch_bytes(20), expected);
        assert_eq!(Domain::scratch_bytes(lanes::MIN_LOG - 1), 0);
    }
}
