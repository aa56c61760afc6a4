//! The on-disk cache of compiled kernels, shared by the GPU backends.
//!
//! Compiling the BLS12-381 kernels takes seconds to minutes, so backends
//! keep the compiled form (an OpenCL program binary, a CUDA CUBIN) under a key
//! naming everything it depends on: the kernel source hash, the device,
//! the compiler or driver, the options. Each file starts with the BLAKE3 of
//! the rest: a damaged file is detected and rebuilt, never used, and a new
//! one is written to a temporary file and renamed, so readers never see
//! half a file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use tracing::warn;

/// Kernels compiled when a device opened, stored in the cache only once
/// the device keeps them (`Engine::cache_kernels`): a build that failed
/// its self-test must not replace the cached one.
#[derive(Debug, Default)]
pub struct Pending(Mutex<Option<(PathBuf, Vec<u8>)>>);

impl Pending {
    /// `contents` to store at the cache file `path` (nothing without one).
    pub fn new(path: Option<PathBuf>, contents: Vec<u8>) -> Self {
        Self(Mutex::new(path.map(|path| (path, contents))))
    }

    /// Stores them, the first time it is called.
    pub fn store(&self) {
        let pending = self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some((path, contents)) = pending {
            write(&path, &contents);
        }
    }
}

/// The cache directory of `api` ("opencl", "cuda"): `$env_var` if set,
/// else `$XDG_CACHE_HOME/pce-prover/<api>`, else
/// `~/.cache/pce-prover/<api>`; `None` (no caching) when none is known.
pub fn dir(env_var: &str, api: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(env_var) {
        return Some(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache")))?;
    Some(base.join("pce-prover").join(api))
}

/// The file name for compiled kernels depending on `parts` (the kernel
/// source hash is always included).
pub fn file_name(parts: &[&str], extension: &str) -> String {
    let mut key = crate::source_hash();
    for part in parts {
        key.push('\n');
        key.push_str(part);
    }
    let hash = blake3::hash(key.as_bytes()).to_hex();
    format!("kernels-{}.{extension}", &hash[..32])
}

/// The contents stored at `path`, if the file exists and its checksum
/// holds; a damaged file is reported and ignored.
pub fn read(path: &Path) -> Option<Vec<u8>> {
    let contents = std::fs::read(path).ok()?;
    let valid = contents.len() >= 32 && {
        let (checksum, body) = contents.split_at(32);
        blake3::hash(body).as_bytes() == checksum
    };
    if !valid {
        warn!(path = %path.display(), "compiled kernel cache file corrupt; rebuilding");
        return None;
    }
    Some(contents[32..].to_vec())
}

/// Stores `contents` at `path` atomically. Failing only costs a rebuild
/// next time, so it is logged, not returned.
pub fn write(path: &Path, contents: &[u8]) {
    let result = (|| -> std::io::Result<()> {
        let dir = path.parent().expect("cache files live in a directory");
        std::fs::create_dir_all(dir)?;
        // A name no other writer has (threads opening identical devices,
        // and processes of containers sharing the cache, where process ids
        // repeat, race here), removed if the write fails (a full disk).
        let mut temp = tempfile::Builder::new()
            .prefix(".kernels-")
            .suffix(".tmp")
            .tempfile_in(dir)?;
        temp.write_all(blake3::hash(contents).as_bytes())?;
        temp.write_all(contents)?;
        temp.persist(path).map_err(|e| e.error)?;
        Ok(())
    })();
    if let Err(error) = result {
        warn!(path = %path.display(), %error, "could not cache the compiled kernels");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_files_are_not_used() {
        let dir = std::env::temp_dir().join(format!("gpu-backend-cache-{}", std::process::id()));
        let path = dir.join(file_name(&["device"], "bin"));
        write(&path, b"compiled");
        assert_eq!(read(&path).as_deref(), Some(&b"compiled"[..]));
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read(&path), None);
        std::fs::write(&path, b"short").unwrap();
        assert_eq!(read(&path), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keys_separate_devices() {
        assert_ne!(file_name(&["a"], "ptx"), file_name(&["b"], "ptx"));
    }
}
