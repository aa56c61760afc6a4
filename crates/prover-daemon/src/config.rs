//! The daemon's configuration: a TOML file, then command-line overrides.
//!
//! Every field has a default, so an empty file (or none) is a valid
//! configuration: listen on 127.0.0.1:9820, prove on every device of the
//! CPU backend, one worker per device, three quarters of physical memory
//! (or of the container's limit, where less).
//! `docs/daemon.example.toml` documents each field.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// Why the configuration is unusable.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has unknown or mistyped fields.
    #[error("{path}: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with its line.
        source: toml::de::Error,
    },
    /// A field's value is not usable.
    #[error("{field}: {what}")]
    Invalid {
        /// The field, as `section.name`.
        field: &'static str,
        /// What is wrong with it.
        what: String,
    },
}

/// The whole configuration.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Where and how to serve.
    pub server: ServerConfig,
    /// What to prove with.
    pub proving: ProvingConfig,
}

/// The `[server]` section.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// `host:port` for TCP, or `unix:///path/to.sock` for a unix socket.
    pub listen: String,
    /// Largest request or response accepted, bytes (Curio's client sends
    /// up to 256 MiB; a 32 GiB sector's C1 output is about 50 MB, a
    /// non-interactive one's 0.5–0.9 GB: raise it to 1 GiB to prove those).
    pub max_message_bytes: usize,
    /// On SIGTERM or SIGINT, how long running jobs may take to finish
    /// before they are cancelled, seconds.
    pub shutdown_grace_seconds: u64,
    /// How long a finished job's result is kept for `AwaitProof`, seconds.
    pub keep_results_seconds: u64,
    /// The most the inputs of the jobs queued and running may hold, bytes
    /// (a 32 GiB PoRep's C1 output is about 50 MB); a submission beyond it
    /// is refused with `RESOURCE_EXHAUSTED`, one is always taken when none
    /// is held. Not part of `proving.memory_budget`.
    pub max_input_bytes_held: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:9820".into(),
            max_message_bytes: 256 << 20,
            shutdown_grace_seconds: 60,
            keep_results_seconds: 600,
            max_input_bytes_held: 4 << 30,
        }
    }
}

/// The `[proving]` section.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProvingConfig {
    /// Backend plugin: a name (`cpu`, `cuda`, `opencl`) or a library path.
    pub backend: String,
    /// Device indices to prove on; empty for every device of the backend.
    pub devices: Vec<u32>,
    /// Jobs proven at once on each device.
    pub workers_per_device: usize,
    /// Partitions of one job in memory at once: one proven, the others'
    /// witnesses generated meanwhile, each on its own thread. Each counts
    /// a partition's working set against the memory budget; more keeps a
    /// many-core host's cores busy where one partition's witness uses few
    /// threads (SnapDeals one, a 32 GiB PoRep partition 18). Fewer where
    /// the budget could never hold that many beside the circuit.
    pub partitions_in_flight: usize,
    /// Memory the daemon may use for circuits and jobs, as `64GiB` or
    /// bytes; three quarters of physical memory (or of the container's
    /// limit, where less) when absent.
    pub memory_budget: Option<String>,
    /// Filecoin's parameter cache (`FIL_PROOFS_PARAMETER_CACHE`); the
    /// environment's, or filecoin-proofs' default, when absent.
    pub param_cache: Option<PathBuf>,
    /// Circuits loaded before the daemon accepts requests, as
    /// `porep-32g` (see `PreloadSRS`).
    pub preload: Vec<String>,
    /// Backend that proves a partition again when `backend` fails it (an
    /// error, or a proof that does not verify), or `none`; `cpu` behind
    /// any other backend when absent.
    pub fallback: Option<String>,
    /// Between two partitions of a job, prove on its device the queued
    /// jobs of a higher priority first (a WinningPoSt then waits for one
    /// partition of a PoRep, not for the whole proof), when the memory
    /// budget holds both.
    pub interleave_urgent_jobs: bool,
    /// A worker takes queued jobs of the circuit its device is set up for
    /// before older jobs of another circuit and the same priority, as long
    /// as the oldest has waited less than this, seconds (0: strictly by
    /// arrival). Each switch costs a device set-up, and where the memory
    /// budget holds one circuit at a time, a reload.
    pub prefer_loaded_circuit_seconds: u64,
    /// A device whose set-up fails, or that fails a partition no fallback
    /// proves, takes no job for this many seconds, twice as long after
    /// each further failure in a row (at most 15 minutes, or this if
    /// longer; at most a day), until a job succeeds on it (0: never
    /// suspended).
    pub suspend_failing_device_seconds: u64,
}

impl Default for ProvingConfig {
    fn default() -> Self {
        Self {
            backend: "cpu".into(),
            devices: Vec::new(),
            workers_per_device: 1,
            partitions_in_flight: 2,
            memory_budget: None,
            param_cache: None,
            preload: Vec::new(),
            fallback: None,
            interleave_urgent_jobs: true,
            prefer_loaded_circuit_seconds: 600,
            suspend_failing_device_seconds: 60,
        }
    }
}

impl ProvingConfig {
    /// The fallback backend: as configured (`none` for none), else the
    /// CPU's behind any other backend.
    pub fn fallback_backend(&self) -> Option<String> {
        match self.fallback.as_deref() {
            Some("none") => None,
            Some(backend) => Some(backend.to_owned()),
            None => (self.backend != "cpu").then(|| "cpu".to_owned()),
        }
    }
}

impl Config {
    /// Reads `path`.
    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        toml::from_str(&text).map_err(|source| ConfigError::Parse {
            path: path.to_owned(),
            source,
        })
    }

    /// The memory budget in bytes, if one is set.
    pub fn memory_budget(&self) -> Result<Option<u64>, ConfigError> {
        self.proving
            .memory_budget
            .as_deref()
            .filter(|budget| *budget != "auto")
            .map(proving_engine::memory::parse_size)
            .transpose()
            .map_err(|what| ConfigError::Invalid {
                field: "proving.memory_budget",
                what,
            })
    }

    /// Checks the fields that have no usable value outside a range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.proving.workers_per_device == 0 {
            return Err(ConfigError::Invalid {
                field: "proving.workers_per_device",
                what: "must be at least 1".into(),
            });
        }
        if self.proving.partitions_in_flight == 0 {
            return Err(ConfigError::Invalid {
                field: "proving.partitions_in_flight",
                what: "must be at least 1".into(),
            });
        }
        if self.proving.suspend_failing_device_seconds > 86_400 {
            return Err(ConfigError::Invalid {
                field: "proving.suspend_failing_device_seconds",
                what: "must be at most 86400 (a day)".into(),
            });
        }
        if self.server.max_message_bytes < 4 << 20 {
            return Err(ConfigError::Invalid {
                field: "server.max_message_bytes",
                what: "must be at least 4 MiB (a 2 KiB sector's C1 output is 1 MB)".into(),
            });
        }
        Listen::parse(&self.server.listen)?;
        self.memory_budget()?;
        Ok(())
    }

    /// How long running jobs may take to finish at shutdown.
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_secs(self.server.shutdown_grace_seconds)
    }
}

/// Where the daemon listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// A TCP address, `host:port`.
    Tcp(String),
    /// A unix socket's path.
    Unix(PathBuf),
}

impl Listen {
    /// Parses `host:port` or `unix:///path` (also `unix:/path`).
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        if let Some(path) = text.strip_prefix("unix://").or(text.strip_prefix("unix:")) {
            if path.is_empty() {
                return Err(ConfigError::Invalid {
                    field: "server.listen",
                    what: format!("{text:?} names no socket path"),
                });
            }
            return Ok(Self::Unix(PathBuf::from(path)));
        }
        if !text.contains(':') {
            return Err(ConfigError::Invalid {
                field: "server.listen",
                what: format!("{text:?} is neither host:port nor unix:///path"),
            });
        }
        Ok(Self::Tcp(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_file_is_the_defaults() {
        let config: Config = toml::from_str("").unwrap();
        assert_eq!(config.server.listen, "127.0.0.1:9820");
        assert_eq!(config.proving.workers_per_device, 1);
        assert_eq!(config.proving.partitions_in_flight, 2);
        config.validate().unwrap();
    }

    #[test]
    fn the_documented_example_parses() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/daemon.example.toml");
        let config = Config::read(&path).unwrap();
        config.validate().unwrap();
        assert_eq!(
            Listen::parse(&config.server.listen).unwrap(),
            Listen::Unix("/run/pce-prover/prover.sock".into())
        );
    }

    #[test]
    fn unknown_fields_and_bad_values_are_named() {
        let err = toml::from_str::<Config>("[proving]\nbackedn = \"cuda\"").unwrap_err();
        assert!(err.to_string().contains("backedn"), "{err}");
        let config: Config = toml::from_str("[proving]\nworkers_per_device = 0").unwrap();
        let err = config.validate().unwrap_err().to_string();
        assert!(err.contains("proving.workers_per_device"), "{err}");
        let config: Config = toml::from_str("[proving]\npartitions_in_flight = 0").unwrap();
        let err = config.validate().unwrap_err().to_string();
        assert!(err.contains("proving.partitions_in_flight"), "{err}");
        let config: Config =
            toml::from_str("[proving]\nsuspend_failing_device_seconds = 100000").unwrap();
        let err = config.validate().unwrap_err().to_string();
        assert!(
            err.contains("proving.suspend_failing_device_seconds"),
            "{err}"
        );
        let config: Config = toml::from_str("[proving]\nmemory_budget = \"lots\"").unwrap();
        assert!(config.validate().is_err());
        let config: Config = toml::from_str("[proving]\nmemory_budget = \"auto\"").unwrap();
        assert_eq!(config.memory_budget().unwrap(), None);
        let config: Config = toml::from_str("[proving]\nmemory_budget = \"64GiB\"").unwrap();
        assert_eq!(config.memory_budget().unwrap(), Some(64 << 30));
        assert!(Listen::parse("localhost").is_err());
        assert!(Listen::parse("unix://").is_err());
    }
}
