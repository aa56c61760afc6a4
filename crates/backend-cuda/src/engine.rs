//! An open CUDA device: context, stream and the loaded kernels, as the
//! shared algorithms' [`gpu_kernels::engine::Engine`].
//!
//! Copies are made on the device's stream and waited for before the host
//! memory is released or read, so every operation is complete when it
//! returns, as the ABI requires.

use std::collections::HashMap;
use std::sync::Arc;

use backend_api::ffi::pce_fr;
use backend_api::plugin::PluginError;
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg,
};
use gpu_kernels::engine::{Arg, Engine as GpuEngine, Limits, KERNELS, NTT_MAX_LOCAL_LOG};

use crate::compile;
use crate::driver::{check_index, cuda_error};

/// Threads per block when the algorithm leaves the choice to the engine.
const DEFAULT_BLOCK: usize = 256;

/// A field element passed to a kernel by value.
#[repr(transparent)]
struct FrArg(pce_fr);
// SAFETY: four u64 limbs, the layout of the kernels' Fr.
unsafe impl DeviceRepr for FrArg {}

/// An open device.
pub struct Engine {
    stream: Arc<CudaStream>,
    functions: HashMap<&'static str, CudaFunction>,
    limits: Limits,
}

impl Engine {
    /// Opens device `index`: its primary context, a stream, and the kernels
    /// compiled for its architecture (or loaded from the cache).
    pub fn open(index: u32) -> Result<Self, PluginError> {
        check_index(index)?;
        let context = CudaContext::new(index as usize)
            .map_err(|e| cuda_error("creating a CUDA context", e))?;
        let query = |e| cuda_error("querying the CUDA device", e);
        let (major, minor) = context.compute_capability().map_err(query)?;
        let module = context
            .load_module(compile::kernels(&format!("{major}{minor}"))?)
            .map_err(|e| cuda_error("loading the compiled kernels", e))?;
        let mut functions = HashMap::new();
        for name in KERNELS {
            let function = module
                .load_function(name)
                .map_err(|e| cuda_error(&format!("loading kernel {name}"), e))?;
            functions.insert(name, function);
        }
        let units = context
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(query)?
            .max(1) as u32;
        let memory = context.total_mem().map_err(query)? as u64;
        let stream = context
            .new_stream()
            .map_err(|e| cuda_error("creating a CUDA stream", e))?;
        Ok(Self {
            stream,
            functions,
            limits: Limits {
                parallel_threads: units.saturating_mul(1024),
                max_alloc: memory,
                memory,
                ntt_local_log: NTT_MAX_LOCAL_LOG,
            }
            .capped_by_env(),
        })
    }

    fn synchronize(&self, what: &str) -> Result<(), PluginError> {
        self.stream.synchronize().map_err(|e| cuda_error(what, e))
    }
}

impl GpuEngine for Engine {
    type Buffer = CudaSlice<u8>;

    fn limits(&self) -> Limits {
        self.limits
    }

    /// Free device memory now (other processes and earlier bases count),
    /// less the quarter of the device kept for buckets and NTT buffers.
    fn memory_for_bases(&self) -> u64 {
        let free = self
            .stream
            .context()
            .mem_get_info()
            .map_or(0, |(free, _)| free as u64);
        let reserve = self.limits.memory / 4;
        free.saturating_sub(reserve)
            .min((self.limits.memory as f64 * 0.75) as u64)
    }

    fn buffer(&self, bytes: usize) -> Result<CudaSlice<u8>, PluginError> {
        // SAFETY: every kernel writes a buffer before reading it, or the
        // host fills it first.
        unsafe { self.stream.alloc::<u8>(bytes.max(1)) }
            .map_err(|e| cuda_error(&format!("allocating {bytes} bytes of device memory"), e))
    }

    fn write(&self, buffer: &mut CudaSlice<u8>, bytes: &[u8]) -> Result<(), PluginError> {
        self.stream
            .memcpy_htod(bytes, &mut buffer.slice_mut(..bytes.len()))
            .map_err(|e| cuda_error("copying to the device", e))?;
        self.synchronize("copying to the device")
    }

    fn read(&self, buffer: &CudaSlice<u8>, bytes: &mut [u8]) -> Result<(), PluginError> {
        self.stream
            .memcpy_dtoh(&buffer.slice(..bytes.len()), bytes)
            .map_err(|e| cuda_error("copying from the device", e))?;
        self.synchronize("copying from the device")
    }

    fn launch(
        &self,
        name: &str,
        threads: usize,
        block: Option<usize>,
        args: &[Arg<'_, CudaSlice<u8>>],
    ) -> Result<(), PluginError> {
        if threads == 0 {
            return Ok(());
        }
        let block = block.unwrap_or(DEFAULT_BLOCK).min(threads);
        let config = LaunchConfig {
            grid_dim: (threads.div_ceil(block) as u32, 1, 1),
            block_dim: (block as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.stream.launch_builder(&self.functions[name]);
        for arg in args {
            match arg {
                Arg::Buffer(buffer) => launch.arg(*buffer),
                Arg::U32(value) => launch.arg(value),
                // SAFETY: FrArg is a transparent wrapper of pce_fr.
                Arg::Fr(value) => launch.arg(unsafe { &*(value as *const pce_fr as *const FrArg) }),
            };
        }
        // SAFETY: the argument types match the kernel's signature in kernels/.
        unsafe { launch.launch(config) }
            .map(drop)
            .map_err(|e| cuda_error(&format!("running kernel {name}"), e))
    }
}
