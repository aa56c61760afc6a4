//! The C header is enough to write a backend: a plugin written in C against
//! `include/pce_backend.h` is compiled here, loaded by the Rust host, and
//! its struct layouts are compared with the Rust mirror in `ffi`.
//! Skipped, with a message, where no C compiler is installed.

use std::mem::{offset_of, size_of};
use std::path::Path;
use std::process::Command;

use backend_api::ffi::*;
use backend_api::Backend;

#[test]
fn a_c_plugin_built_from_the_header_loads_and_matches_the_layouts() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("libpce_backend_c-test.so");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let status = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-Werror", "-shared", "-fPIC", "-o"])
        .arg(&library)
        .arg("-I")
        .arg(here.join("include"))
        .arg(here.join("tests/c_plugin.c"))
        .status();
    let Ok(status) = status else {
        eprintln!("no C compiler ({compiler}): skipping the C plugin check");
        return;
    };
    assert!(
        status.success(),
        "the C plugin does not compile against the header"
    );

    let backend = Backend::load_path(&library).unwrap();
    assert_eq!(backend.name(), "c-test");
    let devices = backend.devices().unwrap();
    assert_eq!(devices[0].name, "C test device");
    assert_eq!(devices[0].id, "abababab-abab-abab-abab-abababababab");
    let device = backend.open(0).unwrap();
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
        let mut out = [0usize; 16];
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
        offset_of!(pce_backend_vtable, qap_h),
        PCE_BACKEND_VTABLE_V1_BASE_SIZE,
    ];
    assert_eq!(layout, rust, "the Rust mirror differs from the C header");
}
