//! An open OpenCL device: context, queue and the built kernels, as the
//! shared algorithms' [`gpu_kernels::engine::Engine`].
//!
//! OpenCL kernel objects carry their arguments, so one device serves one
//! operation at a time: the plugin keeps an [`Engine`] behind a mutex.

use std::collections::HashMap;
use std::ptr;

use backend_api::plugin::PluginError;
use gpu_kernels::engine::{Arg, Engine as GpuEngine, Limits, KERNELS, NTT_MAX_LOCAL_LOG};
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;

use crate::platform::{cl_error, is_gpu, Found};
use crate::program;

/// An open device.
pub struct Engine {
    context: Context,
    queue: CommandQueue,
    kernels: HashMap<&'static str, Kernel>,
    limits: Limits,
}

impl Engine {
    /// Opens `found`: context, queue, and the kernels (built or cached).
    pub fn open(found: &Found) -> Result<Self, PluginError> {
        let device = &found.device;
        let query = |error| cl_error("querying the OpenCL device", error);
        let context =
            Context::from_device(device).map_err(|e| cl_error("creating an OpenCL context", e))?;
        let queue = CommandQueue::create_default_with_properties(&context, 0, 0)
            .map_err(|e| cl_error("creating an OpenCL command queue", e))?;
        let program = program::build(&context, found)?;
        let mut kernels = HashMap::new();
        for name in KERNELS {
            let kernel = Kernel::create(&program, name)
                .map_err(|e| cl_error(&format!("creating kernel {name}"), e))?;
            kernels.insert(name, kernel);
        }
        let compute_units = device.max_compute_units().map_err(query)?.max(1);
        let threads_per_unit = if is_gpu(device) { 1024 } else { 8 };
        let max_group = device.max_work_group_size().map_err(query)?.max(2);
        let ntt_local_log = NTT_MAX_LOCAL_LOG.min(max_group.ilog2() + 1);
        let limits = Limits {
            parallel_threads: compute_units.saturating_mul(threads_per_unit),
            max_alloc: device.max_mem_alloc_size().map_err(query)?,
            memory: device.global_mem_size().map_err(query)?,
            ntt_local_log,
        }
        .capped_by_env();
        Ok(Self {
            context,
            queue,
            kernels,
            limits,
        })
    }
}

impl GpuEngine for Engine {
    type Buffer = Buffer<u8>;

    fn limits(&self) -> Limits {
        self.limits
    }

    fn buffer(&self, bytes: usize) -> Result<Buffer<u8>, PluginError> {
        // SAFETY: no host pointer is passed.
        unsafe {
            Buffer::create(
                &self.context,
                CL_MEM_READ_WRITE,
                bytes.max(1),
                ptr::null_mut(),
            )
        }
        .map_err(|e| cl_error(&format!("allocating {bytes} bytes of device memory"), e))
    }

    fn write(&self, buffer: &mut Buffer<u8>, bytes: &[u8]) -> Result<(), PluginError> {
        // SAFETY: blocking write from a live slice.
        unsafe {
            self.queue
                .enqueue_write_buffer(buffer, CL_BLOCKING, 0, bytes, &[])
        }
        .map(drop)
        .map_err(|e| cl_error("copying to the device", e))
    }

    fn read(&self, buffer: &Buffer<u8>, bytes: &mut [u8]) -> Result<(), PluginError> {
        // SAFETY: blocking read into a live slice.
        unsafe {
            self.queue
                .enqueue_read_buffer(buffer, CL_BLOCKING, 0, bytes, &[])
        }
        .map(drop)
        .map_err(|e| cl_error("copying from the device", e))
    }

    fn launch(
        &self,
        name: &str,
        threads: usize,
        block: Option<usize>,
        args: &[Arg<'_, Buffer<u8>>],
    ) -> Result<(), PluginError> {
        if threads == 0 {
            return Ok(());
        }
        let kernel = &self.kernels[name];
        let mut launch = ExecuteKernel::new(kernel);
        for arg in args {
            // SAFETY: the argument types match the kernel's signature in kernels/.
            unsafe {
                match arg {
                    Arg::Buffer(buffer) => launch.set_arg(*buffer),
                    Arg::U32(value) => launch.set_arg(value),
                    Arg::Fr(value) => launch.set_arg(value),
                };
            }
        }
        launch.set_global_work_size(threads);
        if let Some(block) = block {
            launch.set_local_work_size(block);
        }
        // SAFETY: the kernel's arguments are all set above.
        unsafe { launch.enqueue_nd_range(&self.queue) }
            .map_err(|e| cl_error(&format!("running kernel {name}"), e))?;
        Ok(())
    }
}
