//! The CUDA backend plugin: NTT and MSM on NVIDIA GPUs.
//!
//! Loaded by the prover like any other backend, through the C ABI of
//! `backend-api`. It links nothing from CUDA: the driver (libcuda) and
//! NVRTC are loaded at run time, so the plugin loads everywhere and says
//! "no CUDA driver" where there is none ([`driver`]). Opening a device
//! compiles the shared kernels of `kernels/` for its compute capability
//! with NVRTC (cached on disk, [`compile`]). MSM bases stay in device
//! memory under their handle, NTT twiddles under the domain's. The
//! algorithms' host side is in `gpu-kernels`, shared with the OpenCL
//! backend; this crate is the CUDA plumbing ([`engine`]).

use std::ffi::CStr;
use std::sync::Mutex;

use backend_api::export_backend;
use backend_api::ffi::{pce_fr, pce_scalar, PCE_ERR_INVALID_ARGUMENT};
use backend_api::plugin::{DeviceDescription, MsmResults, Plugin, PluginError, Points};
use cudarc::driver::CudaSlice;
use gpu_kernels::msm::{self, G1, G2};
use gpu_kernels::ntt;

pub mod compile;
mod driver;
mod engine;

pub use compile::CACHE_ENV;

use engine::Engine;

/// Device buffers of this backend.
type Buffer = CudaSlice<u8>;

/// The CUDA backend.
pub struct CudaBackend;

/// An open device; operations on it run one at a time.
pub struct OpenDevice(Mutex<Engine>);

impl OpenDevice {
    fn engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        // Operations leave no half-updated host state behind (device
        // buffers are per call), so a poisoned lock is usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Plugin for CudaBackend {
    const NAME: &'static CStr = c"cuda";
    const DESCRIPTION: &'static CStr =
        c"pce-prover CUDA backend: NVRTC-compiled shared kernels, radix-2 NTT with shared-memory stages, bucket MSM with 0/1 split";
    type Device = OpenDevice;
    type Domain = ntt::Domain<Buffer>;
    type Bases = msm::Bases<Buffer>;

    fn device_count() -> Result<u32, PluginError> {
        driver::count()
    }

    fn device_info(index: u32) -> Result<DeviceDescription, PluginError> {
        driver::describe(index)
    }

    fn device_open(index: u32) -> Result<OpenDevice, PluginError> {
        Ok(OpenDevice(Mutex::new(Engine::open(index)?)))
    }

    fn ntt_domain(device: &OpenDevice, log_size: u32) -> Result<ntt::Domain<Buffer>, PluginError> {
        ntt::Domain::new(&*device.engine(), log_size)
    }

    fn domain_size(domain: &ntt::Domain<Buffer>) -> usize {
        domain.size()
    }

    fn ntt(
        device: &OpenDevice,
        domain: &ntt::Domain<Buffer>,
        inverse: bool,
        coset: bool,
        data: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        domain.transform(&*device.engine(), inverse, coset, data)
    }

    fn qap_h(
        device: &OpenDevice,
        domain: &ntt::Domain<Buffer>,
        abc: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        domain.qap_h(&*device.engine(), abc)
    }

    fn upload_bases(
        device: &OpenDevice,
        points: Points,
    ) -> Result<msm::Bases<Buffer>, PluginError> {
        msm::Bases::new(&*device.engine(), points)
    }

    fn bases_shape(bases: &msm::Bases<Buffer>) -> (usize, u32) {
        bases.shape()
    }

    fn msm(
        device: &OpenDevice,
        bases: &msm::Bases<Buffer>,
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

export_backend!(CudaBackend);
