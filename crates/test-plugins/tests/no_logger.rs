//! A plugin built with `export_backend!` works when its host never hands
//! it a log callback (a C host that does not call `set_logger`): its log
//! events then go to standard error, and its calls succeed as usual.

use backend_api::ffi::{pce_backend_entry_fn, PCE_BACKEND_ABI_VERSION, PCE_OK};

/// Set in the child process that runs the test itself.
const CHILD_ENV: &str = "PCE_NO_LOGGER_TEST_CHILD";

#[test]
fn a_plugin_logs_without_a_host_callback() {
    // The plugin writes to the process's standard error itself, which the
    // test harness does not capture: the test runs again as a child whose
    // standard error is read.
    if std::env::var_os(CHILD_ENV).is_none() {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "a_plugin_logs_without_a_host_callback"])
            .args(["--test-threads", "1", "--nocapture"])
            .env(CHILD_ENV, "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(stderr.contains("simulated warning"), "{stderr}");
        return;
    }
    std::env::set_var(pce_backend_broken::MODE_ENV, "log");
    let path = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .join(backend_api::loader::plugin_file_name("broken"));
    // SAFETY: the test plugin's initialisers are plain Rust statics.
    let library = unsafe { libloading::Library::new(&path) }.unwrap();
    // SAFETY: the entry symbol has the ABI's signature.
    let entry = unsafe { library.get::<pce_backend_entry_fn>(b"pce_backend_entry\0") }.unwrap();
    let mut version = 0;
    // SAFETY: plain integers and a valid out-pointer.
    let vtable = unsafe { entry(PCE_BACKEND_ABI_VERSION, &mut version) };
    assert_eq!(version, PCE_BACKEND_ABI_VERSION);
    assert!(!vtable.is_null());
    let mut count = 0;
    // SAFETY: a static vtable of this ABI version and a valid out-pointer;
    // `set_logger` was never called.
    let status = unsafe { ((*vtable).device_count)(&mut count) };
    assert_eq!(status, PCE_OK);
    assert_eq!(count, 1);
}
