//! Telling the service manager (systemd) what the daemon is doing, so that
//! a unit of `Type=notify` counts as started only once the daemon listens:
//! a Curio node ordered after it never finds it still loading its circuits
//! (minutes at 32 GiB), and `systemctl status` shows what it is doing.
//!
//! The protocol (`sd_notify(3)`): one datagram of `KEY=VALUE` lines
//! (`READY=1`, `STOPPING=1`, `STATUS=…`) sent to the unix socket that
//! `$NOTIFY_SOCKET` names, a leading `@` naming an abstract socket. Without
//! the variable nothing is sent. A message that cannot be sent is logged,
//! never an error of the daemon's: it proves the same either way.

use std::io;
use std::os::unix::net::UnixDatagram;

use tracing::warn;

/// The environment variable that names the service manager's socket.
pub const NOTIFY_SOCKET: &str = "NOTIFY_SOCKET";

/// Whether the daemon runs under a service manager that listens.
pub fn is_present() -> bool {
    std::env::var_os(NOTIFY_SOCKET).is_some()
}

/// Sends `state` (`KEY=VALUE` lines) to the service manager, if there is one.
pub fn notify(state: &str) {
    let Some(socket) = std::env::var_os(NOTIFY_SOCKET) else {
        return;
    };
    let socket = socket.to_string_lossy();
    if let Err(error) = notify_to(&socket, state) {
        warn!(%socket, %error, "could not tell the service manager {state:?}");
    }
}

/// Sends `state` to the socket `socket` (a path, or `@name` for an abstract
/// socket).
pub fn notify_to(socket: &str, state: &str) -> io::Result<()> {
    let sender = UnixDatagram::unbound()?;
    let sent = match socket.strip_prefix('@') {
        Some(name) => {
            use std::os::linux::net::SocketAddrExt;
            let address = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
            sender.send_to_addr(state.as_bytes(), &address)?
        }
        None => sender.send_to(state.as_bytes(), socket)?,
    };
    if sent != state.len() {
        return Err(io::Error::new(
            io::ErrorKind::WriteZero,
            format!("sent {sent} of {} bytes", state.len()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn received(socket: &UnixDatagram) -> String {
        let mut buffer = [0u8; 256];
        let n = socket.recv(&mut buffer).unwrap();
        String::from_utf8(buffer[..n].to_vec()).unwrap()
    }

    #[test]
    fn a_state_reaches_a_socket_by_path_or_abstract_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify");
        let listener = UnixDatagram::bind(&path).unwrap();
        notify_to(path.to_str().unwrap(), "READY=1\nSTATUS=listening").unwrap();
        assert_eq!(received(&listener), "READY=1\nSTATUS=listening");

        use std::os::linux::net::SocketAddrExt;
        let name = format!("pce-prover-test-{}", std::process::id());
        let address = std::os::unix::net::SocketAddr::from_abstract_name(&name).unwrap();
        let listener = UnixDatagram::bind_addr(&address).unwrap();
        notify_to(&format!("@{name}"), "STOPPING=1").unwrap();
        assert_eq!(received(&listener), "STOPPING=1");

        let missing = dir.path().join("nobody");
        assert!(notify_to(missing.to_str().unwrap(), "READY=1").is_err());
    }
}
