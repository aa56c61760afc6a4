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
//!
//! Loading also hands the plugin [`host_log`], so its log events come out
//! of the host's `tracing` under the target [`PLUGIN_LOG_TARGET`], filtered
//! like the host's own (`RUST_LOG=pce_plugin=debug` for a plugin's debug
//! output).

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use std::ffi::c_char;

use tracing::debug;
use tracing::level_filters::LevelFilter;

use crate::error::LoadError;
use crate::ffi::{self, pce_backend_entry_fn, pce_backend_vtable};
use crate::host::{Backend, BackendInner, Operations};

/// The `tracing` target of the events plugins send to the host.
pub const PLUGIN_LOG_TARGET: &str = "pce_plugin";

/// The log callback the host gives plugins: re-emits the event on the
/// host's `tracing` under [`PLUGIN_LOG_TARGET`], with the plugin's module
/// path as the field `plugin`.
///
/// # Safety
/// `target` and `message` are null or NUL-terminated strings.
pub unsafe extern "C" fn host_log(level: u32, target: *const c_char, message: *const c_char) {
    let text = |ptr: *const c_char| {
        if ptr.is_null() {
            String::new()
        } else {
            // SAFETY: per the function contract.
            unsafe { CStr::from_ptr(ptr) }
                .to_string_lossy()
                .into_owned()
        }
    };
    let (target, message) = (text(target), text(message));
    // A subscriber that panics must not unwind into the plugin.
    let _ = std::panic::catch_unwind(|| match level {
        ffi::PCE_LOG_ERROR => {
            tracing::error!(target: PLUGIN_LOG_TARGET, plugin = %target, "{message}")
        }
        ffi::PCE_LOG_WARN => {
            tracing::warn!(target: PLUGIN_LOG_TARGET, plugin = %target, "{message}")
        }
        ffi::PCE_LOG_INFO => {
            tracing::info!(target: PLUGIN_LOG_TARGET, plugin = %target, "{message}")
        }
        ffi::PCE_LOG_DEBUG => {
            tracing::debug!(target: PLUGIN_LOG_TARGET, plugin = %target, "{message}")
        }
        _ => tracing::trace!(target: PLUGIN_LOG_TARGET, plugin = %target, "{message}"),
    });
}

/// The vtable's function pointers that may not be null, with their offsets.
const REQUIRED_FUNCTIONS: [(&str, usize); 12] = {
    use std::mem::offset_of;
    type V = pce_backend_vtable;
    [
        ("last_error", offset_of!(V, last_error)),
        ("get_proc_address", offset_of!(V, get_proc_address)),
        ("device_count", offset_of!(V, device_count)),
        ("device_info", offset_of!(V, device_info)),
        ("device_open", offset_of!(V, device_open)),
        ("device_close", offset_of!(V, device_close)),
        ("ntt_domain_create", offset_of!(V, ntt_domain_create)),
        ("ntt_domain_destroy", offset_of!(V, ntt_domain_destroy)),
        ("ntt", offset_of!(V, ntt)),
        ("msm_bases_upload", offset_of!(V, msm_bases_upload)),
        ("msm_bases_release", offset_of!(V, msm_bases_release)),
        ("msm", offset_of!(V, msm)),
    ]
};

/// The most verbose level the host's subscribers may want, as a `PCE_LOG_*` code.
fn host_max_level() -> u32 {
    match LevelFilter::current().into_level() {
        None => 0,
        Some(level) => crate::plugin::log::level_code(&level),
    }
}

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

/// The library at `path`, opened once per process and never unloaded:
/// a daemon loads its fallback backend for every job, and each open would
/// leak another handle.
fn opened_once(path: &Path) -> Result<&'static libloading::Library, LoadError> {
    static OPENED: Mutex<BTreeMap<PathBuf, &'static libloading::Library>> =
        Mutex::new(BTreeMap::new());
    let key = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    let mut opened = OPENED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(library) = opened.get(&key) {
        return Ok(library);
    }
    // SAFETY: loading a library runs its initialisers; a backend plugin
    // is trusted code by the user's choice of `--backend`.
    let library =
        unsafe { libloading::Library::new(path) }.map_err(|e| LoadError::NotALibrary {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
    let library: &'static libloading::Library = Box::leak(Box::new(library));
    opened.insert(key, library);
    Ok(library)
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
        crate::crash::install();
        let library = opened_once(path)?;
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
        let needed = ffi::PCE_BACKEND_VTABLE_V2_SIZE;
        if struct_size < needed {
            return Err(bad(format!(
                "struct_size {struct_size} is smaller than the {needed} bytes of ABI version {host}"
            )));
        }
        // Required function pointers must not be null before the vtable is
        // viewed as a Rust struct (where a null function pointer is invalid).
        for (field, offset) in REQUIRED_FUNCTIONS {
            // SAFETY: `offset` lies in the `needed` readable bytes, at a
            // pointer-aligned field of the static vtable.
            let address = unsafe { *((vtable as *const u8).add(offset) as *const usize) };
            if address == 0 {
                return Err(bad(format!("{field} is null")));
            }
        }
        // A field appended to the struct would lie beyond `needed` in an
        // older plugin's vtable: it must then be read through `struct_size`,
        // not through this reference.
        const _: () = assert!(ffi::PCE_BACKEND_VTABLE_V2_SIZE == size_of::<pce_backend_vtable>());
        // SAFETY: the plugin's vtable has at least `needed` readable bytes,
        // every field this host knows, the required functions non-null; it
        // is static and immutable.
        let vtable: &'static pce_backend_vtable = unsafe { &*vtable };
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
        // The logger first: the header promises it before any other call.
        if let Some(set_logger) = vtable.set_logger {
            // SAFETY: the callback is a static function of this host.
            unsafe { set_logger(Some(host_log), host_max_level()) };
        }
        // SAFETY: a valid vtable of this ABI version.
        let ops = unsafe { Operations::find(vtable) };
        debug!(path = %path.display(), %name, %description, "backend loaded");
        Ok(Backend {
            inner: Arc::new(BackendInner {
                path: path.to_owned(),
                name,
                description,
                vtable,
                ops,
            }),
        })
    }
}
