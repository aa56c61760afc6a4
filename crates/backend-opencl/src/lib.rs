//! The OpenCL backend plugin: NTT and MSM on any OpenCL device.
//!
//! Loaded by the prover like any other backend, through the C ABI of
//! `backend-api`. Devices are every device of every OpenCL platform, in the
//! loader's order; opening one builds the shared kernels of `gpu-backend` for
//! it (cached on disk, see [`program`]). MSM bases stay in device memory
//! under their handle, NTT twiddles under the domain's. The kernels and
//! the host side of the algorithms are in `gpu-backend`, shared with the
//! CUDA backend; this crate is the OpenCL plumbing ([`engine`]).

use std::ffi::CStr;

use backend_api::export_backend;
use backend_api::plugin::{DeviceDescription, PluginError};
use gpu_backend::plugin::{GpuApi, GpuPlugin, Kernels};

mod engine;
mod platform;
mod program;

pub use engine::MAX_GROUP_ENV;
pub use program::CACHE_ENV;

use engine::Engine;

/// The OpenCL API as the shared GPU plugin uses it.
pub struct OpenClApi;

impl GpuApi for OpenClApi {
    const NAME: &'static CStr = c"opencl";
    const DESCRIPTION: &'static CStr =
        c"pce-prover OpenCL backend: radix-2 NTT with local-memory stages, bucket MSM with 0/1 split";
    type Engine = Engine;
    /// The driver's compiler is the only one.
    const DRIVER_COMPILER: bool = false;

    fn cache_dir() -> Option<std::path::PathBuf> {
        gpu_backend::cache::dir(CACHE_ENV, "opencl")
    }

    fn device_count() -> Result<u32, PluginError> {
        Ok(platform::devices()?.len() as u32)
    }

    fn device_info(index: u32) -> Result<DeviceDescription, PluginError> {
        platform::describe(&platform::device(index)?)
    }

    fn open(index: u32, wanted: Kernels) -> Result<(Engine, Kernels), PluginError> {
        Engine::open(&platform::device(index)?, wanted)
    }
}

export_backend!(GpuPlugin<OpenClApi>);
