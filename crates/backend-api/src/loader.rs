//! Finding and loading a backend plugin.
//!
//! `--backend` takes a short name (`cpu`, `opencl`, `cuda`, or any other
//! plugin's name) or a path. A name `N` means the file `libpce_backend_N.so`
//! (`.dylib` on macOS, `pce_backend_N.dll` on Windows), searched in order in:
//!
//! 1. every directory of `PCE_BACKEND_DIR` (a `PATH`-style list);
//! 2. the directory of the running executable, then its `backends/` subdirectory.
//!
//! Libraries are never unloaded: a plugin may keep threads or driver state
//! alive until the process exits.

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tracing::debug;

use crate::error::LoadError;
use crate::ffi::{self, pce_backend_entry_fn, pce_backend_vtable};
use crate::host::{Backend, BackendInner};

/// Environment variable naming extra plugin directories.
pub const BACKEND_DIR_ENV: &str = "PCE_BACKEND_DIR";

/// File name of the plugin called `name` on this platform.
pub fn plugin_file_name(name: &str) -> String {
    format!(
        "{}pce_backend_{name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// The directories searched for plugins given by name, in order.
pub fn search_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os(BACKEND_DIR_ENV)
        .map(|list| {
            std::env::split_paths(&list)
                .filter(|d| !d.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default();
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_owned))
    {
        let backends = exe_dir.join("backends");
        dirs.extend([exe_dir, backends]);
    }
    dirs
}

fn is_path(spec: &str) -> bool {
    spec.contains(std::path::MAIN_SEPARATOR)
        || spec.contains('/')
        || spec.ends_with(std::env::consts::DLL_SUFFIX)
}

/// Resolves `--backend SPEC` to a plugin file.
pub fn resolve(spec: &str) -> Result<PathBuf, LoadError> {
    if is_path(spec) {
        return Ok(PathBuf::from(spec));
    }
    let file_name = plugin_file_name(spec);
    let dirs = search_dirs();
    dirs.iter()
        .map(|dir| dir.join(&file_name))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| LoadError::NotFound {
            spec: spec.to_owned(),
            file_name,
            searched: dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

impl Backend {
    /// Loads the backend named or located by `spec` (see the module docs).
    pub fn load(spec: &str) -> Result<Self, LoadError> {
        Self::load_path(&resolve(spec)?)
    }

    /// Loads the plugin at `path` and negotiates the ABI version.
    pub fn load_path(path: &Path) -> Result<Self, LoadError> {
        if !path.exists() {
            return Err(LoadError::NotALibrary {
                path: path.to_owned(),
                message: "no such file".into(),
            });
        }
        // SAFETY: loading a library runs its initialisers; a backend plugin
        // is trusted code by the user's choice of `--backend`.
        let library =
            unsafe { libloading::Library::new(path) }.map_err(|e| LoadError::NotALibrary {
                path: path.to_owned(),
                message: e.to_string(),
            })?;
        // Never unloaded: leak the handle.
        let library: &'static libloading::Library = Box::leak(Box::new(library));
        // SAFETY: the symbol's type is fixed by the ABI.
        let entry: pce_backend_entry_fn =
            unsafe { library.get::<pce_backend_entry_fn>(ffi::PCE_BACKEND_ENTRY_SYMBOL) }
                .map(|symbol| *symbol)
                .map_err(|_| LoadError::NotAPlugin {
                    path: path.to_owned(),
                })?;
        let host = ffi::PCE_BACKEND_ABI_VERSION;
        let mut plugin = 0u32;
        // SAFETY: the entry point takes plain integers and a valid out-pointer.
        let vtable = unsafe { entry(host, &mut plugin) };
        let bad = |what: String| LoadError::BadVtable {
            path: path.to_owned(),
            what,
        };
        if vtable.is_null() {
            return Err(LoadError::AbiMismatch {
                path: path.to_owned(),
                plugin,
                host,
            });
        }
        // SAFETY: a non-null vtable is a static of the plugin, per the ABI,
        // and always starts with these two fields.
        let (abi_version, struct_size) =
            unsafe { ((*vtable).abi_version, (*vtable).struct_size as usize) };
        if abi_version != host {
            return Err(LoadError::AbiMismatch {
                path: path.to_owned(),
                plugin: abi_version,
                host,
            });
        }
        let needed = ffi::PCE_BACKEND_VTABLE_V1_BASE_SIZE;
        if struct_size < needed {
            return Err(bad(format!(
                "struct_size {struct_size} is smaller than the {needed} bytes of ABI version {host}"
            )));
        }
        // A plugin built against an older header has a shorter vtable: copy
        // the part it has, and leave the optional operations it lacks None.
        let mut copy = std::mem::MaybeUninit::<pce_backend_vtable>::zeroed();
        // SAFETY: the plugin's vtable has `struct_size` readable bytes; the
        // copy has room for size_of bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                vtable as *const u8,
                copy.as_mut_ptr() as *mut u8,
                struct_size.min(std::mem::size_of::<pce_backend_vtable>()),
            )
        };
        // SAFETY: every required field lies in the copied base part; the
        // optional fields are Options of function pointers, None when zero.
        let vtable: &'static pce_backend_vtable =
            Box::leak(Box::new(unsafe { copy.assume_init() }));
        let text = |ptr: *const std::ffi::c_char, field: &str| -> Result<String, LoadError> {
            if ptr.is_null() {
                return Err(bad(format!("{field} is null")));
            }
            // SAFETY: the ABI requires a static NUL-terminated string.
            Ok(unsafe { CStr::from_ptr(ptr) }
                .to_string_lossy()
                .into_owned())
        };
        let name = text(vtable.name, "name")?;
        let description = text(vtable.description, "description")?;
        debug!(path = %path.display(), %name, %description, "backend loaded");
        Ok(Backend {
            inner: Arc::new(BackendInner {
                path: path.to_owned(),
                name,
                description,
                vtable,
            }),
        })
    }
}
