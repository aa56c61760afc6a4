//! Naming the plugin operation a fatal signal interrupted.
//!
//! A plugin that dereferences a bad pointer kills the host with SIGSEGV,
//! and the process dies with no word of which backend did it. While a
//! plugin operation runs, its description ("backend cuda: msm on …
//! elements") is this thread's [`CURRENT`]; a handler for the fatal
//! signals writes it to standard error, then lets the signal take its
//! course: the handler that was there before (Rust's stack-overflow
//! report) gets it next.
//!
//! A plugin often works on threads of its own (a thread pool for an MSM,
//! a driver's callback threads), where no operation is current. The
//! descriptions of the operations in flight are therefore also kept in a
//! process-wide table, [`IN_FLIGHT`]; a fatal signal on a thread with no
//! current operation, while some are in flight, lists them (it may also be
//! the host's own fault, and the message says so).
//!
//! The handler only reads a thread-local pointer, swaps atomics and calls
//! `write(2)`, all async-signal-safe.

use std::cell::Cell;
use std::ffi::CString;
use std::sync::atomic::{AtomicPtr, Ordering};
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

/// The operations in flight in the whole process, as NUL-terminated
/// descriptions; null slots are free. Whoever swaps a pointer out owns it:
/// the operation's thread frees it when it returns, the handler leaves it
/// (the process is dying), so neither reads what the other freed. An
/// operation that finds every slot taken is not listed.
static IN_FLIGHT: [AtomicPtr<std::ffi::c_char>; 32] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; 32];

/// The handlers found before ours, one per signal of [`FATAL`].
static mut PREVIOUS: [std::mem::MaybeUninit<libc::sigaction>; 5] =
    [const { std::mem::MaybeUninit::uninit() }; 5];

fn write_stderr(bytes: &[u8]) {
    // SAFETY: write(2) on a valid buffer; its result does not matter here.
    unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
}

/// Writes `signal`'s number in decimal, without allocating.
fn write_signal_number(signal: libc::c_int) {
    let mut digits = [0u8; 3];
    let n = signal.clamp(0, 999) as usize;
    digits[0] = b'0' + (n / 100) as u8;
    digits[1] = b'0' + (n / 10 % 10) as u8;
    digits[2] = b'0' + (n % 10) as u8;
    let start = digits.iter().position(|&d| d != b'0').unwrap_or(2);
    write_stderr(&digits[start..]);
}

/// Writes the operations in flight, taking them out of [`IN_FLIGHT`], after
/// `before` if there is any; whether there was.
fn write_in_flight(before: &[u8]) -> bool {
    let mut any = false;
    for slot in &IN_FLIGHT {
        let taken = slot.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if taken.is_null() {
            continue;
        }
        write_stderr(if any { b"; " } else { before });
        any = true;
        // SAFETY: a description put there by `during`, NUL-terminated, now
        // owned here and never freed (measuring it allocates nothing).
        write_stderr(unsafe { std::ffi::CStr::from_ptr(taken) }.to_bytes());
    }
    any
}

extern "C" fn on_fatal(signal: libc::c_int) {
    let slot = FATAL.iter().position(|&s| s == signal).unwrap_or(0);
    let (ptr, len) = CURRENT.with(Cell::get);
    if !ptr.is_null() {
        // SAFETY: CURRENT points at a description that lives until the
        // operation returns, which it has not.
        let what = unsafe { std::slice::from_raw_parts(ptr, len) };
        write_stderr(b"\nerror: fatal signal ");
        write_signal_number(signal);
        write_stderr(b" inside the plugin, during ");
        write_stderr(what);
        write_stderr(b": the backend crashed the process\n");
    } else if write_in_flight(
        b"\nerror: fatal signal on a thread outside the host's plugin calls (one of a plugin's own threads, or the host's) while these plugin operations were in flight: ",
    ) {
        write_stderr(b" (signal ");
        write_signal_number(signal);
        write_stderr(b")\n");
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

/// A description listed in [`IN_FLIGHT`] until dropped.
struct Listed(Option<(usize, *mut std::ffi::c_char)>);

impl Listed {
    fn new(what: &str) -> Self {
        let Ok(text) = CString::new(what) else {
            return Listed(None);
        };
        let text = text.into_raw();
        for (index, slot) in IN_FLIGHT.iter().enumerate() {
            let free = std::ptr::null_mut();
            if slot
                .compare_exchange(free, text, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                return Listed(Some((index, text)));
            }
        }
        // SAFETY: from `into_raw` above, listed nowhere.
        drop(unsafe { CString::from_raw(text) });
        Listed(None)
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        let Some((index, text)) = self.0 else { return };
        // Only if the handler has not taken it meanwhile.
        if IN_FLIGHT[index]
            .compare_exchange(
                text,
                std::ptr::null_mut(),
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_ok()
        {
            // SAFETY: from `into_raw` in `new`, now out of the table.
            drop(unsafe { CString::from_raw(text) });
        }
    }
}

/// Runs `call` with `what` as this thread's current plugin operation, and
/// lists it among the process's operations in flight.
pub(crate) fn during<T>(what: &str, call: impl FnOnce() -> T) -> T {
    let outer = CURRENT.with(|c| c.replace((what.as_ptr(), what.len())));
    struct Restore((*const u8, usize));
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(outer);
    let _listed = Listed::new(what);
    call()
}
