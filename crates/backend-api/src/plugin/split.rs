//! MSM terms split by scalar: zeros dropped, ones apart, the rest.
//!
//! PoRep witnesses are 97–98 % zeros and ones, so every backend splits an
//! MSM's terms before Pippenger: a zero adds nothing, a one adds its base
//! without a scalar multiplication, and only the rest need buckets. The
//! rule is written once here for every plugin; each keeps its own
//! representation of a term (a base, an index into device memory) and its
//! own parallelism: [`Counts::of`] sizes the outputs, [`split_into`] fills
//! preallocated ranges (so chunks can be split in parallel), [`Split::new`]
//! collects sequentially.

use std::collections::TryReserveError;
use std::mem::MaybeUninit;

use crate::ffi::pce_scalar;

/// What a scalar makes of its term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    /// Scalar 0: the term adds nothing.
    Zero,
    /// Scalar 1: the base is added as it is.
    One,
    /// Any other scalar: the term needs a scalar multiplication.
    Other,
}

impl Term {
    /// The kind of term `scalar` (canonical, as the ABI passes it) makes.
    pub fn of(scalar: &pce_scalar) -> Self {
        match scalar.l {
            [0, 0, 0, 0] => Term::Zero,
            [1, 0, 0, 0] => Term::One,
            _ => Term::Other,
        }
    }
}

/// Numbers of ones and of other non-zero terms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Terms with scalar 1.
    pub ones: usize,
    /// Terms with a scalar neither 0 nor 1.
    pub others: usize,
}

impl Counts {
    /// The counts of `scalars`.
    pub fn of(scalars: &[pce_scalar]) -> Self {
        scalars
            .iter()
            .fold(Counts::default(), |counts, scalar| match Term::of(scalar) {
                Term::Zero => counts,
                Term::One => Counts {
                    ones: counts.ones + 1,
                    ..counts
                },
                Term::Other => Counts {
                    others: counts.others + 1,
                    ..counts
                },
            })
    }

    /// The counts of two parts together.
    pub fn plus(self, other: Counts) -> Counts {
        Counts {
            ones: self.ones + other.ones,
            others: self.others + other.others,
        }
    }
}

/// The terms of an MSM split by scalar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<T> {
    /// The items of the terms with scalar 1.
    pub ones: Vec<T>,
    /// The items of the other non-zero terms.
    pub others: Vec<T>,
    /// Their scalars, in the same order.
    pub other_scalars: Vec<pce_scalar>,
}

impl<T> Split<T> {
    /// Splits the terms `(items[i], scalars[i])`, in order, into vectors
    /// of their exact sizes ([`Counts::of`] first); an error where the
    /// allocator refuses them (a large MSM's terms are gigabytes).
    pub fn new(
        scalars: &[pce_scalar],
        items: impl IntoIterator<Item = T>,
    ) -> Result<Self, TryReserveError> {
        let counts = Counts::of(scalars);
        let mut split = Split {
            ones: Vec::new(),
            others: Vec::new(),
            other_scalars: Vec::new(),
        };
        split.ones.try_reserve_exact(counts.ones)?;
        split.others.try_reserve_exact(counts.others)?;
        split.other_scalars.try_reserve_exact(counts.others)?;
        for (item, scalar) in items.into_iter().zip(scalars) {
            match Term::of(scalar) {
                Term::Zero => {}
                Term::One => split.ones.push(item),
                Term::Other => {
                    split.others.push(item);
                    split.other_scalars.push(*scalar);
                }
            }
        }
        Ok(split)
    }
}

/// Where [`split_into`] writes one part's terms: ranges sized by the part's
/// [`Counts`].
pub struct Slots<'a, T> {
    /// Room for the items of ones.
    pub ones: &'a mut [MaybeUninit<T>],
    /// Room for the items of other terms.
    pub others: &'a mut [MaybeUninit<T>],
    /// Room for their scalars.
    pub other_scalars: &'a mut [MaybeUninit<pce_scalar>],
}

/// Writes the terms `(items[i], scalars[i])` into `slots`, in order, and
/// returns how many of each it wrote: the first `ones` and `others` entries
/// of the slots are then initialised. Panics when a slot is too short
/// (sizes come from [`Counts::of`] on the same scalars).
pub fn split_into<T>(
    scalars: &[pce_scalar],
    items: impl IntoIterator<Item = T>,
    slots: Slots<'_, T>,
) -> Counts {
    let mut written = Counts::default();
    for (item, scalar) in items.into_iter().zip(scalars) {
        match Term::of(scalar) {
            Term::Zero => {}
            Term::One => {
                slots.ones[written.ones].write(item);
                written.ones += 1;
            }
            Term::Other => {
                slots.others[written.others].write(item);
                slots.other_scalars[written.others].write(*scalar);
                written.others += 1;
            }
        }
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(l0: u64, l3: u64) -> pce_scalar {
        pce_scalar { l: [l0, 0, 0, l3] }
    }

    fn scalars() -> [pce_scalar; 6] {
        [
            scalar(0, 0),
            scalar(1, 0),
            scalar(2, 0),
            scalar(1, 1),
            scalar(1, 0),
            scalar(0, 1),
        ]
    }

    #[test]
    fn zeros_dropped_ones_apart() {
        let scalars = scalars();
        let split = Split::new(&scalars, 10u32..).unwrap();
        assert_eq!(split.ones, [11, 14]);
        assert_eq!(split.others, [12, 13, 15]);
        assert_eq!(
            split.other_scalars,
            [scalar(2, 0), scalar(1, 1), scalar(0, 1)]
        );
        assert_eq!(Counts::of(&scalars), Counts { ones: 2, others: 3 });
    }

    #[test]
    fn split_into_matches_split() {
        let scalars = scalars();
        let counts = Counts::of(&scalars);
        let mut ones = vec![MaybeUninit::uninit(); counts.ones];
        let mut others = vec![MaybeUninit::uninit(); counts.others];
        let mut other_scalars = vec![MaybeUninit::uninit(); counts.others];
        let written = split_into(
            &scalars,
            10u32..,
            Slots {
                ones: &mut ones,
                others: &mut others,
                other_scalars: &mut other_scalars,
            },
        );
        assert_eq!(written, counts);
        let read = |v: &[MaybeUninit<u32>]| -> Vec<u32> {
            v.iter()
                // SAFETY: `written` says every slot was initialised.
                .map(|x| unsafe { x.assume_init() })
                .collect()
        };
        let split = Split::new(&scalars, 10u32..).unwrap();
        assert_eq!(read(&ones), split.ones);
        assert_eq!(read(&others), split.others);
    }

    #[test]
    #[should_panic]
    fn short_slots_panic() {
        let scalars = scalars();
        split_into(
            &scalars,
            0u32..,
            Slots {
                ones: &mut [MaybeUninit::uninit(); 1],
                others: &mut [MaybeUninit::uninit(); 3],
                other_scalars: &mut [MaybeUninit::uninit(); 3],
            },
        );
    }
}
