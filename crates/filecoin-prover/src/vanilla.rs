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

use crate::bounded_read::read_at_most;
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

/// The most vanilla proofs one file may hold as a JSON array: more than any
/// one proof takes (a SnapDeals sector's 16 partitions, a WindowPoSt
/// partition's 2349 sectors). Without it, a file of empty strings would
/// cost tens of bytes of memory per byte read.
pub const MAX_PROOFS_PER_FILE: usize = 1 << 16;

/// The file `path` is no vanilla proof of any kind, for reason `what`.
fn unusable(path: &Path, what: String) -> C2Error {
    C2Error::BadVanillaProof {
        path: path.to_owned(),
        proof_type: "any proof type".into(),
        what,
    }
}

impl VanillaBytes {
    /// Names the sources of `proofs` for an error about them all: the
    /// first three, and how many more.
    pub fn sources(proofs: &[VanillaBytes]) -> String {
        let named: Vec<String> = proofs
            .iter()
            .take(3)
            .map(|p| p.source.display().to_string())
            .collect();
        match proofs.len().saturating_sub(named.len()) {
            0 => named.join(", "),
            more => format!("{} and {more} more", named.join(", ")),
        }
    }

    /// Reads the file `path` (at most [`MAX_VANILLA_BYTES`]).
    pub fn read(path: &Path) -> Result<Self, C2Error> {
        let bytes = read_at_most(path, MAX_VANILLA_BYTES).map_err(|what| unusable(path, what))?;
        Ok(Self {
            source: path.to_owned(),
            bytes,
        })
    }

    /// Reads the file `path`: one vanilla proof, or several as Curio
    /// stores a sector's SnapDeals proofs (a JSON array of base64 strings,
    /// Go's encoding of `[][]byte`), each then named `path[i]`.
    pub fn read_all(path: &Path) -> Result<Vec<Self>, C2Error> {
        let file = Self::read(path)?;
        Ok(match file.json_array() {
            Some(Ok(proofs)) => proofs
                .into_iter()
                .enumerate()
                .map(|(i, bytes)| Self {
                    source: PathBuf::from(format!("{}[{i}]", path.display())),
                    bytes,
                })
                .collect(),
            Some(Err(what)) => return Err(unusable(path, what)),
            None => vec![file],
        })
    }

    /// The proofs of a JSON array of base64 strings; `None` where the
    /// bytes are no JSON array (a bincode encoding may begin with `[`
    /// too, but is never a JSON array of strings).
    fn json_array(&self) -> Option<Result<Vec<Vec<u8>>, String>> {
        use base64::Engine as _;
        let text = std::str::from_utf8(&self.bytes).ok()?.trim_start();
        if !text.starts_with('[') {
            return None;
        }
        // Counted before anything is kept.
        let ElementCount(count) = serde_json::from_str(text).ok()?;
        if count > MAX_PROOFS_PER_FILE {
            return Some(Err(format!(
                "a JSON array of {count} elements, more than any proof takes \
                 (at most {MAX_PROOFS_PER_FILE})"
            )));
        }
        let strings: Vec<String> = serde_json::from_str(text).ok()?;
        if strings.is_empty() {
            return Some(Err("an empty JSON array: no vanilla proof".into()));
        }
        Some(
            strings
                .iter()
                .enumerate()
                .map(|(i, text)| {
                    if text.is_empty() {
                        return Err(format!("element {i} of the JSON array is empty"));
                    }
                    base64::engine::general_purpose::STANDARD
                        .decode(text)
                        .map_err(|e| format!("element {i} of the JSON array is not base64: {e}"))
                })
                .collect(),
        )
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

/// The number of elements of a JSON array, whatever they are, read without
/// keeping them.
struct ElementCount(usize);

impl<'de> serde::Deserialize<'de> for ElementCount {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Counter;
        impl<'de> serde::de::Visitor<'de> for Counter {
            type Value = ElementCount;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<ElementCount, A::Error> {
                let mut count = 0;
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    count += 1;
                }
                Ok(ElementCount(count))
            }
        }
        deserializer.deserialize_seq(Counter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Curio's file of a sector's SnapDeals proofs: one proof per element.
    #[test]
    fn a_json_array_of_base64_strings_is_several_proofs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("snap-vproof.json");
        std::fs::write(&path, br#"["AQID", "BAU="]"#).unwrap();
        let proofs = VanillaBytes::read_all(&path).unwrap();
        let bytes: Vec<&[u8]> = proofs.iter().map(|p| p.bytes.as_slice()).collect();
        assert_eq!(bytes, [&[1u8, 2, 3][..], &[4, 5]]);
        assert!(proofs[1]
            .source
            .to_str()
            .unwrap()
            .ends_with("snap-vproof.json[1]"));
        // Bytes that begin with `[` but are no JSON array: one proof.
        std::fs::write(&path, b"[\x00\x01binary").unwrap();
        assert_eq!(VanillaBytes::read_all(&path).unwrap().len(), 1);
        std::fs::write(&path, br#"["AQID", "not base64!"]"#).unwrap();
        let error = VanillaBytes::read_all(&path).unwrap_err().to_string();
        assert!(
            error.contains("element 1 of the JSON array is not base64"),
            "{error}"
        );
    }

    /// An array of more elements than any proof takes is refused after
    /// counting them, before any is kept; an empty element is no proof.
    #[test]
    fn a_json_array_of_too_many_or_empty_elements_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("many.json");
        let many = vec![""; MAX_PROOFS_PER_FILE + 1];
        std::fs::write(&path, serde_json::to_vec(&many).unwrap()).unwrap();
        let error = VanillaBytes::read_all(&path).unwrap_err().to_string();
        let count = MAX_PROOFS_PER_FILE + 1;
        assert!(
            error.contains("many.json") && error.contains(&format!("{count} elements")),
            "{error}"
        );
        std::fs::write(&path, br#"["AQID", ""]"#).unwrap();
        let error = VanillaBytes::read_all(&path).unwrap_err().to_string();
        assert!(
            error.contains("element 1 of the JSON array is empty"),
            "{error}"
        );
    }
}
