//! Circuits for the workspace's tests.
//!
//! - [`random`]: random satisfiable circuits as proptest strategies: random
//!   linear combinations (repeated variables, zero and arbitrary
//!   coefficients), inputs allocated between aux variables, namespaces, and
//!   sub-circuits merged through `extend` as storage-proofs does;
//! - [`sha256`]: a real gadget circuit, SHA-256 of a preimage;
//! - [`squares`]: the smallest circuits, down to ONE's input constraint
//!   alone;
//! - [`skip`]: how a test that cannot run here says so.

pub mod random;
pub mod sha256;
pub mod squares;

/// The name of the test running on this thread (the test harness names
/// each test's thread after it), for helpers that several tests share.
pub fn this_test() -> String {
    std::thread::current()
        .name()
        .unwrap_or("a test on an unnamed thread")
        .to_owned()
}

/// Says that `test` did not run, and why: on standard error (shown with
/// `--nocapture`), and as a line appended to the file `$PCE_SKIPPED_LOG`
/// names, so that `.ci/run` counts and lists skipped tests in its summary
/// (cargo shows a skipped test that returned early as passed).
pub fn skip(test: &str, why: &str) {
    use std::io::Write;
    eprintln!("SKIPPED {test}: {why}");
    if let Some(path) = std::env::var_os("PCE_SKIPPED_LOG") {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path);
        if let Ok(mut log) = log {
            // One write per line: tests run on several threads and processes.
            let _ = log.write_all(format!("{test}: {why}\n").as_bytes());
        }
    }
}
