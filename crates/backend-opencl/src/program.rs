//! Building the kernels for a device, with a cache of compiled programs.
//!
//! Compiling the BLS12-381 kernels takes seconds to minutes (PoCL runs all
//! of LLVM), so the program binary is kept in a cache directory under a key
//! made of the kernel source hash, the device, its driver and the build
//! options. Each cache file carries the BLAKE3 of its contents: a damaged
//! or stale file is detected, rebuilt from source and replaced (written to
//! a temporary file and renamed, so readers never see half a file).

use std::path::{Path, PathBuf};

use backend_api::plugin::PluginError;
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::program::Program;
use tracing::{info, warn};

use crate::platform::{cl_error, device_error, Found};

/// Options for `clBuildProgram`.
const BUILD_OPTIONS: &str = "";

/// Environment variable naming the cache directory.
pub const CACHE_ENV: &str = "PCE_OPENCL_CACHE";

/// Where compiled programs are kept: `$PCE_OPENCL_CACHE`, else
/// `$XDG_CACHE_HOME/pce-prover/opencl`, else `~/.cache/pce-prover/opencl`.
/// `None` (no caching) when none of these is set.
fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(CACHE_ENV) {
        return Some(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache")))?;
    Some(base.join("pce-prover").join("opencl"))
}

/// The cache key of the kernels built for `found`.
fn cache_key(found: &Found) -> String {
    let text = |value: Result<String, _>| value.unwrap_or_default();
    let key = [
        gpu_kernels::source_hash(),
        text(found.platform.name()),
        text(found.platform.version()),
        text(found.device.name()),
        text(found.device.driver_version()),
        BUILD_OPTIONS.to_owned(),
    ]
    .join("\n");
    blake3::hash(key.as_bytes()).to_hex()[..32].to_owned()
}

/// The binary stored in a cache file, if its checksum holds.
fn read_cached(path: &Path) -> Option<Vec<u8>> {
    let contents = std::fs::read(path).ok()?;
    if contents.len() < 32 {
        warn!(path = %path.display(), "OpenCL program cache file truncated; rebuilding");
        return None;
    }
    let (checksum, binary) = contents.split_at(32);
    if blake3::hash(binary).as_bytes() != checksum {
        warn!(path = %path.display(), "OpenCL program cache file corrupt; rebuilding");
        return None;
    }
    Some(binary.to_vec())
}

/// Stores `binary` at `path` atomically; failures only cost a rebuild next
/// time, so they are logged, not returned.
fn write_cached(path: &Path, binary: &[u8]) {
    let result = (|| -> std::io::Result<()> {
        let dir = path.parent().expect("cache files live in a directory");
        std::fs::create_dir_all(dir)?;
        let temp = path.with_extension(format!("tmp{}", std::process::id()));
        let mut contents = blake3::hash(binary).as_bytes().to_vec();
        contents.extend_from_slice(binary);
        std::fs::write(&temp, contents)?;
        std::fs::rename(&temp, path)
    })();
    if let Err(error) = result {
        warn!(path = %path.display(), %error, "could not cache the OpenCL program");
    }
}

fn from_binary(context: &Context, device: &Device, binary: &[u8]) -> Option<Program> {
    // SAFETY: `device` is the context's only device.
    let mut program =
        unsafe { Program::create_from_binary(context, &[device.id()], &[binary]) }.ok()?;
    program.build(&[device.id()], BUILD_OPTIONS).ok()?;
    Some(program)
}

fn from_source(context: &Context) -> Result<Program, PluginError> {
    info!("building the OpenCL kernels (cached afterwards)");
    let started = std::time::Instant::now();
    let program =
        Program::create_and_build_from_source(context, &gpu_kernels::source(), BUILD_OPTIONS)
            .map_err(|log| device_error(format!("building the OpenCL kernels failed:\n{log}")))?;
    info!(
        seconds = started.elapsed().as_secs_f64(),
        "OpenCL kernels built"
    );
    Ok(program)
}

/// The kernels built for `found`'s device in `context`, from the cache
/// when it holds a valid binary.
pub fn build(context: &Context, found: &Found) -> Result<Program, PluginError> {
    let path = cache_dir().map(|dir| dir.join(format!("kernels-{}.bin", cache_key(found))));
    if let Some(path) = &path {
        if let Some(binary) = read_cached(path) {
            if let Some(program) = from_binary(context, &found.device, &binary) {
                return Ok(program);
            }
            warn!(path = %path.display(), "cached OpenCL program rejected by the driver; rebuilding");
        }
    }
    let program = from_source(context)?;
    if let Some(path) = &path {
        let binaries = program
            .get_binaries()
            .map_err(|e| cl_error("reading the built program", e))?;
        if let Some(binary) = binaries.first().filter(|b| !b.is_empty()) {
            write_cached(path, binary);
        }
    }
    Ok(program)
}
