//! Loading the plugins cargo builds next to these test binaries.

use backend_api::{Backend, Device};

/// The plugin `name` (cpu, opencl, ...) built beside the test binary.
pub fn plugin(name: &str) -> Backend {
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .unwrap()
        .join(backend_api::loader::plugin_file_name(name));
    Backend::load_path(&path).unwrap()
}

/// Device 0 of `backend`, or `None` after saying why test `test` skips
/// when the machine has no driver or device for it (under CI, CI=true,
/// that fails instead: CI installs PoCL).
#[allow(dead_code)] // not every test binary opens a device that may be missing
pub fn device_or_skip(backend: &Backend, test: &str) -> Option<Device> {
    match backend.open(0) {
        Ok(device) => Some(device),
        Err(e) if (e.is_no_driver() || e.is_no_device()) && std::env::var_os("CI").is_none() => {
            pce_testkit::skip(test, &e.to_string());
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// The OpenCL tests of one binary take turns: three at once on PoCL (each
/// opening the device, building the kernels) ended a CI run with SIGSEGV,
/// which runs one at a time never did.
#[allow(dead_code)] // only the OpenCL tests open OpenCL devices
#[must_use = "the tests take turns while it is held"]
pub fn opencl_turn() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Shares one OpenCL program cache among the tests, so PoCL compiles the
/// kernels once per run.
#[allow(dead_code)] // only the OpenCL tests compile kernels
pub fn share_opencl_cache() {
    std::env::set_var(
        "PCE_OPENCL_CACHE",
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("opencl-program-cache"),
    );
}

/// The OpenCL plugin and its device 0 for test `test`, with its turn
/// ([`opencl_turn`]) and the shared program cache; `None` after saying why
/// it skips (see [`device_or_skip`]).
#[allow(dead_code)] // only the OpenCL tests open OpenCL devices
pub fn opencl_device(test: &str) -> Option<(std::sync::MutexGuard<'static, ()>, Backend, Device)> {
    let turn = opencl_turn();
    share_opencl_cache();
    let backend = plugin("opencl");
    let device = device_or_skip(&backend, test)?;
    Some((turn, backend, device))
}
