//! An open OpenCL device: context, queues and the built kernels, as the
//! shared algorithms' [`gpu_backend::engine::Engine`].
//!
//! OpenCL kernel objects carry their arguments, so one device serves one
//! operation at a time: the plugin keeps an [`Engine`] behind a mutex.
//!
//! Kernels and the synchronous copies run on one in-order queue; the MSM
//! driver's asynchronous uploads run on a second queue, ordered against
//! the first with markers and barriers, so devices that can overlap copies
//! and kernels do (and PoCL, which runs the queues' commands on its worker
//! threads, exercises the ordering in the tests).

use std::collections::HashMap;
use std::ptr;
use std::sync::{Mutex, PoisonError};

use backend_api::plugin::{MemoryReport, PluginError};
use gpu_backend::cache::Pending;
use gpu_backend::engine::{
    Arg, Charged, Engine as GpuEngine, Ledger, Limits, KERNELS, NTT_MAX_LOCAL_LOG,
    STAGING_PIECE_BYTES,
};
use gpu_backend::plugin::Kernels;
use gpu_backend::profile::{self, KernelTimes, Timing};
use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::types::{CL_BLOCKING, CL_NON_BLOCKING};

use crate::platform::{cl_error, is_gpu, Found};
use crate::program;

/// Most host buffers the asynchronous uploads copy from (the caller's data
/// may be gone before the copy runs), used in turn. The ring grows (from
/// one) when an upload would reuse a buffer whose copy belongs to the same
/// batch (the uploads since the last [`GpuEngine::wait_writes`]): that copy
/// waits for the kernels still reading its target, so waiting for it would
/// hold the host until those kernels finish, before it has queued the next
/// ones. A streamed MSM job is seven or eight pieces of at most
/// [`STAGING_PIECE_BYTES`]; beyond twelve, uploads wait. A job of more
/// pieces (more than about 20 million terms) that follows another job
/// therefore does not overlap the kernels before it: its thirteenth piece
/// waits for the copy twelve back, queued after the kernels of the job
/// before the previous one, and the previous job's kernels are launched
/// only once all of this job's pieces are queued (the CUDA engine's ring
/// has the same limit, and says why a larger one does not cure it).
const MAX_UPLOAD_SLOTS: usize = 12;

/// One upload staging buffer, the copy that last read it and that copy's
/// batch.
#[derive(Default)]
struct Slot {
    bytes: Vec<u8>,
    copy: Option<Event>,
    batch: u64,
}

/// The upload staging buffers.
#[derive(Default)]
struct Staging {
    slots: Vec<Slot>,
    next: usize,
    /// The batch being queued: counts the [`GpuEngine::wait_writes`] calls.
    batch: u64,
}

impl Staging {
    /// The buffer to copy the next piece from: the oldest one, or a new one
    /// in its place when the oldest holds a piece of this batch and the
    /// ring may still grow.
    fn next_slot(&mut self) -> &mut Slot {
        let next = self.next;
        let busy = self
            .slots
            .get(next)
            .is_some_and(|slot| slot.batch == self.batch);
        if next >= self.slots.len() || (busy && self.slots.len() < MAX_UPLOAD_SLOTS) {
            self.slots.insert(next, Slot::default());
        }
        self.next = (next + 1) % self.slots.len();
        let slot = &mut self.slots[next];
        slot.batch = self.batch;
        slot
    }
}

/// An open device.
pub struct Engine {
    context: Context,
    /// Kernels and synchronous copies.
    queue: CommandQueue,
    /// Asynchronous uploads.
    copies: CommandQueue,
    staging: Mutex<Staging>,
    /// Each kernel and the largest work-group the device runs it with.
    kernels: HashMap<&'static str, (Kernel, usize)>,
    limits: Limits,
    /// The buffers allocated, against [`Limits::memory`].
    ledger: Ledger,
    /// The device, for memory queries.
    device: opencl3::device::Device,
    /// Each kernel launch's profiling event, with `$PCE_GPU_PROFILE` set
    /// (the kernels' queue then records them).
    kernel_times: Option<Mutex<KernelTimes<LaunchEvent>>>,
    /// A program compiled at open, until it is cached
    /// ([`GpuEngine::cache_kernels`]).
    uncached: Pending,
}

/// A kernel launch's event on a profiling queue.
struct LaunchEvent(Event);

impl Timing for LaunchEvent {
    fn millis(&self) -> Result<f64, String> {
        let read = |e: opencl3::error_codes::ClError| e.to_string();
        self.0.wait().map_err(read)?;
        let start = self.0.profiling_command_start().map_err(read)?;
        let end = self.0.profiling_command_end().map_err(read)?;
        Ok(end.saturating_sub(start) as f64 / 1e6)
    }
}

/// Work-group size when the algorithm leaves the choice to the engine.
/// Without one, OpenCL 1.2 drivers must pick a divisor of the global size,
/// which for an odd count of terms means groups of one thread.
const DEFAULT_GROUP: usize = 64;

impl Engine {
    /// Opens `found`: context, queues, and the kernels (cached or built,
    /// as `wanted` says); with where the kernels came from.
    pub fn open(found: &Found, wanted: Kernels) -> Result<(Self, Kernels), PluginError> {
        let device = &found.device;
        let query = |error| cl_error("querying the OpenCL device", error);
        let context =
            Context::from_device(device).map_err(|e| cl_error("creating an OpenCL context", e))?;
        // clCreateCommandQueueWithProperties is OpenCL 2.0; 1.2 drivers
        // only have clCreateCommandQueue.
        let create_queue = |properties| {
            CommandQueue::create_default_with_properties(&context, properties, 0)
                .or_else(|_| {
                    #[allow(deprecated)]
                    CommandQueue::create_default(&context, properties)
                })
                .map_err(|e| cl_error("creating an OpenCL command queue", e))
        };
        let profiled = profile::requested();
        let queue = create_queue(if profiled {
            CL_QUEUE_PROFILING_ENABLE
        } else {
            0
        })?;
        let copies = create_queue(0)?;
        let program::Built {
            program,
            origin,
            uncached,
        } = program::build(&context, found, wanted)?;
        let mut kernels = HashMap::new();
        for name in KERNELS {
            let kernel = Kernel::create(&program, name)
                .map_err(|e| cl_error(&format!("creating kernel {name}"), e))?;
            let max_group = kernel
                .get_work_group_size(device.id())
                .map_err(|e| cl_error(&format!("querying kernel {name}"), e))?
                .min(group_cap())
                .max(1);
            kernels.insert(name, (kernel, max_group));
        }
        let compute_units = device.max_compute_units().map_err(query)?.max(1);
        let threads_per_unit = if is_gpu(device) { 1024 } else { 8 };
        // The shared-memory NTT stages need half a block of threads per group.
        let ntt_group = kernels["ntt_local_stages"].1.max(1);
        let ntt_local_log = NTT_MAX_LOCAL_LOG.min(ntt_group.ilog2() + 1);
        let limits = Limits {
            parallel_threads: compute_units.saturating_mul(threads_per_unit),
            // OpenCL has no occupancy query: the bucket kernels are taken
            // to run as many threads as any kernel.
            g1_bucket_threads: compute_units.saturating_mul(threads_per_unit),
            g2_bucket_threads: compute_units.saturating_mul(threads_per_unit),
            max_alloc: device.max_mem_alloc_size().map_err(query)?,
            memory: device.global_mem_size().map_err(query)?,
            ntt_local_log,
        }
        .capped_by_env();
        let engine = Self {
            context,
            queue,
            copies,
            staging: Mutex::default(),
            kernels,
            ledger: Ledger::new(limits.memory),
            limits,
            device: opencl3::device::Device::new(device.id()),
            kernel_times: profiled.then(Mutex::default),
            uncached,
        };
        Ok((engine, origin))
    }
}

impl GpuEngine for Engine {
    type Buffer = Charged<Buffer<u8>>;

    fn limits(&self) -> Limits {
        self.limits
    }

    /// OpenCL has no portable free-memory query: AMD's extension answers
    /// where the driver has it (in KiB); in any case no more than the
    /// engine's buffers leave of the memory it may use.
    fn free_memory(&self) -> u64 {
        let left = self.ledger.available();
        self.device
            .global_free_memory_amd()
            .map_or(left, |kib| (kib as u64).saturating_mul(1024).min(left))
    }

    fn memory(&self) -> Result<MemoryReport, PluginError> {
        Ok(MemoryReport {
            free: self.free_memory(),
            total: self.limits.memory,
        })
    }

    /// The upload ring at its largest, each buffer of at most one piece
    /// ([`Staging`]); reads go straight into the caller's data.
    fn staging_bytes(&self) -> u64 {
        (MAX_UPLOAD_SLOTS * STAGING_PIECE_BYTES) as u64
    }

    fn cache_kernels(&self) {
        self.uncached.store();
    }

    /// Counted in the ledger first: beyond [`Limits::memory`] the buffer
    /// is refused as out of memory, as the device would refuse it.
    fn buffer(&self, bytes: usize) -> Result<Self::Buffer, PluginError> {
        let bytes = bytes.max(1);
        let charge = self.ledger.charge(bytes as u64)?;
        // SAFETY: no host pointer is passed.
        let buffer =
            unsafe { Buffer::create(&self.context, CL_MEM_READ_WRITE, bytes, ptr::null_mut()) }
                .map_err(|e| cl_error(&format!("allocating {bytes} bytes of device memory"), e))?;
        Ok(Charged::new(buffer, charge))
    }

    fn write(&self, buffer: &mut Self::Buffer, bytes: &[u8]) -> Result<(), PluginError> {
        // SAFETY: blocking write from a live slice.
        unsafe {
            self.queue
                .enqueue_write_buffer(buffer, CL_BLOCKING, 0, bytes, &[])
        }
        .map(drop)
        .map_err(|e| cl_error("copying to the device", e))
    }

    /// Copies from a staging buffer on the second queue, after a marker of
    /// the work queued so far on the first; each queue is flushed, as
    /// OpenCL requires of events waited for from another queue.
    fn write_async(&self, buffer: &mut Self::Buffer, bytes: &[u8]) -> Result<(), PluginError> {
        let failed = |e| cl_error("copying to the device", e);
        // SAFETY: a marker with no wait list waits for everything queued before.
        let launched = unsafe { self.queue.enqueue_marker_with_wait_list(&[]) }.map_err(failed)?;
        self.queue.flush().map_err(failed)?;
        let mut staging = self.staging.lock().unwrap_or_else(PoisonError::into_inner);
        for (index, piece) in bytes.chunks(STAGING_PIECE_BYTES).enumerate() {
            let slot = staging.next_slot();
            if let Some(copy) = slot.copy.take() {
                copy.wait().map_err(failed)?;
            }
            slot.bytes.clear();
            // A whole piece at once, so that no buffer grows past the size
            // `staging_bytes` reports (a vector grown by its pushes may
            // double), whatever the order of the pieces' sizes.
            slot.bytes.reserve_exact(STAGING_PIECE_BYTES);
            slot.bytes.extend_from_slice(piece);
            // SAFETY: non-blocking, so `slot.bytes` must stay allocated and
            // unchanged until the copy is done: it is only touched again
            // after waiting for `slot.copy`, and the engine finishes both
            // queues before it is dropped.
            let copy = unsafe {
                self.copies.enqueue_write_buffer(
                    buffer,
                    CL_NON_BLOCKING,
                    index * STAGING_PIECE_BYTES,
                    &slot.bytes,
                    &[launched.get()],
                )
            }
            .map_err(failed)?;
            slot.copy = Some(copy);
        }
        self.copies.flush().map_err(failed)
    }

    fn wait_writes(&self) -> Result<(), PluginError> {
        let failed = |e| cl_error("ordering kernels after copies", e);
        // SAFETY: a marker with no wait list waits for everything queued before.
        let uploaded = unsafe { self.copies.enqueue_marker_with_wait_list(&[]) }.map_err(failed)?;
        self.copies.flush().map_err(failed)?;
        // SAFETY: the wait list holds one live event.
        unsafe { self.queue.enqueue_barrier_with_wait_list(&[uploaded.get()]) }.map_err(failed)?;
        self.staging
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .batch += 1;
        Ok(())
    }

    fn read(&self, buffer: &Self::Buffer, bytes: &mut [u8]) -> Result<(), PluginError> {
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
        args: &[Arg<'_, Self::Buffer>],
    ) -> Result<(), PluginError> {
        if threads == 0 {
            return Ok(());
        }
        let (&name, (kernel, max_group)) = self.kernels.get_key_value(name).ok_or_else(|| {
            cl_error(
                &format!("running kernel {name}"),
                // CL_INVALID_KERNEL_NAME
                opencl3::error_codes::ClError(-46),
            )
        })?;
        let block = work_group(block, *max_group);
        for (index, arg) in args.iter().enumerate() {
            let index = index as u32;
            // SAFETY: the argument types match the kernel's signature in kernels/.
            unsafe {
                match arg {
                    Arg::Buffer(buffer) => kernel.set_arg(index, &buffer.get()),
                    Arg::U32(value) => kernel.set_arg(index, value),
                    Arg::Fr(value) => kernel.set_arg(index, value),
                }
            }
            .map_err(|e| cl_error(&format!("setting argument {index} of kernel {name}"), e))?;
        }
        // Whole groups: the kernels ignore the threads past their work.
        let global = threads.div_ceil(block) * block;
        // SAFETY: every argument of the kernel is set above.
        let event = unsafe {
            self.queue.enqueue_nd_range_kernel(
                kernel.get(),
                1,
                std::ptr::null(),
                &global,
                &block,
                &[],
            )
        }
        .map_err(|e| cl_error(&format!("running kernel {name}"), e))?;
        if let Some(times) = &self.kernel_times {
            let mut times = times.lock().unwrap_or_else(PoisonError::into_inner);
            times.record(name, LaunchEvent(event));
        }
        Ok(())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Pending uploads read the staging buffers, dropped after this.
        let _ = self.copies.finish();
        let _ = self.queue.finish();
        if let Some(times) = &self.kernel_times {
            times.lock().unwrap_or_else(PoisonError::into_inner).log();
        }
    }
}

/// Environment variable capping every kernel's work-group size: a test
/// hook that runs the kernels as on a device with smaller groups than the
/// test machine's (NVIDIA's OpenCL runs the heaviest kernels in groups of
/// 128 or 256 where PoCL takes 4096).
pub const MAX_GROUP_ENV: &str = "PCE_OPENCL_MAX_GROUP";

/// [`MAX_GROUP_ENV`]'s cap (at least 1), or no cap.
fn group_cap() -> usize {
    let Ok(value) = std::env::var(MAX_GROUP_ENV) else {
        return usize::MAX;
    };
    value
        .parse::<usize>()
        .map(|cap| cap.max(1))
        .unwrap_or_else(|_| {
            tracing::warn!(value, "{MAX_GROUP_ENV} is not a number of threads; ignored");
            usize::MAX
        })
}

/// The work-group size of a launch that asks for `block` threads a group
/// (or the default) of a kernel the device runs with at most `max_group`:
/// a larger group is refused by the driver (`CL_INVALID_WORK_GROUP_SIZE`).
/// The kernels that ask for a size take what they get: the NTT's local
/// stages ask for what `max_group` allows already, the sorted MSM's scan
/// and sums work with any group up to what they ask for.
fn work_group(block: Option<usize>, max_group: usize) -> usize {
    block.unwrap_or(DEFAULT_GROUP).min(max_group).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_work_group_never_exceeds_what_the_kernel_runs_with() {
        assert_eq!(work_group(None, 1024), DEFAULT_GROUP);
        assert_eq!(work_group(None, 32), 32);
        assert_eq!(work_group(Some(128), 1024), 128);
        assert_eq!(
            work_group(Some(128), 96),
            96,
            "the sorted MSM's sums on a small limit"
        );
        assert_eq!(work_group(Some(128), 0), 1);
    }
}
