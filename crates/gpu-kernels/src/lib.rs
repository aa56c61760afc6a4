//! The GPU kernels of pce-prover and the host side of their algorithms.
//!
//! The kernels live in `kernels/` at the root of the repository, written
//! once in a dialect that compiles as OpenCL C and as CUDA C++
//! (`kernels/dialect.h`). This crate assembles them into one source
//! ([`source`]) and holds what every GPU backend does around them on the
//! host: splitting MSM scalars into zeros, ones and the rest, choosing the
//! window size and pipelining the uploads of MSM chunks against their
//! kernels ([`msm`]), and the NTT twiddle tables, scale factors and
//! launches ([`ntt`]), all written against [`engine::Engine`]. A backend is
//! then only the API plumbing: buffers, copies (synchronous, and
//! asynchronous where the API can overlap them with kernels) and launches.

pub mod cache;
pub mod engine;
pub mod msm;
pub mod ntt;
pub mod plugin;
mod source;

pub use source::{source, source_hash};
