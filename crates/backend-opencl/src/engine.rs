//! An open OpenCL device: context, queue, the built kernels, and typed
//! helpers for buffers and launches.
//!
//! OpenCL kernel objects carry their arguments, so one device serves one
//! operation at a time: the plugin keeps an [`Engine`] behind a mutex.

use std::collections::HashMap;
use std::ptr;

use backend_api::ffi::{
    pce_fr, pce_g1_affine, pce_g1_projective, pce_g2_affine, pce_g2_projective, pce_scalar,
};
use backend_api::plugin::PluginError;
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;

use crate::platform::{cl_error, is_gpu, Found};
use crate::program;

/// Every kernel of `kernels/`, created once per device.
const KERNELS: [&str; 8] = [
    "ntt_bit_reverse",
    "ntt_local_stages",
    "ntt_global_stage",
    "ntt_scale",
    "G1_msm_buckets",
    "G1_sum_bases",
    "G2_msm_buckets",
    "G2_sum_bases",
];

/// `NTT_MAX_LOCAL_LOG` of kernels/ntt.h.
const NTT_MAX_LOCAL_LOG: u32 = 8;

/// Types that may be copied to and from device memory as raw bytes: plain
/// data with the layout the kernels declare.
///
/// # Safety
/// Implementors have no padding and no invalid bit patterns.
pub unsafe trait Plain: Copy {}
// SAFETY: all are arrays of u64 limbs (repr(C)), or u32.
unsafe impl Plain for u32 {}
unsafe impl Plain for pce_fr {}
unsafe impl Plain for pce_scalar {}
unsafe impl Plain for pce_g1_affine {}
unsafe impl Plain for pce_g2_affine {}
unsafe impl Plain for pce_g1_projective {}
unsafe impl Plain for pce_g2_projective {}

fn bytes_of<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: `Plain` types have no padding.
    unsafe { std::slice::from_raw_parts(values.as_ptr() as *const u8, size_of_val(values)) }
}

fn bytes_of_mut<T: Plain>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: `Plain` types accept any bit pattern.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr() as *mut u8, size_of_val(values)) }
}

/// A kernel argument.
pub enum Arg<'a> {
    /// A device buffer.
    Buffer(&'a Buffer<u8>),
    /// A 32-bit unsigned integer.
    U32(u32),
    /// A scalar field element, by value.
    Fr(pce_fr),
}

/// What the algorithms need to know about the device.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Threads the device runs at once, roughly.
    pub parallel_threads: u32,
    /// Largest single buffer, in bytes.
    pub max_alloc: u64,
    /// Device memory, in bytes.
    pub memory: u64,
    /// Stages of an NTT block done in local memory (log of the block size).
    pub ntt_local_log: u32,
}

/// An open device.
pub struct Engine {
    context: Context,
    queue: CommandQueue,
    kernels: HashMap<&'static str, Kernel>,
    /// The device's limits.
    pub limits: Limits,
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
        };
        Ok(Self {
            context,
            queue,
            kernels,
            limits,
        })
    }

    /// A device buffer of `bytes` bytes (at least 1: OpenCL has no empty buffers).
    pub fn buffer(&self, bytes: usize) -> Result<Buffer<u8>, PluginError> {
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

    /// A device buffer holding a copy of `values`.
    pub fn upload<T: Plain>(&self, values: &[T]) -> Result<Buffer<u8>, PluginError> {
        let mut buffer = self.buffer(size_of_val(values))?;
        self.write(&mut buffer, values)?;
        Ok(buffer)
    }

    /// Copies `values` to the start of `buffer`.
    pub fn write<T: Plain>(
        &self,
        buffer: &mut Buffer<u8>,
        values: &[T],
    ) -> Result<(), PluginError> {
        if values.is_empty() {
            return Ok(());
        }
        // SAFETY: blocking write from a live slice into a large enough buffer.
        unsafe {
            self.queue
                .enqueue_write_buffer(buffer, CL_BLOCKING, 0, bytes_of(values), &[])
        }
        .map(drop)
        .map_err(|e| cl_error("copying to the device", e))
    }

    /// Copies the start of `buffer` into `values`.
    pub fn read<T: Plain>(&self, buffer: &Buffer<u8>, values: &mut [T]) -> Result<(), PluginError> {
        if values.is_empty() {
            return Ok(());
        }
        // SAFETY: blocking read into a live slice from a large enough buffer.
        unsafe {
            self.queue
                .enqueue_read_buffer(buffer, CL_BLOCKING, 0, bytes_of_mut(values), &[])
        }
        .map(drop)
        .map_err(|e| cl_error("copying from the device", e))
    }

    /// Runs kernel `name` over `global` threads (work-groups of `local`
    /// threads, or the driver's choice).
    pub fn launch(
        &self,
        name: &str,
        global: usize,
        local: Option<usize>,
        args: &[Arg<'_>],
    ) -> Result<(), PluginError> {
        if global == 0 {
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
        launch.set_global_work_size(global);
        if let Some(local) = local {
            launch.set_local_work_size(local);
        }
        // SAFETY: the kernel's arguments are all set above.
        unsafe { launch.enqueue_nd_range(&self.queue) }
            .map_err(|e| cl_error(&format!("running kernel {name}"), e))?;
        Ok(())
    }
}
