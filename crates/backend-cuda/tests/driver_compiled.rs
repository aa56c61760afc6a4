//! The third build a device falls back to when the CUDA kernels fail their
//! self-test twice: NVRTC's PTX, handed to the driver, which compiles it
//! with its own compiler when it loads the module. Checked without a GPU:
//! the image is PTX for the device's architecture as the driver's loader
//! takes it (one C string holding every kernel); it leaves the cached
//! CUBIN alone until stored (once the device keeps it, after its
//! self-test), and then replaces it, so the next open loads it from the
//! cache. Skips as `nvrtc.rs` does without NVRTC (fails under CI).

use gpu_backend::cache::Pending;
use gpu_backend::plugin::Kernels;
use pce_backend_cuda::compile::{cache_file, cached, kernels, nvrtc_present, CACHE_ENV};

#[test]
fn the_drivers_build_is_ptx_and_replaces_the_cached_kernels() {
    if !nvrtc_present() && std::env::var_os("CI").is_none() {
        pce_testkit::skip(
            "the_drivers_build_is_ptx_and_replaces_the_cached_kernels",
            "libnvrtc.so not found (set LD_LIBRARY_PATH to a CUDA or pip NVRTC lib directory)",
        );
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("driver-compiled-{}", std::process::id()));
    // The only test of this binary: nothing else reads the environment.
    std::env::set_var(CACHE_ENV, &dir);
    let stale = b"a CUBIN that failed its self-test".to_vec();
    std::fs::create_dir_all(&dir).unwrap();
    gpu_backend::cache::write(&pce_backend_cuda::compile::cache_path(&dir, "90"), &stale);

    let (image, origin) =
        kernels("90", Kernels::DriverCompiled).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(origin, Kernels::DriverCompiled);
    let (last, text) = image.split_last().expect("an image");
    assert_eq!(*last, 0, "the loader reads PTX as a C string");
    let text = std::str::from_utf8(text).expect("PTX is text without a NUL inside");
    assert!(text.contains(".target sm_90"), "PTX for sm_90");
    for kernel in gpu_backend::engine::KERNELS {
        assert!(
            text.contains(&format!(".entry {kernel}(")),
            "kernel {kernel} missing from the PTX"
        );
    }

    assert_eq!(
        cached(&dir, "90"),
        Some(stale),
        "not cached before it passes its self-test"
    );
    // As the engine stores it once the device keeps it.
    Pending::new(cache_file("90"), image.clone()).store();
    assert_eq!(cached(&dir, "90").as_deref(), Some(&image[..]));
    let (again, origin) = kernels("90", Kernels::Cached).unwrap();
    assert_eq!((again, origin), (image, Kernels::Cached));
    std::fs::remove_dir_all(&dir).unwrap();
}
