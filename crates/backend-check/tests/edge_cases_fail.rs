//! backend-check's edge cases catch a plugin that breaks them: the C test
//! plugin of backend-api built to keep its last error message after a
//! success fails the `last_error` row, and passes it built as the ABI says.
//! Skipped, with a message, where no C compiler is installed (not under
//! CI=true, where that fails).

use std::path::{Path, PathBuf};
use std::process::Command;

use backend_api::Backend;
use backend_check::{check, Limits, Verdict};

/// backend-api's C test plugin compiled into `dir` with `defines`.
fn build(dir: &Path, name: &str, defines: &[&str]) -> Option<PathBuf> {
    let api = Path::new(env!("CARGO_MANIFEST_DIR")).join("../backend-api");
    let library = dir.join(backend_api::loader::plugin_file_name(name));
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let status = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-Werror", "-shared", "-fPIC"])
        .args(defines)
        .arg("-o")
        .arg(&library)
        .arg("-I")
        .arg(api.join("include"))
        .arg(api.join("tests/c_plugin.c"))
        .status();
    let Ok(status) = status else {
        // CI installs a C compiler: a skip there would hide the check.
        assert!(
            std::env::var_os("CI").is_none(),
            "no C compiler ({compiler}) under CI"
        );
        return None;
    };
    assert!(status.success(), "the C plugin does not compile");
    Some(library)
}

/// The verdict of the `last_error` row for the plugin at `path`.
fn last_error_row(path: &Path) -> Verdict {
    let backend = Backend::load_path(path).unwrap();
    let device = backend.open(0).unwrap();
    let limits = Limits {
        max_log_ntt: 1,
        max_log_msm_g1: 4,
        max_log_msm_g2: 4,
    };
    let report = check(&device, limits, |_| {});
    report
        .rows
        .iter()
        .find(|row| row.case == "edge: last_error is empty after a success")
        .expect("the row is always checked")
        .verdict
}

#[test]
fn a_stale_last_error_fails_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let (Some(keeping), Some(clearing)) = (
        build(dir.path(), "c-keeps-errors", &["-DPCE_TEST_KEEP_ERRORS"]),
        build(dir.path(), "c-test", &[]),
    ) else {
        pce_testkit::skip("a_stale_last_error_fails_its_row", "no C compiler");
        return;
    };
    assert_eq!(last_error_row(&keeping), Verdict::Fail);
    assert_eq!(last_error_row(&clearing), Verdict::Pass);
}
