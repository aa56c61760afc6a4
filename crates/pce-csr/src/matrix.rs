//! The compact CSR matrix and its builder.
//!
//! Layout (all arrays little-endian, see `docs/pce-format.md`):
//!
//! - `row_lens`: one byte per row; [`LONG_ROW`] means the length is the next
//!   entry of `long_row_lens` (PoRep rows have 0–3 terms, a few packing rows
//!   have hundreds);
//! - `cols`: the column of every non-zero, row by row, as `u32`;
//! - `codes`: the coefficient code of every non-zero (see [`crate::coeff`]);
//! - `escapes`: the table index of every non-zero coded [`CODE_ESCAPE`];
//! - `table`: the coefficient values other than ±1, most frequent first.
//!
//! Rows are grouped in blocks of [`BLOCK_ROWS`]; the start of each block in
//! the per-non-zero, long-row and escape arrays is derived (and the whole
//! matrix validated) when a matrix is built or loaded, so blocks can be
//! processed in parallel without storing a pointer per row.

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::coeff::{
    CoeffId, CoefficientInterner, CODE_ESCAPE, CODE_FIRST_TABLE, CODE_MINUS_ONE, CODE_ONE,
};

/// Rows per block: the unit of parallel work and of the block index.
pub const BLOCK_ROWS: usize = 4096;
/// Row-length byte meaning "the length is in `long_row_lens`".
pub const LONG_ROW: u8 = u8::MAX;

/// A coefficient as stored: ±1 are known without a table lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coefficient<'a> {
    /// +1: the term is added.
    One,
    /// −1: the term is subtracted.
    MinusOne,
    /// Any other non-zero value.
    Other(&'a Scalar),
}

impl Coefficient<'_> {
    /// The coefficient as a field element.
    pub fn value(&self) -> Scalar {
        match self {
            Coefficient::One => Scalar::ONE,
            Coefficient::MinusOne => -Scalar::ONE,
            Coefficient::Other(value) => **value,
        }
    }
}

/// Where a block of rows starts in the per-non-zero, long-row and escape arrays.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BlockStart {
    pub(crate) nnz: usize,
    pub(crate) long_rows: usize,
    pub(crate) escapes: usize,
}

/// A sparse matrix over the BLS12-381 scalar field in compact CSR form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsrMatrix {
    pub(crate) num_cols: usize,
    pub(crate) row_lens: Vec<u8>,
    pub(crate) long_row_lens: Vec<u32>,
    pub(crate) cols: Vec<u32>,
    pub(crate) codes: Vec<u8>,
    pub(crate) escapes: Vec<u32>,
    pub(crate) table: Vec<Scalar>,
    pub(crate) blocks: Vec<BlockStart>,
}

/// Accumulates rows of a matrix whose coefficients are interned as they come.
///
/// Columns are opaque `u32` labels until [`CsrBuilder::finish`] maps them to
/// their final positions: the constraint recorder labels inputs and aux
/// variables separately because their final order is only known at the end.
#[derive(Debug, Clone, Default)]
pub struct CsrBuilder {
    row_lens: Vec<u8>,
    long_row_lens: Vec<u32>,
    cols: Vec<u32>,
    ids: Vec<CoeffId>,
    interner: CoefficientInterner,
}

impl CsrBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of rows pushed so far.
    pub fn num_rows(&self) -> usize {
        self.row_lens.len()
    }

    /// Number of non-zeros pushed so far.
    pub fn nnz(&self) -> usize {
        self.cols.len()
    }

    /// Appends a row. Terms with a zero coefficient are dropped, as
    /// bellperson's prover skips them; repeated columns are kept and summed.
    pub fn push_row<'a>(&mut self, terms: impl IntoIterator<Item = (u32, &'a Scalar)>) {
        let start = self.cols.len();
        for (col, coeff) in terms {
            if bool::from(coeff.is_zero()) {
                continue;
            }
            self.cols.push(col);
            self.ids.push(self.interner.intern(coeff));
        }
        self.push_row_len(self.cols.len() - start);
    }

    fn push_row_len(&mut self, len: usize) {
        if len < LONG_ROW as usize {
            self.row_lens.push(len as u8);
        } else {
            self.row_lens.push(LONG_ROW);
            self.long_row_lens.push(
                u32::try_from(len).expect("a row with more than 2^32 terms cannot be stored"),
            );
        }
    }

    /// Appends all rows of `other`, relabelling its columns with `relabel`.
    pub fn append(&mut self, other: &CsrBuilder, relabel: impl Fn(u32) -> u32) {
        self.row_lens.extend_from_slice(&other.row_lens);
        self.long_row_lens.extend_from_slice(&other.long_row_lens);
        self.cols.extend(other.cols.iter().map(|&col| relabel(col)));
        for &id in &other.ids {
            let id = self.interner.intern(other.interner.value(id));
            self.ids.push(id);
        }
    }

    /// Calls `f` with the label of every stored non-zero.
    pub fn for_each_col(&self, f: impl FnMut(&u32)) {
        self.cols.iter().for_each(f)
    }

    /// Finalises the matrix with `num_cols` columns, mapping every column
    /// label through `relabel` (which must return values below `num_cols`).
    pub fn finish(self, num_cols: usize, relabel: impl Fn(u32) -> u32 + Sync) -> CsrMatrix {
        let CsrBuilder {
            row_lens,
            long_row_lens,
            mut cols,
            ids,
            interner,
        } = self;
        cols.par_iter_mut().for_each(|col| *col = relabel(*col));
        let (table, code_of) = interner.into_table();
        let codes: Vec<u8> = ids.par_iter().map(|&id| code_of[id as usize].0).collect();
        let escapes: Vec<u32> = ids
            .iter()
            .filter_map(|&id| {
                let (code, index) = code_of[id as usize];
                (code == CODE_ESCAPE).then_some(index)
            })
            .collect();
        CsrMatrix::from_parts(
            num_cols,
            row_lens,
            long_row_lens,
            cols,
            codes,
            escapes,
            table,
        )
        .expect("a finished builder yields a consistent matrix")
    }
}

impl CsrMatrix {
    /// Assembles a matrix from its stored arrays, validating every index
    /// and deriving the block index. The error says which array is wrong.
    pub fn from_parts(
        num_cols: usize,
        row_lens: Vec<u8>,
        long_row_lens: Vec<u32>,
        cols: Vec<u32>,
        codes: Vec<u8>,
        escapes: Vec<u32>,
        table: Vec<Scalar>,
    ) -> Result<Self, String> {
        if codes.len() != cols.len() {
            return Err(format!(
                "{} coefficient codes for {} columns",
                codes.len(),
                cols.len()
            ));
        }
        let mut blocks = Vec::with_capacity(row_lens.len().div_ceil(BLOCK_ROWS));
        let mut start = BlockStart::default();
        for block in row_lens.chunks(BLOCK_ROWS) {
            blocks.push(start);
            for &len in block {
                start.nnz += if len == LONG_ROW {
                    let long = long_row_lens.get(start.long_rows).ok_or_else(|| {
                        format!(
                            "more long rows than the {} long-row lengths stored",
                            long_row_lens.len()
                        )
                    })?;
                    start.long_rows += 1;
                    *long as usize
                } else {
                    len as usize
                };
            }
            if start.nnz > cols.len() {
                return Err(format!(
                    "row lengths add up to more than the {} non-zeros stored",
                    cols.len()
                ));
            }
            start.escapes += codes[blocks.last().map_or(0, |b| b.nnz)..start.nnz]
                .iter()
                .filter(|&&code| code == CODE_ESCAPE)
                .count();
        }
        if start.nnz != cols.len() || start.long_rows != long_row_lens.len() {
            return Err(format!(
                "row lengths account for {} non-zeros and {} long rows, {} and {} are stored",
                start.nnz,
                start.long_rows,
                cols.len(),
                long_row_lens.len()
            ));
        }
        if start.escapes != escapes.len() {
            return Err(format!(
                "{} escaped coefficients but {} escape entries",
                start.escapes,
                escapes.len()
            ));
        }
        if let Some(col) = cols.par_iter().find_any(|&&col| col as usize >= num_cols) {
            return Err(format!(
                "column {col} out of range (matrix has {num_cols} columns)"
            ));
        }
        let direct = table.len().min(crate::coeff::DIRECT_TABLE_ENTRIES);
        let max_code = CODE_FIRST_TABLE as usize + direct;
        if let Some(code) = codes
            .par_iter()
            .find_any(|&&code| code != CODE_ESCAPE && code as usize >= max_code)
        {
            return Err(format!(
                "coefficient code {code} refers past the table of {} values",
                table.len()
            ));
        }
        if let Some(index) = escapes.par_iter().find_any(|&&i| i as usize >= table.len()) {
            return Err(format!(
                "escaped coefficient index {index} past the table of {} values",
                table.len()
            ));
        }
        Ok(Self {
            num_cols,
            row_lens,
            long_row_lens,
            cols,
            codes,
            escapes,
            table,
            blocks,
        })
    }

    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.row_lens.len()
    }

    /// Number of columns.
    pub fn num_cols(&self) -> usize {
        self.num_cols
    }

    /// Number of stored non-zeros.
    pub fn nnz(&self) -> usize {
        self.cols.len()
    }

    /// The column of every non-zero, row by row.
    pub fn cols(&self) -> &[u32] {
        &self.cols
    }

    /// Number of distinct coefficient values other than ±1.
    pub fn table_len(&self) -> usize {
        self.table.len()
    }

    /// Number of non-zeros whose coefficient goes through the escape list.
    pub fn num_escapes(&self) -> usize {
        self.escapes.len()
    }

    /// Bytes this matrix occupies in memory (and, within a few header bytes, on disk).
    pub fn size_bytes(&self) -> usize {
        self.row_lens.len()
            + 4 * self.long_row_lens.len()
            + 4 * self.cols.len()
            + self.codes.len()
            + 4 * self.escapes.len()
            + 32 * self.table.len()
            + std::mem::size_of::<BlockStart>() * self.blocks.len()
    }

    /// Bytes of the block index that a matrix of `num_rows` rows builds
    /// when it is loaded: the part of [`CsrMatrix::size_bytes`] a file
    /// does not store.
    pub fn block_index_bytes(num_rows: usize) -> usize {
        std::mem::size_of::<BlockStart>() * num_rows.div_ceil(BLOCK_ROWS)
    }

    /// Number of row blocks ([`BLOCK_ROWS`] rows each, the last one shorter).
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Visits the rows of one block in order, passing each row's index within
    /// the block and an iterator over its terms.
    pub fn for_each_row_in_block(&self, block: usize, mut visit: impl FnMut(usize, RowTerms<'_>)) {
        let start = self.blocks[block];
        let rows = block * BLOCK_ROWS..((block + 1) * BLOCK_ROWS).min(self.num_rows());
        let (mut nnz, mut long_rows, mut escapes) = (start.nnz, start.long_rows, start.escapes);
        for (offset, &len) in self.row_lens[rows].iter().enumerate() {
            let len = if len == LONG_ROW {
                long_rows += 1;
                self.long_row_lens[long_rows - 1] as usize
            } else {
                len as usize
            };
            visit(
                offset,
                RowTerms {
                    cols: &self.cols[nnz..nnz + len],
                    codes: &self.codes[nnz..nnz + len],
                    table: &self.table,
                    escapes: &self.escapes,
                    next_escape: &mut escapes,
                },
            );
            nnz += len;
        }
    }

    /// All rows as `(column, value)` lists; meant for tests and small matrices.
    pub fn to_rows(&self) -> Vec<Vec<(u32, Scalar)>> {
        let mut rows = Vec::with_capacity(self.num_rows());
        for block in 0..self.num_blocks() {
            self.for_each_row_in_block(block, |_, terms| {
                rows.push(terms.map(|(col, c)| (col, c.value())).collect())
            });
        }
        rows
    }
}

/// The terms of one row: `(column, coefficient)` pairs.
pub struct RowTerms<'a> {
    cols: &'a [u32],
    codes: &'a [u8],
    table: &'a [Scalar],
    escapes: &'a [u32],
    next_escape: &'a mut usize,
}

impl<'a> Iterator for RowTerms<'a> {
    type Item = (u32, Coefficient<'a>);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let (&col, cols) = self.cols.split_first()?;
        let (&code, codes) = self.codes.split_first()?;
        self.cols = cols;
        self.codes = codes;
        let coefficient = match code {
            CODE_ONE => Coefficient::One,
            CODE_MINUS_ONE => Coefficient::MinusOne,
            CODE_ESCAPE => {
                let index = self.escapes[*self.next_escape];
                *self.next_escape += 1;
                Coefficient::Other(&self.table[index as usize])
            }
            code => Coefficient::Other(&self.table[(code - CODE_FIRST_TABLE) as usize]),
        };
        Some((col, coefficient))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.cols.len(), Some(self.cols.len()))
    }
}
