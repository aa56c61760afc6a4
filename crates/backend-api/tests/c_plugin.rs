//! The C header is enough to write a backend: a plugin written in C against
//! `include/pce_backend.h` is compiled here, loaded by the Rust host, and
//! its struct layouts are compared with the Rust mirror in `ffi`. The same
//! source built to claim ABI version 1 is refused with both versions named.
//! A vtable that leaves a mandatory operation null is refused at load,
//! naming the field, instead of crashing the host at the first call.
//! Skipped, with a message, where no C compiler is installed.

use std::mem::{offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::Command;

use backend_api::ffi::*;
use backend_api::{Backend, DeviceMemory, LoadError};

/// Compiles tests/c_plugin.c into `dir` with `defines`; `None` without a C compiler.
fn build(dir: &Path, file: &str, defines: &[&str]) -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let library = dir.join(file);
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let status = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-Werror", "-shared", "-fPIC"])
        .args(defines)
        .arg("-o")
        .arg(&library)
        .arg("-I")
        .arg(here.join("include"))
        .arg(here.join("tests/c_plugin.c"))
        .status();
    let Ok(status) = status else {
        // CI installs a C compiler: a skip there would hide the check.
        assert!(
            std::env::var_os("CI").is_none(),
            "no C compiler ({compiler}) under CI"
        );
        pce_testkit::skip(
            &pce_testkit::this_test(),
            &format!("no C compiler ({compiler})"),
        );
        return None;
    };
    assert!(
        status.success(),
        "the C plugin does not compile against the header"
    );
    Some(library)
}

#[test]
fn a_c_plugin_built_from_the_header_loads_and_matches_the_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let Some(library) = build(dir.path(), "libpce_backend_c-test.so", &[]) else {
        return;
    };

    let backend = Backend::load_path(&library).unwrap();
    assert_eq!(backend.name(), "c-test");
    let devices = backend.devices().unwrap();
    assert_eq!(devices[0].name, "C test device");
    assert_eq!(devices[0].id, "abababab-abab-abab-abab-abababababab");
    let device = backend.open(0).unwrap();
    assert_eq!(
        device.memory().unwrap(),
        Some(DeviceMemory {
            free: 1 << 19,
            total: 1 << 20
        })
    );
    assert_eq!(device.ntt_scratch_bytes(20).unwrap(), 0, "absent means 0");
    assert_eq!(device.device_host_bytes().unwrap(), 0, "absent means 0");
    assert!(backend.has_operation(PCE_PROC_DEVICE_MEMORY));
    assert!(!backend.has_operation(PCE_PROC_QAP_H));
    assert!(!backend.has_operation(c"no such operation"));
    let err = device.ntt_domain(4).err().expect("the C plugin has no NTT");
    assert!(
        err.to_string().contains("UNSUPPORTED")
            && err.to_string().contains("this C backend has no NTT"),
        "{err}"
    );

    // SAFETY: the library was just loaded; the symbol's signature is the one defined in c_plugin.c.
    let layout = unsafe {
        let lib = libloading::Library::new(&library).unwrap();
        let f: libloading::Symbol<unsafe extern "C" fn(*mut usize, usize) -> usize> =
            lib.get(b"pce_test_layout\0").unwrap();
        let mut out = [0usize; 32];
        let n = f(out.as_mut_ptr(), out.len());
        out[..n].to_vec()
    };
    let rust = vec![
        size_of::<pce_fr>(),
        size_of::<pce_scalar>(),
        size_of::<pce_g1_affine>(),
        size_of::<pce_g2_affine>(),
        size_of::<pce_g1_projective>(),
        size_of::<pce_g2_projective>(),
        size_of::<pce_device_info>(),
        offset_of!(pce_device_info, name),
        size_of::<pce_backend_vtable>(),
        offset_of!(pce_backend_vtable, last_error),
        offset_of!(pce_backend_vtable, msm),
        offset_of!(pce_backend_vtable, get_proc_address),
        offset_of!(pce_backend_vtable, set_logger),
        PCE_BACKEND_VTABLE_V2_SIZE,
        G1_AFFINE_BYTES,
        G2_AFFINE_BYTES,
        G1_PROJECTIVE_BYTES,
        G2_PROJECTIVE_BYTES,
        FP_BYTES,
        FR_BYTES,
    ];
    assert_eq!(layout, rust, "the Rust mirror differs from the C header");
}

#[test]
fn a_version_1_plugin_is_refused_naming_both_versions() {
    let dir = tempfile::tempdir().unwrap();
    let Some(library) = build(
        dir.path(),
        "libpce_backend_c-v1.so",
        &["-DPCE_TEST_CLAIM_VERSION=1"],
    ) else {
        return;
    };
    let err = Backend::load_path(&library).unwrap_err();
    assert!(
        matches!(
            err,
            LoadError::AbiMismatch {
                plugin: 1,
                host: 2,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("the plugin speaks version 1, this host speaks version 2"),
        "{err}"
    );
}

#[test]
fn a_vtable_with_a_null_required_operation_is_refused_at_load_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let Some(library) = build(
        dir.path(),
        "libpce_backend_c-null.so",
        // msm() is then defined but unused.
        &["-DPCE_TEST_NULL_MSM", "-Wno-unused-function"],
    ) else {
        return;
    };
    let err = Backend::load_path(&library).unwrap_err();
    assert!(
        matches!(&err, LoadError::BadVtable { what, .. } if what == "msm is null"),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("libpce_backend_c-null.so") && message.contains("msm is null"),
        "{message}"
    );
}
