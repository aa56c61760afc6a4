//! Parallel sparse matrix × vector product.
//!
//! The product is memory-bandwidth bound: each output row reads a few
//! columns of a vector far larger than the caches. Work is split into the
//! matrix's row blocks, each block writes its own slice of the output, and
//! nothing is allocated per row. ±1 coefficients cost an addition or a
//! subtraction, never a multiplication; so does any coefficient that meets
//! a 0 or a 1 in the vector. That case is the common one: most
//! coefficients other than ±1 weigh bits (SHA-256's packing rows,
//! `Σ 2^i · bit_i`), and two comparisons cost a fraction of a Montgomery
//! multiplication (measured in `docs/benchmarks.md`). A row's first term
//! is taken as the row's value rather than added to zero: most rows have
//! one or two terms, so that saves about half of the additions. The sum
//! is kept in the output row itself: in a local, each row's end read back
//! with wide loads what blst's addition had just stored in 8-byte words,
//! a load the store buffer cannot forward (5–10 % of the kernel's time,
//! `docs/benchmarks.md`).

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::matrix::{Coefficient, CsrMatrix, BLOCK_ROWS};

/// A vector given as two consecutive parts, `head ‖ tail`.
///
/// R1CS assignments come as inputs and aux variables in two vectors; column
/// `j` reads `head[j]` below `head.len()` and `tail[j − head.len()]` above,
/// so the caller never concatenates them.
#[derive(Debug, Clone, Copy)]
pub struct SplitVector<'a> {
    head: &'a [Scalar],
    tail: &'a [Scalar],
}

impl<'a> SplitVector<'a> {
    /// The vector `head ‖ tail`.
    pub fn new(head: &'a [Scalar], tail: &'a [Scalar]) -> Self {
        Self { head, tail }
    }

    /// Total length.
    pub fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    /// Whether both parts are empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline(always)]
    fn get(&self, index: usize) -> &Scalar {
        match index.checked_sub(self.head.len()) {
            None => &self.head[index],
            Some(tail_index) => &self.tail[tail_index],
        }
    }
}

/// Error of a MatVec call with mismatched lengths.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("MatVec dimension mismatch: matrix is {rows}×{cols}, vector has {vector} entries, output has {output}")]
pub struct DimensionMismatch {
    /// Rows of the matrix.
    pub rows: usize,
    /// Columns of the matrix.
    pub cols: usize,
    /// Length of the input vector.
    pub vector: usize,
    /// Length of the output slice.
    pub output: usize,
}

impl CsrMatrix {
    /// Computes `out = self · x`. `out` must have exactly one entry per row
    /// and `x` one per column.
    pub fn mul_vec_into(
        &self,
        x: SplitVector<'_>,
        out: &mut [Scalar],
    ) -> Result<(), DimensionMismatch> {
        if x.len() != self.num_cols() || out.len() != self.num_rows() {
            return Err(DimensionMismatch {
                rows: self.num_rows(),
                cols: self.num_cols(),
                vector: x.len(),
                output: out.len(),
            });
        }
        out.par_chunks_mut(BLOCK_ROWS)
            .enumerate()
            .for_each(|(block, out)| self.mul_vec_block(block, x, out));
        Ok(())
    }

    /// Computes the rows of row block `block` of `self · x` into `out`
    /// (one entry per row of the block, [`BLOCK_ROWS`] but for the last
    /// block): the product a piece at a time, for a caller that checks
    /// rows without holding the whole product.
    ///
    /// # Panics
    /// If `block` is out of range, `out` is shorter than the block or
    /// `x` shorter than the matrix's columns.
    pub fn mul_vec_block(&self, block: usize, x: SplitVector<'_>, out: &mut [Scalar]) {
        self.for_each_row_in_block(block, |row, mut terms| {
            let Some((col, coefficient)) = terms.next() else {
                out[row] = Scalar::ZERO;
                return;
            };
            let value = x.get(col as usize);
            let acc = &mut out[row];
            *acc = match coefficient {
                Coefficient::One => *value,
                Coefficient::MinusOne => -value,
                Coefficient::Other(_) if *value == Scalar::ZERO => Scalar::ZERO,
                Coefficient::Other(c) if *value == Scalar::ONE => *c,
                Coefficient::Other(c) => *value * c,
            };
            for (col, coefficient) in terms {
                let value = x.get(col as usize);
                match coefficient {
                    Coefficient::One => *acc += value,
                    Coefficient::MinusOne => *acc -= value,
                    Coefficient::Other(_) if *value == Scalar::ZERO => {}
                    Coefficient::Other(c) if *value == Scalar::ONE => *acc += c,
                    Coefficient::Other(c) => *acc += *value * c,
                }
            }
        })
    }

    /// Computes `self · x` into a new vector.
    pub fn mul_vec(&self, x: SplitVector<'_>) -> Result<Vec<Scalar>, DimensionMismatch> {
        let mut out = vec![Scalar::ZERO; self.num_rows()];
        self.mul_vec_into(x, &mut out)?;
        Ok(out)
    }
}

impl CsrMatrix {
    /// Computes `selfᵀ · x` (one entry per column), for evaluating the
    /// matrix's columns as polynomials (parameter generation). Each thread
    /// accumulates a contiguous range of row blocks into its own vector.
    pub fn mul_transpose_vec(&self, x: &[Scalar]) -> Result<Vec<Scalar>, DimensionMismatch> {
        if x.len() != self.num_rows() {
            return Err(DimensionMismatch {
                rows: self.num_rows(),
                cols: self.num_cols(),
                vector: x.len(),
                output: self.num_cols(),
            });
        }
        let tasks = rayon::current_num_threads().max(1);
        let per_task = self.num_blocks().div_ceil(tasks).max(1);
        let partial = (0..tasks)
            .into_par_iter()
            .map(|task| {
                let mut acc = vec![Scalar::ZERO; self.num_cols()];
                let blocks = task * per_task..((task + 1) * per_task).min(self.num_blocks());
                for block in blocks {
                    self.for_each_row_in_block(block, |row, terms| {
                        let value = &x[block * BLOCK_ROWS + row];
                        for (col, coefficient) in terms {
                            let slot = &mut acc[col as usize];
                            match coefficient {
                                Coefficient::One => *slot += value,
                                Coefficient::MinusOne => *slot -= value,
                                Coefficient::Other(c) => *slot += *value * c,
                            }
                        }
                    });
                }
                acc
            })
            .reduce_with(|mut a, b| {
                a.par_iter_mut()
                    .zip(b.par_iter())
                    .for_each(|(a, b)| *a += b);
                a
            });
        Ok(partial.unwrap_or_else(|| vec![Scalar::ZERO; self.num_cols()]))
    }
}
