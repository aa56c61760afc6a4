//! Running the `pce-prover` binary from the integration tests.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::{Command, Output};

/// The directory where cargo put the plugin libraries built for the tests.
pub fn plugin_dir() -> PathBuf {
    std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_owned()
}

/// Runs `pce-prover args` with the test plugins reachable and `env` set.
pub fn pce_prover(args: &[&str], env: &[(&str, &OsStr)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pce-prover"));
    command.args(args).env("PCE_BACKEND_DIR", plugin_dir());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

/// Standard output and error together.
pub fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
