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

impl VanillaBytes {
    /// Reads the file `path`.
    pub fn read(path: &Path) -> Result<Self, C2Error> {
        let bytes = std::fs::read(path).map_err(|e| C2Error::BadVanillaProof {
            path: path.to_owned(),
            proof_type: "any proof type".into(),
            what: format!("cannot read: {e}"),
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
