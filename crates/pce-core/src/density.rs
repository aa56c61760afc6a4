//! Which variables a query of the proving key actually uses.
//!
//! bellperson's prover tracks, per variable, whether it appears with a
//! non-zero coefficient in A (aux variables) and in B (inputs and aux
//! variables); the MSMs over the A and B bases skip the others, and the
//! parameter file stores bases only for the used ones. [`Density`] is that
//! bit set, with the same `extend` rule as bellperson's `DensityTracker`.

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
}
