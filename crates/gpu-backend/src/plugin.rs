//! The backend-ABI side of a GPU backend, written once: a GPU API says how
//! to find and open devices ([`GpuApi`]); [`GpuPlugin`] turns that into a
//! [`Plugin`] whose NTTs, QAP step and MSMs run the shared drivers of
//! [`crate::ntt`] and [`crate::msm`] on the API's [`Engine`], once the
//! device's kernels have passed the [`selftest`].

use std::ffi::CStr;
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard};

use backend_api::ffi::{pce_fr, pce_scalar, PCE_ERR_DEVICE, PCE_ERR_INVALID_ARGUMENT};
use backend_api::plugin::{
    DeviceDescription, MemoryReport, MsmResults, Plugin, PluginError, Points,
};
use tracing::{info, warn};

use crate::engine::Engine;
use crate::msm::{self, G1, G2};
use crate::ntt;
use crate::selftest;

/// What a GPU API provides: its devices and an [`Engine`] per open device.
pub trait GpuApi: 'static {
    /// Short name (`opencl`, `cuda`).
    const NAME: &'static CStr;
    /// Implementation and version.
    const DESCRIPTION: &'static CStr;
    /// An open device.
    type Engine: Engine<Buffer: Send + Sync> + Send;
    /// Number of devices; `PCE_ERR_NO_DRIVER` when the runtime is missing.
    fn device_count() -> Result<u32, PluginError>;
    /// Describes device `index`.
    fn device_info(index: u32) -> Result<DeviceDescription, PluginError>;
    /// Opens device `index` with kernels from where `wanted` says; also
    /// says where they came from (compiled when the cache had none).
    fn open(index: u32, wanted: Kernels) -> Result<(Self::Engine, Kernels), PluginError>;
}

/// Where an opened device's kernels come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernels {
    /// Asked for: the compiled-kernel cache when it holds them, else
    /// compiled (and cached). Reported: loaded from the cache.
    Cached,
    /// Compiled, replacing any cached copy: asked for after the cached
    /// kernels failed the self-test.
    Compiled,
}

/// The plugin of GPU API `A`.
pub struct GpuPlugin<A>(PhantomData<A>);

/// An open device; operations on it run one at a time (kernel objects
/// carry their arguments, and the engines copy through one queue).
pub struct OpenDevice<E>(Mutex<E>);

impl<E> OpenDevice<E> {
    fn engine(&self) -> MutexGuard<'_, E> {
        // Operations leave no half-updated host state behind (device
        // buffers are per call), so a poisoned lock is usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

type Buffer<A> = <<A as GpuApi>::Engine as Engine>::Buffer;

impl<A: GpuApi> Plugin for GpuPlugin<A> {
    const NAME: &'static CStr = A::NAME;
    const DESCRIPTION: &'static CStr = A::DESCRIPTION;
    type Device = OpenDevice<A::Engine>;
    type Domain = ntt::Domain<Buffer<A>>;
    type Bases = msm::Bases<Buffer<A>>;
    const QAP_H: bool = true;
    const DEVICE_MEMORY: bool = true;

    fn device_count() -> Result<u32, PluginError> {
        A::device_count()
    }

    fn device_info(index: u32) -> Result<DeviceDescription, PluginError> {
        A::device_info(index)
    }

    /// The device with kernels that pass the [`selftest`]: the cached
    /// ones, or else freshly compiled ones; a device whose freshly compiled
    /// kernels fail it is refused.
    fn device_open(index: u32) -> Result<Self::Device, PluginError> {
        let (engine, origin) = A::open(index, Kernels::Cached)?;
        let started = std::time::Instant::now();
        let failure = match selftest::check(&engine) {
            Ok(()) => {
                let seconds = started.elapsed().as_secs_f64();
                info!(
                    index,
                    seconds, "the device's kernels passed their self-test"
                );
                return Ok(OpenDevice(Mutex::new(engine)));
            }
            Err(failure) => failure,
        };
        drop(engine);
        let refused = |status, detail: String| {
            let api = A::NAME.to_string_lossy();
            PluginError::new(
                status,
                format!(
                    "{api} device {index}: its kernels failed their self-test ({failure}){detail}"
                ),
            )
        };
        // The same kernels have been right on one H200 and wrong on another
        // (docs/benchmarks.md): the message names no culprit.
        const MISCOMPILED: &str = "they compute wrong results on this device as built \
            here, so it is refused (kernel_probe shows which function; --backend cpu \
            proves on the CPU)";
        if origin == Kernels::Compiled {
            return Err(refused(
                PCE_ERR_DEVICE,
                format!(", freshly compiled: {MISCOMPILED}"),
            ));
        }
        warn!(index, %failure, "the device's cached kernels failed their self-test; compiling them afresh");
        let (engine, _) = A::open(index, Kernels::Compiled).map_err(|e| {
            refused(
                e.status,
                format!(", and compiling them afresh failed: {}", e.message),
            )
        })?;
        selftest::check(&engine).map_err(|again| {
            refused(
                PCE_ERR_DEVICE,
                format!(", and so did freshly compiled ones ({again}): {MISCOMPILED}"),
            )
        })?;
        Ok(OpenDevice(Mutex::new(engine)))
    }

    fn ntt_domain(device: &Self::Device, log_size: u32) -> Result<Self::Domain, PluginError> {
        ntt::Domain::new(&*device.engine(), log_size)
    }

    fn domain_size(domain: &Self::Domain) -> usize {
        domain.size()
    }

    fn ntt(
        device: &Self::Device,
        domain: &Self::Domain,
        inverse: bool,
        coset: bool,
        data: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        domain.transform(&*device.engine(), inverse, coset, data)
    }

    fn qap_h(
        device: &Self::Device,
        domain: &Self::Domain,
        abc: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        domain.qap_h(&*device.engine(), abc)
    }

    fn device_memory(device: &Self::Device) -> Result<MemoryReport, PluginError> {
        device.engine().memory()
    }

    fn upload_bases(device: &Self::Device, points: Points) -> Result<Self::Bases, PluginError> {
        msm::Bases::new(&*device.engine(), points)
    }

    fn bases_shape(bases: &Self::Bases) -> (usize, u32) {
        bases.shape()
    }

    fn msm(
        device: &Self::Device,
        bases: &Self::Bases,
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
