//! The transform eight elements at a time, with AVX-512 IFMA.
//!
//! The butterflies' multiplications are the cost, and [`ifma::hardware::mul`] does
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
//!
//! That lane code (`ntt/lanes/stages.rs`) is compiled twice, like the lane
//! arithmetic it uses ([`crate::ifma`]): [`hardware`] is what production
//! runs; `emulated`, for tests, runs it on the portable emulation of the
//! instructions, on any CPU. What does not depend on the instructions (the
//! twiddle tables, the layout) is here, once.

use std::collections::TryReserveError;

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use super::reverse;
use crate::ifma;

/// One field element's 52-bit limbs.
type Limbs = [u64; 5];

/// Bytes an element of the limb-sliced copy each transform allocates
/// (`scratch`): eight elements of five 64-bit limbs per vector.
pub(super) const SCRATCH_BYTES_PER_ELEMENT: u64 = (size_of::<hardware::Fr>() / 8) as u64;
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
    /// prescaled for [`ifma::hardware::mul_unreduced_wide`].
    twiddles: Vec<Limbs>,
}

impl Tables {
    /// From the domain's table of `ω^j, j < n/2`.
    pub(super) fn new(log_n: u32, twiddles: &[Scalar]) -> Result<Self, TryReserveError> {
        let n = 1usize << log_n;
        let mut table = large_buffers::try_filled(n / 8, [0; 5])?;
        table
            .par_iter_mut()
            .enumerate()
            .skip(1)
            .with_min_len(TASK)
            .for_each(|(i, slot)| {
                let h = 1 << i.ilog2();
                *slot = limbs(&prescaled(twiddles[(i - h) * (n / (2 * h))]));
            });
        Ok(Self { twiddles: table })
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

/// `v·2^4` in blst's form: the prescaled factor for
/// [`ifma::hardware::mul_unreduced_wide`] (radix 2^260 against blst's 2^256).
fn prescaled(v: Scalar) -> Scalar {
    v * Scalar::from(16)
}

/// The transform on the AVX-512 IFMA instructions: what production runs.
// Its source, `ntt/lanes/stages.rs`, is `emulated`'s too.
#[path = "lanes"]
pub(super) mod hardware {
    /// The lane arithmetic and instructions this instance is compiled for.
    use crate::ifma::hardware as ifma;

    mod stages;
    pub(in crate::ntt) use stages::{scratch, transform, Fr};
}

/// The same transform on the portable emulation of the instructions, so
/// that tests check it on any CPU.
#[cfg(test)]
// Entering lane code takes `unsafe` on the hardware (its functions have
// target features); here the very same calls are safe.
#[allow(unused_unsafe)]
#[path = "lanes"]
mod emulated {
    /// The lane arithmetic and instructions this instance is compiled for.
    use crate::ifma::emulated as ifma;

    // The hardware instance's file, on purpose: one source for both.
    #[allow(clippy::duplicate_mod)]
    mod stages;
}
