//! The OpenCL backend plugin: NTT and MSM on any OpenCL device.
//!
//! Loaded by the prover like any other backend, through the C ABI of
//! `backend-api`. Devices are every device of every OpenCL platform, in the
//! loader's order; opening one builds the shared kernels of `kernels/` for
//! it (cached on disk, see [`program`]). MSM bases stay in device memory
//! under their handle, NTT twiddles under the domain's. The kernels and
//! the host side of the algorithms are in `gpu-kernels`, shared with the
//! CUDA backend; this crate is the OpenCL plumbing ([`engine`]).

use std::ffi::CStr;
use std::sync::Mutex;

use backend_api::export_backend;
use backend_api::ffi::{pce_fr, pce_scalar, PCE_ERR_INVALID_ARGUMENT};
use backend_api::plugin::{DeviceDescription, MsmResults, Plugin, PluginError, Points};
use gpu_kernels::msm::{self, G1, G2};
use gpu_kernels::ntt;
use opencl3::memory::Buffer;

mod engine;
mod platform;
mod program;

pub use program::CACHE_ENV;

use engine::Engine;

/// The OpenCL backend.
pub struct OpenClBackend;

/// An open device; operations on it run one at a time.
pub struct OpenDevice(Mutex<Engine>);

impl OpenDevice {
    fn engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        // A panic inside an operation leaves no half-updated host state
        // behind (device buffers are per call), so a poisoned lock is usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Plugin for OpenClBackend {
    const NAME: &'static CStr = c"opencl";
    const DESCRIPTION: &'static CStr =
        c"pce-prover OpenCL backend: radix-2 NTT with local-memory stages, bucket MSM with 0/1 split";
    type Device = OpenDevice;
    type Domain = ntt::Domain<Buffer<u8>>;
    type Bases = msm::Bases<Buffer<u8>>;

    fn device_count() -> Result<u32, PluginError> {
        Ok(platform::devices()?.len() as u32)
    }

    fn device_info(index: u32) -> Result<DeviceDescription, PluginError> {
        platform::describe(&platform::device(index)?)
    }

    fn device_open(index: u32) -> Result<OpenDevice, PluginError> {
        let found = platform::device(index)?;
        Ok(OpenDevice(Mutex::new(Engine::open(&found)?)))
    }

    fn ntt_domain(
        device: &OpenDevice,
        log_size: u32,
    ) -> Result<ntt::Domain<Buffer<u8>>, PluginError> {
        ntt::Domain::new(&*device.engine(), log_size)
    }

    fn domain_size(domain: &ntt::Domain<Buffer<u8>>) -> usize {
        domain.size()
    }

    fn ntt(
        device: &OpenDevice,
        domain: &ntt::Domain<Buffer<u8>>,
        inverse: bool,
        coset: bool,
        data: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        domain.transform(&*device.engine(), inverse, coset, data)
    }

    fn qap_h(
        device: &OpenDevice,
        domain: &ntt::Domain<Buffer<u8>>,
        abc: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        domain.qap_h(&*device.engine(), abc)
    }

    fn upload_bases(
        device: &OpenDevice,
        points: Points,
    ) -> Result<msm::Bases<Buffer<u8>>, PluginError> {
        msm::Bases::new(&*device.engine(), points)
    }

    fn bases_shape(bases: &msm::Bases<Buffer<u8>>) -> (usize, u32) {
        bases.shape()
    }

    fn msm(
        device: &OpenDevice,
        bases: &msm::Bases<Buffer<u8>>,
        offset: usize,
        count: usize,
        scalars: &[pce_scalar],
        out: MsmResults<'_>,
    ) -> Result<(), PluginError> {
        let engine = device.engine();
        match (bases, out) {
            (msm::Bases::G1(bases), MsmResults::G1(out)) => {
                msm::msm::<G1, _>(&*engine, bases, offset, count, scalars, out)
            }
            (msm::Bases::G2(bases), MsmResults::G2(out)) => {
                msm::msm::<G2, _>(&*engine, bases, offset, count, scalars, out)
            }
            _ => Err(PluginError::new(
                PCE_ERR_INVALID_ARGUMENT,
                "result group differs from the bases' group",
            )),
        }
    }
}

export_backend!(OpenClBackend);
