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

use crate::platform::{device_error, Found};

/// The define that turns the point operations and the Fp and Fp2 products
/// into real calls (kernels/dialect.h). Inlined into every call site they
/// make the program several times larger and slower to build (the CUDA
/// backend measured 23 MB of PTX and minutes of NVRTC time that way); a
/// compiler that rejects the attribute gets the inlined program instead.
const NOINLINE_CALLS: &str = "-DPCE_NOINLINE_CALLS";

/// Options for `clBuildProgram`: the kernels' constants, and
/// [`NOINLINE_CALLS`] when `calls`.
fn build_options(calls: bool) -> String {
    let mut options = gpu_backend::compiler_defines();
    if calls {
        options.push(NOINLINE_CALLS.to_owned());
    }
    options.join(" ")
}

/// Environment variable naming the cache directory.
pub const CACHE_ENV: &str = "PCE_OPENCL_CACHE";

/// The cache file of the kernels built for `found` with `options`, if
/// there is a cache directory.
fn cache_path(found: &Found, options: &str) -> Option<PathBuf> {
    let text = |value: Result<String, _>| value.unwrap_or_default();
    let name = cache::file_name(
        &[
            &text(found.platform.name()),
            &text(found.platform.version()),
            &text(found.device.name()),
            &text(found.device.driver_version()),
            options,
        ],
        "bin",
    );
    Some(cache::dir(CACHE_ENV, "opencl")?.join(name))
}

fn from_binary(
    context: &Context,
    device: &Device,
    binary: &[u8],
    options: &str,
) -> Option<Program> {
    // SAFETY: `device` is the context's only device.
    let mut program =
        unsafe { Program::create_from_binary(context, &[device.id()], &[binary]) }.ok()?;
    program.build(&[device.id()], options).ok()?;
    Some(program)
}

fn from_source(context: &Context, options: &str) -> Result<Program, String> {
    info!(options, "building the OpenCL kernels (cached afterwards)");
    let started = std::time::Instant::now();
    let program = Program::create_and_build_from_source(context, &gpu_backend::source(), options)?;
    info!(
        seconds = started.elapsed().as_secs_f64(),
        "OpenCL kernels built"
    );
    Ok(program)
}

/// The kernels built for `found`'s device in `context` with `options`,
/// from the cache when it holds a valid binary.
fn build_with(context: &Context, found: &Found, options: &str) -> Result<Program, String> {
    let path = cache_path(found, options);
    if let Some(path) = &path {
        if let Some(binary) = cache::read(path) {
            if let Some(program) = from_binary(context, &found.device, &binary, options) {
                return Ok(program);
            }
            warn!(path = %path.display(), "cached OpenCL program rejected by the driver; rebuilding");
        }
    }
    let program = from_source(context, options)?;
    if let Some(path) = &path {
        if let Some(binary) = program
            .get_binaries()
            .ok()
            .and_then(|binaries| binaries.into_iter().next())
            .filter(|b| !b.is_empty())
        {
            cache::write(path, &binary);
        }
    }
    Ok(program)
}

/// The kernels built for `found`'s device in `context`: with the point
/// operations as calls, or inlined where the compiler refuses that build
/// (its log is kept in the warning).
pub fn build(context: &Context, found: &Found) -> Result<Program, PluginError> {
    match build_with(context, found, &build_options(true)) {
        Ok(program) => Ok(program),
        Err(log) => {
            warn!(%log, "the OpenCL kernels did not build with real calls; building them inlined");
            build_with(context, found, &build_options(false))
                .map_err(|log| device_error(format!("building the OpenCL kernels failed:\n{log}")))
        }
    }
}
