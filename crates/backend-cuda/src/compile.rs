//! Compiling the shared kernels with NVRTC to a CUBIN for the device's
//! compute capability, cached on disk (see [`gpu_backend::cache`]).
//!
//! The cache key is the kernel source's hash, the architecture and the
//! compile options: everything the CUBIN depends on that the plugin knows
//! without loading NVRTC, so a machine with a prebuilt cache ([`prebuild`],
//! `scripts/gpu-check.sh` carries one) needs no NVRTC at all. What the key
//! cannot see (a CUBIN from an NVRTC newer than the driver) shows as a
//! module that fails to load, or one that loads and computes wrong results
//! (the plugin's self-test); the device is then compiled for once more.

use backend_api::ffi::PCE_ERR_DEVICE;
use backend_api::plugin::PluginError;
use std::ffi::{c_char, CString};
use std::path::{Path, PathBuf};

use cudarc::nvrtc::{result, sys};
use gpu_backend::cache;
use gpu_backend::plugin::Kernels;
use tracing::info;

use crate::driver::probe_nvrtc;

/// Environment variable naming the cache directory.
pub const CACHE_ENV: &str = "PCE_CUDA_CACHE";

/// The architectures a prebuilt cache covers: Ampere (A100), Ada (L40,
/// RTX 40xx), Hopper (H100, H200), Blackwell (B200).
pub const PREBUILT_ARCHITECTURES: [&str; 4] = ["80", "89", "90", "100"];

/// Whether NVRTC can be loaded.
pub fn nvrtc_present() -> bool {
    probe_nvrtc().is_ok()
}

/// NVRTC's options for `sm_<arch>`: part of the cache key.
fn options(arch: &str) -> Vec<String> {
    let mut options = vec![
        format!("--gpu-architecture=sm_{arch}"),
        "--std=c++17".to_owned(),
    ];
    options.extend(gpu_backend::compiler_defines());
    options
}

/// The file of `dir` that caches the CUBIN for `sm_<arch>`.
pub fn cache_path(dir: &Path, arch: &str) -> PathBuf {
    dir.join(cache::file_name(&[&options(arch).join(" ")], "cubin"))
}

/// The CUBIN for `sm_<arch>` cached in `dir`, if there is a valid one.
pub fn cached(dir: &Path, arch: &str) -> Option<Vec<u8>> {
    cache::read(&cache_path(dir, arch))
}

/// The cache directory: `$PCE_CUDA_CACHE`, else the user's cache directory.
pub fn cache_dir() -> Option<PathBuf> {
    cache::dir(CACHE_ENV, "cuda")
}

/// What NVRTC produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Machine code for one architecture: what the backend loads. The
    /// driver needs no JIT step, and it cannot fail on a driver older than
    /// NVRTC (PTX of a newer ISA version would).
    Cubin,
    /// PTX only, several times faster to produce: enough to check that the
    /// kernels compile (CI has NVRTC but no GPU); also what the driver
    /// compiles itself ([`Kernels::DriverCompiled`]). NUL-terminated, as
    /// the driver's module loader takes it.
    Ptx,
}

/// The kernels compiled by NVRTC for `sm_<arch>` (e.g. "90").
pub fn compile(arch: &str, output: Output) -> Result<Vec<u8>, PluginError> {
    compile_source(&gpu_backend::source(), arch, &[], output)
}

/// `source` (the kernels, or a variant of them) compiled by NVRTC for
/// `sm_<arch>` with the kernels' options and `extra` ones.
pub fn compile_source(
    source: &str,
    arch: &str,
    extra: &[&str],
    output: Output,
) -> Result<Vec<u8>, PluginError> {
    probe_nvrtc()?;
    let failed = |detail: String| {
        PluginError::new(
            PCE_ERR_DEVICE,
            format!("compiling the CUDA kernels for sm_{arch} failed: {detail}"),
        )
    };
    let source = CString::new(source).map_err(|_| failed("the source holds a NUL byte".into()))?;
    let program = result::create_program(&source, Some(c"pce_kernels.cu"))
        .map_err(|e| failed(e.to_string()))?;
    let mut options = options(arch);
    options.extend(extra.iter().map(|option| option.to_string()));
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
                    let text = ptx.iter().map(|&c| c as u8).take_while(|&c| c != 0);
                    text.chain([0]).collect()
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

/// The module image for `sm_<arch>` that `wanted` asks for, with where it
/// came from: from the cache when `wanted` allows and it holds a valid
/// copy (NVRTC is not loaded then), else compiled (to be cached in
/// [`cache_file`] once it has passed the self-test). The image is what the driver's
/// module loader takes: a CUBIN, or for [`Kernels::DriverCompiled`]
/// NVRTC's PTX (NUL-terminated), which the driver compiles itself when it
/// loads it. A PTX that passed the self-test is cached under the CUBIN's
/// name and is loaded (and compiled by the driver, which keeps its own
/// cache) from then on.
pub fn kernels(arch: &str, wanted: Kernels) -> Result<(Vec<u8>, Kernels), PluginError> {
    match wanted {
        Kernels::Cached => {
            if let Some(image) = cache_dir().and_then(|dir| cached(&dir, arch)) {
                return Ok((image, Kernels::Cached));
            }
            Ok((rebuild(arch)?, Kernels::Compiled))
        }
        Kernels::Compiled => Ok((rebuild(arch)?, Kernels::Compiled)),
        Kernels::DriverCompiled => Ok((compile(arch, Output::Ptx)?, Kernels::DriverCompiled)),
    }
}

/// Compiles the CUBIN for `sm_<arch>` (not cached: see [`kernels`]).
pub fn rebuild(arch: &str) -> Result<Vec<u8>, PluginError> {
    compile(arch, Output::Cubin)
}

/// The file that caches the kernels for `sm_<arch>`, if there is a cache.
pub fn cache_file(arch: &str) -> Option<PathBuf> {
    cache_dir().map(|dir| cache_path(&dir, arch))
}

/// One architecture of a prebuilt cache.
#[derive(Debug, Clone)]
pub struct Prebuilt {
    /// The architecture, as "90".
    pub arch: String,
    /// The cache file written.
    pub path: PathBuf,
    /// Its size, bytes.
    pub bytes: usize,
    /// How long NVRTC took.
    pub seconds: f64,
}

/// Compiles the CUBINs of `archs` into the cache directory `dir`, two at a
/// time: a ready cache to carry to machines that lack NVRTC or should not
/// spend minutes compiling when a device is first opened.
pub fn prebuild(dir: &Path, archs: &[&str]) -> Result<Vec<Prebuilt>, PluginError> {
    let build = |arch: &str| {
        let started = std::time::Instant::now();
        let cubin = compile(arch, Output::Cubin)?;
        let path = cache_path(dir, arch);
        cache::write(&path, &cubin);
        Ok(Prebuilt {
            arch: arch.to_owned(),
            path,
            bytes: cubin.len(),
            seconds: started.elapsed().as_secs_f64(),
        })
    };
    let mut built = Vec::new();
    for pair in archs.chunks(2) {
        let results: Vec<Result<Prebuilt, PluginError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = pair
                .iter()
                .map(|&arch| scope.spawn(move || build(arch)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("an NVRTC thread panicked"))
                .collect()
        });
        for result in results {
            built.push(result?);
        }
    }
    Ok(built)
}
