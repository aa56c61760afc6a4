//! Reading an input file whole, up to a limit: a sealed sector (32 GiB)
//! named by mistake where a C1 output or a vanilla proof belongs is
//! refused by its length, not read into memory.

use std::io::Read;
use std::path::Path;

/// The bytes of the file `path`, if it has at most `limit`; otherwise why
/// not, in words that follow the path in an error.
pub fn read_at_most(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
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
        let error = crate::vanilla::VanillaBytes::read(&sector)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("sealed") && error.contains("34359738368 bytes or more"),
            "{error}"
        );
        std::fs::write(&sector, [7u8; 100]).unwrap();
        assert_eq!(read_at_most(&sector, 100).unwrap(), [7u8; 100]);
        assert!(read_at_most(&sector, 99).is_err());
    }
}
