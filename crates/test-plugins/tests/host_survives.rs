//! The host's loader and wrapper turn every plugin fault into a clear error.

use std::path::PathBuf;

use backend_api::ffi::{pce_fr, pce_g1_affine, pce_scalar};
use backend_api::{Backend, LoadError, NttDirection, G1};

fn plugin_path() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .unwrap()
        .join(backend_api::loader::plugin_file_name("broken"))
}

/// A shared library that is not a plugin: the C library.
fn some_system_library() -> Option<PathBuf> {
    [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/lib/aarch64-linux-gnu/libc.so.6",
        "/lib64/libc.so.6",
        "/usr/lib/libc.so.6",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

#[test]
fn every_fault_is_a_clear_error() {
    // One test, sequential modes: the mode is process-wide.
    let set = |mode: &str| std::env::set_var(pce_backend_broken::MODE_ENV, mode);
    let path = plugin_path();

    set("wrong-abi");
    let err = Backend::load_path(&path).unwrap_err();
    assert!(
        matches!(
            err,
            LoadError::AbiMismatch {
                plugin: 99,
                host: 2,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("plugin speaks version 99, this host speaks version 2"),
        "{err}"
    );

    set("v1");
    let err = Backend::load_path(&path).unwrap_err();
    assert!(
        err.to_string()
            .contains("the plugin speaks version 1, this host speaks version 2"),
        "{err}"
    );

    set("");
    let backend = Backend::load_path(&path).unwrap();
    assert_eq!(backend.name(), "broken");

    set("no-driver");
    let err = backend.devices().unwrap_err();
    assert!(err.is_no_driver(), "{err}");
    assert!(
        err.to_string().contains("no simulated driver installed"),
        "{err}"
    );

    set("");
    let device = backend.open(0).unwrap();
    let domain = device.ntt_domain(4).unwrap();
    let bases = device
        .upload_bases::<G1>(&[pce_g1_affine::default(); 4])
        .unwrap();
    let mut data = vec![pce_fr::default(); 16];
    let scalars = vec![pce_scalar::default(); 4];

    set("error");
    let err = device
        .ntt(&domain, NttDirection::Forward, false, &mut data)
        .unwrap_err();
    assert!(
        err.to_string().contains("simulated device failure in ntt")
            && err.to_string().contains("DEVICE"),
        "{err}"
    );
    let err = device.msm(&bases, 0, 4, 1, &scalars).unwrap_err();
    assert!(
        err.to_string().contains("simulated device failure in msm"),
        "{err}"
    );

    set("panic");
    let err = device
        .ntt(&domain, NttDirection::Inverse, true, &mut data)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("plugin panicked: simulated bug in ntt")
            && err.to_string().contains("INTERNAL"),
        "{err}"
    );
    let err = device.msm(&bases, 0, 4, 1, &scalars).unwrap_err();
    assert!(err.to_string().contains("simulated bug in msm"), "{err}");

    set("");
    let err = device
        .ntt(&domain, NttDirection::Forward, false, &mut data[..15])
        .unwrap_err();
    assert!(err.to_string().contains("INVALID_ARGUMENT"), "{err}");
    let err = device.msm(&bases, 2, 4, 1, &scalars).unwrap_err();
    assert!(err.to_string().contains("outside 4 bases"), "{err}");
}

#[test]
fn loader_errors_name_the_file_and_the_problem() {
    let err = Backend::load("no-such-backend").unwrap_err();
    assert!(matches!(err, LoadError::NotFound { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("libpce_backend_no-such-backend.so"),
        "{err}"
    );

    let missing = std::env::temp_dir().join("pce-no-such-plugin.so");
    assert!(matches!(
        Backend::load_path(&missing),
        Err(LoadError::NotALibrary { .. })
    ));

    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("libpce_backend_text.so");
    std::fs::write(&text, "not a library").unwrap();
    let err = Backend::load_path(&text).unwrap_err();
    assert!(matches!(err, LoadError::NotALibrary { .. }), "{err}");
    assert!(err.to_string().contains("libpce_backend_text.so"), "{err}");

    match some_system_library() {
        Some(libc) => {
            let err = Backend::load_path(&libc).unwrap_err();
            assert!(matches!(err, LoadError::NotAPlugin { .. }), "{err}");
        }
        None => pce_testkit::skip(
            "loader_errors_name_the_file_and_the_problem (its library without the entry symbol)",
            "no system C library at a known path",
        ),
    }

    std::env::set_var(backend_api::loader::BACKEND_DIR_ENV, dir.path());
    let err = Backend::load("text").unwrap_err();
    assert!(
        matches!(err, LoadError::NotALibrary { .. }),
        "found through PCE_BACKEND_DIR: {err}"
    );
}
