//! Builds a ready CUDA kernel cache: the CUBINs of the kernels for the
//! architectures given (default: sm_80, sm_89, sm_90, sm_100) in DIR, named
//! by the cache key the plugin looks up (source hash, architecture,
//! options), so a machine given DIR as `PCE_CUDA_CACHE` opens its devices
//! without NVRTC.
//!
//! ```sh
//! LD_LIBRARY_PATH=<NVRTC lib dir> cargo run --release -p backend-cuda --example kernel_cache -- DIR [ARCH ...]
//! ```

use pce_backend_cuda::compile::{prebuild, PREBUILT_ARCHITECTURES};

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: kernel_cache DIR [ARCH ...] (e.g. 90)")?;
    let mut archs: Vec<String> = args.collect();
    if archs.is_empty() {
        archs = PREBUILT_ARCHITECTURES
            .iter()
            .map(|a| a.to_string())
            .collect();
    }
    let archs: Vec<&str> = archs.iter().map(String::as_str).collect();
    let built = prebuild(dir.as_ref(), &archs).map_err(|e| e.message)?;
    println!("{:<8} {:>10} {:>12}  file", "arch", "seconds", "bytes");
    for b in &built {
        println!(
            "sm_{:<5} {:>10.1} {:>12}  {}",
            b.arch,
            b.seconds,
            b.bytes,
            b.path.display()
        );
    }
    Ok(())
}
