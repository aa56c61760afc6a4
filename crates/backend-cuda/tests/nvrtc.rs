//! The shared kernels compile as CUDA C++ with NVRTC to CUBINs for every
//! architecture a prebuilt kernel cache covers, so a construct of the
//! dialect that only OpenCL accepts is caught on every CI run, not only
//! where a GPU is lent, and CI leaves a ready cache in
//! `target/cuda-kernels` (with `timings.txt`, printed by `.ci/run`) that
//! `scripts/gpu-check.sh` carries. NVRTC needs no GPU; CI installs it from
//! PyPI (`nvidia-cuda-nvrtc`, CUDA 13). Without NVRTC the test prints why
//! it skips, except under CI (CI=true), where it fails.

use std::path::Path;

use pce_backend_cuda::compile::{cached, nvrtc_present, prebuild, PREBUILT_ARCHITECTURES};

#[test]
fn kernels_compile_to_a_cubin_for_each_prebuilt_architecture() {
    if !nvrtc_present() && std::env::var_os("CI").is_none() {
        pce_testkit::skip(
            "kernels_compile_to_a_cubin_for_each_prebuilt_architecture",
            "libnvrtc.so not found (set LD_LIBRARY_PATH to a CUDA or pip NVRTC lib directory)",
        );
        return;
    }
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the temporary directory is inside the target directory");
    let dir = target.join("cuda-kernels");
    let built = prebuild(&dir, &PREBUILT_ARCHITECTURES).unwrap_or_else(|e| panic!("{}", e.message));
    let mut timings = String::from("CUBIN builds (NVRTC, two at a time), seconds:\n");
    for b in &built {
        timings.push_str(&format!(
            "sm_{} {:.1} s, {} bytes\n",
            b.arch, b.seconds, b.bytes
        ));
        // The plugin finds it by the key alone, without NVRTC.
        let cubin = cached(&dir, &b.arch).expect("the cache holds what was built");
        assert_eq!(cubin.len(), b.bytes);
        for kernel in gpu_backend::engine::KERNELS {
            assert!(
                cubin.windows(kernel.len()).any(|w| w == kernel.as_bytes()),
                "sm_{}: kernel {kernel} missing from the CUBIN",
                b.arch
            );
        }
    }
    std::fs::write(dir.join("timings.txt"), &timings).unwrap();
    eprint!("{timings}");
    let names: std::collections::BTreeSet<_> = built.iter().map(|b| b.path.clone()).collect();
    assert_eq!(
        names.len(),
        PREBUILT_ARCHITECTURES.len(),
        "one cache file per architecture"
    );
}
