//! Compiling the shared kernels with NVRTC to a CUBIN for the device's
//! compute capability, cached on disk (see [`gpu_backend::cache`]) under
//! the source hash, the architecture and the NVRTC version.

use backend_api::ffi::PCE_ERR_DEVICE;
use backend_api::plugin::PluginError;
use std::ffi::{c_char, CString};

use cudarc::nvrtc::{result, sys, Ptx};
use gpu_backend::cache;
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

/// What NVRTC produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Machine code for one architecture: what the backend loads. The
    /// driver needs no JIT step, and it cannot fail on a driver older than
    /// NVRTC (PTX of a newer ISA version would).
    Cubin,
    /// PTX only, several times faster to produce: enough to check that the
    /// kernels compile (CI has NVRTC but no GPU).
    Ptx,
}

/// The kernels compiled by NVRTC for `sm_<arch>` (e.g. "90").
pub fn compile(arch: &str, output: Output) -> Result<Vec<u8>, PluginError> {
    probe_nvrtc()?;
    let failed = |detail: String| {
        PluginError::new(
            PCE_ERR_DEVICE,
            format!("compiling the CUDA kernels for sm_{arch} failed: {detail}"),
        )
    };
    let source = CString::new(gpu_backend::source()).expect("the kernel source has no NUL");
    let program = result::create_program(&source, Some(c"pce_kernels.cu"))
        .map_err(|e| failed(e.to_string()))?;
    let mut options = vec![
        format!("--gpu-architecture=sm_{arch}"),
        "--std=c++17".to_owned(),
    ];
    options.extend(gpu_backend::compiler_defines());
    let started = std::time::Instant::now();
    // SAFETY: `program` is live until destroyed below; sizes come from NVRTC.
    let compiled = unsafe {
        let outcome = match result::compile_program(program, &options) {
            Err(_) => {
                let log = result::get_program_log(program).unwrap_or_default();
                let log: Vec<u8> = log
                    .iter()
                    .map(|&c| c as u8)
                    .take_while(|&c| c != 0)
                    .collect();
                Err(failed(format!("\n{}", String::from_utf8_lossy(&log))))
            }
            Ok(()) if output == Output::Ptx => result::get_ptx(program)
                .map(|ptx| {
                    ptx.iter()
                        .map(|&c| c as u8)
                        .take_while(|&c| c != 0)
                        .collect()
                })
                .map_err(|e| failed(e.to_string())),
            Ok(()) => {
                let mut size = 0usize;
                sys::nvrtcGetCUBINSize(program, &mut size)
                    .result()
                    .map_err(|e| failed(e.to_string()))
                    .and_then(|()| {
                        let mut cubin = vec![0u8; size];
                        sys::nvrtcGetCUBIN(program, cubin.as_mut_ptr() as *mut c_char)
                            .result()
                            .map(|()| cubin)
                            .map_err(|e| failed(e.to_string()))
                    })
            }
        };
        let _ = result::destroy_program(program);
        outcome?
    };
    info!(
        arch,
        seconds = started.elapsed().as_secs_f64(),
        "CUDA kernels compiled"
    );
    Ok(compiled)
}

/// The kernels for `sm_<arch>`, from the cache when it holds a valid copy.
pub fn kernels(arch: &str) -> Result<Ptx, PluginError> {
    probe_nvrtc()?;
    let path = cache::dir(CACHE_ENV, "cuda")
        .map(|dir| dir.join(cache::file_name(&[arch, &nvrtc_version()], "cubin")));
    if let Some(cubin) = path.as_deref().and_then(cache::read) {
        return Ok(Ptx::from_binary(cubin));
    }
    let cubin = compile(arch, Output::Cubin)?;
    if let Some(path) = &path {
        cache::write(path, &cubin);
    }
    Ok(Ptx::from_binary(cubin))
}
