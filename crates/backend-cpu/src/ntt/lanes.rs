//! The transform eight elements at a time, with AVX-512 IFMA.
//!
//! The butterflies' multiplications are the cost, and [`ifma::mul`] does
//! eight of them at about three times blst's throughput, but only on
//! limb-sliced lanes, and converting to and from blst's words per stage
//! would eat much of the gain. So the input is converted once into a
//! buffer of n/8 vectors in which vector `v`, lane `k` holds element
//! `k·n/8 + v`: every stage but the last three pairs whole vectors `v` and
//! `v + h` with a single twiddle for all eight lanes (a broadcast, no
//! conversion). The last three stages pair the lanes themselves; they run
//! on groups of eight vectors after an 8×8 transpose (lane `l` of vector
//! `k` becomes element `k·n/8 + v₀ + l`), and write the result back as
//! blst's words. In this layout the bit-reversal permutation costs
//! nothing: vector `v` takes the input elements `8·rev(v) + rev(k)`, eight
//! consecutive ones. The coset factors are applied on the way in, the
//! inverse's reversal and factors on the way out. The buffer takes 40
//! bytes an element (five 64-bit limbs) on top of the data.

use std::mem::MaybeUninit;

use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use backend_api::memory::advise_huge_pages;

use super::SharedMut;
use crate::ifma::{self, Lanes, FR};

/// The `bits`-bit reversal of `x < 2^bits`.
fn reverse(x: usize, bits: u32) -> usize {
    x.reverse_bits()
        .checked_shr(usize::BITS - bits)
        .unwrap_or(0)
}

/// Eight field elements, limb-sliced.
pub(super) type Fr = Lanes<5>;
/// One field element's 52-bit limbs.
type Limbs = [u64; 5];

/// Bytes an element of the limb-sliced copy each transform allocates
/// ([`scratch`]): eight elements of five 64-bit limbs per vector.
pub(super) const SCRATCH_BYTES_PER_ELEMENT: u64 = (size_of::<Fr>() / 8) as u64;
/// Bytes an element of a domain's [`Tables`]: one set of limbs per eight
/// elements.
pub(super) const TABLE_BYTES_PER_ELEMENT: u64 = (size_of::<Limbs>() / 8) as u64;

/// The smallest size for this path: the last three stages take groups of
/// eight vectors.
pub(super) const MIN_LOG: u32 = 6;
/// The first stages run on chunks of `2^CHUNK_LOG` vectors (320 KiB), which
/// stay in a core's L2 cache.
const CHUNK_LOG: u32 = 10;
/// Vectors per task in the passes over the whole buffer.
const TASK: usize = 1 << 9;
/// `rev(k)` on three bits: the input element of lane `k` in a vector.
const REVERSED_LANES: [usize; 8] = [0, 4, 2, 6, 1, 5, 3, 7];

fn words(value: &Scalar) -> [u64; 4] {
    blst::blst_fr::from(*value).l
}

fn limbs(value: &Scalar) -> Limbs {
    ifma::limbs_of(&words(value))
}

/// The address of an element's words (blstrs' `Scalar` is blst's `blst_fr`).
fn at(value: *const Scalar) -> *const [u64; 4] {
    value.cast()
}

/// The twiddles of the stages that pair whole vectors, as limbs.
pub(super) struct Tables {
    /// `ω_2h^q` at index `h + q` (`q < h`), for each power of two `h < n/8`,
    /// prescaled for [`ifma::mul_unreduced_wide`].
    twiddles: Vec<Limbs>,
}

impl Tables {
    /// From the domain's table of `ω^j, j < n/2`.
    pub(super) fn new(log_n: u32, twiddles: &[Scalar]) -> Self {
        let n = 1usize << log_n;
        let mut table = vec![[0; 5]; n / 8];
        table
            .par_iter_mut()
            .enumerate()
            .skip(1)
            .with_min_len(TASK)
            .for_each(|(i, slot)| {
                let h = 1 << i.ilog2();
                *slot = limbs(&prescaled(twiddles[(i - h) * (n / (2 * h))]));
            });
        Self { twiddles: table }
    }
}

/// `h^l` for `l < 8`.
fn lane_powers(h: Scalar) -> [Scalar; 8] {
    let mut power = Scalar::ONE;
    std::array::from_fn(|_| {
        let current = power;
        power *= h;
        current
    })
}

/// Lanes of factors, optionally running powers: each call to `next`
/// returns the current factors, then multiplies them by the step.
struct Factors {
    current: Fr,
    step: Option<Fr>,
}

impl Factors {
    /// `start·lanes[l]` in lane `l`.
    fn new(start: Scalar, lanes: &[Scalar; 8], step: Option<Scalar>) -> Self {
        debug_assert!(ifma::available());
        let words = lanes.map(|lane| words(&(start * lane)));
        // SAFETY: `Factors` exist only on the IFMA path (see `transform`).
        unsafe {
            Self {
                current: Fr::from_words(&words),
                step: step.map(|step| Fr::splat(&limbs(&step))),
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn next(&mut self) -> Fr {
        let current = self.current;
        if let Some(step) = &self.step {
            self.current = ifma::mul(&current, step, &FR);
        }
        current
    }
}

/// A butterfly with lazy reduction (Harvey's): values stay below 4p
/// instead of p, which saves two of the three conditional subtractions.
/// Given `t ≡ hi·w` below 2p, `lo` is brought below 2p, and then `lo + t`
/// and `lo + 2p − t` are below 4p.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn butterfly(lo: &mut Fr, hi: &mut Fr, t: &Fr) {
    let lo_reduced = ifma::reduce_below_2p(lo, &FR);
    *hi = ifma::sub_unreduced(&lo_reduced, t, &FR);
    *lo = ifma::add_unreduced(&lo_reduced, t);
}

/// `v·2^4` in blst's form: the prescaled factor for
/// [`ifma::mul_unreduced_wide`] (radix 2^260 against blst's 2^256).
fn prescaled(v: Scalar) -> Scalar {
    v * Scalar::from(16)
}

/// The buffer [`transform`] needs for vectors of `n` elements (40 bytes an
/// element), in 2 MiB pages: 500 times fewer page faults and TLB misses on
/// the first writes and in the strided passes. Zeroing fresh pages is a
/// real cost here, so a batch of transforms shares one.
pub(super) fn scratch(n: usize) -> Vec<Fr> {
    let mut buf = Vec::with_capacity(n / 8);
    advise_huge_pages(&mut buf);
    buf
}

/// The forward transform of `data` (length `2^log_n`, `log_n ≥ MIN_LOG`),
/// then for the inverse the reversal `i ↦ n − i` and the factors
/// `n_inv·g_inv^i` (`g_inv` = 1 without a coset); a forward coset
/// transform first multiplies `data[i]` by `g^i`. As [`super::Domain::transform`].
///
/// # Safety
///
/// The CPU must have AVX-512F and IFMA ([`ifma::available`]).
pub(super) unsafe fn transform(
    tables: &Tables,
    twiddles: &[Scalar],
    data: &mut [Scalar],
    inverse: bool,
    coset: bool,
    n_inv: Scalar,
    buf: &mut Vec<Fr>,
) {
    let n = data.len();
    let m = n.ilog2() - 3;
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    buf.clear();
    buf.reserve_exact(n / 8);
    let chunk_log = m.min(CHUNK_LOG);
    let table = &tables.twiddles;
    // Vector v = c·2^chunk_log + u takes the input block rev(v) =
    // rev(u)·spread + rev(c): chunk c reads every spread-th block, from rev(c).
    let spread = 1usize << (m - chunk_log);
    let coset_lanes = (coset && !inverse).then(|| REVERSED_LANES.map(|k| lane_powers(g)[k]));
    let coset_step = g.pow_vartime([8 * spread as u64]);
    buf.spare_capacity_mut()[..n / 8]
        .par_chunks_mut(1 << chunk_log)
        .enumerate()
        .for_each(|(c, chunk)| {
            let offset = reverse(c, m - chunk_log);
            // Block j·spread + offset, lane k, gets g^(8·(j·spread + offset) + rev(k)).
            let mut factors = coset_lanes.as_ref().map(|lanes| {
                Factors::new(g.pow_vartime([8 * offset as u64]), lanes, Some(coset_step))
            });
            // SAFETY: the caller checked the CPU.
            unsafe { load_chunk(data, chunk, spread, offset, factors.as_mut()) };
            // SAFETY: every vector of the chunk is written (j ↦ rev(j) is a
            // bijection), and `Fr` has the layout of `MaybeUninit<Fr>`.
            let chunk = unsafe { &mut *(chunk as *mut [MaybeUninit<Fr>] as *mut [Fr]) };
            for s in (1..=chunk_log).step_by(3) {
                let r = (chunk_log + 1 - s).min(3);
                for c in 0..chunk.len() >> r {
                    // SAFETY: the columns of a pass are disjoint and within the chunk.
                    unsafe { column(chunk.as_mut_ptr(), s, r, c, table) };
                }
            }
        });
    // SAFETY: the chunks cover the buffer and wrote every vector.
    unsafe { buf.set_len(n / 8) };
    let vectors = SharedMut(buf.as_mut_ptr());
    for s in (chunk_log + 1..=m).step_by(3) {
        let r = (m + 1 - s).min(3);
        (0..(n / 8) >> r)
            .into_par_iter()
            .with_min_len(TASK >> r)
            // SAFETY: the columns of a pass are disjoint and within the buffer.
            .for_each(|c| unsafe { column(vectors.at(0), s, r, c, table) });
    }

    let scale = inverse.then(|| {
        let g_inv = g.invert().expect("the generator is invertible");
        (n_inv, if coset { g_inv } else { Scalar::ONE })
    });
    finish(buf, data, twiddles, scale);
    if inverse && coset {
        // Position 0 got the factor of position n (see `finish`).
        data[0] *= g.pow_vartime([n as u64]);
    }
}

/// Fills a chunk of vectors: vector `rev(j)` from the input block
/// `j·spread + offset`, lane `k` from its element `rev(k)`, times the
/// coset factors if any.
///
/// # Safety
///
/// The CPU must have AVX-512F and IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn load_chunk(
    data: &[Scalar],
    chunk: &mut [MaybeUninit<Fr>],
    spread: usize,
    offset: usize,
    mut factors: Option<&mut Factors>,
) {
    let bits = chunk.len().ilog2();
    for j in 0..chunk.len() {
        let block = &data[8 * (j * spread + offset)..][..8];
        // SAFETY: eight elements of `block`.
        let mut lanes = unsafe { ifma::load_fr(REVERSED_LANES.map(|k| at(&block[k]))) };
        if let Some(factors) = &mut factors {
            lanes = ifma::mul(&lanes, &factors.next(), &FR);
        }
        chunk[reverse(j, bits)].write(lanes);
    }
}

/// Stages `s .. s + r` (r ≤ 3) on column `c`: the `2^r` vectors
/// `first + t·h`, `h = 2^(s−1)`, that these stages combine.
///
/// # Safety
///
/// The CPU must have AVX-512F and IFMA; the column's vectors must lie in
/// the allocation at `vectors` and be touched by no other thread.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn column(vectors: *mut Fr, s: u32, r: u32, c: usize, twiddles: &[Limbs]) {
    let h = 1usize << (s - 1);
    let (block, j) = (c >> (s - 1), c & (h - 1));
    let first = (block << (s - 1 + r)) + j;
    let count = 1usize << r;
    let mut x = [Fr::splat(&[0; 5]); 8];
    for (t, x) in x[..count].iter_mut().enumerate() {
        // SAFETY: within the column (the caller's guarantee).
        *x = unsafe { *vectors.add(first + t * h) };
    }
    for i in 0..r as usize {
        let dist = 1 << i;
        // Stage s + i: vectors `dist` apart here, `h·dist` in the buffer.
        let half = h << i;
        for t in (0..count).filter(|t| t & dist == 0) {
            let q = j + (t & (dist - 1)) * h;
            let (lo, hi) = x.split_at_mut(t + dist);
            // Below 4p·p/2^260 + p < 2p (hi < 4p, the twiddle below p).
            let product = match q {
                0 => ifma::reduce_below_2p(&hi[0], &FR),
                _ => ifma::mul_unreduced_wide(&hi[0], &Fr::splat(&twiddles[half + q]), &FR),
            };
            butterfly(&mut lo[t], &mut hi[0], &product);
        }
    }
    for (t, x) in x[..count].iter().enumerate() {
        // SAFETY: as above.
        unsafe { *vectors.add(first + t * h) = *x };
    }
}

/// The last three stages and the output: per group of eight vectors, a
/// transpose, the stages on whole vectors, and the conversion back to
/// words. With `scale = Some((c, h))` (the inverse), element `e` goes to
/// position `p = (n − e) mod n` times `c·h^(n−e)`: for `e = 0` that is
/// `c·h^n`, which the caller corrects.
fn finish(buf: &[Fr], data: &mut [Scalar], twiddles: &[Scalar], scale: Option<(Scalar, Scalar)>) {
    debug_assert!(ifma::available());
    let scale = scale.map(|(c, h)| (c, h, h.invert().expect("nonzero")));
    let n = data.len();
    let m = n.ilog2() - 3;
    let out = SharedMut(data.as_mut_ptr());
    buf.par_chunks(TASK).enumerate().for_each(|(task, chunk)| {
        let v0 = task * TASK;
        // The factors of the group at v0 for row k, lane l: c·h^(n−k·2^m−v0−l),
        // times h^−8 from one group to the next (constant when h = 1),
        // prescaled for `mul_unreduced_wide`.
        let mut factors = scale.map(|(c, h, h_inv)| {
            let mut row = prescaled(c * h.pow_vartime([(n - v0) as u64]));
            let row_step = h_inv.pow_vartime([1 << m]);
            let step = (h != Scalar::ONE).then(|| h_inv.pow_vartime([8]));
            let lanes = lane_powers(h_inv);
            let rows: [Factors; 8] = std::array::from_fn(|_| {
                let factors = Factors::new(row, &lanes, step);
                row *= row_step;
                factors
            });
            rows
        });
        for (i, group) in chunk.chunks_exact(8).enumerate() {
            let group = group.try_into().expect("eight vectors");
            // SAFETY: the domain has this path only on a CPU with the
            // features; each group's output positions are its own.
            unsafe {
                output_group(
                    group,
                    v0 + 8 * i,
                    twiddles,
                    out,
                    scale.is_some(),
                    factors.as_mut(),
                )
            };
        }
    });
}

/// The last stages of the group of vectors `v .. v + 8`, and its output
/// (see [`finish`]).
///
/// # Safety
///
/// The CPU must have AVX-512F and IFMA; no other thread may write the
/// group's output positions.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn output_group(
    group: &[Fr; 8],
    v: usize,
    twiddles: &[Scalar],
    out: SharedMut<Scalar>,
    reversed: bool,
    mut factors: Option<&mut [Factors; 8]>,
) {
    let n = 2 * twiddles.len();
    let m = n.ilog2() - 3;
    let mut x = *group;
    last_stages(&mut x, v, m, twiddles);
    for (k, row) in x.iter().enumerate() {
        let e = (k << m) + v;
        let position = |l: usize| match reversed {
            false => out.at(e + l),
            true => out.at((n - e - l) & (n - 1)),
        };
        // From below 4p to canonical.
        let value = match &mut factors {
            Some(rows) => ifma::mul_unreduced_wide(row, &rows[k].next(), &FR),
            None => ifma::reduce_below_2p(row, &FR),
        };
        let value = ifma::reduce(&value, &FR);
        // SAFETY: each position is written once, by its element.
        unsafe { ifma::store_fr(&value, std::array::from_fn(|l| position(l).cast())) };
    }
}

/// Transposes the group of vectors `v .. v + 8` (lane `l` of row `k`
/// becomes element `k·2^m + v + l`) and runs the last three stages on it.
#[target_feature(enable = "avx512f,avx512ifma")]
fn last_stages(x: &mut [Fr; 8], v: usize, m: u32, twiddles: &[Scalar]) {
    ifma::transpose(x);
    for i in 0..3 {
        let dist = 1 << i;
        // Stage m + 1 + i, half-size 2^(m+i): the twiddle of element e is
        // ω^((e mod 2^(m+i))·n/2^(m+i+1)), and n/2^(m+i+1) = 4 >> i.
        for low in 0..dist {
            let first = (low << m) + v;
            let addresses = std::array::from_fn(|l| at(&twiddles[(first + l) * (4 >> i)]));
            // SAFETY: eight elements of the table.
            let w = unsafe { ifma::load_fr(addresses) };
            for t in (0..8).filter(|t| t & dist == 0 && t & (dist - 1) == low) {
                let (lo, hi) = x.split_at_mut(t + dist);
                // Below 2p·p/2^256 + p < 2p (p < 2^255).
                let reduced = ifma::reduce_below_2p(&hi[0], &FR);
                butterfly(
                    &mut lo[t],
                    &mut hi[0],
                    &ifma::mul_unreduced(&reduced, &w, &FR),
                );
            }
        }
    }
}
