//! The shared kernels compile as CUDA C++ with NVRTC, so a construct of the
//! dialect that only OpenCL accepts is caught on every CI run, not only
//! where a GPU is lent. NVRTC needs no GPU; CI installs it from PyPI
//! (`nvidia-cuda-nvrtc-cu12`). Without NVRTC the test prints why it skips,
//! except under CI (CI=true), where it fails.

use pce_backend_cuda::compile::{compile, nvrtc_present, Output};

#[test]
fn kernels_compile_as_cuda() {
    if !nvrtc_present() && std::env::var_os("CI").is_none() {
        eprintln!("skipped: libnvrtc.so not found (set LD_LIBRARY_PATH to a CUDA or pip NVRTC lib directory)");
        return;
    }
    // Hopper (H100/H200); one architecture keeps CI short (times in
    // docs/benchmarks.md), and the source is the same for all.
    for arch in ["90"] {
        // PTX: the same front end as the backend's CUBIN, without ptxas,
        // the slow part of producing a CUBIN.
        let ptx = compile(arch, Output::Ptx).unwrap_or_else(|e| panic!("sm_{arch}: {}", e.message));
        let ptx = String::from_utf8(ptx).expect("PTX is text");
        for kernel in gpu_backend::engine::KERNELS {
            assert!(
                ptx.contains(&format!(".entry {kernel}(")),
                "sm_{arch}: kernel {kernel} missing from the PTX"
            );
        }
    }
}
