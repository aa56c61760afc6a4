//! Which variables a query of the proving key actually uses.
//!
//! bellperson's prover tracks, per variable, whether it appears with a
//! non-zero coefficient in A (aux variables) and in B (inputs and aux
//! variables); the MSMs over the A and B bases skip the others, and the
//! parameter file stores bases only for the used ones. [`Density`] is that
//! bit set, with the same `extend` rule as bellperson's `DensityTracker`.

use rayon::prelude::*;

/// A growable bit set with a population count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Density {
    words: Vec<u64>,
    len: usize,
    count: usize,
}

impl Density {
    /// An empty set over zero variables.
    pub fn new() -> Self {
        Self::default()
    }

    /// A set over `len` variables from its 64-bit words (bit `i` of word
    /// `i / 64` is variable `i`). Returns `None` if the word count does not
    /// match `len` or a bit past `len` is set.
    pub fn from_words(len: usize, words: Vec<u64>) -> Option<Self> {
        if words.len() != len.div_ceil(64) {
            return None;
        }
        if !len.is_multiple_of(64) && words.last().is_some_and(|w| w >> (len % 64) != 0) {
            return None;
        }
        let count = words.iter().map(|w| w.count_ones() as usize).sum();
        Some(Self { words, len, count })
    }

    /// The set of the variables in `0..len` that occur in `indices`.
    pub fn from_indices(len: usize, indices: impl IntoIterator<Item = usize>) -> Self {
        let mut density = Self {
            words: vec![0; len.div_ceil(64)],
            len,
            count: 0,
        };
        for index in indices {
            density.inc(index);
        }
        density
    }

    /// The underlying words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Number of variables tracked.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no variable is tracked.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of variables used (bellperson's `get_total_density`).
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether variable `index` is used.
    pub fn get(&self, index: usize) -> bool {
        assert!(
            index < self.len,
            "density index {index} out of range {}",
            self.len
        );
        self.words[index / 64] >> (index % 64) & 1 == 1
    }

    /// Tracks one more variable, initially unused.
    pub fn add_element(&mut self) {
        self.push(false);
    }

    fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        self.len += 1;
        if bit {
            self.set(self.len - 1);
        }
    }

    fn set(&mut self, index: usize) {
        self.words[index / 64] |= 1 << (index % 64);
    }

    /// Marks variable `index` as used.
    pub fn inc(&mut self, index: usize) {
        if !self.get(index) {
            self.set(index);
            self.count += 1;
        }
    }

    /// Appends `other`. For an input density, `other`'s first variable is
    /// its temporary ONE: it is merged into this set's ONE, not appended.
    pub fn extend(&mut self, other: &Self, is_input_density: bool) {
        if other.is_empty() {
            return;
        }
        if self.is_empty() {
            *self = other.clone();
            return;
        }
        let mut count = self.count + other.count;
        let skip = if is_input_density {
            if other.get(0) {
                if self.get(0) {
                    count -= 1;
                } else {
                    self.set(0);
                }
            }
            1
        } else {
            0
        };
        for index in skip..other.len {
            self.push(other.get(index));
        }
        self.count = count;
    }

    /// Appends to `out`, in order, the values of the variables in the set
    /// (`values` holds one per variable): a query's MSM scalars. Copied by
    /// all threads, each into its own part of `out`: at 32 GiB the A query
    /// selects 3.9 GiB of a partition's aux values.
    pub fn extend_selected<T: Copy + Send + Sync>(&self, values: &[T], out: &mut Vec<T>) {
        assert_eq!(values.len(), self.len, "one value per variable");
        // 65,536 variables a task; a multiple of 64, so tasks split no word.
        const WORDS: usize = 1024;
        let counts: Vec<usize> = self
            .words
            .par_chunks(WORDS)
            .map(|words| words.iter().map(|w| w.count_ones() as usize).sum())
            .collect();
        let total: usize = counts.iter().sum();
        out.reserve(total);
        let start = out.len();
        let mut spare = &mut out.spare_capacity_mut()[..total];
        let mut places = Vec::with_capacity(counts.len());
        for count in counts {
            let (place, rest) = std::mem::take(&mut spare).split_at_mut(count);
            places.push(place);
            spare = rest;
        }
        places
            .into_par_iter()
            .zip(self.words.par_chunks(WORDS))
            .enumerate()
            .for_each(|(task, (place, words))| {
                let mut slots = place.iter_mut();
                for (w, &word) in words.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        let index = (task * WORDS + w) * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        slots
                            .next()
                            .expect("a slot per set bit")
                            .write(values[index]);
                    }
                }
            });
        // SAFETY: each task wrote every slot of its part (one per set bit
        // of its words, and its part has exactly that many), and the parts
        // cover the `total` slots after `start`.
        unsafe { out.set_len(start + total) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn extend_selected_appends_the_selected_values_in_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        // Within a word, on word and task boundaries, across several tasks;
        // sets from empty to full.
        for len in [0, 1, 63, 64, 65, 65_536, 2 * 65_536 + 77] {
            for percent in [0, 3, 50, 99, 100] {
                let density = Density::from_indices(
                    len,
                    (0..len).filter(|_| rng.gen_range(0..100) < percent),
                );
                let values: Vec<u64> = (0..len as u64).map(|i| i * 7 + 1).collect();
                let mut out = vec![u64::MAX; 5];
                density.extend_selected(&values, &mut out);
                let expected: Vec<u64> = [u64::MAX; 5]
                    .into_iter()
                    .chain((0..len).filter(|&i| density.get(i)).map(|i| values[i]))
                    .collect();
                assert_eq!(out, expected, "{len} variables, {percent} % selected");
                assert_eq!(out.len(), 5 + density.count());
            }
        }
    }
}
