//! A plugin's `tracing` events, sent to the host's log callback.
//!
//! A plugin is a shared library with its own copy of `tracing`, whose
//! events the host's subscriber never sees. Instead of each plugin writing
//! to standard error under its own filter, [`export_backend!`] installs
//! [`Forward`] as the plugin's global subscriber: it passes every event at
//! or below the level the host asked for to the host's [`pce_log_fn`]
//! (given through `set_logger`), so the host's own filter (`RUST_LOG` for
//! the prover) governs plugin logs too. Without a callback (a C host that
//! never calls `set_logger`) warnings and errors go to standard error, so
//! a plugin's "cache corrupt, rebuilding" is never lost.
//!
//! [`export_backend!`]: crate::export_backend!

use std::ffi::CString;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

use crate::ffi::{
    pce_log_fn, PCE_LOG_DEBUG, PCE_LOG_ERROR, PCE_LOG_INFO, PCE_LOG_TRACE, PCE_LOG_WARN,
};

/// The host's callback as an address; 0 when there is none.
static SINK: AtomicUsize = AtomicUsize::new(0);
/// The most verbose `PCE_LOG_*` level passed on.
static MAX_LEVEL: AtomicU32 = AtomicU32::new(PCE_LOG_WARN);

/// The ABI's code of a `tracing` level.
pub fn level_code(level: &Level) -> u32 {
    match *level {
        Level::ERROR => PCE_LOG_ERROR,
        Level::WARN => PCE_LOG_WARN,
        Level::INFO => PCE_LOG_INFO,
        Level::DEBUG => PCE_LOG_DEBUG,
        Level::TRACE => PCE_LOG_TRACE,
    }
}

/// Sets (or, with `None`, removes) the host's callback and the most
/// verbose level it wants; without a callback the level is back to warnings
/// on standard error.
pub(crate) fn set_sink(log: Option<pce_log_fn>, max_level: u32) {
    match log {
        Some(log) => {
            MAX_LEVEL.store(max_level, Ordering::Relaxed);
            SINK.store(log as usize, Ordering::Release);
        }
        None => {
            SINK.store(0, Ordering::Release);
            MAX_LEVEL.store(PCE_LOG_WARN, Ordering::Relaxed);
        }
    }
}

/// The callback, if the host gave one.
fn sink() -> Option<pce_log_fn> {
    match SINK.load(Ordering::Acquire) {
        0 => None,
        // SAFETY: a non-zero value was stored from a `pce_log_fn` by
        // `set_sink`; function pointers and usize have the same size.
        address => Some(unsafe { std::mem::transmute::<usize, pce_log_fn>(address) }),
    }
}

/// Makes [`Forward`] the plugin's global subscriber, once. Does nothing
/// when the plugin's `tracing` already has one (a plugin linked into a Rust
/// host as a library shares the host's).
pub(crate) fn install() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let _already_set = tracing::subscriber::set_global_default(Forward);
    });
}

/// The subscriber that forwards events to the host.
pub struct Forward;

/// An event's message and its other fields as ` name=value`.
#[derive(Default)]
struct Text {
    message: String,
    fields: String,
}

impl Visit for Text {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={value}", field.name());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }
}

impl Subscriber for Forward {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        // The host may lower or raise the level at any time.
        Interest::sometimes()
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        level_code(metadata.level()) <= MAX_LEVEL.load(Ordering::Relaxed)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        // Spans are not forwarded; every span shares one id.
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        let mut text = Text::default();
        event.record(&mut text);
        let message = text.message + &text.fields;
        let level = level_code(metadata.level());
        match sink() {
            Some(log) => {
                let target =
                    CString::new(metadata.target().replace('\0', " ")).expect("NULs replaced");
                let message = CString::new(message.replace('\0', " ")).expect("NULs replaced");
                // SAFETY: the host's callback takes two NUL-terminated
                // strings valid for the call, from any thread.
                unsafe { log(level, target.as_ptr(), message.as_ptr()) };
            }
            None => eprintln!("{} {}: {message}", metadata.level(), metadata.target()),
        }
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{c_char, CStr};
    use std::sync::Mutex;

    static SEEN: Mutex<Vec<(u32, String, String)>> = Mutex::new(Vec::new());

    unsafe extern "C" fn record(level: u32, target: *const c_char, message: *const c_char) {
        // SAFETY: the subscriber passes NUL-terminated strings.
        let (target, message) = unsafe { (CStr::from_ptr(target), CStr::from_ptr(message)) };
        SEEN.lock().unwrap().push((
            level,
            target.to_string_lossy().into_owned(),
            message.to_string_lossy().into_owned(),
        ));
    }

    #[test]
    fn events_reach_the_callback_filtered_by_level() {
        set_sink(Some(record), PCE_LOG_INFO);
        tracing::subscriber::with_default(Forward, || {
            tracing::info!(size = 8, "built the kernels");
            tracing::debug!("too verbose for the host");
            tracing::warn!(target: "custom", "cache {} rebuilt", "file");
        });
        set_sink(None, 0);
        let seen = SEEN.lock().unwrap().clone();
        assert_eq!(
            seen,
            [
                (
                    PCE_LOG_INFO,
                    module_path!().to_owned(),
                    "built the kernels size=8".to_owned()
                ),
                (
                    PCE_LOG_WARN,
                    "custom".to_owned(),
                    "cache file rebuilt".to_owned()
                ),
            ]
        );
        assert_eq!(MAX_LEVEL.load(Ordering::Relaxed), PCE_LOG_WARN);
    }
}
