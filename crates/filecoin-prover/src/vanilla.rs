//! Vanilla proofs as the proving pipelines hand them over.
//!
//! filecoin-proofs-api returns PoSt vanilla proofs
//! (`generate_single_vanilla_proof`, one per sector) and SnapDeals vanilla
//! proofs (`generate_partition_proofs`, one per partition) as bincode
//! encodings of filecoin-proofs' types; lotus and Curio store and send
//! those bytes unchanged. They are decoded here exactly as
//! filecoin-proofs-api decodes them before proving.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::C2Error;

/// The bytes of one vanilla proof and where they came from.
#[derive(Debug, Clone)]
pub struct VanillaBytes {
    /// The file, or how a request names the proof (`vanilla_proofs[3]`).
    pub source: PathBuf,
    /// The bincode encoding.
    pub bytes: Vec<u8>,
}

/// The largest vanilla proof file read: a SnapDeals partition's proof at
/// 64 GiB is a few megabytes, a PoSt sector's far less. A file above it
/// (a sealed sector named by mistake) is refused before it is read.
pub const MAX_VANILLA_BYTES: u64 = 256 << 20;

/// The bytes of the file `path`, if it has at most `limit`; otherwise why
/// not, in words that follow the path in an error.
pub(crate) fn read_at_most(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let too_large = |size: u64| format!("{size} bytes or more, above the {limit} read");
    // A pipe or a file under /proc says no length; the read stops anyway.
    if let Ok(meta) = file.metadata() {
        if meta.is_file() && meta.len() > limit {
            return Err(too_large(meta.len()));
        }
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

impl VanillaBytes {
    /// Reads the file `path` (at most [`MAX_VANILLA_BYTES`]).
    pub fn read(path: &Path) -> Result<Self, C2Error> {
        let bytes =
            read_at_most(path, MAX_VANILLA_BYTES).map_err(|what| C2Error::BadVanillaProof {
                path: path.to_owned(),
                proof_type: "any proof type".into(),
                what,
            })?;
        Ok(Self {
            source: path.to_owned(),
            bytes,
        })
    }

    /// Decodes the bytes as a `T`, a vanilla proof of `proof_type`.
    pub fn decode<T: DeserializeOwned>(&self, proof_type: &str) -> Result<T, C2Error> {
        bincode::deserialize(&self.bytes).map_err(|e| C2Error::BadVanillaProof {
            path: self.source.clone(),
            proof_type: proof_type.to_owned(),
            what: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sealed sector named by mistake is refused by its length, before
    /// gigabytes are read; a proof-sized file is read whole.
    #[test]
    fn files_above_the_limit_are_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let sector = dir.path().join("sealed");
        let file = std::fs::File::create(&sector).unwrap();
        file.set_len(32 << 30).unwrap();
        let error = VanillaBytes::read(&sector).unwrap_err().to_string();
        assert!(
            error.contains("sealed") && error.contains("34359738368 bytes or more"),
            "{error}"
        );
        std::fs::write(&sector, [7u8; 100]).unwrap();
        assert_eq!(read_at_most(&sector, 100).unwrap(), [7u8; 100]);
        assert!(read_at_most(&sector, 99).is_err());
    }
}
