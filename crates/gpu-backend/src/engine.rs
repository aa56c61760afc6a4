//! What a GPU backend provides to the shared algorithms: buffers, copies
//! and kernel launches on one device.
//!
//! The NTT ([`crate::ntt`]) and MSM ([`crate::msm`]) drivers are written
//! once against [`Engine`]; the OpenCL and CUDA backends implement it over
//! their APIs and do nothing else.
//!
//! Copies come in two kinds. [`Engine::write`] and [`Engine::read`] are
//! complete when they return. [`Engine::write_async`] only starts an upload
//! (on a second queue or stream, from the engine's own staging memory) and
//! [`Engine::wait_writes`] makes the kernels launched afterwards wait for
//! it: with these two the MSM driver uploads the next chunk's data while
//! the kernels of the current one run (double buffering), and an API that
//! cannot overlap keeps the synchronous defaults, which give the same
//! results.

use backend_api::ffi::{
    pce_fr, pce_g1_affine, pce_g1_projective, pce_g2_affine, pce_g2_projective, pce_scalar,
};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use backend_api::ffi::PCE_ERR_OUT_OF_MEMORY;
use backend_api::plugin::{MemoryReport, PluginError};

/// Types that may be copied to and from device memory as raw bytes: plain
/// data with the layout the kernels declare.
///
/// # Safety
/// Implementors have no padding and no invalid bit patterns.
pub unsafe trait Plain: Copy + Send + Sync + 'static {}
// SAFETY: an integer: no padding, every bit pattern valid.
unsafe impl Plain for u32 {}
// SAFETY: the ABI types below are repr(C) arrays of u64 limbs (nested for
// points): no padding, and every bit pattern is a value of the layout.
unsafe impl Plain for pce_fr {}
// SAFETY: as above.
unsafe impl Plain for pce_scalar {}
// SAFETY: as above.
unsafe impl Plain for pce_g1_affine {}
// SAFETY: as above.
unsafe impl Plain for pce_g2_affine {}
// SAFETY: as above.
unsafe impl Plain for pce_g1_projective {}
// SAFETY: as above.
unsafe impl Plain for pce_g2_projective {}

/// The bytes of `values`.
pub fn bytes_of<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: `Plain` types have no padding.
    unsafe { std::slice::from_raw_parts(values.as_ptr() as *const u8, size_of_val(values)) }
}

/// The bytes of `values`, writable.
pub fn bytes_of_mut<T: Plain>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: `Plain` types accept any bit pattern.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr() as *mut u8, size_of_val(values)) }
}

/// A kernel argument.
pub enum Arg<'a, B> {
    /// A device buffer.
    Buffer(&'a B),
    /// A 32-bit unsigned integer.
    U32(u32),
    /// A scalar field element, by value.
    Fr(pce_fr),
}

/// What the algorithms need to know about the device.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Threads the device keeps resident at once (multiprocessors ×
    /// their most resident threads): the slices of kernels whose threads
    /// share a fixed amount of work (`sum_bases`), where more threads than
    /// run at once only cost a short extra wave and fewer leave
    /// multiprocessors idle.
    pub parallel_threads: u32,
    /// Threads of `G1_msm_buckets` resident at once, which its registers
    /// may hold well below [`Self::parallel_threads`]: the MSM plan counts
    /// waves of these, and each thread of a further wave also repeats the
    /// sum of its buckets, so overestimating them picks plans that run in
    /// several waves.
    pub g1_bucket_threads: u32,
    /// The same for `G2_msm_buckets` (Fp2 points: more registers a thread).
    pub g2_bucket_threads: u32,
    /// Largest single buffer, in bytes.
    pub max_alloc: u64,
    /// Device memory, in bytes.
    pub memory: u64,
    /// Stages of an NTT block done in shared memory (log of the block
    /// size, at most [`NTT_MAX_LOCAL_LOG`]).
    pub ntt_local_log: u32,
}

/// Environment variable capping the device memory the GPU backends use, in
/// bytes: a test hook that makes small MSMs exercise chunked and streamed
/// bases on any device.
pub const MEMORY_LIMIT_ENV: &str = "PCE_GPU_MEMORY_LIMIT";

impl Limits {
    /// These limits with the memory capped by `$PCE_GPU_MEMORY_LIMIT` when
    /// set (single buffers then get at most a quarter of it).
    pub fn capped_by_env(self) -> Self {
        let cap = std::env::var(MEMORY_LIMIT_ENV)
            .ok()
            .and_then(|value| value.parse::<u64>().ok());
        match cap {
            Some(cap) => Limits {
                memory: self.memory.min(cap),
                max_alloc: self.max_alloc.min(cap / 4).max(1),
                ..self
            },
            None => self,
        }
    }
}

/// One device of a GPU API, with the kernels of [`crate::source`] built.
pub trait Engine {
    /// A device buffer of bytes.
    type Buffer;
    /// The device's limits.
    fn limits(&self) -> Limits;
    /// A device buffer of `bytes` bytes (contents undefined).
    fn buffer(&self, bytes: usize) -> Result<Self::Buffer, PluginError>;
    /// Copies `bytes` to the start of `buffer`; complete when it returns
    /// (after the kernels launched before, which may read `buffer`).
    fn write(&self, buffer: &mut Self::Buffer, bytes: &[u8]) -> Result<(), PluginError>;
    /// Copies the start of `buffer` into `bytes` (waiting for the kernels
    /// launched before).
    fn read(&self, buffer: &Self::Buffer, bytes: &mut [u8]) -> Result<(), PluginError>;
    /// Runs kernel `name` over `threads` threads, in blocks of `block`
    /// threads (or the driver's choice); the kernels ignore threads past
    /// their work.
    fn launch(
        &self,
        name: &str,
        threads: usize,
        block: Option<usize>,
        args: &[Arg<'_, Self::Buffer>],
    ) -> Result<(), PluginError>;

    /// Starts copying `bytes` to the start of `buffer`, possibly
    /// overlapping kernels: the copy runs after the kernels launched before
    /// this call (so they still read the old contents), and the kernels
    /// launched after the next [`Engine::wait_writes`] see the new ones.
    /// Kernels launched in between must not use `buffer`. The engine
    /// stages `bytes` (in page-locked memory where the API has it), so the
    /// caller may reuse them at once. By default a synchronous
    /// [`Engine::write`].
    fn write_async(&self, buffer: &mut Self::Buffer, bytes: &[u8]) -> Result<(), PluginError> {
        self.write(buffer, bytes)
    }

    /// Makes the kernels launched from now on wait for every
    /// [`Engine::write_async`] started before. Nothing to do by default.
    fn wait_writes(&self) -> Result<(), PluginError> {
        Ok(())
    }

    /// Bytes of device memory this engine may still allocate now: what the
    /// driver reports free (other processes count) within what the
    /// engine's [`Ledger`] has left under [`Limits::memory`]. The MSM sizes
    /// its working memory from it and admits bases against it. By default
    /// the device's whole memory: engines that count their buffers do
    /// better.
    fn free_memory(&self) -> u64 {
        self.limits().memory
    }

    /// Free and total device memory, for the host's `device_memory`. By
    /// default the device's memory for both: engines whose API can say what
    /// is free do better.
    fn memory(&self) -> Result<MemoryReport, PluginError> {
        let total = self.limits().memory;
        Ok(MemoryReport { free: total, total })
    }

    /// The most host memory the engine holds for its copies while it is
    /// open (its staging buffers), for the host's `device_host_bytes`. By
    /// default none: an engine that copies straight from the caller's data.
    fn staging_bytes(&self) -> u64 {
        0
    }

    /// Stores the kernels this engine was opened with in the kernel cache:
    /// called once they are the build the device keeps (they passed the
    /// self-test, or are kept without their G2 MSMs), so that a build that
    /// failed more never replaces a cached one. Nothing to do for kernels
    /// read from the cache, nor by default.
    fn cache_kernels(&self) {}

    /// A device buffer holding a copy of `values`.
    fn upload<T: Plain>(&self, values: &[T]) -> Result<Self::Buffer, PluginError> {
        let mut buffer = self.buffer(size_of_val(values).max(1))?;
        if !values.is_empty() {
            self.write(&mut buffer, bytes_of(values))?;
        }
        Ok(buffer)
    }

    /// Copies the start of `buffer` into `values`.
    fn download<T: Plain>(
        &self,
        buffer: &Self::Buffer,
        values: &mut [T],
    ) -> Result<(), PluginError> {
        if values.is_empty() {
            return Ok(());
        }
        self.read(buffer, bytes_of_mut(values))
    }
}

/// The device memory an engine has allocated, counted against a cap
/// ([`Limits::memory`], which `$PCE_GPU_MEMORY_LIMIT` lowers).
///
/// Drivers report free memory late or not at all (OpenCL has no query;
/// CUDA's counts other processes but knows no cap), so the engines count
/// their own buffers: the MSM budgets its buckets and terms from what is
/// left, bases are admitted against it, and a buffer beyond the cap is
/// refused with `PCE_ERR_OUT_OF_MEMORY` as the device would refuse it. A
/// cap therefore makes any device, PoCL's included, behave like a small
/// GPU, out-of-memory paths included.
#[derive(Debug, Clone)]
pub struct Ledger {
    cap: u64,
    used: Arc<AtomicU64>,
}

impl Ledger {
    /// A ledger of `cap` bytes, none used.
    pub fn new(cap: u64) -> Self {
        Self {
            cap,
            used: Arc::default(),
        }
    }

    /// Bytes left under the cap.
    pub fn available(&self) -> u64 {
        self.cap.saturating_sub(self.used.load(Ordering::Relaxed))
    }

    /// Counts `bytes` until the returned charge is dropped, or refuses them
    /// when they would pass the cap.
    pub fn charge(&self, bytes: u64) -> Result<Charge, PluginError> {
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let total = used.saturating_add(bytes);
            if total > self.cap {
                return Err(PluginError::new(
                    PCE_ERR_OUT_OF_MEMORY,
                    format!(
                        "allocating {bytes} bytes of device memory: {used} of the {} this engine may use are taken",
                        self.cap
                    ),
                ));
            }
            match self
                .used
                .compare_exchange_weak(used, total, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    return Ok(Charge {
                        bytes,
                        used: self.used.clone(),
                    })
                }
                Err(now) => used = now,
            }
        }
    }
}

/// Bytes counted in a [`Ledger`] until dropped.
#[derive(Debug)]
pub struct Charge {
    bytes: u64,
    used: Arc<AtomicU64>,
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.used.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// A device buffer of an API and its [`Charge`]: the charge is dropped
/// after the buffer (fields drop in order), when the API has been told to
/// free it.
#[derive(Debug)]
pub struct Charged<B> {
    buffer: B,
    _charge: Charge,
}

impl<B> Charged<B> {
    /// `buffer`, counted by `charge`.
    pub fn new(buffer: B, charge: Charge) -> Self {
        Self {
            buffer,
            _charge: charge,
        }
    }
}

impl<B> Deref for Charged<B> {
    type Target = B;
    fn deref(&self) -> &B {
        &self.buffer
    }
}

impl<B> DerefMut for Charged<B> {
    fn deref_mut(&mut self) -> &mut B {
        &mut self.buffer
    }
}

/// Whether `error` carries `PCE_ERR_OUT_OF_MEMORY`. Not only device
/// buffers that do not fit do: see [`AllocationWatch`] for the errors
/// worth retrying in less device memory.
pub fn out_of_memory(error: &PluginError) -> bool {
    error.status == PCE_ERR_OUT_OF_MEMORY
}

/// An engine that remembers the last of its buffer allocations refused as
/// out of memory ([`Engine::buffer`]: by the driver, or by the engine's
/// [`Ledger`]), so that the MSM and the QAP step retry in less device
/// memory only when a device buffer did not fit.
///
/// The status alone cannot tell: OpenCL drivers report kernel faults as
/// `CL_OUT_OF_RESOURCES` (NVIDIA's does) and a host allocation that fails
/// as `CL_OUT_OF_HOST_MEMORY`, CUDA a page-locked staging buffer it cannot
/// allocate as `CUDA_ERROR_OUT_OF_MEMORY`, and all of them reach the
/// caller as `PCE_ERR_OUT_OF_MEMORY`. Less device memory cures none of
/// them, so retrying would only repeat the failure (or run a faulty kernel
/// again).
pub struct AllocationWatch<'e, E> {
    engine: &'e E,
    refused: Mutex<Option<PluginError>>,
}

impl<'e, E: Engine> AllocationWatch<'e, E> {
    /// Watches the allocations made through it on `engine`.
    pub fn new(engine: &'e E) -> Self {
        Self {
            engine,
            refused: Mutex::default(),
        }
    }

    /// Whether `error` is the error of the last buffer refused as out of
    /// memory since the previous call: an operation returns that error
    /// unchanged when the buffer it needs does not fit. An error that only
    /// has the same status, or whose message was changed on the way, is
    /// not (it fails without a retry, rather than retrying what less
    /// memory cannot cure).
    pub fn refused(&self, error: &PluginError) -> bool {
        let refused = self
            .refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        out_of_memory(error) && refused.as_ref() == Some(error)
    }
}

impl<E: Engine> Engine for AllocationWatch<'_, E> {
    type Buffer = E::Buffer;

    fn limits(&self) -> Limits {
        self.engine.limits()
    }

    fn buffer(&self, bytes: usize) -> Result<Self::Buffer, PluginError> {
        self.engine.buffer(bytes).inspect_err(|error| {
            if out_of_memory(error) {
                *self.refused.lock().unwrap_or_else(PoisonError::into_inner) = Some(error.clone());
            }
        })
    }

    fn write(&self, buffer: &mut Self::Buffer, bytes: &[u8]) -> Result<(), PluginError> {
        self.engine.write(buffer, bytes)
    }

    fn read(&self, buffer: &Self::Buffer, bytes: &mut [u8]) -> Result<(), PluginError> {
        self.engine.read(buffer, bytes)
    }

    fn launch(
        &self,
        name: &str,
        threads: usize,
        block: Option<usize>,
        args: &[Arg<'_, Self::Buffer>],
    ) -> Result<(), PluginError> {
        self.engine.launch(name, threads, block, args)
    }

    fn write_async(&self, buffer: &mut Self::Buffer, bytes: &[u8]) -> Result<(), PluginError> {
        self.engine.write_async(buffer, bytes)
    }

    fn wait_writes(&self) -> Result<(), PluginError> {
        self.engine.wait_writes()
    }

    fn free_memory(&self) -> u64 {
        self.engine.free_memory()
    }

    fn memory(&self) -> Result<MemoryReport, PluginError> {
        self.engine.memory()
    }

    fn staging_bytes(&self) -> u64 {
        self.engine.staging_bytes()
    }
}

/// Kernel names of [`crate::source`] every engine must create.
pub const KERNELS: [&str; 22] = [
    "ntt_bit_reverse",
    "ntt_local_stages",
    "ntt_global_stage",
    "ntt_scale",
    "qap_mul",
    "qap_combine",
    "msm_digits",
    "msm_scan",
    "G1_msm_buckets",
    "G1_sum_bases",
    "G1_msm_reduce",
    "G1_msm_combine",
    "G1_msm_finish",
    "G1_msm_sorted_sums",
    "G1_msm_sorted_reduce",
    "G2_msm_buckets",
    "G2_sum_bases",
    "G2_msm_reduce",
    "G2_msm_combine",
    "G2_msm_finish",
    "G2_msm_sorted_sums",
    "G2_msm_sorted_reduce",
];

/// Largest piece an engine copies through one staging buffer: larger
/// copies go through in pieces, so staging memory stays bounded (a few
/// pieces per device) whatever the size of the data.
pub const STAGING_PIECE_BYTES: usize = 64 << 20;

pub use crate::source::NTT_MAX_LOCAL_LOG;
