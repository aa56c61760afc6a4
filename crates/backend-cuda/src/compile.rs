//! Compiling the shared kernels to PTX with NVRTC, for the device's
//! compute capability, cached on disk (see [`gpu_kernels::cache`]) under
//! the source hash, the architecture and the NVRTC version.

use backend_api::ffi::PCE_ERR_DEVICE;
use backend_api::plugin::PluginError;
use cudarc::nvrtc::{compile_ptx_with_opts, CompileError, CompileOptions, Ptx};
use gpu_kernels::cache;
use tracing::info;

use crate::driver::probe_nvrtc;

/// Environment variable naming the cache directory.
pub const CACHE_ENV: &str = "PCE_CUDA_CACHE";

/// Whether NVRTC can be loaded.
pub fn nvrtc_present() -> bool {
    probe_nvrtc().is_ok()
}

/// NVRTC's version, as "major.minor".
fn nvrtc_version() -> String {
    // SAFETY: NVRTC was probed; the out-pointers are valid.
    unsafe {
        let (mut major, mut minor) = (0, 0);
        cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor);
        format!("{major}.{minor}")
    }
}

/// PTX of the kernels for `sm_<arch>` (e.g. "90"), freshly compiled.
pub fn compile(arch: &str) -> Result<String, PluginError> {
    probe_nvrtc()?;
    let options = CompileOptions {
        options: vec![
            format!("--gpu-architecture=compute_{arch}"),
            "--std=c++17".to_owned(),
        ],
        name: Some("pce_kernels.cu".to_owned()),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let ptx = compile_ptx_with_opts(gpu_kernels::source(), options).map_err(|error| {
        let detail = match error {
            CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
            other => other.to_string(),
        };
        PluginError::new(
            PCE_ERR_DEVICE,
            format!("compiling the CUDA kernels for sm_{arch} failed:\n{detail}"),
        )
    })?;
    info!(
        arch,
        seconds = started.elapsed().as_secs_f64(),
        "CUDA kernels compiled"
    );
    Ok(ptx.to_src())
}

/// PTX of the kernels for `sm_<arch>`, from the cache when it holds a
/// valid copy.
pub fn kernels(arch: &str) -> Result<Ptx, PluginError> {
    probe_nvrtc()?;
    let path = cache::dir(CACHE_ENV, "cuda")
        .map(|dir| dir.join(cache::file_name(&[arch, &nvrtc_version()], "ptx")));
    if let Some(text) = path.as_deref().and_then(cache::read) {
        if let Ok(text) = String::from_utf8(text) {
            return Ok(Ptx::from_src(text));
        }
    }
    let text = compile(arch)?;
    if let Some(path) = &path {
        cache::write(path, text.as_bytes());
    }
    Ok(Ptx::from_src(text))
}
