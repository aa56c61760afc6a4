//! How a [`CsrMatrix`] is laid out as sections of a PCE file.
//!
//! A matrix named `A` becomes the sections `A.num_cols`, `A.row_lens`,
//! `A.long_rows`, `A.cols`, `A.codes`, `A.escapes` and `A.table`; the table
//! holds canonical little-endian field elements, so it does not depend on the
//! in-memory Montgomery form.

use blstrs::Scalar;

use crate::format::{FileReader, FileWriter, FormatError};
use crate::matrix::CsrMatrix;

impl CsrMatrix {
    /// Appends the sections of this matrix, named `name.*`.
    pub fn write_sections(&self, out: &mut FileWriter, name: &str) -> Result<(), FormatError> {
        out.section(&format!("{name}.num_cols"), &[self.num_cols as u64])?;
        out.section(&format!("{name}.row_lens"), &self.row_lens)?;
        out.section(&format!("{name}.long_rows"), &self.long_row_lens)?;
        out.section(&format!("{name}.cols"), &self.cols)?;
        out.section(&format!("{name}.codes"), &self.codes)?;
        out.section(&format!("{name}.escapes"), &self.escapes)?;
        let table: Vec<[u8; 32]> = self.table.iter().map(Scalar::to_bytes_le).collect();
        out.section(&format!("{name}.table"), &table)
    }

    /// Passes over the sections [`CsrMatrix::write_sections`] wrote,
    /// without reading their payloads: the matrix's number of rows and the
    /// bytes it will hold once read ([`CsrMatrix::size_bytes`]).
    pub fn skip_sections(input: &mut FileReader, name: &str) -> Result<(usize, u64), FormatError> {
        let mut skip =
            |part: &str, elem_size: usize| input.skip_section(&format!("{name}.{part}"), elem_size);
        skip("num_cols", 8)?;
        let rows = skip("row_lens", 1)?;
        let parts = [
            ("long_rows", 4),
            ("cols", 4),
            ("codes", 1),
            ("escapes", 4),
            ("table", 32),
        ];
        let mut bytes = rows;
        for (part, elem_size) in parts {
            bytes += skip(part, elem_size)?;
        }
        let rows = usize::try_from(rows).expect("a row is a byte of the file");
        Ok((rows, bytes + Self::block_index_bytes(rows) as u64))
    }

    /// Reads the sections written by [`CsrMatrix::write_sections`] for a
    /// matrix of `rows` rows, and validates the matrix.
    pub fn read_sections(
        input: &mut FileReader,
        name: &str,
        rows: usize,
    ) -> Result<Self, FormatError> {
        let start = input.offset();
        let [num_cols] = input.section_of_len::<u64>(&format!("{name}.num_cols"), 1)?[..] else {
            unreachable!("a section of one element")
        };
        let num_cols = usize::try_from(num_cols)
            .map_err(|_| input.corrupt(start, "column count overflows"))?;
        let row_lens = input.section_of_len(&format!("{name}.row_lens"), rows as u64)?;
        let long_row_lens = input.section(&format!("{name}.long_rows"))?;
        let cols = input.section(&format!("{name}.cols"))?;
        let codes = input.section(&format!("{name}.codes"))?;
        let escapes = input.section(&format!("{name}.escapes"))?;
        let table_at = input.offset();
        let table = input
            .section::<[u8; 32]>(&format!("{name}.table"))?
            .iter()
            .enumerate()
            .map(|(i, bytes)| {
                Option::from(Scalar::from_bytes_le(bytes)).ok_or_else(|| {
                    input.corrupt(
                        table_at,
                        format!("{name}.table entry {i} is not a canonical field element"),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        CsrMatrix::from_parts(
            num_cols,
            row_lens,
            long_row_lens,
            cols,
            codes,
            escapes,
            table,
        )
        .map_err(|what| input.corrupt(start, format!("matrix {name}: {what}")))
    }
}
