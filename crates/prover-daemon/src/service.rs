//! The gRPC service: `cuzk.v1.ProvingEngine` requests translated to the
//! daemon's jobs and back.
//!
//! Handlers never prove and never wait on a lock that proving holds: they
//! queue, watch, cancel and read. What takes CPU time runs on a blocking
//! thread, so that the runtime's few threads keep answering: taking in a
//! request (its payload, tens of megabytes for a 32 GiB PoRep, copied,
//! hashed and parsed) and loading a circuit (`PreloadSRS`).

use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tonic::{Request, Response, Status};

use filecoin_prover::post::PoStKind;

use crate::daemon::Daemon;
use crate::jobs::{Outcome, OutcomeWatch, Priority, Refusal};
use crate::porep::PorepRequest;
use crate::proto::await_proof_response::Status as AwaitStatus;
use crate::proto::proving_engine_server::ProvingEngine;
use crate::proto::srs_status::Tier;
use crate::proto::*;
use crate::requests::{
    self, post_request, snap_request, PoStFields, KIND_POREP, KIND_SNAP, KIND_WINDOW_POST,
    KIND_WINNING_POST,
};

/// The longest request id taken: an id names its job in logs, metrics and
/// every error message of its input (Curio's are a few dozen bytes).
pub const MAX_REQUEST_ID_BYTES: usize = 256;

/// The service over a daemon.
pub struct Service {
    intake: Arc<Intake>,
}

/// Turns requests into the daemon's jobs.
struct Intake {
    daemon: Arc<Daemon>,
    unnamed: AtomicU64,
    /// Keys the requests' fingerprints: a client cannot make two of its
    /// requests collide on purpose.
    fingerprints: RandomState,
}

/// A submitted job: its id, the answer, and the job's outcome to come.
type Taken = (String, SubmitProofResponse, Option<OutcomeWatch>);

impl Service {
    /// Serves `daemon`.
    pub fn new(daemon: Arc<Daemon>) -> Self {
        Self {
            intake: Arc::new(Intake {
                daemon,
                unnamed: AtomicU64::new(0),
                fingerprints: RandomState::new(),
            }),
        }
    }

    fn daemon(&self) -> &Arc<Daemon> {
        &self.intake.daemon
    }

    /// Submits `request` on a blocking thread (see the module doc).
    async fn submit(&self, request: SubmitProofRequest) -> Result<Taken, Status> {
        let intake = self.intake.clone();
        match tokio::task::spawn_blocking(move || intake.submit(request)).await {
            Ok(taken) => taken.map_err(|e| *e),
            Err(e) => Err(Status::internal(match e.try_into_panic() {
                Ok(panic) => format!(
                    "taking in the request failed: {}",
                    proving_engine::panic_message(&*panic)
                ),
                Err(_) => "taking in the request was cancelled (shutting down)".into(),
            })),
        }
    }
}

impl Intake {
    /// What `request` asks to prove, its id and priority aside: a retry's
    /// is the same.
    fn fingerprint(&self, request: &SubmitProofRequest) -> u64 {
        self.fingerprints.hash_one((
            request.proof_kind,
            request.sector_size,
            request.registered_proof,
            &request.vanilla_proof,
            &request.vanilla_proofs,
            (request.sector_number, request.miner_id),
            (&request.randomness, request.partition_index),
            (
                &request.comm_r_old,
                &request.comm_r_new,
                &request.comm_d_new,
            ),
        ))
    }

    /// Submits `request`: its job's id, the answer, and the job's outcome
    /// to come; or why it has no job (boxed: a `Status` is large).
    fn submit(&self, request: SubmitProofRequest) -> Result<Taken, Box<Status>> {
        if request.request_id.len() > MAX_REQUEST_ID_BYTES {
            return Err(Box::new(Status::invalid_argument(format!(
                "request_id is {} bytes long; at most {MAX_REQUEST_ID_BYTES} are taken",
                request.request_id.len()
            ))));
        }
        let id = if request.request_id.is_empty() {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            format!(
                "job-{nanos}-{}",
                self.unnamed.fetch_add(1, Ordering::Relaxed)
            )
        } else {
            request.request_id.clone()
        };
        // Before the payload is parsed: no job, nothing to parse it for.
        if crate::proto::Priority::try_from(request.priority).is_err() {
            return Err(Box::new(Status::invalid_argument(format!(
                "priority {} is not one this daemon knows (0 the kind's own, 1 LOW, 2 NORMAL, \
                 3 HIGH, 4 CRITICAL)",
                request.priority
            ))));
        }
        let (kind, default_priority, parsed) = translate(&id, request.proof_kind(), &request);
        let priority = match request.priority() {
            crate::proto::Priority::Unspecified => default_priority,
            crate::proto::Priority::Low => Priority::Low,
            crate::proto::Priority::Normal => Priority::Normal,
            crate::proto::Priority::High => Priority::High,
            crate::proto::Priority::Critical => Priority::Critical,
        };
        let fingerprint = self.fingerprint(&request);
        let submitted = self.daemon.submit(&id, kind, priority, parsed, fingerprint);
        if let Some(refusal) = submitted.refused {
            let message = format!("job {id:?}: {refusal}");
            return Err(Box::new(match refusal {
                Refusal::OtherRequest => Status::already_exists(message),
                Refusal::BeingCancelled => Status::aborted(message),
                Refusal::ShuttingDown => Status::unavailable(message),
                Refusal::InputsFull => Status::resource_exhausted(message),
            }));
        }
        let response = SubmitProofResponse {
            job_id: id.clone(),
            queue_position: submitted.position as u32,
            assigned_gpu: submitted.device.map_or(String::new(), |d| d.to_string()),
        };
        Ok((id, response, submitted.outcome))
    }
}

impl Service {
    /// The answer for job `id`, whose outcome `watch` receives (`None`: no
    /// such job), waiting up to `timeout_ms` (0: no limit).
    async fn await_result(
        id: &str,
        watch: Option<OutcomeWatch>,
        timeout_ms: u64,
    ) -> AwaitProofResponse {
        let mut response = AwaitProofResponse {
            job_id: id.to_owned(),
            ..Default::default()
        };
        let Some(mut watch) = watch else {
            response.set_status(AwaitStatus::Unknown);
            response.error_message = format!("no job {id:?} (never submitted, or forgotten)");
            return response;
        };
        let done = watch.wait_for(Option::is_some);
        let outcome = if timeout_ms == 0 {
            done.await.ok().and_then(|o| o.clone())
        } else {
            match tokio::time::timeout(Duration::from_millis(timeout_ms), done).await {
                Ok(result) => result.ok().and_then(|o| o.clone()),
                Err(_) => {
                    response.set_status(AwaitStatus::Timeout);
                    return response;
                }
            }
        };
        match outcome.as_deref() {
            Some(Outcome::Completed { proof, timings, .. }) => {
                response.set_status(AwaitStatus::Completed);
                response.proof = proof.clone();
                let ms = |d: Duration| d.as_millis() as u64;
                response.queue_wait_ms = ms(timings.queue_wait);
                response.srs_load_ms = ms(timings.load);
                response.synthesis_ms = ms(timings.synthesis);
                response.gpu_compute_ms = ms(timings.prove);
                response.total_ms = ms(timings.total);
            }
            Some(Outcome::Failed(message)) => {
                response.set_status(AwaitStatus::Failed);
                response.error_message = message.clone();
            }
            Some(Outcome::Cancelled) => {
                response.set_status(AwaitStatus::Cancelled);
                response.error_message = "cancelled".into();
            }
            None => {
                response.set_status(AwaitStatus::Unknown);
                response.error_message = format!("job {id:?} was forgotten before it ended");
            }
        }
        response
    }
}

/// The job a request describes: its kind, the priority its kind has when
/// the request names none, and what to prove (or why it cannot be).
/// Public for the fuzz tests, which feed it what a client could send.
pub fn translate(
    id: &str,
    kind: ProofKind,
    request: &SubmitProofRequest,
) -> (&'static str, Priority, Result<requests::Request, String>) {
    let post = |kind| {
        post_request(PoStFields {
            id,
            kind,
            registered_proof: request.registered_proof,
            sector_size: request.sector_size,
            vanilla_proofs: &request.vanilla_proofs,
            miner_id: request.miner_id,
            randomness: &request.randomness,
            partition_index: request.partition_index,
        })
    };
    match kind {
        ProofKind::PorepSealCommit => (
            KIND_POREP,
            Priority::Normal,
            PorepRequest::new(
                id,
                request.vanilla_proof.clone(),
                request.registered_proof,
                request.sector_size,
                request.sector_number,
                request.miner_id,
            )
            .map(requests::Request::Porep),
        ),
        ProofKind::SnapDealsUpdate => (
            KIND_SNAP,
            Priority::Normal,
            snap_request(
                id,
                request.registered_proof,
                request.sector_size,
                &request.vanilla_proofs,
                [
                    &request.comm_r_old,
                    &request.comm_r_new,
                    &request.comm_d_new,
                ],
            ),
        ),
        ProofKind::WindowPostPartition => {
            (KIND_WINDOW_POST, Priority::High, post(PoStKind::Window))
        }
        ProofKind::WinningPost => (
            KIND_WINNING_POST,
            Priority::Critical,
            post(PoStKind::Winning),
        ),
        // prost reads a value the enum lacks as `Unspecified`.
        ProofKind::Unspecified => (
            "unspecified",
            Priority::Normal,
            Err(match request.proof_kind {
                0 => "proof_kind is unspecified".into(),
                other => format!(
                    "proof_kind {other} is not one this daemon knows (1 PoRep, 2 SnapDeals, \
                     3 WindowPoSt partition, 4 WinningPoSt)"
                ),
            }),
        ),
    }
}

#[tonic::async_trait]
impl ProvingEngine for Service {
    async fn submit_proof(
        &self,
        request: Request<SubmitProofRequest>,
    ) -> Result<Response<SubmitProofResponse>, Status> {
        Ok(Response::new(self.submit(request.into_inner()).await?.1))
    }

    async fn await_proof(
        &self,
        request: Request<AwaitProofRequest>,
    ) -> Result<Response<AwaitProofResponse>, Status> {
        let request = request.into_inner();
        let id = request.job_id;
        let watch = self.daemon().jobs.watch(&id);
        Ok(Response::new(
            Self::await_result(&id, watch, request.timeout_ms).await,
        ))
    }

    async fn prove(
        &self,
        request: Request<ProveRequest>,
    ) -> Result<Response<ProveResponse>, Status> {
        let submit = request
            .into_inner()
            .submit
            .ok_or_else(|| Status::invalid_argument("ProveRequest.submit is missing"))?;
        let (id, _, watch) = self.submit(submit).await?;
        let result = Self::await_result(&id, watch, 0).await;
        Ok(Response::new(ProveResponse {
            result: Some(result),
        }))
    }

    async fn cancel_proof(
        &self,
        request: Request<CancelProofRequest>,
    ) -> Result<Response<CancelProofResponse>, Status> {
        let id = request.into_inner().job_id;
        match self.daemon().jobs.cancel(&id) {
            Some(was_running) => Ok(Response::new(CancelProofResponse { was_running })),
            None => Err(Status::not_found(format!(
                "no queued or running job {id:?}"
            ))),
        }
    }

    async fn get_status(
        &self,
        _: Request<GetStatusRequest>,
    ) -> Result<Response<GetStatusResponse>, Status> {
        let status = self.daemon().status();
        let gpus = status
            .devices
            .iter()
            .map(|d| {
                let (total, free) = d.memory.unwrap_or((0, 0));
                let current = d.running.first();
                GpuStatus {
                    ordinal: d.index,
                    name: d.name.clone(),
                    vram_total_bytes: total,
                    vram_free_bytes: free,
                    current_job_id: current.map_or(String::new(), |(id, _)| id.clone()),
                    current_proof_kind: current.map_or(String::new(), |(_, kind)| kind.to_string()),
                }
            })
            .collect();
        let loaded_srs = status
            .circuits
            .iter()
            .map(|c| SrsStatus {
                circuit_id: c.name.clone(),
                tier: Tier::Hot.into(),
                size_bytes: c.bytes,
                ref_count: c.in_use,
            })
            .collect();
        let queues = status
            .queues
            .iter()
            .map(|(kind, (pending, running))| QueueStatus {
                proof_kind: kind.to_string(),
                pending: *pending as u32,
                in_progress: *running as u32,
            })
            .collect();
        Ok(Response::new(GetStatusResponse {
            gpus,
            loaded_srs,
            queues,
            total_proofs_completed: status.completed,
            total_proofs_failed: status.failed,
            uptime_seconds: status.uptime.as_secs(),
            pinned_memory_bytes: status.memory_used,
            pinned_memory_limit_bytes: status.memory_budget,
        }))
    }

    async fn get_metrics(
        &self,
        _: Request<GetMetricsRequest>,
    ) -> Result<Response<GetMetricsResponse>, Status> {
        let prometheus_text = self.daemon().metrics.render(&self.daemon().gauges());
        Ok(Response::new(GetMetricsResponse { prometheus_text }))
    }

    async fn preload_srs(
        &self,
        request: Request<PreloadSrsRequest>,
    ) -> Result<Response<PreloadSrsResponse>, Status> {
        let name = request.into_inner().circuit_id;
        requests::circuit_named(&name).map_err(Status::invalid_argument)?;
        let daemon = self.daemon().clone();
        let load = tokio::task::spawn_blocking(move || daemon.preload(&name));
        // A stop does not wait for a step of the load (decoding 32 GiB
        // parameters takes minutes): the call is answered, the load left
        // to end with the process.
        let stopping = async {
            while !self.daemon().is_stopping() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        };
        let loaded = tokio::select! {
            joined = load => joined
                .map_err(|e| Status::internal(format!("the loading thread failed: {e}")))?,
            () = stopping => return Err(Status::unavailable("the daemon is stopping")),
        };
        let (already_loaded, took) = loaded.map_err(Status::failed_precondition)?;
        Ok(Response::new(PreloadSrsResponse {
            already_loaded,
            load_time_ms: took.as_millis() as u64,
        }))
    }

    async fn evict_srs(
        &self,
        request: Request<EvictSrsRequest>,
    ) -> Result<Response<EvictSrsResponse>, Status> {
        let name = request.into_inner().circuit_id;
        let daemon = self.daemon().clone();
        // Freeing a circuit nothing else holds takes a while: not on the
        // runtime's threads.
        let evicted = tokio::task::spawn_blocking(move || daemon.evict(&name))
            .await
            .map_err(|e| Status::internal(format!("the evicting thread failed: {e}")))?;
        let (was_loaded, freed_bytes) = evicted.map_err(Status::invalid_argument)?;
        Ok(Response::new(EvictSrsResponse {
            was_loaded,
            freed_bytes,
        }))
    }
}
