//! The GPU backend of pce-prover, whole but for the API plumbing: the
//! kernels, the plugin, the MSM scheduler, the NTT driver and the cache of
//! compiled kernels, shared by the OpenCL and CUDA plugins.
//!
//! The kernels live in this crate's `kernels/`, written once in a dialect
//! that compiles as OpenCL C and as CUDA C++ (`kernels/dialect.h`), with
//! the constants both sides need passed to the compiler. This crate
//! assembles them into one source ([`source`]) and holds what every GPU
//! backend does around them on the host: splitting MSM scalars (by
//! backend-api's rule), choosing the window size and pipelining the
//! uploads of MSM chunks against their kernels ([`msm`]), the NTT twiddle
//! tables, scale factors and launches and the QAP step ([`ntt`]), and the
//! [`plugin`] itself, all written against [`engine::Engine`]. A backend is
//! then only the API plumbing: buffers, copies (synchronous, and
//! asynchronous where the API can overlap them with kernels), launches and
//! memory queries.

pub mod cache;
pub mod engine;
pub mod msm;
pub mod ntt;
pub mod plugin;
pub mod profile;
pub mod selftest;
mod source;
pub mod verdict;

pub use source::{
    compiler_defines, source, source_hash, MAX_BLOCK_THREADS, NTT_MAX_LOCAL_LOG, NTT_SCALE_CHUNK,
};
