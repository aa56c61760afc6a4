//! Naming the plugin operation a fatal signal interrupted.
//!
//! A plugin that dereferences a bad pointer kills the host with SIGSEGV,
//! and the process dies with no word of which backend did it. While a
//! plugin operation runs, its description ("backend cuda: msm on …
//! elements") is this thread's [`CURRENT`]; a handler for the fatal
//! signals writes it to standard error, then lets the signal take its
//! course. A signal outside plugin code goes to the handler that was there
//! before (Rust's stack-overflow report), untouched.
//!
//! The handler only reads a thread-local pointer and calls `write(2)`,
//! both async-signal-safe.

use std::cell::Cell;
use std::sync::Once;

/// Signals that end a process whose code went wrong.
const FATAL: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];

thread_local! {
    /// The operation this thread is running in a plugin: its description's
    /// bytes, or null.
    static CURRENT: Cell<(*const u8, usize)> = const { Cell::new((std::ptr::null(), 0)) };
}

/// The handlers found before ours, one per signal of [`FATAL`].
static mut PREVIOUS: [std::mem::MaybeUninit<libc::sigaction>; 5] =
    [const { std::mem::MaybeUninit::uninit() }; 5];

fn write_stderr(bytes: &[u8]) {
    // SAFETY: write(2) on a valid buffer; its result does not matter here.
    unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
}

extern "C" fn on_fatal(signal: libc::c_int) {
    let slot = FATAL.iter().position(|&s| s == signal).unwrap_or(0);
    let (ptr, len) = CURRENT.with(Cell::get);
    if !ptr.is_null() {
        // SAFETY: CURRENT points at a description that lives until the
        // operation returns, which it has not.
        let what = unsafe { std::slice::from_raw_parts(ptr, len) };
        let mut digits = [0u8; 3];
        let n = signal.clamp(0, 999) as usize;
        digits[0] = b'0' + (n / 100) as u8;
        digits[1] = b'0' + (n / 10 % 10) as u8;
        digits[2] = b'0' + (n % 10) as u8;
        let start = digits.iter().position(|&d| d != b'0').unwrap_or(2);
        write_stderr(b"\nerror: fatal signal ");
        write_stderr(&digits[start..]);
        write_stderr(b" inside the plugin, during ");
        write_stderr(what);
        write_stderr(b": the backend crashed the process\n");
    }
    // SAFETY: restores the handler saved at installation (written once,
    // before ours was installed); returning re-runs the faulting
    // instruction (or the signal is raised again) under that handler.
    unsafe {
        let previous = (*std::ptr::addr_of!(PREVIOUS))[slot].as_ptr();
        libc::sigaction(signal, previous, std::ptr::null_mut());
        if signal == libc::SIGABRT || signal == libc::SIGFPE {
            libc::raise(signal);
        }
    }
}

/// Installs the handler (once per process).
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for (slot, &signal) in FATAL.iter().enumerate() {
            // SAFETY: a zeroed sigaction is valid; the handler is an
            // `extern "C" fn(c_int)`; PREVIOUS is written before the
            // handler that reads it can run, inside this Once.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_fatal as extern "C" fn(libc::c_int) as usize;
                action.sa_flags = libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let previous = (*std::ptr::addr_of_mut!(PREVIOUS))[slot].as_mut_ptr();
                libc::sigaction(signal, &action, previous);
            }
        }
    });
}

/// Runs `call` with `what` as this thread's current plugin operation.
pub(crate) fn during<T>(what: &str, call: impl FnOnce() -> T) -> T {
    let outer = CURRENT.with(|c| c.replace((what.as_ptr(), what.len())));
    struct Restore((*const u8, usize));
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(outer);
    call()
}
