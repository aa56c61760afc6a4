//! The PCE file: a pre-compiled circuit in the container of `pce_csr::format`.
//!
//! Sections, in order: `shape` (`[num_inputs, num_aux, num_constraints]`),
//! the densities as 64-bit words (`dens.a_aux`, `dens.b_input`,
//! `dens.b_aux`), then matrices `A`, `B`, `C`. The layout is documented in
//! `docs/pce-format.md`; bump [`FORMAT_VERSION`] on any change.

use std::path::Path;

use pce_csr::{CsrMatrix, FileReader, FileWriter};
use tracing::info;

use crate::circuit::{PceSize, PrecompiledCircuit};
use crate::density::Density;
use crate::error::PceError;

/// Magic bytes of a PCE file.
pub const MAGIC: [u8; 8] = *b"PCE-R1CS";
/// Version of the layout written by this build.
pub const FORMAT_VERSION: u32 = 1;

impl PrecompiledCircuit {
    /// Writes the circuit to `path` atomically (temporary file, then rename).
    pub fn save(&self, path: &Path) -> Result<(), PceError> {
        let mut out = FileWriter::create(path, MAGIC, FORMAT_VERSION)?;
        let shape = [self.num_inputs, self.num_aux, self.num_constraints()].map(|n| n as u64);
        out.section("shape", &shape)?;
        out.section("dens.a_aux", self.a_aux_density.words())?;
        out.section("dens.b_input", self.b_input_density.words())?;
        out.section("dens.b_aux", self.b_aux_density.words())?;
        self.a.write_sections(&mut out, "A")?;
        self.b.write_sections(&mut out, "B")?;
        self.c.write_sections(&mut out, "C")?;
        out.finish()?;
        info!(path = %path.display(), "PCE saved");
        Ok(())
    }

    /// Reads a circuit saved by [`PrecompiledCircuit::save`], checking its
    /// version, structure and checksum.
    pub fn load(path: &Path) -> Result<Self, PceError> {
        let mut input = FileReader::open(path, MAGIC, FORMAT_VERSION)?;
        let [num_inputs, num_aux, num_constraints] = read_shape(&mut input)?;
        let mut density = |tag: &str, len: usize| -> Result<Density, PceError> {
            let at = input.offset();
            let words = input.section_of_len::<u64>(tag, len.div_ceil(64) as u64)?;
            Density::from_words(len, words)
                .ok_or_else(|| input.corrupt(at, density_mismatch(tag, len)).into())
        };
        let a_aux_density = density("dens.a_aux", num_aux)?;
        let b_input_density = density("dens.b_input", num_inputs)?;
        let b_aux_density = density("dens.b_aux", num_aux)?;
        let mut matrix = |name: &str| -> Result<CsrMatrix, PceError> {
            let at = input.offset();
            let m = CsrMatrix::read_sections(&mut input, name, num_constraints)?;
            if m.num_rows() != num_constraints || m.num_cols() != num_inputs + num_aux {
                return Err(input
                    .corrupt(
                        at,
                        format!(
                            "matrix {name} is {}×{}, the shape says {num_constraints}×{}",
                            m.num_rows(),
                            m.num_cols(),
                            num_inputs + num_aux
                        ),
                    )
                    .into());
            }
            Ok(m)
        };
        let (a, b, c) = (matrix("A")?, matrix("B")?, matrix("C")?);
        input.finish()?;
        Ok(Self {
            num_inputs,
            num_aux,
            a,
            b,
            c,
            a_aux_density,
            b_input_density,
            b_aux_density,
        })
    }
}

impl PceSize {
    /// The size of the circuit saved at `path`, from its section headers
    /// alone: what loading it will hold, before its gigabytes are read.
    /// Every section's length is checked against the file's size, and the
    /// densities' and the matrices' row counts against the shape; the
    /// columns and the checksum are not (loading checks them).
    pub fn of_file(path: &Path) -> Result<Self, PceError> {
        let mut input = FileReader::open(path, MAGIC, FORMAT_VERSION)?;
        let [num_inputs, num_aux, num_constraints] = read_shape(&mut input)?;
        let densities = [
            ("dens.a_aux", num_aux),
            ("dens.b_input", num_inputs),
            ("dens.b_aux", num_aux),
        ];
        for (tag, len) in densities {
            let at = input.offset();
            if input.skip_section(tag, 8)? != 8 * len.div_ceil(64) as u64 {
                return Err(input.corrupt(at, density_mismatch(tag, len)).into());
            }
        }
        // Held as bits, stored as whole words.
        let mut held_bytes = (2 * num_aux + num_inputs) as u64 / 8;
        for name in ["A", "B", "C"] {
            let at = input.offset();
            let (rows, bytes) = CsrMatrix::skip_sections(&mut input, name)?;
            if rows != num_constraints {
                let what =
                    format!("matrix {name} has {rows} rows, the shape says {num_constraints}");
                return Err(input.corrupt(at, what).into());
            }
            held_bytes += bytes;
        }
        Ok(Self {
            num_inputs,
            num_aux,
            num_constraints,
            held_bytes,
        })
    }
}

/// What is wrong with a density section `tag` that does not hold `len` bits.
fn density_mismatch(tag: &str, len: usize) -> String {
    format!("{tag} does not cover {len} variables")
}

/// The `shape` section: inputs, aux variables, constraints.
fn read_shape(input: &mut FileReader) -> Result<[usize; 3], PceError> {
    let shape = input.section_of_len::<u64>("shape", 3)?;
    Ok(std::array::from_fn(|i| shape[i] as usize))
}
