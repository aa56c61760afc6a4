//! The structured reference string, read from Filecoin `.params` files.
//!
//! Layout (bellperson's `Parameters::write`; all points uncompressed, 96
//! bytes in G1 and 192 in G2; lengths big-endian `u32`):
//!
//! ```text
//! vk: alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2, ic_len, ic[ic_len]
//! h_len h[h_len]   l_len l[l_len]   a_len a[a_len]   b_g1_len b_g1[..]   b_g2_len b_g2[..]
//! ```
//!
//! The file is memory-mapped and each query decoded in parallel. Points are
//! checked to be on the curve and not at infinity, as bellperson does; the
//! subgroup check is skipped (as in filecoin-proofs, which trusts the
//! parameter files it verified by digest), because it would cost one
//! scalar multiplication per point. A `.vk` file holds the vk part alone.

use std::fs::File;
use std::path::{Path, PathBuf};

use bellperson::groth16::VerifyingKey;
use blstrs::{Bls12, G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;
use group::UncompressedEncoding;
use rayon::prelude::*;

const G1_BYTES: usize = 96;
const G2_BYTES: usize = 192;

/// Why a parameter file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SrsError {
    /// The file could not be opened or mapped.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file ends inside a section.
    #[error("{path}: truncated: {section} needs {needed} bytes at offset {offset}, the file has {file_len}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// The section being read.
        section: &'static str,
        /// Where it starts.
        offset: usize,
        /// Bytes it needs.
        needed: usize,
        /// Size of the file.
        file_len: usize,
    },
    /// A point is not a valid curve point (or is the point at infinity).
    #[error("{path}: {section} point {index} at offset {offset} is {what}")]
    InvalidPoint {
        /// The file.
        path: PathBuf,
        /// The section.
        section: &'static str,
        /// Index of the point in the section.
        index: usize,
        /// Its byte offset.
        offset: usize,
        /// "not on the curve" or "the point at infinity".
        what: &'static str,
    },
    /// Bytes remain after the last section.
    #[error("{path}: {extra} unexpected bytes after the last section (at offset {offset})")]
    TrailingBytes {
        /// The file.
        path: PathBuf,
        /// Where they start.
        offset: usize,
        /// How many.
        extra: usize,
    },
}

/// The proving key of one circuit.
pub struct Srs {
    /// The verifying key.
    pub vk: VerifyingKey<Bls12>,
    /// `τ^i · Z(τ) / δ` for `i < n − 1`.
    pub h: Vec<G1Affine>,
    /// `(β·u_i(τ) + α·v_i(τ) + w_i(τ)) / δ` for every aux variable.
    pub l: Vec<G1Affine>,
    /// `u_i(τ)` for all inputs, then the aux variables used in A.
    pub a: Vec<G1Affine>,
    /// `v_i(τ)` in G1 for the inputs used in B, then the aux variables used in B.
    pub b_g1: Vec<G1Affine>,
    /// `v_i(τ)` in G2, same selection as `b_g1`.
    pub b_g2: Vec<G2Affine>,
}

/// A cursor over the mapped file that decodes sections.
struct Reader<'a> {
    path: &'a Path,
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, section: &'static str, needed: usize) -> Result<&'a [u8], SrsError> {
        let end = self
            .offset
            .checked_add(needed)
            .filter(|&end| end <= self.bytes.len());
        let Some(end) = end else {
            return Err(SrsError::Truncated {
                path: self.path.to_owned(),
                section,
                offset: self.offset,
                needed,
                file_len: self.bytes.len(),
            });
        };
        let slice = &self.bytes[self.offset..end];
        self.offset = end;
        Ok(slice)
    }

    fn len(&mut self, section: &'static str) -> Result<usize, SrsError> {
        let raw = self.take(section, 4)?;
        Ok(u32::from_be_bytes(raw.try_into().expect("4 bytes")) as usize)
    }

    fn points<P>(&mut self, section: &'static str, count: usize) -> Result<Vec<P>, SrsError>
    where
        P: UncompressedEncoding + PrimeCurveAffine + Send,
    {
        let size = std::mem::size_of::<P::Uncompressed>();
        let start = self.offset;
        let needed = count.saturating_mul(size);
        let raw = self.take(section, needed)?;
        raw.par_chunks_exact(size)
            .enumerate()
            .map(|(index, chunk)| {
                let mut repr = P::Uncompressed::default();
                repr.as_mut().copy_from_slice(chunk);
                let invalid = |what| SrsError::InvalidPoint {
                    path: self.path.to_owned(),
                    section,
                    index,
                    offset: start + index * size,
                    what,
                };
                let point: P = Option::from(P::from_uncompressed_unchecked(&repr))
                    .ok_or_else(|| invalid("not on the curve"))?;
                if bool::from(point.is_identity()) {
                    return Err(invalid("the point at infinity"));
                }
                Ok(point)
            })
            .collect()
    }

    fn section<P>(&mut self, section: &'static str) -> Result<Vec<P>, SrsError>
    where
        P: UncompressedEncoding + PrimeCurveAffine + Send,
    {
        let count = self.len(section)?;
        self.points(section, count)
    }

    fn one<P>(&mut self, section: &'static str) -> Result<P, SrsError>
    where
        P: UncompressedEncoding + PrimeCurveAffine + Send,
    {
        Ok(self.points(section, 1)?.remove(0))
    }

    fn vk(&mut self) -> Result<VerifyingKey<Bls12>, SrsError> {
        Ok(VerifyingKey {
            alpha_g1: self.one("vk.alpha_g1")?,
            beta_g1: self.one("vk.beta_g1")?,
            beta_g2: self.one("vk.beta_g2")?,
            gamma_g2: self.one("vk.gamma_g2")?,
            delta_g1: self.one("vk.delta_g1")?,
            delta_g2: self.one("vk.delta_g2")?,
            ic: self.section("vk.ic")?,
        })
    }

    fn finish(self) -> Result<(), SrsError> {
        if self.offset != self.bytes.len() {
            return Err(SrsError::TrailingBytes {
                path: self.path.to_owned(),
                offset: self.offset,
                extra: self.bytes.len() - self.offset,
            });
        }
        Ok(())
    }
}

fn map(path: &Path) -> Result<memmap2::Mmap, SrsError> {
    let io = |source| SrsError::Io {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    // SAFETY: parameter files are not modified while a prover runs; a
    // concurrent truncation could fault, as with any mapped file.
    unsafe { memmap2::Mmap::map(&file) }.map_err(io)
}

impl Srs {
    /// Reads a `.params` file.
    pub fn read(path: &Path) -> Result<Self, SrsError> {
        let mmap = map(path)?;
        let mut reader = Reader {
            path,
            bytes: &mmap,
            offset: 0,
        };
        let srs = Srs {
            vk: reader.vk()?,
            h: reader.section("h")?,
            l: reader.section("l")?,
            a: reader.section("a")?,
            b_g1: reader.section("b_g1")?,
            b_g2: reader.section("b_g2")?,
        };
        reader.finish()?;
        Ok(srs)
    }
}

/// Reads a `.vk` file (the verifying key alone).
pub fn read_verifying_key(path: &Path) -> Result<VerifyingKey<Bls12>, SrsError> {
    let mmap = map(path)?;
    let mut reader = Reader {
        path,
        bytes: &mmap,
        offset: 0,
    };
    let vk = reader.vk()?;
    reader.finish()?;
    Ok(vk)
}

// Sizes the layout above relies on.
const _: () =
    assert!(std::mem::size_of::<<G1Affine as UncompressedEncoding>::Uncompressed>() == G1_BYTES);
const _: () =
    assert!(std::mem::size_of::<<G2Affine as UncompressedEncoding>::Uncompressed>() == G2_BYTES);
