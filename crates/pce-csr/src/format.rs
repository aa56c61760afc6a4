//! The checksummed, sectioned container that PCE files use.
//!
//! ```text
//! header (64 bytes)
//!   magic            [u8; 8]   file kind, chosen by the caller
//!   format_version   u32
//!   header_len       u32       = 64
//!   content_len      u64       bytes after the header
//!   checksum         [u8; 32]  BLAKE3 of those content bytes
//!   reserved         [u8; 8]   zero
//! content: sections, in an order fixed by the file kind, each
//!   tag              [u8; 16]  ASCII name, zero padded ("A.cols")
//!   elem_size        u32       bytes per element
//!   reserved         u32       zero
//!   count            u64       number of elements
//!   payload          count × elem_size bytes, then zero padding to 8 bytes
//! ```
//!
//! Writing goes to a temporary file next to the target which is synced and
//! renamed over it only when complete, so a crash never leaves a half
//! written file under the real name. Reading checks every length against
//! the file size before allocating, names the section and offset of any
//! inconsistency, and verifies the checksum at the end: a truncated or
//! corrupted file is an error, never a panic or a silently wrong matrix.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use atomic_write::AtomicFile;
use bytemuck::Pod;

/// Length of the file header in bytes.
pub const HEADER_LEN: u64 = 64;
const SECTION_HEADER_LEN: u64 = 32;
const TAG_LEN: usize = 16;
/// Payloads above this size are hashed with all threads.
const PARALLEL_HASH_BYTES: usize = 1 << 20;

/// Why a PCE file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The operating system refused an operation.
    #[error("{path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The file does not start with the expected magic bytes.
    #[error("{path}: not a {expected} file (its first bytes are {found:?})")]
    BadMagic {
        /// The file.
        path: PathBuf,
        /// The expected magic, as text.
        expected: String,
        /// The bytes found instead.
        found: [u8; 8],
    },
    /// The file was written in a format version this build does not read.
    #[error("{path}: format version {found}, but this build reads version {expected}; delete the file to have it rebuilt")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version this build reads.
        expected: u32,
        /// The version in the file.
        found: u32,
    },
    /// The file is shorter than its header says.
    #[error("{path}: truncated: the header announces {expected} bytes, the file has {actual}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Size announced by the header.
        expected: u64,
        /// Actual size.
        actual: u64,
    },
    /// The content is inconsistent at some offset.
    #[error("{path}: corrupt at byte offset {offset}: {what}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte offset of the inconsistency.
        offset: u64,
        /// What was expected and what was found.
        what: String,
    },
    /// The content does not match the checksum in the header.
    #[error("{path}: checksum mismatch: the content is corrupt (header says {expected}, content hashes to {actual})")]
    Checksum {
        /// The file.
        path: PathBuf,
        /// Checksum stored in the header.
        expected: String,
        /// Checksum of the content read.
        actual: String,
    },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> FormatError + '_ {
    move |source| FormatError::Io {
        path: path.to_owned(),
        source,
    }
}

fn tag_bytes(tag: &str) -> [u8; TAG_LEN] {
    assert!(
        tag.len() <= TAG_LEN && tag.is_ascii(),
        "section tag {tag:?} too long"
    );
    let mut bytes = [0u8; TAG_LEN];
    bytes[..tag.len()].copy_from_slice(tag.as_bytes());
    bytes
}

fn padding(len: u64) -> u64 {
    (8 - len % 8) % 8
}

fn hash_into(hasher: &mut blake3::Hasher, bytes: &[u8]) {
    if bytes.len() >= PARALLEL_HASH_BYTES {
        hasher.update_rayon(bytes);
    } else {
        hasher.update(bytes);
    }
}

/// Writes a sectioned file atomically ([`atomic_write::AtomicFile`]: the
/// header, written last, and the rename make it appear complete or not at all).
pub struct FileWriter {
    // Dropped before `atomic`: an abandoned writer's last buffer goes to
    // the temporary file, which `atomic` then removes.
    out: BufWriter<File>,
    atomic: AtomicFile,
    hasher: blake3::Hasher,
    content_len: u64,
    magic: [u8; 8],
    version: u32,
}

impl FileWriter {
    /// Starts writing `path`; nothing appears under that name before [`FileWriter::finish`].
    pub fn create(path: &Path, magic: [u8; 8], version: u32) -> Result<Self, FormatError> {
        let mut atomic = AtomicFile::create(path).map_err(io_error(path))?;
        let tmp_path = atomic.temporary_path().to_owned();
        let file = atomic.file().try_clone().map_err(io_error(&tmp_path))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&[0u8; HEADER_LEN as usize])
            .map_err(io_error(&tmp_path))?;
        Ok(Self {
            out,
            atomic,
            hasher: blake3::Hasher::new(),
            content_len: 0,
            magic,
            version,
        })
    }

    fn write_content(&mut self, bytes: &[u8]) -> Result<(), FormatError> {
        hash_into(&mut self.hasher, bytes);
        self.content_len += bytes.len() as u64;
        self.out
            .write_all(bytes)
            .map_err(io_error(self.atomic.temporary_path()))
    }

    /// Appends a section holding `data`.
    pub fn section<T: Pod>(&mut self, tag: &str, data: &[T]) -> Result<(), FormatError> {
        let mut header = Vec::with_capacity(SECTION_HEADER_LEN as usize);
        header.extend_from_slice(&tag_bytes(tag));
        header.extend_from_slice(&(std::mem::size_of::<T>() as u32).to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        header.extend_from_slice(&(data.len() as u64).to_le_bytes());
        self.write_content(&header)?;
        let payload: &[u8] = bytemuck::cast_slice(data);
        self.write_content(payload)?;
        let pad = padding(payload.len() as u64) as usize;
        self.write_content(&[0u8; 8][..pad])
    }

    /// Writes the header, syncs, and renames the file into place.
    pub fn finish(self) -> Result<(), FormatError> {
        let Self {
            out,
            atomic,
            hasher,
            content_len,
            magic,
            version,
        } = self;
        let tmp = atomic.temporary_path().to_owned();
        let mut file = out
            .into_inner()
            .map_err(|e| io_error(&tmp)(e.into_error()))?;
        let mut header = Vec::with_capacity(HEADER_LEN as usize);
        header.extend_from_slice(&magic);
        header.extend_from_slice(&version.to_le_bytes());
        header.extend_from_slice(&(HEADER_LEN as u32).to_le_bytes());
        header.extend_from_slice(&content_len.to_le_bytes());
        header.extend_from_slice(hasher.finalize().as_bytes());
        header.extend_from_slice(&[0u8; 8]);
        file.seek(SeekFrom::Start(0)).map_err(io_error(&tmp))?;
        file.write_all(&header).map_err(io_error(&tmp))?;
        drop(file);
        let path = atomic.path().to_owned();
        atomic.commit().map_err(io_error(&path))
    }
}

/// Reads a sectioned file written by [`FileWriter`], validating as it goes.
pub struct FileReader {
    path: PathBuf,
    input: BufReader<File>,
    offset: u64,
    end: u64,
    expected_checksum: [u8; 32],
    hasher: blake3::Hasher,
    /// Whether a section was skipped (its bytes not hashed).
    skipped: bool,
}

impl FileReader {
    /// Opens `path` and checks its header against `magic` and `version`.
    pub fn open(path: &Path, magic: [u8; 8], version: u32) -> Result<Self, FormatError> {
        let file = File::open(path).map_err(io_error(path))?;
        let metadata = file.metadata().map_err(io_error(path))?;
        if !metadata.is_file() {
            // A directory or device in the file's place: not a damaged
            // file to rebuild, but a path to correct.
            let error = io::Error::new(io::ErrorKind::InvalidInput, "not a regular file");
            return Err(io_error(path)(error));
        }
        let actual = metadata.len();
        let mut input = BufReader::with_capacity(1 << 20, file);
        let mut header = [0u8; HEADER_LEN as usize];
        if actual < HEADER_LEN {
            return Err(FormatError::Truncated {
                path: path.to_owned(),
                expected: HEADER_LEN,
                actual,
            });
        }
        input.read_exact(&mut header).map_err(io_error(path))?;
        let found_magic: [u8; 8] = header[0..8].try_into().expect("8 bytes");
        if found_magic != magic {
            return Err(FormatError::BadMagic {
                path: path.to_owned(),
                expected: String::from_utf8_lossy(&magic).into_owned(),
                found: found_magic,
            });
        }
        let le_u32 = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4"));
        let le_u64 = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8"));
        let found_version = le_u32(8);
        if found_version != version {
            return Err(FormatError::Version {
                path: path.to_owned(),
                expected: version,
                found: found_version,
            });
        }
        let corrupt = |offset: u64, what: String| FormatError::Corrupt {
            path: path.to_owned(),
            offset,
            what,
        };
        if le_u32(12) as u64 != HEADER_LEN {
            return Err(corrupt(
                12,
                format!("header length {} (expected {HEADER_LEN})", le_u32(12)),
            ));
        }
        if header[56..64] != [0u8; 8] {
            return Err(corrupt(56, "reserved header bytes are not zero".into()));
        }
        let content_len = le_u64(16);
        let expected = HEADER_LEN.saturating_add(content_len);
        if actual < expected {
            return Err(FormatError::Truncated {
                path: path.to_owned(),
                expected,
                actual,
            });
        }
        if actual > expected {
            return Err(corrupt(
                expected,
                format!(
                    "{} bytes after the announced end of the file",
                    actual - expected
                ),
            ));
        }
        Ok(Self {
            path: path.to_owned(),
            input,
            offset: HEADER_LEN,
            end: expected,
            expected_checksum: header[24..56].try_into().expect("32 bytes"),
            hasher: blake3::Hasher::new(),
            skipped: false,
        })
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Byte offset of the next unread section.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// An error about the content at `offset`.
    pub fn corrupt(&self, offset: u64, what: impl Into<String>) -> FormatError {
        FormatError::Corrupt {
            path: self.path.clone(),
            offset,
            what: what.into(),
        }
    }

    fn read_content(&mut self, bytes: &mut [u8]) -> Result<(), FormatError> {
        self.input.read_exact(bytes).map_err(io_error(&self.path))?;
        hash_into(&mut self.hasher, bytes);
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// Reads the next section, which must be named `tag` and hold elements of `T`.
    pub fn section<T: Pod>(&mut self, tag: &str) -> Result<Vec<T>, FormatError> {
        let count = self.section_header(tag, std::mem::size_of::<T>())?;
        self.section_payload(tag, count)
    }

    /// [`Self::section`] of a section whose number of elements the reader
    /// knows: another count is an error before anything is allocated for
    /// it (a damaged count must not cost gigabytes first).
    pub fn section_of_len<T: Pod>(&mut self, tag: &str, len: u64) -> Result<Vec<T>, FormatError> {
        let at = self.offset;
        let count = self.section_header(tag, std::mem::size_of::<T>())?;
        if count != len {
            return Err(self.corrupt(
                at + 24,
                format!("section {tag:?} holds {count} elements, expected {len}"),
            ));
        }
        self.section_payload(tag, count)
    }

    /// The `count` elements of section `tag`, whose header was just read.
    fn section_payload<T: Pod>(&mut self, tag: &str, count: u64) -> Result<Vec<T>, FormatError> {
        // Within the file's size (checked), which may still be more memory
        // than there is: refused, an error rather than an abort.
        let mut data = Vec::new();
        data.try_reserve_exact(count as usize).map_err(|_| {
            self.corrupt(
                self.offset,
                format!(
                    "section {tag:?} needs {} bytes, more memory than can be allocated",
                    count * std::mem::size_of::<T>() as u64
                ),
            )
        })?;
        data.resize(count as usize, T::zeroed());
        self.read_content(bytemuck::cast_slice_mut(&mut data))?;
        let mut pad = [0u8; 8];
        let pad = &mut pad[..padding(count * std::mem::size_of::<T>() as u64) as usize];
        self.read_content(pad)?;
        Ok(data)
    }

    /// Passes over the next section, which must be named `tag` and hold
    /// elements of `elem_size` bytes, without reading its payload: its
    /// payload's bytes. A reader that skipped a section can no longer
    /// verify the checksum, and must not be [`finish`](Self::finish)ed.
    pub fn skip_section(&mut self, tag: &str, elem_size: usize) -> Result<u64, FormatError> {
        let count = self.section_header(tag, elem_size)?;
        let payload = count * elem_size as u64;
        let skip = payload + padding(payload);
        let skip_signed = i64::try_from(skip).expect("checked against the file's size");
        self.input
            .seek_relative(skip_signed)
            .map_err(io_error(&self.path))?;
        self.offset += skip;
        self.skipped = true;
        Ok(payload)
    }

    /// Reads the header of the next section, which must be named `tag` and
    /// hold elements of `elem_size` bytes, checking that its payload lies
    /// within the file: its number of elements.
    fn section_header(&mut self, tag: &str, elem_size: usize) -> Result<u64, FormatError> {
        let at = self.offset;
        if self.end - self.offset < SECTION_HEADER_LEN {
            return Err(self.corrupt(
                at,
                format!("expected section {tag:?}, found the end of the file"),
            ));
        }
        let mut header = [0u8; SECTION_HEADER_LEN as usize];
        self.read_content(&mut header)?;
        if header[..TAG_LEN] != tag_bytes(tag) {
            let found = String::from_utf8_lossy(&header[..TAG_LEN]);
            return Err(self.corrupt(
                at,
                format!(
                    "expected section {tag:?}, found {:?}",
                    found.trim_end_matches('\0')
                ),
            ));
        }
        let found_size = u32::from_le_bytes(header[16..20].try_into().expect("4"));
        let count = u64::from_le_bytes(header[24..32].try_into().expect("8"));
        if header[20..24] != [0u8; 4] {
            return Err(self.corrupt(
                at + 20,
                format!("reserved bytes of section {tag:?} are not zero"),
            ));
        }
        if found_size as usize != elem_size {
            return Err(self.corrupt(
                at + 16,
                format!("section {tag:?} has {found_size}-byte elements, expected {elem_size}"),
            ));
        }
        count
            .checked_mul(elem_size as u64)
            // A count near 2^64 must not wrap past the check once padded.
            .and_then(|len| len.checked_add(padding(len)))
            .filter(|&padded| padded <= self.end - self.offset)
            .ok_or_else(|| {
                self.corrupt(
                    at + 24,
                    format!("section {tag:?} claims {count} elements, more than the file holds"),
                )
            })?;
        Ok(count)
    }

    /// Checks that the whole content was read and matches the checksum.
    pub fn finish(self) -> Result<(), FormatError> {
        assert!(
            !self.skipped,
            "a reader that skipped sections cannot verify the checksum"
        );
        if self.offset != self.end {
            return Err(self.corrupt(
                self.offset,
                format!(
                    "{} unread bytes after the last section",
                    self.end - self.offset
                ),
            ));
        }
        let actual = self.hasher.finalize();
        if actual.as_bytes() != &self.expected_checksum {
            return Err(FormatError::Checksum {
                path: self.path,
                expected: blake3::Hash::from(self.expected_checksum)
                    .to_hex()
                    .to_string(),
                actual: actual.to_hex().to_string(),
            });
        }
        Ok(())
    }
}
