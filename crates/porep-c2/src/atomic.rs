//! Writing a file so that it appears complete or not at all.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// A temporary file next to `path`, unique to this process.
fn temporary_path(path: &Path) -> PathBuf {
    let mut tmp_name = path.file_name().unwrap_or_default().to_owned();
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(tmp_name)
}

/// Writes `tmp` with `write`, buffered, and syncs it.
fn write_synced(
    tmp: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(tmp)?);
    write(&mut out)?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// Writes `path` through a temporary file in the same directory, synced
/// and renamed into place; on any error the temporary file is removed and
/// an existing `path` is left untouched.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let tmp = temporary_path(path);
    let result = write_synced(&tmp, write).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Like [`write_atomically`], but never replaces an existing `path`: the
/// complete temporary file is hard-linked to `path`, which fails if `path`
/// exists (even when another process creates it meanwhile). On a file
/// system without hard links it is renamed into place instead, if `path`
/// still does not exist. Returns whether the file was created; `write` is
/// not called when `path` already exists. The temporary file is always
/// removed.
pub fn create_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<bool> {
    if path.exists() {
        return Ok(false);
    }
    let tmp = temporary_path(path);
    let result = write_synced(&tmp, write).and_then(|()| match std::fs::hard_link(&tmp, path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(_) if path.exists() => Ok(false),
        Err(_) => std::fs::rename(&tmp, path).map(|()| true),
    });
    let _ = std::fs::remove_file(&tmp);
    result
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn create_atomically_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        assert!(create_atomically(&path, |out| out.write_all(b"first")).unwrap());
        let again = create_atomically(&path, |_| panic!("not called when the file exists"));
        assert!(!again.unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"first");

        // A failed write leaves neither the file nor a temporary file.
        let failed = dir.path().join("failed");
        let err = create_atomically(&failed, |_| Err(std::io::Error::other("no")));
        assert!(err.is_err());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["file"]);
    }
}
