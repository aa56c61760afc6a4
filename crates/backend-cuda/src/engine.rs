//! An open CUDA device: context, streams, staging memory and the loaded
//! kernels, as the shared algorithms' [`gpu_backend::engine::Engine`].
//!
//! Kernels and downloads run on one stream, uploads on a second, so that
//! the MSM driver's uploads of the next chunk overlap the kernels of the
//! current one (`write_async`, ordered by events). Host data goes through
//! page-locked staging buffers kept by the engine and reused from call to
//! call: copies from pageable memory are staged by the driver and return
//! only when done, so they can neither overlap kernels nor run at the
//! bus's full speed. [`GpuEngine::write`] and [`GpuEngine::read`] wait for
//! their copies, so every ABI operation is complete when it returns.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use backend_api::ffi::pce_fr;
use backend_api::plugin::{MemoryReport, PluginError};
use cudarc::driver::sys::{
    CUdevice_attribute, CUevent_flags, CUmemPool_attribute, CUmemoryPool, CUresult,
    CU_MEMHOSTALLOC_WRITECOMBINED,
};
use cudarc::driver::{
    result, CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut,
    DeviceRepr, DriverError, HostSlice, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use gpu_backend::cache::Pending;
use gpu_backend::engine::{
    Arg, Charged, Engine as GpuEngine, Ledger, Limits, KERNELS, NTT_MAX_LOCAL_LOG,
    STAGING_PIECE_BYTES,
};
use gpu_backend::plugin::Kernels;
use gpu_backend::profile::{self, KernelTimes, Timing};

use cudarc::nvrtc::Ptx;
use rayon::prelude::*;
use tracing::{debug, info, warn};

use crate::compile;
use crate::driver::{check_index, cuda_error};

/// Threads per block when the algorithm leaves the choice to the engine:
/// the kernels' launch bound.
const DEFAULT_BLOCK: usize = gpu_backend::MAX_BLOCK_THREADS as usize;

/// Most upload staging buffers. The ring grows (from one) when an
/// asynchronous upload would reuse a buffer whose copy belongs to the same
/// batch (the uploads since the last [`GpuEngine::wait_writes`]): that copy
/// waits for the kernels still reading its target, so reusing its buffer
/// would block the host until those kernels finish, before it has queued
/// the next kernels. A streamed MSM job is seven or eight pieces (a
/// 256 MiB chunk of bases in four, three arrays of terms); twelve cover it
/// with room, at most 768 MiB of page-locked memory, allocated only as far
/// as uploads need it.
///
/// The limit is in pieces of a job, not in bytes of an MSM. A job whose
/// uploads take more than twelve pieces of [`STAGING_PIECE_BYTES`] (more
/// than about 20 million terms at up to 40 bytes each; a resident MSM of
/// 2^27 full-width terms is about 80 pieces) and that follows another job
/// (a batch of MSMs, or a chunk the MSM's budget cut) is not copied while
/// the previous job's kernels run: its thirteenth piece waits for the copy
/// twelve pieces back, which waits for the kernels of the job before the
/// previous one, and so does every later piece, while the previous job's
/// kernels are only launched once all of this job's pieces are queued.
/// Copies and kernels then take turns: about (pieces − 12) × 64 MiB at
/// the bus's speed per such job, 0.2 s at 25 GB/s for 80 pieces. A single
/// job, or jobs of at most twelve pieces, overlap as intended. Neither a
/// byte cap nor launching the previous job's kernels before staging cures
/// it: holding the whole job would pin 5 GiB of host memory, and an upload
/// waits for every kernel queued before it, so a job staged after the
/// previous job's launch waits for all of that job. It would take copies
/// that wait only for the kernels reading their target (the job two back).
const MAX_UPLOAD_SLOTS: usize = 12;

/// Smallest staging buffer: small copies share one allocation size.
const MIN_STAGING_BYTES: usize = 1 << 20;

/// Page-locked host memory the engine copies through, allocated on first
/// use, grown on demand up to [`STAGING_PIECE_BYTES`] per buffer, and kept.
#[derive(Default)]
struct Staging {
    /// Write-combined buffers (the host only writes them), used in turn,
    /// each with the batch of its last copy.
    uploads: Vec<(Option<PinnedHostSlice<u8>>, u64)>,
    next_upload: usize,
    /// The batch of uploads being queued: counts the
    /// [`GpuEngine::wait_writes`] calls.
    batch: u64,
    /// Cached buffers (the host reads them); two, so that one piece is
    /// copied out while the next one arrives.
    downloads: [Option<PinnedHostSlice<u8>>; 2],
}

impl Staging {
    /// The upload buffer to use next. With `grow`, a buffer whose copy
    /// belongs to the current batch is not reused while the ring may still
    /// grow: a new one is put in its place in the ring (see
    /// [`MAX_UPLOAD_SLOTS`]).
    fn upload_slot(&mut self, grow: bool) -> usize {
        let next = self.next_upload;
        let busy = self
            .uploads
            .get(next)
            .is_some_and(|(_, batch)| *batch == self.batch);
        if next >= self.uploads.len() || (grow && busy && self.uploads.len() < MAX_UPLOAD_SLOTS) {
            self.uploads.insert(next, (None, self.batch));
        }
        self.uploads[next].1 = self.batch;
        self.next_upload = (next + 1) % self.uploads.len();
        next
    }
}

/// The page-locked buffer in `slot`, holding at least `bytes` (at most
/// [`STAGING_PIECE_BYTES`]); a smaller one is replaced, once the copies
/// queued on it are done (dropping a `PinnedHostSlice` waits for its event).
fn pinned<'s>(
    context: &Arc<CudaContext>,
    slot: &'s mut Option<PinnedHostSlice<u8>>,
    bytes: usize,
    flags: u32,
) -> Result<&'s mut PinnedHostSlice<u8>, DriverError> {
    if slot.as_ref().is_none_or(|pinned| pinned.len() < bytes) {
        *slot = None;
        let len = bytes
            .next_power_of_two()
            .clamp(MIN_STAGING_BYTES, STAGING_PIECE_BYTES);
        // SAFETY: the memory is zeroed below, before any slice of it exists.
        let mut fresh = unsafe { context.alloc_pinned_with_flags::<u8>(len, flags) }?;
        let start = fresh.as_mut_ptr()?;
        // SAFETY: `start` is the start of `len` bytes of fresh page-locked
        // memory that nothing else refers to yet.
        unsafe { std::ptr::write_bytes(start, 0, len) };
        *slot = Some(fresh);
    }
    Ok(slot.as_mut().expect("allocated above"))
}

/// Threads of `function` resident at once on one multiprocessor, in blocks
/// of [`DEFAULT_BLOCK`]: what the occupancy API says for the kernel as
/// compiled (registers limit the bucket kernels, up to 255 a thread, well
/// below the hardware's maximum), within `most`, the device's maximum
/// threads per multiprocessor (2048 on A100 and H100, 1536 on Ada).
///
/// Only the bucket kernels are sized so ([`Limits::g1_bucket_threads`],
/// [`Limits::g2_bucket_threads`]): the MSM plan counts their waves, and a
/// second wave repeats each thread's bucket sum. G2's kernel works on Fp2
/// points and is compiled with its own register count, so each has its
/// own figure.
/// `sum_bases` cuts a fixed amount of work into slices: more slices than
/// run at once cost a short second wave, fewer leave multiprocessors idle,
/// so it gets the hardware's maximum ([`Limits::parallel_threads`]) rather
/// than the bucket kernel's occupancy, which could be a quarter of it.
fn resident_threads(function: &CudaFunction, most: u32) -> Result<u32, DriverError> {
    let blocks =
        function.occupancy_max_active_blocks_per_multiprocessor(DEFAULT_BLOCK as u32, 0, None)?;
    Ok(blocks.saturating_mul(DEFAULT_BLOCK as u32).clamp(1, most))
}

/// Logs what `function` takes of a multiprocessor (registers and local
/// memory a thread, as compiled): occupancy and spills are the first thing
/// to read when a kernel is slower than its arithmetic.
fn log_resources(name: &str, function: &CudaFunction) {
    match (function.num_regs(), function.local_size_bytes()) {
        (Ok(registers), Ok(local_bytes)) => {
            debug!(kernel = name, registers, local_bytes, "kernel resources")
        }
        (Err(error), _) | (_, Err(error)) => {
            debug!(kernel = name, %error, "kernel resources unknown")
        }
    }
}

/// A field element passed to a kernel by value.
#[repr(transparent)]
struct FrArg(pce_fr);
// SAFETY: four u64 limbs, the layout of the kernels' Fr.
unsafe impl DeviceRepr for FrArg {}

/// An open device.
pub struct Engine {
    /// Kernels and downloads.
    stream: Arc<CudaStream>,
    /// Uploads, overlapping the kernels on `stream`.
    copies: Arc<CudaStream>,
    /// Records the work queued on `stream`, for uploads to wait on.
    launched: CudaEvent,
    /// Records the uploads queued on `copies`, for kernels to wait on.
    uploaded: CudaEvent,
    staging: Mutex<Staging>,
    /// What went through the staging buffers, logged when the engine
    /// closes.
    copied: CopyStats,
    functions: HashMap<&'static str, CudaFunction>,
    limits: Limits,
    /// The buffers allocated, against [`Limits::memory`].
    ledger: Ledger,
    /// Each kernel launch's pair of timing events, with `$PCE_GPU_PROFILE`
    /// set.
    kernel_times: Option<Mutex<KernelTimes<LaunchEvents>>>,
    /// The device's current memory pool, which cudarc's stream-ordered
    /// allocations (`cuMemAllocAsync`) draw from, when the device has
    /// pools.
    pool: Option<Pool>,
    /// Kernels compiled at open, until they are cached
    /// ([`GpuEngine::cache_kernels`]).
    uncached: Pending,
}

/// A CUDA memory pool that keeps the memory freed into it.
///
/// With the default release threshold (0) the driver hands a pool's free
/// memory back at every synchronisation, so the buckets, terms and NTT
/// buffers of each operation were mapped afresh each time; with the
/// threshold at its maximum they stay in the pool and the next operation's
/// allocations reuse them. Memory kept so is free for this process only:
/// the engine counts it as free ([`Pool::unused`]) and hands it back when
/// one of its allocations fails ([`Pool::trim`]), but to other processes
/// (another prover on the same GPU, `nvidia-smi`) it is in use until this
/// one trims it or exits: after a large MSM, up to its buckets and terms.
struct Pool(CUmemoryPool);

// SAFETY: a memory pool handle is a driver object that the driver API
// lets any thread of the process use.
unsafe impl Send for Pool {}
// SAFETY: as above; the handle itself is never changed.
unsafe impl Sync for Pool {}

impl Pool {
    /// The current pool of `context`'s device (what `cuMemAllocAsync`
    /// draws from: the default pool unless the process set another), set
    /// to keep freed memory; `None` without pools (cudarc then allocates
    /// synchronously) or when the pool cannot be queried. Where the
    /// threshold cannot be set (MPS, vGPU and WSL may refuse it) the pool
    /// hands its memory back as before: slower, not wrong, so the device
    /// opens all the same.
    fn keeping(context: &CudaContext) -> Option<Self> {
        if !context.has_async_alloc() {
            return None;
        }
        // SAFETY: the device handle is the context's own.
        let pool = match unsafe { result::device::get_mem_pool(context.cu_device()) } {
            Ok(pool) => pool,
            Err(error) => {
                warn!(%error, "no memory pool to keep freed device memory in");
                return None;
            }
        };
        let mut threshold: u64 = u64::MAX;
        // SAFETY: the release threshold is a cuuint64_t, `threshold` one.
        let kept = unsafe {
            result::mem_pool::set_attribute(
                pool,
                CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&mut threshold as *mut u64).cast(),
            )
        };
        if let Err(error) = kept {
            warn!(%error, "the device's memory pool cannot keep freed memory; each operation maps its buffers afresh");
        }
        Some(Self(pool))
    }

    /// Bytes the pool holds that no allocation uses (free to this engine,
    /// though `cuMemGetInfo` counts them as used).
    fn unused(&self) -> Result<u64, DriverError> {
        let attribute = |attribute| {
            let mut value: u64 = 0;
            // SAFETY: both attributes are cuuint64_t, `value` one.
            unsafe {
                result::mem_pool::get_attribute(self.0, attribute, (&mut value as *mut u64).cast())
            }
            .map(|()| value)
        };
        let reserved = attribute(CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?;
        let used = attribute(CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?;
        Ok(reserved.saturating_sub(used))
    }

    /// Hands the memory the pool keeps unused back to the driver.
    fn trim(&self) -> Result<(), DriverError> {
        // SAFETY: a valid pool; trimming only releases unused memory.
        unsafe { result::mem_pool::trim_to(self.0, 0) }
    }
}

impl Engine {
    /// Opens device `index`: its primary context, streams, and the kernels
    /// for its architecture, from the cache or compiled as `wanted` says;
    /// with where they came from.
    pub fn open(index: u32, wanted: Kernels) -> Result<(Self, Kernels), PluginError> {
        check_index(index)?;
        let context = CudaContext::new(index as usize)
            .map_err(|e| cuda_error("creating a CUDA context", e))?;
        let query = |e| cuda_error("querying the CUDA device", e);
        let (major, minor) = context.compute_capability().map_err(query)?;
        let arch = format!("{major}{minor}");
        let (mut image, mut origin) = compile::kernels(&arch, wanted)?;
        let module = match context.load_module(Ptx::from_binary(image.clone())) {
            Ok(module) => module,
            Err(error) if origin == Kernels::Cached => {
                // A cached image the driver refuses (a CUBIN or PTX from a
                // newer NVRTC): compiled once more here, then it is a real
                // error.
                warn!(arch, %error, "the cached CUDA kernels did not load; compiling them again");
                origin = Kernels::Compiled;
                image = compile::rebuild(&arch)?;
                context
                    .load_module(Ptx::from_binary(image.clone()))
                    .map_err(|e| cuda_error("loading the compiled kernels", e))?
            }
            Err(error) if origin == Kernels::DriverCompiled => {
                return Err(cuda_error(
                    "compiling NVRTC's PTX with the driver's compiler",
                    error,
                ))
            }
            Err(error) => return Err(cuda_error("loading the compiled kernels", error)),
        };
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
        let most = context
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
            .map_err(query)?
            .max(1) as u32;
        let resident = |name: &str| {
            resident_threads(&functions[name], most)
                .map(|threads| units.saturating_mul(threads))
                .map_err(query)
        };
        let (g1_bucket_threads, g2_bucket_threads) =
            (resident("G1_msm_buckets")?, resident("G2_msm_buckets")?);
        info!(
            units,
            most,
            g1_bucket_threads,
            g2_bucket_threads,
            "threads resident at once: device, MSM bucket kernels"
        );
        for (name, function) in &functions {
            log_resources(name, function);
        }
        let pool = Pool::keeping(&context);
        let memory = context.total_mem().map_err(query)? as u64;
        let created = |e| cuda_error("creating CUDA streams and events", e);
        let stream = context.new_stream().map_err(created)?;
        let copies = context.new_stream().map_err(created)?;
        let launched = context.new_event(None).map_err(created)?;
        let uploaded = context.new_event(None).map_err(created)?;
        // Staging relies on cudarc recording each pinned buffer's copies in
        // the buffer's event, which it does with several streams and event
        // tracking (its default).
        if !context.is_managing_stream_synchronization() {
            return Err(cuda_error(
                "opening the device (cudarc does not track events)",
                DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_NOT_SUPPORTED),
            ));
        }
        let limits = Limits {
            parallel_threads: units.saturating_mul(most),
            g1_bucket_threads,
            g2_bucket_threads,
            max_alloc: memory,
            memory,
            ntt_local_log: NTT_MAX_LOCAL_LOG,
        }
        .capped_by_env();
        let engine = Self {
            stream,
            copies,
            launched,
            uploaded,
            staging: Mutex::default(),
            copied: CopyStats::default(),
            functions,
            pool,
            ledger: Ledger::new(limits.memory),
            limits,
            kernel_times: profile::requested().then(Mutex::default),
            uncached: match origin {
                Kernels::Cached => Pending::default(),
                _ => Pending::new(compile::cache_file(&arch), image),
            },
        };
        Ok((engine, origin))
    }

    /// Free device memory for this engine: `cuMemGetInfo`'s (other
    /// processes count) and what the pool keeps unused.
    fn free(&self) -> Result<u64, DriverError> {
        let (free, _) = self.stream.context().mem_get_info()?;
        let kept = match &self.pool {
            Some(pool) => pool.unused()?,
            None => 0,
        };
        Ok(free as u64 + kept)
    }

    fn staging(&self) -> std::sync::MutexGuard<'_, Staging> {
        // The staging buffers hold no state beyond their events.
        self.staging.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Copies `piece` of the host data, at `offset` in `buffer`, from an
    /// upload staging buffer on the copy stream.
    fn upload_piece(
        &self,
        staging: &mut Staging,
        buffer: &mut CudaSlice<u8>,
        offset: usize,
        piece: &[u8],
        grow: bool,
    ) -> Result<(), DriverError> {
        let slot = staging.upload_slot(grow);
        let context = self.stream.context();
        // The raw copy below needs the context current on this thread.
        context.bind_to_thread()?;
        let staged = pinned(
            context,
            &mut staging.uploads[slot].0,
            piece.len(),
            CU_MEMHOSTALLOC_WRITECOMBINED,
        )?;
        // Waits until the buffer's previous copy is done.
        let staged_bytes = &mut staged.as_mut_slice()?[..piece.len()];
        self.copied
            .up
            .count(piece.len(), || copy(staged_bytes, piece));
        let mut target = buffer.slice_mut(offset..offset + piece.len());
        let (target, _record_target) = target.device_ptr_mut(&self.copies);
        // SAFETY: the slice is only used by the copy below, on `copies`;
        // dropping `_record_source` records that copy in the staging
        // buffer's event, which its next use waits for.
        let (source, _record_source) = unsafe { staged.stream_synced_slice(&self.copies) };
        // SAFETY: `target` addresses `piece.len()` bytes of `buffer`; the
        // source is page-locked and stays allocated and unchanged until the
        // copy is done (see above).
        unsafe {
            result::memcpy_htod_async(target, &source[..piece.len()], self.copies.cu_stream())
        }
    }

    /// Queues the upload of `bytes` to the start of `buffer` on the copy
    /// stream, through the staging buffers (growing their ring when `grow`,
    /// see [`MAX_UPLOAD_SLOTS`]).
    fn upload(
        &self,
        buffer: &mut CudaSlice<u8>,
        bytes: &[u8],
        grow: bool,
    ) -> Result<(), PluginError> {
        let failed = |e| cuda_error("copying to the device", e);
        // The copy waits for the work queued on the compute stream so far:
        // the kernels that may still read `buffer`, and its allocation,
        // which is ordered on that stream (cudarc's own tracking does not
        // cover the allocation).
        self.launched.record(&self.stream).map_err(failed)?;
        self.copies.wait(&self.launched).map_err(failed)?;
        let mut staging = self.staging();
        for (index, piece) in bytes.chunks(STAGING_PIECE_BYTES).enumerate() {
            let offset = index * STAGING_PIECE_BYTES;
            self.upload_piece(&mut staging, buffer, offset, piece, grow)
                .map_err(failed)?;
        }
        Ok(())
    }

    /// Queues the copy of `range` of `buffer` into download staging buffer
    /// `slot`, on the compute stream (after the kernels launched before).
    fn download_piece(
        &self,
        staging: &mut Staging,
        slot: usize,
        buffer: &CudaSlice<u8>,
        range: Range<usize>,
    ) -> Result<(), DriverError> {
        let context = self.stream.context();
        // The raw copy below needs the context current on this thread.
        context.bind_to_thread()?;
        let staged = pinned(context, &mut staging.downloads[slot], range.len(), 0)?;
        let len = range.len();
        let source = buffer.slice(range);
        let (source, _record_source) = source.device_ptr(&self.stream);
        // SAFETY: the slice is only used by the copy below, on `stream`;
        // dropping `_record_target` records that copy in the staging
        // buffer's event, which `as_slice` waits for before the host reads.
        let (target, _record_target) = unsafe { staged.stream_synced_mut_slice(&self.stream) };
        // SAFETY: `source` addresses `len` bytes of `buffer`; the target is
        // page-locked and the host does not touch it until the copy is done.
        unsafe { result::memcpy_dtoh_async(&mut target[..len], source, self.stream.cu_stream()) }
    }
}

impl GpuEngine for Engine {
    type Buffer = Charged<CudaSlice<u8>>;

    fn limits(&self) -> Limits {
        self.limits
    }

    /// The driver's free memory (other processes count) and what the pool
    /// keeps unused, within what the ledger leaves under the memory this
    /// engine may use (`PCE_GPU_MEMORY_LIMIT` caps it). Where the driver
    /// cannot say, the ledger's figure alone: reading a failed query as
    /// nothing free would size every MSM for no memory, and an allocation
    /// that does not fit is refused and retried narrower anyway.
    fn free_memory(&self) -> u64 {
        let left = self.ledger.available();
        match self.free() {
            Ok(free) => free.min(left),
            Err(error) => {
                warn!(%error, "querying free device memory failed; using what this engine's buffers leave");
                left
            }
        }
    }

    fn memory(&self) -> Result<MemoryReport, PluginError> {
        let free = self
            .free()
            .map_err(|e| cuda_error("querying free device memory", e))?;
        Ok(MemoryReport {
            free: free.min(self.ledger.available()),
            total: self.limits.memory,
        })
    }

    /// The upload ring at its largest and the two download buffers, each
    /// of at most one piece, all page-locked ([`Staging`]).
    fn staging_bytes(&self) -> u64 {
        ((MAX_UPLOAD_SLOTS + 2) * STAGING_PIECE_BYTES) as u64
    }

    fn cache_kernels(&self) {
        self.uncached.store();
    }

    /// A stream-ordered allocation from the pool; when the device is out of
    /// memory, once more after the pool has handed back what it keeps
    /// unused (memory it holds in pieces too small for this buffer).
    /// Counted in the ledger first: beyond [`Limits::memory`] the buffer is
    /// refused as out of memory.
    fn buffer(&self, bytes: usize) -> Result<Self::Buffer, PluginError> {
        let charge = self.ledger.charge(bytes.max(1) as u64)?;
        let failed = |e| cuda_error(&format!("allocating {bytes} bytes of device memory"), e);
        // SAFETY: every kernel writes a buffer before reading it, or the
        // host fills it first.
        let alloc = || unsafe { self.stream.alloc::<u8>(bytes.max(1)) };
        match (alloc(), &self.pool) {
            (Err(e), Some(pool)) if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                // Frees queued on the stream return their memory to the
                // pool when they run: wait for them before trimming.
                self.stream.synchronize().map_err(failed)?;
                pool.trim().map_err(failed)?;
                alloc().map_err(failed)
            }
            (allocated, _) => allocated.map_err(failed),
        }
        .map(|buffer| Charged::new(buffer, charge))
    }

    fn write(&self, buffer: &mut Self::Buffer, bytes: &[u8]) -> Result<(), PluginError> {
        // Waited for at once: reusing staging buffers costs nothing here.
        self.upload(buffer, bytes, false)?;
        self.copies
            .synchronize()
            .map_err(|e| cuda_error("copying to the device", e))
    }

    /// Uploads on the copy stream, through the staging buffers in turn, in
    /// pieces of at most [`STAGING_PIECE_BYTES`]: the host fills one
    /// staging buffer while the previous piece is on its way.
    fn write_async(&self, buffer: &mut Self::Buffer, bytes: &[u8]) -> Result<(), PluginError> {
        self.upload(buffer, bytes, true)
    }

    fn wait_writes(&self) -> Result<(), PluginError> {
        let failed = |e| cuda_error("ordering kernels after copies", e);
        self.uploaded.record(&self.copies).map_err(failed)?;
        self.stream.wait(&self.uploaded).map_err(failed)?;
        self.staging().batch += 1;
        Ok(())
    }

    /// Downloads on the compute stream through two staging buffers: piece
    /// i + 1 is on its way while the host copies piece i out.
    fn read(&self, buffer: &Self::Buffer, bytes: &mut [u8]) -> Result<(), PluginError> {
        let failed = |e| cuda_error("copying from the device", e);
        let mut staging = self.staging();
        let mut arrived: Option<(usize, Range<usize>)> = None;
        let starts = (0..bytes.len()).step_by(STAGING_PIECE_BYTES);
        for (index, start) in starts.enumerate() {
            let range = start..(start + STAGING_PIECE_BYTES).min(bytes.len());
            let slot = index % 2;
            self.download_piece(&mut staging, slot, buffer, range.clone())
                .map_err(failed)?;
            if let Some((slot, range)) = arrived.replace((slot, range)) {
                copy_out(&staging, slot, &mut bytes[range], &self.copied).map_err(failed)?;
            }
        }
        if let Some((slot, range)) = arrived {
            copy_out(&staging, slot, &mut bytes[range], &self.copied).map_err(failed)?;
        }
        Ok(())
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
        let block = block.unwrap_or(DEFAULT_BLOCK).min(threads);
        let config = LaunchConfig {
            grid_dim: (threads.div_ceil(block) as u32, 1, 1),
            block_dim: (block as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let (&name, function) = self.functions.get_key_value(name).ok_or_else(|| {
            cuda_error(
                &format!("running kernel {name}"),
                DriverError(CUresult::CUDA_ERROR_NOT_FOUND),
            )
        })?;
        let mut launch = self.stream.launch_builder(function);
        if self.kernel_times.is_some() {
            launch.record_kernel_launch(CUevent_flags::CU_EVENT_DEFAULT);
        }
        for arg in args {
            match arg {
                Arg::Buffer(buffer) => {
                    let slice: &CudaSlice<u8> = buffer;
                    launch.arg(slice)
                }
                Arg::U32(value) => launch.arg(value),
                // SAFETY: FrArg is a transparent wrapper of pce_fr.
                Arg::Fr(value) => launch.arg(unsafe { &*(value as *const pce_fr as *const FrArg) }),
            };
        }
        // SAFETY: the argument types match the kernel's signature in kernels/.
        let events = unsafe { launch.launch(config) }
            .map_err(|e| cuda_error(&format!("running kernel {name}"), e))?;
        if let (Some(times), Some((start, end))) = (&self.kernel_times, events) {
            let mut times = times.lock().unwrap_or_else(PoisonError::into_inner);
            times.record(name, LaunchEvents { start, end });
        }
        Ok(())
    }
}

/// Copies the start of download staging buffer `slot` into `bytes`, once
/// the copy queued into it is done.
fn copy_out(
    staging: &Staging,
    slot: usize,
    bytes: &mut [u8],
    copied: &CopyStats,
) -> Result<(), DriverError> {
    let staged = staging.downloads[slot]
        .as_ref()
        .expect("a piece was queued into this buffer");
    let staged = &staged.as_slice()?[..bytes.len()];
    copied.down.count(bytes.len(), || copy(bytes, staged));
    Ok(())
}

/// Copies at least this large are split over the host's threads: one
/// thread filling write-combined page-locked memory, or reading a staging
/// buffer out, moves a few GB/s, several times below the bus's speed.
const PARALLEL_COPY_BYTES: usize = 4 << 20;

/// `to.copy_from_slice(from)`, by several threads when it is large.
fn copy(to: &mut [u8], from: &[u8]) {
    const PIECE: usize = 1 << 20;
    assert_eq!(
        to.len(),
        from.len(),
        "a copy between slices of different lengths"
    );
    if from.len() < PARALLEL_COPY_BYTES {
        to.copy_from_slice(from);
    } else {
        to.par_chunks_mut(PIECE)
            .zip(from.par_chunks(PIECE))
            .for_each(|(to, from)| to.copy_from_slice(from));
    }
}

/// Bytes the host copied into or out of staging buffers and the time it
/// took: with the transfers' own times (`bench partition`, `bench
/// backend`), whether the host's side of a copy is what limits it.
#[derive(Default)]
struct CopyStats {
    up: Tally,
    down: Tally,
}

/// Bytes and nanoseconds of one direction's host copies.
#[derive(Default)]
struct Tally {
    bytes: AtomicU64,
    nanos: AtomicU64,
}

impl Tally {
    /// Runs `copy` of `bytes` bytes and counts it.
    fn count(&self, bytes: usize, copy: impl FnOnce()) {
        let started = Instant::now();
        copy();
        let nanos = started.elapsed().as_nanos() as u64;
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    /// (GB, seconds, GB/s) so far.
    fn figures(&self) -> (f64, f64, f64) {
        let gb = self.bytes.load(Ordering::Relaxed) as f64 / 1e9;
        let seconds = self.nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let rate = if seconds > 0.0 { gb / seconds } else { 0.0 };
        (gb, seconds, rate)
    }
}

/// The events recorded just before and after a kernel launch.
struct LaunchEvents {
    start: CudaEvent,
    end: CudaEvent,
}

impl Timing for LaunchEvents {
    fn millis(&self) -> Result<f64, String> {
        self.start
            .elapsed_ms(&self.end)
            .map(f64::from)
            .map_err(|e| e.to_string())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(times) = &self.kernel_times {
            times.lock().unwrap_or_else(PoisonError::into_inner).log();
        }
        let (up_gb, up_seconds, up_rate) = self.copied.up.figures();
        let (down_gb, down_seconds, down_rate) = self.copied.down.figures();
        info!(
            up_gb,
            up_seconds,
            up_rate,
            down_gb,
            down_seconds,
            down_rate,
            "host side of the device's copies (into and out of staging buffers; GB/s)"
        );
    }
}
