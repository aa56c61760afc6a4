//! Serving: listening on TCP or a unix socket, readiness and shutdown.
//!
//! The daemon binds its address first (an address in use is said at once)
//! but serves only once its preloads are done, so a client finds it ready,
//! and only then tells the service manager it is ready ([`crate::service_manager`]; what it loads, before). On SIGTERM or
//! SIGINT it refuses new jobs, cancels the queued ones, gives the running
//! ones the grace period to finish, cancels those still running, answers
//! every waiting client, then closes the listener (and removes its socket
//! file).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::{TcpListener, UnixListener};
use tokio::sync::oneshot;
use tokio_stream::wrappers::{TcpListenerStream, UnixListenerStream};
use tonic::transport::Server;
use tracing::{info, warn};

use crate::config::{Config, Listen};
use crate::daemon::{Daemon, StartError};
use crate::jobs::Outcome;
use crate::proto::proving_engine_server::ProvingEngineServer;
use crate::service::Service;
use crate::service_manager::notify;
use crate::stop_signals::StopSignals;

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The daemon could not start.
    #[error(transparent)]
    Start(#[from] StartError),
    /// The address could not be listened on.
    #[error("listening on {address}: {source}")]
    Listen {
        /// The address.
        address: String,
        /// Why.
        source: std::io::Error,
    },
    /// SIGTERM and SIGINT could not be blocked, or their thread started.
    #[error("taking SIGTERM and SIGINT: {0}")]
    Signals(std::io::Error),
    /// The server failed.
    #[error("serving: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// Runs the daemon of `config` until SIGTERM or SIGINT. Sets the parameter
/// cache for the process and blocks those signals in every thread
/// ([`StopSignals`]) first, so call it before other threads start.
pub fn run(config: Config) -> Result<(), ServeError> {
    if let Some(cache) = &config.proving.param_cache {
        // Read by filecoin-proofs when it first needs a parameter path;
        // no other thread runs yet.
        std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", cache);
    }
    // Bound first: an address in use or a socket directory that does not
    // exist is said at once, not after minutes of preloading. Connections
    // made meanwhile wait in the socket's backlog until it is served.
    let (bound, socket_file) = bind(&config.server.listen)?;
    let listening = Arc::new(AtomicBool::new(false));
    let stop = StopSignals::block()
        .and_then(|signals| signals.wait(listening.clone(), socket_file.path()))
        .map_err(ServeError::Signals)?;
    // Every name known before the first circuit's minutes of loading.
    for name in &config.proving.preload {
        crate::requests::circuit_named(name).map_err(|what| StartError::Preload {
            circuit: name.clone(),
            what,
        })?;
    }
    let daemon = Daemon::new(&config)?;
    for name in &config.proving.preload {
        notify(&format!("STATUS=loading circuit {name}"));
        daemon
            .preload_at_start(name)
            .map_err(|what| StartError::Preload {
                circuit: name.clone(),
                what,
            })?;
    }
    let workers = daemon.spawn_workers();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|source| ServeError::Listen {
            address: config.server.listen.clone(),
            source,
        })?;
    let served = runtime.block_on(serve(&config, bound, daemon.clone(), stop, &listening));
    // A `PreloadSRS` load still running on a blocking thread is abandoned.
    runtime.shutdown_timeout(Duration::from_secs(1));
    // Workers return once the queue is closed and their job has ended;
    // a job still stuck in a backend call is abandoned with the process.
    let deadline = Instant::now() + Duration::from_secs(5);
    for worker in workers {
        while !worker.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    served
}

/// A listening socket, not yet served.
enum Bound {
    Tcp(std::net::TcpListener),
    Unix(std::os::unix::net::UnixListener, PathBuf),
}

/// A Unix socket's file, removed when the daemon stops (or fails to start;
/// a stop signal before it serves removes it too: [`StopSignals::wait`]).
struct SocketFile(Option<(PathBuf, FileId)>);

/// A file's device, inode and creation time: what tells this daemon's
/// socket from one another daemon bound at the same path after this one
/// stopped listening (whose inode may be the one just freed). Not the
/// change time, which a `chmod` of the socket for its clients changes.
type FileId = (u64, u64, Option<std::time::SystemTime>);

fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|meta| (meta.dev(), meta.ino(), meta.created().ok()))
}

impl SocketFile {
    fn path(&self) -> Option<PathBuf> {
        self.0.as_ref().map(|(path, _)| path.clone())
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        if let Some((path, id)) = &self.0 {
            if file_id(path) == Some(*id) {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// Binds the address `listen` names (`host:port` or `unix://PATH`).
fn bind(listen: &str) -> Result<(Bound, SocketFile), ServeError> {
    let listen_error = |source| ServeError::Listen {
        address: listen.to_owned(),
        source,
    };
    let bound = match Listen::parse(listen).map_err(StartError::from)? {
        Listen::Tcp(address) => {
            let listener = std::net::TcpListener::bind(&address).map_err(listen_error)?;
            listener.set_nonblocking(true).map_err(listen_error)?;
            (Bound::Tcp(listener), SocketFile(None))
        }
        Listen::Unix(path) => {
            remove_stale_socket(&path).map_err(listen_error)?;
            let listener = std::os::unix::net::UnixListener::bind(&path).map_err(listen_error)?;
            listener.set_nonblocking(true).map_err(listen_error)?;
            let id = file_id(&path).ok_or_else(|| {
                listen_error(std::io::Error::other("the socket vanished as it was bound"))
            })?;
            (
                Bound::Unix(listener, path.clone()),
                SocketFile(Some((path, id))),
            )
        }
    };
    Ok(bound)
}

/// Serves `bound` until `stop` resolves (the first SIGTERM or SIGINT),
/// then drains; sets `listening` once it serves.
async fn serve(
    config: &Config,
    bound: Bound,
    daemon: Arc<Daemon>,
    stop: oneshot::Receiver<&'static str>,
    listening: &AtomicBool,
) -> Result<(), ServeError> {
    let limit = config.server.max_message_bytes;
    let service = ProvingEngineServer::new(Service::new(daemon.clone()))
        .max_decoding_message_size(limit)
        .max_encoding_message_size(limit);
    let router = Server::builder().add_service(service);
    let grace = config.shutdown_grace();
    let shutdown = async move {
        // The waiter only drops its sender when the process exits.
        let Ok(signal) = stop.await else {
            return std::future::pending().await;
        };
        info!("{signal}: shutting down");
        notify(&format!("STOPPING=1\nSTATUS={signal}: draining"));
        drain(&daemon, grace).await;
    };
    let listen_error = |source| ServeError::Listen {
        address: config.server.listen.clone(),
        source,
    };
    match bound {
        Bound::Tcp(listener) => {
            let listener = TcpListener::from_std(listener).map_err(listen_error)?;
            let local = listener.local_addr().map_err(listen_error)?;
            listening.store(true, Ordering::SeqCst);
            info!(address = %local, "ready: listening");
            notify(&format!("READY=1\nSTATUS=listening on {local}"));
            println!("pce-prover serve: ready on {local}");
            router
                .serve_with_incoming_shutdown(TcpListenerStream::new(listener), shutdown)
                .await?;
        }
        Bound::Unix(listener, path) => {
            let listener = UnixListener::from_std(listener).map_err(listen_error)?;
            listening.store(true, Ordering::SeqCst);
            info!(path = %path.display(), "ready: listening");
            notify(&format!(
                "READY=1\nSTATUS=listening on unix://{}",
                path.display()
            ));
            println!("pce-prover serve: ready on unix://{}", path.display());
            router
                .serve_with_incoming_shutdown(UnixListenerStream::new(listener), shutdown)
                .await?;
        }
    }
    info!("stopped");
    Ok(())
}

/// A socket file left by a daemon that was killed is removed; any other
/// file at that path is left alone (binding then fails and says so).
fn remove_stale_socket(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => {
            if std::os::unix::net::UnixStream::connect(path).is_ok() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AddrInUse,
                    "another process serves on this socket",
                ));
            }
            warn!(path = %path.display(), "removing the socket of a daemon that did not stop cleanly");
            std::fs::remove_file(path)
        }
        _ => Ok(()),
    }
}

/// The end of a grace period starting now; `None` for one too long to end
/// (a configured grace of years means "never cancel", not a panic).
fn deadline_after(grace: Duration) -> Option<Instant> {
    Instant::now().checked_add(grace)
}

/// Whether `deadline` (from [`deadline_after`]) has not passed yet.
fn before(deadline: Option<Instant>) -> bool {
    deadline.is_none_or(|deadline| Instant::now() < deadline)
}

/// Refuses new jobs, cancels the queued ones, waits up to `grace` for the
/// running ones, then cancels what still runs and waits up to `grace` again
/// for it to stop at a partition's end; what runs still (a partition that
/// outlasts it, a backend call that hangs) is abandoned with the process,
/// its clients answered `CANCELLED`, so that a stop never hangs (unless
/// the grace is too long to end: then it waits for the jobs).
async fn drain(daemon: &Daemon, grace: Duration) {
    daemon.stop_preloads();
    let running = daemon.jobs.close();
    info!(running = ?running, ?grace, "queue closed; waiting for running jobs");
    let deadline = deadline_after(grace);
    let still_running = || {
        running
            .iter()
            .filter(|id| daemon.jobs.watch(id).is_some_and(|w| w.borrow().is_none()))
            .cloned()
            .collect::<Vec<_>>()
    };
    while !still_running().is_empty() && before(deadline) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let cancelled = still_running();
    if !cancelled.is_empty() {
        warn!(jobs = ?cancelled, "grace period over: cancelling");
        for id in &cancelled {
            daemon.jobs.cancel(id);
        }
        let deadline = deadline_after(grace);
        while !still_running().is_empty() && before(deadline) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let abandoned = still_running();
        if !abandoned.is_empty() {
            warn!(jobs = ?abandoned, "still running a grace period after being cancelled: abandoned with the process");
            for id in &abandoned {
                daemon.jobs.finish(id, Outcome::Cancelled);
            }
        }
    }
    info!(
        finished = running.len() - cancelled.len(),
        cancelled = cancelled.len(),
        "jobs drained"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--shutdown-grace 18446744073709551615` waits for the jobs instead
    /// of panicking at the stop.
    #[test]
    fn a_grace_period_too_long_to_end_never_ends() {
        assert!(before(deadline_after(Duration::MAX)));
        assert!(before(deadline_after(Duration::from_secs(u64::MAX))));
        assert!(before(deadline_after(Duration::from_secs(60))));
        assert!(!before(deadline_after(Duration::ZERO)));
    }

    /// A daemon that stopped listening may see another bind its path
    /// before it exits: its exit leaves the other's socket alone.
    #[test]
    fn the_socket_file_is_removed_only_while_it_is_this_daemons() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prover.sock");
        let ours = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let id = file_id(&path).unwrap();
        let own = SocketFile(Some((path.clone(), id)));
        // Its clients may be let in after it started: not another socket.
        let mode = std::os::unix::fs::PermissionsExt::from_mode(0o660);
        std::fs::set_permissions(&path, mode).unwrap();
        assert_eq!(file_id(&path), Some(id), "a chmod keeps it this daemon's");
        drop(ours);
        // Moved aside rather than removed, so that the other socket cannot
        // get its inode.
        std::fs::rename(&path, dir.path().join("moved.sock")).unwrap();
        let _theirs = std::os::unix::net::UnixListener::bind(&path).unwrap();
        drop(own);
        assert!(path.exists(), "the other daemon's socket was removed");

        let again = SocketFile(Some((path.clone(), file_id(&path).unwrap())));
        drop(again);
        assert!(!path.exists(), "its own socket is removed");
    }
}
