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
//! The file is read with positioned reads, each task reading and decoding
//! its own chunk: no mapping of the whole file, so memory holds only
//! the decoded points (and [`SrsFile`] decodes one query at a time). Points are
//! checked to be on the curve and not at infinity, as bellperson does, except
//! in the queries a streaming prover decodes for every proof
//! ([`PointCheck::FlagsOnly`], see [`crate::unchecked`]); the subgroup check
//! is skipped (as in filecoin-proofs, which trusts the parameter files it
//! verified by digest), because it would cost one scalar multiplication per
//! point. A `.vk` file holds the vk part alone.

use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use bellperson::groth16::VerifyingKey;
use blstrs::{Bls12, G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;
use group::UncompressedEncoding;
use large_buffers::advise_huge_pages;
use rayon::prelude::*;

use crate::unchecked::{Unchecked, INFINITY};

const G1_BYTES: usize = 96;
const G2_BYTES: usize = 192;

/// Why a parameter file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SrsError {
    /// The file could not be opened or read.
    #[error("{path}")]
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

/// Sizes of the queries of a parameter file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SrsShape {
    /// Points of the H query.
    pub h: usize,
    /// Points of the L query.
    pub l: usize,
    /// Points of the A query.
    pub a: usize,
    /// Points of the B query in G1.
    pub b_g1: usize,
    /// Points of the B query in G2.
    pub b_g2: usize,
    /// Points of the verifying key's IC (one per input).
    pub ic: usize,
}

impl SrsShape {
    /// The shape bellperson's parameters of `pce`'s circuit have: H has
    /// n − 1 points (n: the constraints rounded up to a power of two), L
    /// one per aux variable, A and B (G1 and G2) one per variable of
    /// non-zero density (bellperson drops the others), IC one per input.
    pub fn of_circuit(pce: &pce_core::PrecompiledCircuit) -> Self {
        let n = 1usize << crate::qap::domain_log_size(pce.num_constraints());
        let b = pce.b_input_density().count() + pce.b_aux_density().count();
        Self {
            h: n - 1,
            l: pce.num_aux(),
            a: pce.num_inputs() + pce.a_aux_density().count(),
            b_g1: b,
            b_g2: b,
            ic: pce.num_inputs(),
        }
    }

    /// How parameters of this shape differ from the shape `needed`, in
    /// words; `None` where they agree.
    pub fn mismatch(&self, needed: &Self) -> Option<String> {
        [
            ("h", self.h, needed.h),
            ("l", self.l, needed.l),
            ("a", self.a, needed.a),
            ("b_g1", self.b_g1, needed.b_g1),
            ("b_g2", self.b_g2, needed.b_g2),
            ("vk.ic", self.ic, needed.ic),
        ]
        .into_iter()
        .find(|(_, found, wanted)| found != wanted)
        .map(|(name, found, wanted)| {
            format!("query {name} has {found} points, the circuit needs {wanted}")
        })
    }
}

/// The G1 queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum G1Query {
    /// `h`.
    H,
    /// `l`.
    L,
    /// `a`.
    A,
    /// `b_g1`.
    BG1,
}

/// Points decoded per read (one task's work): bounded memory besides the
/// output, and enough tasks to share among threads.
const CHUNK_POINTS: usize = 1 << 12;

/// A cursor over the file that checks every length against its size.
struct Cursor<'a> {
    path: &'a Path,
    file: &'a File,
    len: u64,
    offset: u64,
}

impl Cursor<'_> {
    fn advance(&mut self, section: &'static str, needed: u64) -> Result<u64, SrsError> {
        let start = self.offset;
        match start.checked_add(needed).filter(|&end| end <= self.len) {
            Some(end) => {
                self.offset = end;
                Ok(start)
            }
            None => Err(SrsError::Truncated {
                path: self.path.to_owned(),
                section,
                offset: start as usize,
                needed: needed as usize,
                file_len: self.len as usize,
            }),
        }
    }

    fn len(&mut self, section: &'static str) -> Result<usize, SrsError> {
        let at = self.advance(section, 4)?;
        let mut raw = [0u8; 4];
        self.file
            .read_exact_at(&mut raw, at)
            .map_err(io_error(self.path))?;
        Ok(u32::from_be_bytes(raw) as usize)
    }

    /// Skips `count` points of `P`, returning where they start.
    fn points<P: UncompressedEncoding>(
        &mut self,
        section: &'static str,
        count: usize,
    ) -> Result<u64, SrsError> {
        let size = std::mem::size_of::<P::Uncompressed>() as u64;
        self.advance(section, (count as u64).saturating_mul(size))
    }

    fn one<P>(&mut self, section: &'static str) -> Result<P, SrsError>
    where
        P: UncompressedEncoding + PrimeCurveAffine + Unchecked + Send,
    {
        let at = self.points::<P>(section, 1)?;
        Ok(
            decode_points::<P>(self.path, self.file, section, at, 1, None, PointCheck::Full)?
                .remove(0),
        )
    }

    fn vk(&mut self) -> Result<(VerifyingKey<Bls12>, usize), SrsError> {
        let mut vk = VerifyingKey {
            alpha_g1: self.one("vk.alpha_g1")?,
            beta_g1: self.one("vk.beta_g1")?,
            beta_g2: self.one("vk.beta_g2")?,
            gamma_g2: self.one("vk.gamma_g2")?,
            delta_g1: self.one("vk.delta_g1")?,
            delta_g2: self.one("vk.delta_g2")?,
            ic: vec![],
        };
        let count = self.len("vk.ic")?;
        let at = self.points::<G1Affine>("vk.ic", count)?;
        vk.ic = decode_points(
            self.path,
            self.file,
            "vk.ic",
            at,
            count,
            None,
            PointCheck::Full,
        )?;
        Ok((vk, count))
    }

    fn finish(&self) -> Result<(), SrsError> {
        if self.offset != self.len {
            return Err(SrsError::TrailingBytes {
                path: self.path.to_owned(),
                offset: self.offset as usize,
                extra: (self.len - self.offset) as usize,
            });
        }
        Ok(())
    }
}

/// Opens `path` and returns it with its length.
fn open_sized(path: &Path) -> Result<(File, u64), SrsError> {
    let file = File::open(path).map_err(io_error(path))?;
    let len = file.metadata().map_err(io_error(path))?.len();
    Ok((file, len))
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SrsError + '_ {
    move |source| SrsError::Io {
        path: path.to_owned(),
        source,
    }
}

/// How much of each point is checked when a query is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointCheck {
    /// On the curve and not at infinity.
    Full,
    /// The encoding's flags only (uncompressed, finite): for queries decoded
    /// for every proof, whose proofs are verified (see [`crate::unchecked`]).
    FlagsOnly,
}

/// The indices in `range` that `keep` marks (all of them without `keep`):
/// what a chunk counts before decoding and what it decodes, from one rule.
fn kept(keep: Option<&[bool]>, range: Range<usize>) -> impl Iterator<Item = usize> + '_ {
    range.filter(move |&i| keep.is_none_or(|keep| keep[i]))
}

/// Decodes `count` points of `section` starting at byte `at` (only those
/// whose index `keep` marks, when given), checked as `check` says.
///
/// Tasks of [`CHUNK_POINTS`] points each read their own part of the file
/// and decode it straight into place, so no thread waits for a serial
/// read. Threads read at as many places in the file at once; with the page
/// cache dropped that was no slower than one sequential reader on the
/// virtual disk where it was measured, and a version that read in waves of
/// consecutive chunks, the next wave advised to the kernel, was slower
/// (docs/benchmarks.md; not measured on a physical drive). With several
/// bad points, which one an error names is not fixed.
fn decode_points<P>(
    path: &Path,
    file: &File,
    section: &'static str,
    at: u64,
    count: usize,
    keep: Option<&[bool]>,
    check: PointCheck,
) -> Result<Vec<P>, SrsError>
where
    P: UncompressedEncoding + PrimeCurveAffine + Unchecked + Send,
{
    let size = std::mem::size_of::<P::Uncompressed>();
    let chunk_range = |c: usize| c * CHUNK_POINTS..((c + 1) * CHUNK_POINTS).min(count);
    let chunks = count.div_ceil(CHUNK_POINTS);
    let kept_per_chunk: Vec<usize> = (0..chunks)
        .into_par_iter()
        .map(|c| kept(keep, chunk_range(c)).count())
        .collect();
    let total = kept_per_chunk.iter().sum();
    // Decoded straight into place, in huge pages: a query is up to hundreds
    // of megabytes, decoded for every proof.
    let mut out = Vec::with_capacity(total);
    advise_huge_pages(&mut out);
    let mut slots = Vec::with_capacity(chunks);
    let mut rest = &mut out.spare_capacity_mut()[..total];
    for &chunk_total in &kept_per_chunk {
        let (these, after) = rest.split_at_mut(chunk_total);
        slots.push(these);
        rest = after;
    }
    slots.into_par_iter().enumerate().try_for_each_init(
        Vec::new,
        |buffer: &mut Vec<u8>, (c, slots)| {
            if slots.is_empty() {
                return Ok(());
            }
            let range = chunk_range(c);
            let first = range.start;
            buffer.resize(range.len() * size, 0);
            let offset = at + (first * size) as u64;
            file.read_exact_at(buffer, offset).map_err(io_error(path))?;
            let mut written = 0;
            for (slot, index) in slots.iter_mut().zip(kept(keep, range)) {
                let i = index - first;
                let bytes = &buffer[i * size..(i + 1) * size];
                let invalid = |what| SrsError::InvalidPoint {
                    path: path.to_owned(),
                    section,
                    index,
                    offset: offset as usize + i * size,
                    what,
                };
                let point = if check == PointCheck::FlagsOnly {
                    P::decode_unchecked(bytes).map_err(invalid)?
                } else {
                    let mut repr = P::Uncompressed::default();
                    repr.as_mut().copy_from_slice(bytes);
                    let point: P = Option::from(P::from_uncompressed_unchecked(&repr))
                        .ok_or_else(|| invalid("not on the curve"))?;
                    if bool::from(point.is_identity()) {
                        return Err(invalid(INFINITY));
                    }
                    point
                };
                slot.write(point);
                written += 1;
            }
            assert_eq!(written, slots.len(), "a chunk decoded what it counted");
            Ok(())
        },
    )?;
    // SAFETY: every slot up to `total` was written: the chunks' slots tile
    // the first `total`, each chunk wrote all of its slots (asserted above),
    // and every chunk succeeded.
    unsafe { out.set_len(total) };
    Ok(out)
}

/// A parameter file whose structure has been checked and whose queries
/// are decoded on demand, one at a time: a prover that streams them keeps
/// only one query in memory.
pub struct SrsFile {
    path: PathBuf,
    file: File,
    /// The verifying key.
    pub vk: VerifyingKey<Bls12>,
    shape: SrsShape,
    /// Byte offsets of the points of h, l, a, b_g1, b_g2.
    offsets: [u64; 5],
}

impl SrsFile {
    /// Opens `path`, decoding the verifying key and checking that the
    /// query lengths account for the whole file.
    pub fn open(path: &Path) -> Result<Self, SrsError> {
        let file = File::open(path).map_err(io_error(path))?;
        let len = file.metadata().map_err(io_error(path))?.len();
        let mut cursor = Cursor {
            path,
            file: &file,
            len,
            offset: 0,
        };
        let (vk, ic) = cursor.vk()?;
        let mut sections = [(0u64, 0usize); 5];
        for (slot, name) in sections.iter_mut().zip(["h", "l", "a", "b_g1"]) {
            let count = cursor.len(name)?;
            *slot = (cursor.points::<G1Affine>(name, count)?, count);
        }
        let count = cursor.len("b_g2")?;
        sections[4] = (cursor.points::<G2Affine>("b_g2", count)?, count);
        cursor.finish()?;
        let shape = SrsShape {
            h: sections[0].1,
            l: sections[1].1,
            a: sections[2].1,
            b_g1: sections[3].1,
            b_g2: sections[4].1,
            ic,
        };
        let offsets = sections.map(|(offset, _)| offset);
        Ok(Self {
            path: path.to_owned(),
            file,
            vk,
            shape,
            offsets,
        })
    }

    /// Sizes of the queries.
    pub fn shape(&self) -> SrsShape {
        self.shape
    }

    /// Decodes one G1 query, or only the points `keep` marks (one flag
    /// per point of the query), in order.
    pub fn g1(
        &self,
        query: G1Query,
        keep: Option<&[bool]>,
        check: PointCheck,
    ) -> Result<Vec<G1Affine>, SrsError> {
        let (index, name, count) = match query {
            G1Query::H => (0, "h", self.shape.h),
            G1Query::L => (1, "l", self.shape.l),
            G1Query::A => (2, "a", self.shape.a),
            G1Query::BG1 => (3, "b_g1", self.shape.b_g1),
        };
        let at = self.offsets[index];
        decode_points(&self.path, &self.file, name, at, count, keep, check)
    }

    /// Decodes the G2 query, or only the points `keep` marks.
    pub fn b_g2(
        &self,
        keep: Option<&[bool]>,
        check: PointCheck,
    ) -> Result<Vec<G2Affine>, SrsError> {
        let (at, count) = (self.offsets[4], self.shape.b_g2);
        decode_points(&self.path, &self.file, "b_g2", at, count, keep, check)
    }

    /// Decodes every query with every check, keeping nothing: names the
    /// first point off the curve or at infinity, if any.
    pub fn check_points(&self) -> Result<(), SrsError> {
        for query in [G1Query::H, G1Query::L, G1Query::A, G1Query::BG1] {
            self.g1(query, None, PointCheck::Full)?;
        }
        self.b_g2(None, PointCheck::Full).map(drop)
    }

    /// Decodes everything.
    pub fn load(&self) -> Result<Srs, SrsError> {
        Ok(Srs {
            vk: self.vk.clone(),
            h: self.g1(G1Query::H, None, PointCheck::Full)?,
            l: self.g1(G1Query::L, None, PointCheck::Full)?,
            a: self.g1(G1Query::A, None, PointCheck::Full)?,
            b_g1: self.g1(G1Query::BG1, None, PointCheck::Full)?,
            b_g2: self.b_g2(None, PointCheck::Full)?,
        })
    }
}

impl Srs {
    /// Reads a `.params` file completely.
    pub fn read(path: &Path) -> Result<Self, SrsError> {
        SrsFile::open(path)?.load()
    }

    /// Sizes of the queries.
    pub fn shape(&self) -> SrsShape {
        SrsShape {
            h: self.h.len(),
            l: self.l.len(),
            a: self.a.len(),
            b_g1: self.b_g1.len(),
            b_g2: self.b_g2.len(),
            ic: self.vk.ic.len(),
        }
    }
}

/// Reads a `.vk` file (the verifying key alone).
pub fn read_verifying_key(path: &Path) -> Result<VerifyingKey<Bls12>, SrsError> {
    let (file, len) = open_sized(path)?;
    let (vk, cursor) = leading_key(path, &file, len)?;
    cursor.finish()?;
    Ok(vk)
}

/// The bytes of the verifying key the parameter file at `path` begins
/// with (checked to be a whole key), as a `.vk` file holds them: what
/// completes a cache whose parameters lost, or never got, their key.
pub fn verifying_key_bytes_of_parameters(path: &Path) -> Result<Vec<u8>, SrsError> {
    let (file, len) = open_sized(path)?;
    let (_, cursor) = leading_key(path, &file, len)?;
    let mut bytes = vec![0; cursor.offset as usize];
    file.read_exact_at(&mut bytes, 0).map_err(io_error(path))?;
    Ok(bytes)
}

/// The verifying key `file` (`len` bytes, at `path`) begins with, and the
/// cursor just past it.
fn leading_key<'a>(
    path: &'a Path,
    file: &'a File,
    len: u64,
) -> Result<(VerifyingKey<Bls12>, Cursor<'a>), SrsError> {
    let mut cursor = Cursor {
        path,
        file,
        len,
        offset: 0,
    };
    let (vk, _) = cursor.vk()?;
    Ok((vk, cursor))
}

// Sizes the layout above relies on.
const _: () =
    assert!(std::mem::size_of::<<G1Affine as UncompressedEncoding>::Uncompressed>() == G1_BYTES);
const _: () =
    assert!(std::mem::size_of::<<G2Affine as UncompressedEncoding>::Uncompressed>() == G2_BYTES);
