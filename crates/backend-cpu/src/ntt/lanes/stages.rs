//! The lane code of the transform, written once for both instances
//! ([`super`] is `lanes::hardware` or, in tests, `lanes::emulated`): it
//! takes its lane arithmetic and instructions from `super::ifma`.

use std::mem::MaybeUninit;

use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use large_buffers::advise_huge_pages;

use super::ifma::{self, isa::*, Lanes};
use crate::ifma::FR;
use crate::ntt::lanes::{
    at, lane_powers, limbs, prescaled, reverse, words, Limbs, Tables, CHUNK_LOG, REVERSED_LANES,
    TASK,
};
use crate::ntt::SharedMut;

/// Eight field elements, limb-sliced.
pub(crate) type Fr = Lanes<5>;

/// Lanes of factors, optionally running powers: each call to `next`
/// returns the current factors, then multiplies them by the step.
struct Factors {
    current: Fr,
    step: Option<Fr>,
}

impl Factors {
    /// `start·lanes[l]` in lane `l`.
    fn new(start: Scalar, lanes: &[Scalar; 8], step: Option<Scalar>) -> Self {
        debug_assert!(available());
        let words = lanes.map(|lane| words(&(start * lane)));
        // SAFETY: `Factors` exist only where this instance runs (see `transform`).
        unsafe {
            Self {
                current: Fr::from_words(&words),
                step: step.map(|step| Fr::splat(&limbs(&step))),
            }
        }
    }

    lane_fns!(
        #[inline]
        fn next(&mut self) -> Fr {
            let current = self.current;
            if let Some(step) = &self.step {
                self.current = ifma::mul(&current, step, &FR);
            }
            current
        }
    );
}

lane_fns!(
    /// A butterfly with lazy reduction (Harvey's): values stay below 4p
    /// instead of p, which saves two of the three conditional subtractions.
    /// Given `t ≡ hi·w` below 2p, `lo` is brought below 2p, and then `lo + t`
    /// and `lo + 2p − t` are below 4p.
    #[inline]
    fn butterfly(lo: &mut Fr, hi: &mut Fr, t: &Fr) {
        let lo_reduced = ifma::reduce_below_2p(lo, &FR);
        *hi = ifma::sub_unreduced(&lo_reduced, t, &FR);
        *lo = ifma::add_unreduced(&lo_reduced, t);
    }
);

/// The buffer [`transform`] needs for vectors of `n` elements (40 bytes an
/// element), in 2 MiB pages: 500 times fewer page faults and TLB misses on
/// the first writes and in the strided passes. Zeroing fresh pages is a
/// real cost here, so a batch of transforms shares one.
pub(crate) fn scratch(n: usize) -> Vec<Fr> {
    let mut buf = Vec::with_capacity(n / 8);
    advise_huge_pages(&mut buf);
    buf
}

/// The forward transform of `data` (length `2^log_n`, `log_n ≥ MIN_LOG`),
/// then for the inverse the reversal `i ↦ n − i` and the factors
/// `n_inv·g_inv^i` (`g_inv` = 1 without a coset); a forward coset
/// transform first multiplies `data[i]` by `g^i`. As [`crate::ntt::Domain::transform`].
///
/// # Safety
///
/// The CPU must have this instance's instructions ([`available`]).
pub(crate) unsafe fn transform(
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

lane_fns!(
    /// Fills a chunk of vectors: vector `rev(j)` from the input block
    /// `j·spread + offset`, lane `k` from its element `rev(k)`, times the
    /// coset factors if any.
    ///
    /// # Safety
    ///
    /// The CPU must have this instance's instructions.
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
    /// The CPU must have this instance's instructions; the column's vectors must lie in
    /// the allocation at `vectors` and be touched by no other thread.
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
);

/// The last three stages and the output: per group of eight vectors, a
/// transpose, the stages on whole vectors, and the conversion back to
/// words. With `scale = Some((c, h))` (the inverse), element `e` goes to
/// position `p = (n − e) mod n` times `c·h^(n−e)`: for `e = 0` that is
/// `c·h^n`, which the caller corrects.
fn finish(buf: &[Fr], data: &mut [Scalar], twiddles: &[Scalar], scale: Option<(Scalar, Scalar)>) {
    debug_assert!(available());
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
            // SAFETY: the CPU has the instructions (`transform`'s caller
            // promised); each group's output positions are its own.
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

lane_fns!(
    /// The last stages of the group of vectors `v .. v + 8`, and its output
    /// (see [`finish`]).
    ///
    /// # Safety
    ///
    /// The CPU must have this instance's instructions; no other thread may write the
    /// group's output positions.
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
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ntt::tests::elements;
    use crate::ntt::Domain;

    /// This instance's transform of `data`, a vector of `domain`'s size.
    fn lanes_transform(domain: &Domain, data: &mut [Scalar], inverse: bool, coset: bool) {
        let tables = Tables::new(domain.log_n, &domain.twiddles).unwrap();
        let mut buf = scratch(data.len());
        // SAFETY: the calling tests run only where this instance can.
        unsafe {
            transform(
                &tables,
                &domain.twiddles,
                data,
                inverse,
                coset,
                domain.n_inv,
                &mut buf,
            )
        };
    }

    /// The lane path against the scalar one, every direction, with and
    /// without coset.
    fn check_lanes(log_n: u32) {
        let domain = Domain::new(log_n);
        for (inverse, coset) in [(false, false), (true, false), (false, true), (true, true)] {
            let input = elements(1 << log_n, 3 + log_n as u64);
            let (mut fast, mut scalar) = (input.clone(), input);
            lanes_transform(&domain, &mut fast, inverse, coset);
            domain.transform_scalar(&mut scalar, inverse, coset);
            assert!(
                fast == scalar,
                "2^{log_n}, inverse {inverse}, coset {coset}"
            );
        }
    }

    #[test]
    fn lanes_match_scalar_small() {
        if !runs_test(module_path!(), "lanes_match_scalar_small") {
            return;
        }
        // From MIN_LOG to 13, one chunk.
        for log_n in crate::ntt::lanes::MIN_LOG..=13 {
            check_lanes(log_n);
        }
    }

    #[test]
    fn lanes_match_scalar_large() {
        if !runs_test(module_path!(), "lanes_match_scalar_large") {
            return;
        }
        // Passes over the whole buffer of one, two, three and four stages.
        for log_n in 14..=17 {
            check_lanes(log_n);
        }
    }

    #[test]
    fn lanes_round_trip() {
        if !runs_test(module_path!(), "lanes_round_trip") {
            return;
        }
        let domain = Domain::new(15);
        let input = elements(1 << 15, 11);
        for coset in [false, true] {
            let mut data = input.clone();
            lanes_transform(&domain, &mut data, false, coset);
            assert!(data != input);
            lanes_transform(&domain, &mut data, true, coset);
            assert!(data == input, "coset {coset}");
        }
    }
}
