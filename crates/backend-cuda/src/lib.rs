//! The CUDA backend plugin: NTT and MSM on NVIDIA GPUs.
//!
//! Loaded by the prover like any other backend, through the C ABI of
//! `backend-api`. It links nothing from CUDA: the driver (libcuda) and
//! NVRTC are loaded at run time, so the plugin loads everywhere and says
//! "no CUDA driver" where there is none ([`driver`]). Opening a device
//! compiles the shared kernels of `gpu-backend` for its compute capability
//! with NVRTC (cached on disk, [`compile`]). MSM bases stay in device
//! memory under their handle, NTT twiddles under the domain's. The
//! algorithms' host side is in `gpu-backend`, shared with the OpenCL
//! backend; this crate is the CUDA plumbing ([`engine`]).

use std::ffi::CStr;

use backend_api::export_backend;
use backend_api::plugin::{DeviceDescription, PluginError};
use gpu_backend::plugin::{GpuApi, GpuPlugin, Kernels};

pub mod compile;
mod driver;
mod engine;

pub use compile::CACHE_ENV;

use engine::Engine;

/// The CUDA API as the shared GPU plugin uses it.
pub struct CudaApi;

impl GpuApi for CudaApi {
    const NAME: &'static CStr = c"cuda";
    const DESCRIPTION: &'static CStr =
        c"pce-prover CUDA backend: NVRTC-compiled shared kernels, radix-2 NTT with shared-memory stages, bucket MSM with 0/1 split";
    type Engine = Engine;
    /// The driver JIT-compiles NVRTC's PTX with its own compiler.
    const DRIVER_COMPILER: bool = true;

    fn cache_dir() -> Option<std::path::PathBuf> {
        compile::cache_dir()
    }

    fn device_count() -> Result<u32, PluginError> {
        driver::count()
    }

    fn device_info(index: u32) -> Result<DeviceDescription, PluginError> {
        driver::describe(index)
    }

    fn open(index: u32, wanted: Kernels) -> Result<(Engine, Kernels), PluginError> {
        Engine::open(index, wanted)
    }
}

export_backend!(GpuPlugin<CudaApi>);
