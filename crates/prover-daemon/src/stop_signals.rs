//! SIGTERM and SIGINT, taken by the daemon whatever handlers its plugins
//! install.
//!
//! Libraries a plugin loads may install handlers of their own: LLVM, inside
//! PoCL and other OpenCL compilers, handles SIGTERM and SIGINT by cleaning
//! up and raising the signal again with its default action, which ends the
//! process. A handler installed after it (tokio's) calls it in turn, so the
//! daemon would die on `systemctl stop` without draining its jobs. Instead
//! both signals are blocked in the thread that starts the daemon before
//! any other thread exists (every thread inherits the mask, plugins'
//! threads included), and one thread takes them with `sigwait`: no handler
//! runs for them at all. Before the daemon serves, that thread ends the
//! process at once, as the signal's default action would.

use std::io;
use std::mem::MaybeUninit;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::oneshot;
use tracing::warn;

/// SIGTERM and SIGINT, blocked in this thread and the threads it starts.
pub struct StopSignals {
    set: libc::sigset_t,
}

impl StopSignals {
    /// Blocks SIGTERM and SIGINT in the calling thread, and so in every
    /// thread started from it afterwards. Call it before any other thread
    /// of the process exists: one started before would still receive them.
    pub fn block() -> io::Result<Self> {
        let mut set = MaybeUninit::<libc::sigset_t>::uninit();
        // SAFETY: `sigemptyset` initialises the set it is given; the other
        // calls take that initialised set and valid signal numbers.
        let set = unsafe {
            libc::sigemptyset(set.as_mut_ptr());
            let mut set = set.assume_init();
            libc::sigaddset(&mut set, libc::SIGTERM);
            libc::sigaddset(&mut set, libc::SIGINT);
            set
        };
        // SAFETY: a valid set; the old mask is not wanted.
        let status = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
        if status != 0 {
            return Err(io::Error::from_raw_os_error(status));
        }
        Ok(Self { set })
    }

    /// Waits on a thread of its own for the first of the two signals, from
    /// now on, and sends its name; the receiver resolves once one arrives.
    /// Until `listening` is set there is nothing to drain (the daemon is
    /// still opening its devices and preloading circuits, which can take
    /// minutes), so a signal then ends the process at once, with the exit
    /// status of a shell's `128 + signal`, removing `socket` (the Unix
    /// socket the daemon has bound, where it has one).
    pub fn wait(
        self,
        listening: Arc<AtomicBool>,
        socket: Option<PathBuf>,
    ) -> io::Result<oneshot::Receiver<&'static str>> {
        let (sender, receiver) = oneshot::channel();
        std::thread::Builder::new()
            .name("stop-signals".into())
            .spawn(move || {
                let mut signal = 0;
                // SAFETY: a valid set of signals blocked in this thread
                // (inherited) and a valid out-pointer.
                while unsafe { libc::sigwait(&self.set, &mut signal) } != 0 {}
                let name = if signal == libc::SIGINT {
                    "SIGINT"
                } else {
                    "SIGTERM"
                };
                if !listening.load(Ordering::SeqCst) {
                    warn!("{name} before the daemon was listening: exiting");
                    if let Some(socket) = &socket {
                        let _ = std::fs::remove_file(socket);
                    }
                    std::process::exit(128 + signal);
                }
                let _ = sender.send(name);
            })?;
        Ok(receiver)
    }
}
