//! Errors of loading a plugin and of calling it.

use std::fmt;
use std::path::PathBuf;

use crate::ffi;

/// A status code returned by a plugin. Unknown codes stay numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status(pub i32);

impl Status {
    /// The symbolic name of a known code.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            ffi::PCE_OK => "OK",
            ffi::PCE_ERR_INVALID_ARGUMENT => "INVALID_ARGUMENT",
            ffi::PCE_ERR_UNSUPPORTED => "UNSUPPORTED",
            ffi::PCE_ERR_NO_DRIVER => "NO_DRIVER",
            ffi::PCE_ERR_NO_DEVICE => "NO_DEVICE",
            ffi::PCE_ERR_OUT_OF_MEMORY => "OUT_OF_MEMORY",
            ffi::PCE_ERR_DEVICE => "DEVICE",
            ffi::PCE_ERR_INTERNAL => "INTERNAL",
            _ => return None,
        })
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name}"),
            None => write!(f, "unknown status {}", self.0),
        }
    }
}

/// Why a backend could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// No file for the requested backend in any search directory.
    #[error("backend {spec:?}: no plugin found: looked for {file_name} in {searched}; set PCE_BACKEND_DIR or pass a path")]
    NotFound {
        /// What the user asked for.
        spec: String,
        /// The file name looked for.
        file_name: String,
        /// The directories searched, separated by ", ".
        searched: String,
    },
    /// The file is not a loadable shared library.
    #[error("{path}: cannot load as a shared library: {message}")]
    NotALibrary {
        /// The file.
        path: PathBuf,
        /// The loader's message.
        message: String,
    },
    /// The library does not export the entry symbol.
    #[error("{path}: not a pce-prover backend plugin (it exports no `pce_backend_entry`)")]
    NotAPlugin {
        /// The file.
        path: PathBuf,
    },
    /// The plugin and the host speak different ABI versions.
    #[error("{path}: backend ABI version mismatch: the plugin speaks version {plugin}, this host speaks version {host}")]
    AbiMismatch {
        /// The file.
        path: PathBuf,
        /// Version of the plugin.
        plugin: u32,
        /// Version of the host.
        host: u32,
    },
    /// The vtable the plugin returned cannot be used.
    #[error("{path}: malformed backend vtable: {what}")]
    BadVtable {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
}

/// A plugin call that failed.
#[derive(Debug, Clone, thiserror::Error)]
#[error("backend {backend}{on}: {operation} failed ({status}): {message}", on = OnDevice(*device))]
pub struct BackendError {
    /// Name of the backend.
    pub backend: String,
    /// The device the call was on, for a device's calls: on a machine of
    /// several GPUs, which one failed.
    pub device: Option<u32>,
    /// The operation called.
    pub operation: &'static str,
    /// The status it returned.
    pub status: Status,
    /// The plugin's message (or the host's, for arguments refused before the call).
    pub message: String,
}

/// " device N" after a backend's name, or nothing.
struct OnDevice(Option<u32>);

impl std::fmt::Display for OnDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(index) => write!(f, " device {index}"),
            None => Ok(()),
        }
    }
}

impl BackendError {
    /// Whether the plugin found no driver or runtime for its devices.
    pub fn is_no_driver(&self) -> bool {
        self.status.0 == ffi::PCE_ERR_NO_DRIVER
    }

    /// Whether the plugin found its runtime but no device.
    pub fn is_no_device(&self) -> bool {
        self.status.0 == ffi::PCE_ERR_NO_DEVICE
    }
}
