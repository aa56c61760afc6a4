//! A client of the daemon, for `pce-prover status` and `pce-prover prove`
//! and for tests: connects over TCP (`host:port`) or a unix socket
//! (`unix:///path`), the two forms Curio's `[Cuzk] Address` takes.

use hyper_util::rt::TokioIo;
use tonic::transport::{Channel, Endpoint, Uri};

use crate::config::Listen;
use crate::proto::proving_engine_client::ProvingEngineClient;

/// Why the daemon could not be reached.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The address is neither form.
    #[error(transparent)]
    Address(#[from] crate::config::ConfigError),
    /// Nothing answers there.
    #[error("connecting to {address}")]
    Transport {
        /// The address.
        address: String,
        /// Why.
        source: tonic::transport::Error,
    },
}

/// A client that accepts messages of up to `max_message_bytes`.
pub async fn connect(
    address: &str,
    max_message_bytes: usize,
) -> Result<ProvingEngineClient<Channel>, ConnectError> {
    let transport = |source| ConnectError::Transport {
        address: address.to_owned(),
        source,
    };
    let channel = match Listen::parse(address)? {
        Listen::Tcp(host_port) => Endpoint::from_shared(format!("http://{host_port}"))
            .map_err(transport)?
            .connect()
            .await
            .map_err(transport)?,
        Listen::Unix(path) => {
            // The URI is not used: the connector always dials the socket.
            Endpoint::from_static("http://localhost")
                .connect_with_connector(tower::service_fn(move |_: Uri| {
                    let path = path.clone();
                    async move {
                        tokio::net::UnixStream::connect(path)
                            .await
                            .map(TokioIo::new)
                    }
                }))
                .await
                .map_err(transport)?
        }
    };
    Ok(ProvingEngineClient::new(channel)
        .max_decoding_message_size(max_message_bytes)
        .max_encoding_message_size(max_message_bytes))
}
