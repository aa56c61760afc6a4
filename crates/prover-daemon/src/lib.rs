//! `pce-prover serve`: a proving daemon that speaks `cuzk.v1.ProvingEngine`,
//! the gRPC protocol Curio sends proofs over, so that every Curio node can
//! point its `[Cuzk] Address` at it and Curio's scheduler spreads proofs
//! over the machines that run it.
//!
//! - [`proto`]: the protocol, generated from `proto/cuzk/v1/proving.proto`;
//! - [`config`]: the TOML configuration;
//! - [`jobs`]: jobs by id, their priority queue, results and cancellation;
//! - [`memory_gate`]: one memory budget for every job and loaded circuit;
//! - [`residency`]: which circuits stay loaded, the least recently used
//!   idle ones evicted when room is needed;
//! - [`requests`]: what each proof kind's request holds and which circuit
//!   proves it; [`porep`]: PoRep C2 requests in detail;
//! - [`proving`]: a job through the PCE engine on a worker's device;
//! - [`load_ahead`]: urgent jobs' circuits loaded while they are queued;
//! - [`daemon`]: devices, workers, status;
//! - [`metrics`]: Prometheus text;
//! - [`service`]: the gRPC handlers;
//! - [`server`]: listening, readiness and graceful shutdown;
//! - [`service_manager`]: readiness and stopping told to systemd;
//! - [`stop_signals`]: SIGTERM and SIGINT, whatever handlers plugins install;
//! - [`client`]: connecting to a daemon.

pub mod client;
pub mod config;
pub mod daemon;
pub mod jobs;
pub mod load_ahead;
pub mod memory_gate;
pub mod metrics;
pub mod porep;
pub mod proving;
pub mod requests;
pub mod residency;
pub mod server;
pub mod service;
pub mod service_manager;
pub mod stop_signals;
pub mod suspension;

/// The `cuzk.v1` protocol (generated code).
#[allow(missing_docs, clippy::all)]
pub mod proto {
    tonic::include_proto!("cuzk.v1");
}
