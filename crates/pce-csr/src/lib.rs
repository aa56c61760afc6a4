//! Sparse matrices for the pre-compiled constraint evaluator (PCE).
//!
//! The R1CS of a Filecoin PoRep partition is recorded once as three sparse
//! matrices A, B, C; every proof then only needs `A·w`, `B·w`, `C·w`. This
//! crate holds the matrix type and its MatVec, with a storage layout built for
//! the shape of these circuits (see `docs/pce-format.md`):
//!
//! - [`coeff`]: one byte per non-zero names its coefficient (±1 without a
//!   table, the 253 most frequent values through a per-matrix table, the rest
//!   through an escape list);
//! - [`matrix`]: the CSR matrix itself and its builder; row lengths are bytes,
//!   columns `u32`, together about 5.5–6 bytes per non-zero instead of the
//!   ~38 bytes of a column index plus a full 32-byte coefficient;
//! - [`matvec`]: the parallel product, block by block, without allocation;
//! - [`format`]: the checksummed, sectioned binary file the matrices live in.

#[cfg(not(target_endian = "little"))]
compile_error!(
    "pce-csr stores arrays in native byte order and supports little-endian targets only"
);

pub mod coeff;
pub mod format;
pub mod matrix;
pub mod matvec;
mod persist;

pub use format::{FileReader, FileWriter, FormatError};
pub use matrix::{CsrBuilder, CsrMatrix};
pub use matvec::SplitVector;

/// The field every matrix is over: the BLS12-381 scalar field.
pub use blstrs::Scalar;
