//! Building the kernels for a device, with a cache of compiled programs.
//!
//! Compiling the BLS12-381 kernels takes seconds to minutes (PoCL runs all
//! of LLVM), so the program binary is kept in a cache directory under a key
//! made of the kernel source hash, the device, its driver and the build
//! options. Each cache file carries the BLAKE3 of its contents: a damaged
//! or stale file is detected, rebuilt from source and replaced (written to
//! a temporary file and renamed, so readers never see half a file).

use std::path::PathBuf;

use backend_api::plugin::PluginError;
use gpu_backend::cache;
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::program::Program;
use tracing::{info, warn};

use crate::platform::{cl_error, device_error, Found};

/// Options for `clBuildProgram`: the kernels' constants.
fn build_options() -> String {
    gpu_backend::compiler_defines().join(" ")
}

/// Environment variable naming the cache directory.
pub const CACHE_ENV: &str = "PCE_OPENCL_CACHE";

/// The cache file of the kernels built for `found`, if there is a cache
/// directory.
fn cache_path(found: &Found) -> Option<PathBuf> {
    let text = |value: Result<String, _>| value.unwrap_or_default();
    let name = cache::file_name(
        &[
            &text(found.platform.name()),
            &text(found.platform.version()),
            &text(found.device.name()),
            &text(found.device.driver_version()),
            &build_options(),
        ],
        "bin",
    );
    Some(cache::dir(CACHE_ENV, "opencl")?.join(name))
}

fn from_binary(context: &Context, device: &Device, binary: &[u8]) -> Option<Program> {
    // SAFETY: `device` is the context's only device.
    let mut program =
        unsafe { Program::create_from_binary(context, &[device.id()], &[binary]) }.ok()?;
    program.build(&[device.id()], &build_options()).ok()?;
    Some(program)
}

fn from_source(context: &Context) -> Result<Program, PluginError> {
    info!("building the OpenCL kernels (cached afterwards)");
    let started = std::time::Instant::now();
    let program =
        Program::create_and_build_from_source(context, &gpu_backend::source(), &build_options())
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
    let path = cache_path(found);
    if let Some(path) = &path {
        if let Some(binary) = cache::read(path) {
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
            cache::write(path, binary);
        }
    }
    Ok(program)
}
