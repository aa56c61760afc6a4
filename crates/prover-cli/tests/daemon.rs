//! `pce-prover serve` as a real process on a unix socket or loopback TCP,
//! driven by clients: Rust's (the daemon crate's), Python's (grpcio, the
//! protocol compiled independently), and `pce-prover prove`. Proofs are
//! checked here with filecoin-proofs' verify_seal, not only by the daemon.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SECTOR_SIZE_32_GIB};
use filecoin_prover::aggregate::ensure_test_srs;
use filecoin_prover::c1::lotus_bench_json;
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::compound::ProofKind as _;
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::post::{PoStInput, PoStJob, PoStKind, PoStProofType};
use filecoin_prover::proof_type::{ProofType, Variant};
use filecoin_prover::update::{UpdateInput, UpdateJob};
use filecoin_prover::vanilla::VanillaBytes;
use filecoin_testkit::sparse_sector::sparse_post_vanilla_proof;
use filecoin_testkit::test_sector::{seal_2kib_for, seal_2kib_with, TestSector};
use filecoin_testkit::vanilla::{post_vanilla_proofs, randomness, snap_update, UpdatedSector};
use prover_daemon::client::connect;
use prover_daemon::proto::await_proof_response::Status;
use prover_daemon::proto::proving_engine_client::ProvingEngineClient;
use prover_daemon::proto::*;
use tonic::transport::Channel;

const MINER: u64 = 1000;

static PARAMS: Mutex<()> = Mutex::new(());

fn shared_parameter_cache() -> PathBuf {
    let _guard = PARAMS.lock().unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-proof-parameters");
    std::fs::create_dir_all(&dir).unwrap();
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
    ensure_test_params(ProofType::interactive(2048).unwrap(), 0, false).unwrap();
    dir
}

/// A sealed 2 KiB sector of miner [`MINER`] and Curio's wrapper of its C1.
fn sector(seed: u64, dir: &Path) -> (TestSector, Vec<u8>) {
    // Sealing reads filecoin-proofs' settings, once per process: the
    // shared cache must be set before, or the parameters go elsewhere.
    shared_parameter_cache();
    let sector = seal_2kib_for(seed, dir, prover_id_of_miner(MINER)).unwrap();
    let wrapper = lotus_bench_json(
        &sector.c1,
        ProofType::interactive(2048).unwrap(),
        u64::from(sector.sector_id),
    );
    (sector, serde_json::to_vec(&wrapper).unwrap())
}

fn porep_request(id: &str, sector: &TestSector, wrapper: &[u8]) -> SubmitProofRequest {
    SubmitProofRequest {
        request_id: id.to_owned(),
        proof_kind: ProofKind::PorepSealCommit.into(),
        sector_size: 2048,
        registered_proof: 5,
        priority: Priority::Normal.into(),
        vanilla_proof: wrapper.to_vec(),
        sector_number: u64::from(sector.sector_id),
        miner_id: MINER,
        ..Default::default()
    }
}

/// A daemon process; killed when dropped.
struct Daemon {
    child: Child,
    address: String,
    log: PathBuf,
}

impl Daemon {
    /// Starts `pce-prover serve` on `listen` with the 2 KiB circuit
    /// preloaded, and waits until it says it is ready.
    fn start(listen: &str, dir: &Path, extra: &[&str]) -> Self {
        Self::start_with_env(listen, dir, extra, &[])
    }

    /// [`Self::start`] with `env` set in the daemon's environment.
    fn start_with_env(listen: &str, dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Self {
        Self::start_preloading(listen, dir, "porep-2k", extra, env)
    }

    /// [`Self::start_with_env`] with the circuit `preload` preloaded.
    fn start_preloading(
        listen: &str,
        dir: &Path,
        preload: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        let cache = shared_parameter_cache();
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let log = dir.join(format!(
            "daemon-{}.log",
            STARTED.fetch_add(1, Ordering::Relaxed)
        ));
        let mut child = Command::new(env!("CARGO_BIN_EXE_pce-prover"))
            .args(["serve", "--listen", listen, "--preload", preload])
            .args(extra)
            .env("PCE_BACKEND_DIR", common::plugin_dir())
            .env("FIL_PROOFS_PARAMETER_CACHE", &cache)
            .env("RUST_LOG", "info")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let address = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(address) = line.strip_prefix("pce-prover serve: ready on ") {
                        break address.to_owned();
                    }
                }
                _ => panic!(
                    "the daemon stopped before it was ready:\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                ),
            }
        };
        Self {
            child,
            address,
            log,
        }
    }

    /// [`Self::start`] on the CPU backend behind the test plugin, whose
    /// MSMs wait while the file `gate` exists.
    fn start_gated(dir: &Path, gate: &Path, extra: &[&str]) -> Self {
        let cpu = common::plugin_dir().join(backend_api::loader::plugin_file_name("cpu"));
        let gated = common::plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
        let mut args = vec!["--backend", gated.to_str().unwrap()];
        args.extend_from_slice(extra);
        Self::start_with_env(
            "127.0.0.1:0",
            dir,
            &args,
            &[
                (pce_backend_broken::MODE_ENV, "gated"),
                (
                    pce_backend_broken::forwarding::DELEGATE_ENV,
                    cpu.to_str().unwrap(),
                ),
                (
                    pce_backend_broken::forwarding::GATE_ENV,
                    gate.to_str().unwrap(),
                ),
            ],
        )
    }

    async fn client(&self) -> ProvingEngineClient<Channel> {
        connect(&self.address, 64 << 20).await.unwrap()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends SIGTERM and waits for the process to exit.
    fn terminate(mut self) -> std::process::ExitStatus {
        Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        self.child.wait().unwrap()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

async fn await_job(client: &mut ProvingEngineClient<Channel>, id: &str) -> AwaitProofResponse {
    await_for(client, id, 0).await
}

/// `AwaitProof` of job `id` for up to `timeout_ms` (0: until it ends).
async fn await_for(
    client: &mut ProvingEngineClient<Channel>,
    id: &str,
    timeout_ms: u64,
) -> AwaitProofResponse {
    client
        .await_proof(AwaitProofRequest {
            job_id: id.to_owned(),
            timeout_ms,
        })
        .await
        .unwrap()
        .into_inner()
}

#[test]
fn prove_returns_a_proof_verify_seal_accepts_and_status_answers_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let (sector, wrapper) = sector(21, dir.path());
    let socket = format!("unix://{}", dir.path().join("prover.sock").display());
    let daemon = Daemon::start(&socket, dir.path(), &[]);
    runtime().block_on(async {
        let mut client = daemon.client().await;
        let proving = {
            let mut client = client.clone();
            let request = porep_request("porep-a", &sector, &wrapper);
            tokio::spawn(async move {
                client
                    .prove(ProveRequest {
                        submit: Some(request),
                    })
                    .await
            })
        };
        // GetStatus answers within Curio's 5 s deadline while a proof runs,
        // and shows it.
        let mut saw_running = false;
        while !proving.is_finished() {
            let start = Instant::now();
            let mut request = tonic::Request::new(GetStatusRequest {});
            request.set_timeout(Duration::from_secs(5));
            let status = client.get_status(request).await.unwrap().into_inner();
            assert!(
                start.elapsed() < Duration::from_secs(1),
                "{:?}",
                start.elapsed()
            );
            saw_running |= status.gpus[0].current_job_id == "porep-a";
            assert_eq!(status.loaded_srs[0].circuit_id, "porep-2k");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(saw_running, "GetStatus never showed the running job");
        let result = proving.await.unwrap().unwrap().into_inner().result.unwrap();
        assert_eq!(
            result.status(),
            Status::Completed,
            "{}",
            result.error_message
        );
        assert_eq!(result.proof.len(), 192);
        assert!(result.total_ms >= result.gpu_compute_ms && result.gpu_compute_ms > 0);
        assert!(
            sector.verify(&result.proof).unwrap(),
            "verify_seal rejected it"
        );

        let metrics = get_metrics(&mut client).await;
        assert!(
            metrics.contains("pce_prover_jobs_total{kind=\"porep\",outcome=\"completed\"} 1"),
            "{metrics}"
        );
        assert!(
            metrics.contains("pce_prover_stage_seconds_count{kind=\"porep\",stage=\"prove\"} 1")
        );
        assert!(
            metrics.contains("pce_prover_fallback_partitions_total{kind=\"porep\"} 0"),
            "{metrics}"
        );

        // Evicting frees the circuit's memory; preloading loads it again.
        let evicted = client
            .evict_srs(EvictSrsRequest {
                circuit_id: "porep-2k".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(evicted.was_loaded && evicted.freed_bytes > 0, "{evicted:?}");
        let status = get_status(&mut client).await;
        assert!(status.loaded_srs.is_empty(), "{status:?}");
        let preloaded = client
            .preload_srs(PreloadSrsRequest {
                circuit_id: "StackedDrg2KiBV1_1".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(!preloaded.already_loaded);
        let status = get_status(&mut client).await;
        assert_eq!(status.loaded_srs[0].circuit_id, "porep-2k");
    });
    assert!(daemon.terminate().success());
    assert!(
        !dir.path().join("prover.sock").exists(),
        "the socket file was left behind"
    );
}

#[test]
fn jobs_queue_by_priority_join_by_id_and_cancel() {
    let dir = tempfile::tempdir().unwrap();
    let (sector, wrapper) = sector(22, dir.path());
    // The first job's MSMs wait while the gate file exists: the queue
    // behind it is seen before it ends, however slow the machine. Urgent
    // jobs wait for it too, not proven between its partitions.
    let gate = dir.path().join("gate");
    let config = write_config(dir.path(), "[proving]\ninterleave_urgent_jobs = false\n");
    let daemon = Daemon::start_gated(dir.path(), &gate, &["--config", &config]);
    std::fs::write(&gate, b"").unwrap();
    runtime().block_on(async {
        let mut client = daemon.client().await;
        let submit = |id: &str, priority: Priority| {
            let mut request = porep_request(id, &sector, &wrapper);
            request.set_priority(priority);
            request
        };
        let first = client
            .submit_proof(submit("first", Priority::Normal))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(first.job_id, "first");
        wait_until_running(&mut client, "first").await;
        let later = client
            .submit_proof(submit("later", Priority::Low))
            .await
            .unwrap()
            .into_inner();
        let urgent = client
            .submit_proof(submit("urgent", Priority::High))
            .await
            .unwrap()
            .into_inner();
        let doomed = client
            .submit_proof(submit("doomed", Priority::Low))
            .await
            .unwrap()
            .into_inner();
        // The high-priority job goes before the low one that came first;
        // the last low one waits behind both.
        assert_eq!(later.queue_position, 0);
        assert_eq!(urgent.queue_position, 0);
        assert_eq!(doomed.queue_position, 2);
        // The same request id again joins the job instead of proving twice.
        let again = client
            .submit_proof(submit("first", Priority::Normal))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(again.job_id, "first");
        // Another request under its id would get its proof: refused.
        let mut other = submit("first", Priority::Normal);
        other.sector_number += 1;
        let refused = client.submit_proof(other).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::AlreadyExists, "{refused:?}");
        assert!(refused.message().contains("another request"), "{refused:?}");

        let cancelled = client
            .cancel_proof(CancelProofRequest {
                job_id: "doomed".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(!cancelled.was_running);
        assert_eq!(
            await_job(&mut client, "doomed").await.status(),
            Status::Cancelled
        );
        let unknown = client
            .cancel_proof(CancelProofRequest {
                job_id: "nobody".into(),
            })
            .await;
        assert_eq!(unknown.unwrap_err().code(), tonic::Code::NotFound);

        std::fs::remove_file(&gate).unwrap();
        for id in ["first", "urgent", "later"] {
            let result = await_job(&mut client, id).await;
            assert_eq!(
                result.status(),
                Status::Completed,
                "{id}: {}",
                result.error_message
            );
            assert!(sector.verify(&result.proof).unwrap());
        }
        // A retry arriving after its job ended (a client's call timed out
        // meanwhile) gets the kept proof.
        let kept = await_job(&mut client, "first").await.proof;
        let retry = client
            .prove(ProveRequest {
                submit: Some(submit("first", Priority::Normal)),
            })
            .await
            .unwrap()
            .into_inner()
            .result
            .unwrap();
        assert_eq!((retry.status(), &retry.proof), (Status::Completed, &kept));
        let status = get_status(&mut client).await;
        assert_eq!(
            status.total_proofs_completed, 3,
            "joined jobs and retries are proven once"
        );
    });
    let log = daemon.log();
    let started: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("job started"))
        .map(|l| {
            l.split("job=")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(started, ["first", "urgent", "later"], "{log}");
    // One prover on the device served the three jobs of one circuit.
    assert_eq!(
        log.matches("circuit ready on the device").count(),
        1,
        "{log}"
    );
}

#[test]
fn bad_requests_fail_their_job_and_the_daemon_serves_on() {
    let dir = tempfile::tempdir().unwrap();
    let (sector, wrapper) = sector(23, dir.path());
    let daemon = Daemon::start(
        "127.0.0.1:0",
        dir.path(),
        &[
            "--config",
            &write_config(dir.path(), "[server]\nmax_message_bytes = 8388608\n"),
        ],
    );
    runtime().block_on(async {
        let mut client = daemon.client().await;
        let base = client.clone();
        let prove = |request: SubmitProofRequest| {
            let mut client = base.clone();
            async move {
                client
                    .prove(ProveRequest {
                        submit: Some(request),
                    })
                    .await
                    .map(|r| r.into_inner().result.unwrap())
            }
        };
        let failed = |result: &AwaitProofResponse, needle: &str| {
            assert_eq!(result.status(), Status::Failed, "{result:?}");
            assert!(
                result.error_message.contains(needle),
                "{}",
                result.error_message
            );
        };
        let mut garbage = porep_request(
            "garbage",
            &sector,
            b"{\"SectorNum\": 1, \"Phase1Out\": \"!!\"}",
        );
        garbage.sector_number = 1;
        failed(&prove(garbage).await.unwrap(), "not base64");
        let not_json = porep_request("not-json", &sector, b"\x00\x01 not json");
        failed(&prove(not_json).await.unwrap(), "not valid JSON");
        let mut wrong_size = porep_request("wrong-size", &sector, &wrapper);
        wrong_size.sector_size = 32 << 30;
        failed(&prove(wrong_size).await.unwrap(), "does not match");
        let mut wrong_type = porep_request("wrong-type", &sector, &wrapper);
        (wrong_type.registered_proof, wrong_type.sector_size) = (6, 8 << 20);
        failed(&prove(wrong_type).await.unwrap(), "registered_proof");
        let mut wrong_miner = porep_request("wrong-miner", &sector, &wrapper);
        wrong_miner.miner_id = MINER + 1;
        failed(
            &prove(wrong_miner).await.unwrap(),
            "do not derive the C1 output's replica id",
        );
        let tampered = porep_request("tampered", &sector, &with_other_seed(&wrapper));
        failed(
            &prove(tampered).await.unwrap(),
            "vanilla proofs do not verify",
        );
        // A PoRep request sent as another kind: registered_proof 5 is a
        // WindowPoSt type (with no randomness here), not a WinningPoSt or
        // update one.
        for (kind, name, needle) in [
            (
                ProofKind::WindowPostPartition,
                "WindowPoSt",
                "randomness must be 32 bytes",
            ),
            (
                ProofKind::WinningPost,
                "WinningPoSt",
                "not a WinningPoSt proof type",
            ),
            (
                ProofKind::SnapDealsUpdate,
                "SnapDeals",
                "not an update proof type",
            ),
        ] {
            let mut request = porep_request(name, &sector, &wrapper);
            request.set_proof_kind(kind);
            failed(&prove(request).await.unwrap(), needle);
        }
        let mut unspecified = porep_request("unspecified", &sector, &wrapper);
        unspecified.set_proof_kind(ProofKind::Unspecified);
        failed(&prove(unspecified).await.unwrap(), "unspecified");
        let mut unknown_kind = porep_request("unknown-kind", &sector, &wrapper);
        unknown_kind.proof_kind = 7;
        failed(
            &prove(unknown_kind).await.unwrap(),
            "proof_kind 7 is not one this daemon knows",
        );
        let mut unknown_priority = porep_request("unknown-priority", &sector, &wrapper);
        unknown_priority.priority = 9;
        let refused = prove(unknown_priority).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains("priority 9"), "{refused:?}");
        let long_id = porep_request(&"x".repeat(300), &sector, &wrapper);
        let refused = prove(long_id).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        let oversized = porep_request("oversized", &sector, &vec![b' '; 9 << 20]);
        let refused = prove(oversized).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::OutOfRange, "{refused:?}");
        let unknown = await_job(&mut client, "never-submitted").await;
        assert_eq!(unknown.status(), Status::Unknown);
        let missing = client
            .preload_srs(PreloadSrsRequest {
                circuit_id: "porep-32g".into(),
            })
            .await
            .unwrap_err();
        assert!(missing.message().contains("parameter"), "{missing:?}");
        assert_eq!(missing.code(), tonic::Code::FailedPrecondition);
        let unknown = client
            .preload_srs(PreloadSrsRequest {
                circuit_id: "porep-3g".into(),
            })
            .await
            .unwrap_err();
        assert_eq!(unknown.code(), tonic::Code::InvalidArgument, "{unknown:?}");

        // Still serving: a good request is proven.
        let good = prove(porep_request("good", &sector, &wrapper))
            .await
            .unwrap();
        assert_eq!(good.status(), Status::Completed, "{}", good.error_message);
        assert!(sector.verify(&good.proof).unwrap());
        let status = get_status(&mut client).await;
        assert_eq!(
            (status.total_proofs_completed, status.total_proofs_failed),
            (1, 11)
        );
    });
}

/// `proofs` as the library takes them, for checking the daemon's answers.
fn vanilla_bytes(proofs: &[Vec<u8>]) -> Vec<VanillaBytes> {
    proofs
        .iter()
        .map(|bytes| VanillaBytes {
            source: "test".into(),
            bytes: bytes.clone(),
        })
        .collect()
}

/// The whole PoSt of [`MINER`] with `vanilla`, challenged by `randomness(seed)`,
/// for checking the daemon's answers.
fn post_input(proof_type: PoStProofType, seed: u64, vanilla: &[Vec<u8>]) -> PoStInput {
    PoStInput {
        proof_type,
        randomness: randomness(seed),
        prover_id: prover_id_of_miner(MINER),
        vanilla_proofs: vanilla_bytes(vanilla),
        partition: None,
    }
}

/// A WindowPoSt partition, a WinningPoSt (2 KiB, and 32 GiB: the
/// production circuit, of a sector with data only where challenged) and a
/// SnapDeals update sent at once as Curio sends them, then from the
/// command line: every answer passes filecoin-proofs' verifier.
#[test]
fn post_and_snap_requests_prove_as_curio_sends_them() {
    let dir = tempfile::tempdir().unwrap();
    let window = PoStProofType::current(PoStKind::Window, 2048).unwrap();
    let winning = PoStProofType::current(PoStKind::Winning, 2048).unwrap();
    let winning_32g = PoStProofType::current(PoStKind::Winning, SECTOR_SIZE_32_GIB).unwrap();
    shared_parameter_cache();
    for circuit in [window, winning, winning_32g] {
        ensure_test_params(circuit, 0, false).unwrap();
    }
    let sectors: Vec<TestSector> = (0..2)
        .map(|i| {
            let work = dir.path().join(format!("s{i}"));
            std::fs::create_dir_all(&work).unwrap();
            sector(30 + i, &work).0
        })
        .collect();
    let all: Vec<&TestSector> = sectors.iter().collect();
    let window_vanilla = post_vanilla_proofs(window, &all, randomness(1)).unwrap();
    let winning_vanilla = post_vanilla_proofs(winning, &all[..1], randomness(2)).unwrap();
    // A 32 GiB sector with data only where challenged: the production circuit.
    let (vanilla_32g, _) = sparse_post_vanilla_proof::<SectorShape32GiB>(
        winning_32g,
        32,
        prover_id_of_miner(MINER),
        randomness(4),
        4,
    )
    .unwrap();
    let winning_32g_vanilla = vec![vanilla_32g];
    let update_dir = dir.path().join("update");
    std::fs::create_dir_all(&update_dir).unwrap();
    let updated = snap_update(&sectors[1], 3, &update_dir).unwrap();
    ensure_test_params(updated.proof_type, 0, false).unwrap();

    // More partitions in flight than any of these jobs has: each reserves
    // only its own.
    let daemon = Daemon::start("127.0.0.1:0", dir.path(), &["--partitions-in-flight", "3"]);
    let post_request =
        |id: &str, kind: ProofKind, proof_type: PoStProofType, seed, vanilla| SubmitProofRequest {
            request_id: id.to_owned(),
            proof_kind: kind.into(),
            registered_proof: proof_type.id(),
            vanilla_proofs: vanilla,
            miner_id: MINER,
            randomness: randomness(seed).to_vec(),
            partition_index: 0,
            ..Default::default()
        };
    let requests = [
        post_request(
            "window",
            ProofKind::WindowPostPartition,
            window,
            1,
            window_vanilla.clone(),
        ),
        post_request(
            "winning",
            ProofKind::WinningPost,
            winning,
            2,
            winning_vanilla.clone(),
        ),
        snap_deals_request(&updated),
        post_request(
            "winning-32g",
            ProofKind::WinningPost,
            winning_32g,
            4,
            winning_32g_vanilla.clone(),
        ),
    ];
    let results = runtime().block_on(async {
        let client = daemon.client().await;
        let calls = requests.map(|request| tokio::spawn(prove(client.clone(), request)));
        let mut results = Vec::new();
        for call in calls {
            results.push(call.await.unwrap());
        }
        results
    });
    results.iter().for_each(assert_completed);
    // Each answer checked with filecoin-proofs' own verifier: the one
    // partition of two sectors is the whole WindowPoSt.
    let window_input = post_input(window, 1, &window_vanilla);
    let verified = PoStJob::<SectorShape2KiB>::new(&window_input).verify(&results[0].proof);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
    let winning_input = post_input(winning, 2, &winning_vanilla);
    let verified = PoStJob::<SectorShape2KiB>::new(&winning_input).verify(&results[1].proof);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
    let update_input = UpdateInput {
        proof_type: updated.proof_type,
        commitments: updated.commitments,
        vanilla_proofs: vanilla_bytes(&updated.vanilla_proofs),
    };
    let verified = UpdateJob::<SectorShape2KiB>::new(&update_input).verify(&results[2].proof);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
    let input_32g = post_input(winning_32g, 4, &winning_32g_vanilla);
    let verified = PoStJob::<SectorShape32GiB>::new(&input_32g).verify(&results[3].proof);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
    assert!(daemon.log().contains("circuit ready on the device"));

    // The same requests from the command line (`--daemon`), from vanilla
    // proof files: the answers verify as above.
    let files = |name: &str, proofs: &[Vec<u8>]| -> Vec<String> {
        proofs
            .iter()
            .enumerate()
            .map(|(i, proof)| {
                let path = dir.path().join(format!("{name}-{i}.vp"));
                std::fs::write(&path, proof).unwrap();
                path.to_str().unwrap().to_owned()
            })
            .collect()
    };
    let miner = MINER.to_string();
    let through_daemon = |command: &[&str], vanilla: &[String], out: &Path| {
        let mut args = command.to_vec();
        args.extend(["--daemon", &daemon.address, "--sector-size", "2KiB"]);
        args.extend(["--out", out.to_str().unwrap(), "--vanilla"]);
        args.extend(vanilla.iter().map(String::as_str));
        common::pce_prover(&args, &[])
    };
    let on_daemon = |command: &[&str], vanilla: &[String], out: &Path| {
        let output = through_daemon(command, vanilla, out);
        let said = common::text(&output);
        assert!(output.status.success(), "{said}");
        assert!(
            said.contains("ms queued"),
            "not the daemon's answer: {said}"
        );
        std::fs::read(out).unwrap()
    };
    let window_files = files("window", &window_vanilla);
    let window_randomness = hex::encode(randomness(1));
    let out = dir.path().join("window.bin");
    let window_command = [
        "window-post",
        "--randomness",
        &window_randomness,
        "--miner-id",
        &miner,
        "--partition",
        "0",
    ];
    let proof = on_daemon(&window_command, &window_files, &out);
    let verified = PoStJob::<SectorShape2KiB>::new(&window_input).verify(&proof);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
    let winning_randomness = hex::encode(randomness(2));
    let out = dir.path().join("winning.bin");
    let command = [
        "winning-post",
        "--randomness",
        &winning_randomness,
        "--miner-id",
        &miner,
    ];
    let proof = on_daemon(&command, &files("winning", &winning_vanilla), &out);
    let verified = PoStJob::<SectorShape2KiB>::new(&winning_input).verify(&proof);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
    let [old, new, data] = [
        updated.commitments.comm_r_old,
        updated.commitments.comm_r_new,
        updated.commitments.comm_d_new,
    ]
    .map(hex::encode);
    let out = dir.path().join("snap.bin");
    let command = [
        "snap-prove",
        "--comm-r-old",
        &old,
        "--comm-r-new",
        &new,
        "--comm-d-new",
        &data,
    ];
    let proof = on_daemon(&command, &files("snap", &updated.vanilla_proofs), &out);
    let verified = UpdateJob::<SectorShape2KiB>::new(&update_input).verify(&proof);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");

    let status = common::pce_prover(&["status", "--addr", &daemon.address], &[]);
    let text = common::text(&status);
    assert!(text.contains("7 proofs completed"), "{text}");

    // A WindowPoSt without its partition is refused before anything is sent.
    let without_partition = &window_command[..window_command.len() - 2];
    let output = through_daemon(without_partition, &window_files[..1], &out);
    assert_eq!(output.status.code(), Some(1), "{}", common::text(&output));
    assert!(
        common::text(&output).contains("pass --partition K"),
        "{}",
        common::text(&output)
    );
}

/// A non-interactive PoRep sent to a daemon whose PoRep circuit was
/// preloaded (for the interactive proof type, which shares it) in a cache
/// without the SnarkPack SRS fails at once, naming the SRS, before any
/// partition is proven.
#[test]
fn a_non_interactive_porep_without_the_srs_fails_before_proving() {
    let dir = tempfile::tempdir().unwrap();
    let shared = shared_parameter_cache();
    let files = ensure_test_params(ProofType::interactive(2048).unwrap(), 0, false)
        .unwrap()
        .0;
    let cache = dir.path().join("params");
    std::fs::create_dir_all(&cache).unwrap();
    for file in [&files.params, &files.vk, &files.pce] {
        let name = file.file_name().unwrap();
        std::os::unix::fs::symlink(shared.join(name), cache.join(name)).unwrap();
    }
    let ni = ProofType {
        variant: Variant::NonInteractive,
        ..ProofType::interactive(2048).unwrap()
    };
    let sector = seal_2kib_with(ni.config(), 41, dir.path(), prover_id_of_miner(MINER)).unwrap();
    let wrapper = lotus_bench_json(&sector.c1, ni, u64::from(sector.sector_id));
    let request = SubmitProofRequest {
        registered_proof: ni.id(),
        ..porep_request("ni", &sector, &serde_json::to_vec(&wrapper).unwrap())
    };
    let daemon = Daemon::start_with_env(
        "127.0.0.1:0",
        dir.path(),
        &[],
        &[("FIL_PROOFS_PARAMETER_CACHE", cache.to_str().unwrap())],
    );
    let result = runtime().block_on(async {
        let client = daemon.client().await;
        prove(client, request).await
    });
    assert_eq!(result.status(), Status::Failed);
    let srs = cache.join("v28-fil-inner-product-v1.srs");
    assert!(
        result.error_message.contains(&srs.display().to_string())
            && result.error_message.contains("does not exist"),
        "{}",
        result.error_message
    );
    let log = daemon.log();
    assert!(!log.contains("partition proven"), "{log}");
}

/// A WinningPoSt that arrives while the only device proves a
/// non-interactive PoRep (13 partitions) is proven between two of the
/// PoRep's partitions: it completes, and verifies, while the PoRep is
/// still being proven (without interleaving it would wait for all 13 and
/// the aggregation). Under a memory budget that holds the PoRep alone it
/// is put back instead, and proven once the PoRep ends. Its circuit, when
/// not preloaded, is loaded as soon as the job is queued. An urgent job of
/// several partitions that fit only one at a time beside the PoRep is
/// proven so between its partitions.
#[test]
fn a_winning_post_is_proven_between_the_partitions_of_a_running_porep_when_memory_allows() {
    let dir = tempfile::tempdir().unwrap();
    shared_parameter_cache();
    let ni = ProofType {
        variant: Variant::NonInteractive,
        ..ProofType::interactive(2048).unwrap()
    };
    let winning = PoStProofType::current(PoStKind::Winning, 2048).unwrap();
    ensure_test_params(ni, 0, false).unwrap();
    ensure_test_params(winning, 0, false).unwrap();
    ensure_test_srs(0).unwrap();
    let sector = seal_2kib_with(ni.config(), 40, dir.path(), prover_id_of_miner(MINER)).unwrap();
    let wrapper = lotus_bench_json(&sector.c1, ni, u64::from(sector.sector_id));
    let wrapper = serde_json::to_vec(&wrapper).unwrap();
    let winning_vanilla = post_vanilla_proofs(winning, &[&sector], randomness(2)).unwrap();
    let porep = SubmitProofRequest {
        registered_proof: ni.id(),
        ..porep_request("seal", &sector, &wrapper)
    };
    let winning_request = |id: &str, vanilla| winning_post_request(id, winning, vanilla);
    let both_circuits = ["--preload", "winning-2k"];

    let daemon = Daemon::start("127.0.0.1:0", dir.path(), &both_circuits);
    let (circuits, with_the_porep) = runtime().block_on(async {
        let mut client = daemon.client().await;
        let circuits = get_status(&mut client).await.pinned_memory_bytes;
        client.submit_proof(porep.clone()).await.unwrap();
        let with_the_porep = memory_in_use_above(&mut client, circuits).await;
        // One whose vanilla proof has a bit flipped (in the comm_r_last
        // stored last) fails alone, proven between partitions too.
        let mut tampered = winning_vanilla.clone();
        let last = tampered[0].len() - 1;
        tampered[0][last] ^= 1;
        let failed = prove(client.clone(), winning_request("tampered", tampered)).await;
        assert_eq!(failed.status(), Status::Failed);
        assert!(
            failed.error_message.contains("comm_r_last is not the root"),
            "{}",
            failed.error_message
        );
        let request = winning_request("winning", winning_vanilla.clone());
        let result = prove_while_seal_runs(&mut client, request, "preloaded").await;
        let input = post_input(winning, 2, &winning_vanilla);
        let verified = PoStJob::<SectorShape2KiB>::new(&input).verify(&result.proof);
        assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
        let metrics = get_metrics(&mut client).await;
        assert!(
            metrics.contains("pce_prover_interleaved_jobs_total{kind=\"winning\"} 1"),
            "{metrics}"
        );
        // The rest of the PoRep is not what this test is about.
        cancel(&mut client, "seal").await;
        (circuits, with_the_porep)
    });
    let log = daemon.log();
    let interleaved = log
        .lines()
        .find(|l| l.contains("proving it between the partitions of a less urgent job"));
    assert!(
        interleaved.is_some_and(|l| l.contains("on_the_paused_jobs_prover=false")),
        "a circuit of its own, set up for it: {log}"
    );
    drop(daemon);

    // A budget of exactly the circuits and the PoRep's partitions: the
    // WinningPoSt (whose one partition needs less than the PoRep's two)
    // fits only once the PoRep is gone.
    let with_budget = |budget: u64| {
        let budget = budget.to_string();
        let args = [&both_circuits[..], &["--memory-budget", &budget]].concat();
        Daemon::start("127.0.0.1:0", dir.path(), &args)
    };
    let daemon = with_budget(with_the_porep);
    runtime().block_on(async {
        let mut client = daemon.client().await;
        let circuits = get_status(&mut client).await.pinned_memory_bytes;
        client.submit_proof(porep.clone()).await.unwrap();
        assert_eq!(
            memory_in_use_above(&mut client, circuits).await,
            with_the_porep
        );
        client
            .submit_proof(winning_request("winning", winning_vanilla.clone()))
            .await
            .unwrap();
        let log = || daemon.log();
        let deadline = Instant::now() + Duration::from_secs(120);
        while !log().contains("no memory for it between partitions now") {
            assert!(Instant::now() < deadline, "never tried: {}", log());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(await_briefly(&mut client, "winning").await, Status::Timeout);
        cancel(&mut client, "seal").await;
        let result = await_job(&mut client, "winning").await;
        assert_eq!(
            result.status(),
            Status::Completed,
            "{}",
            result.error_message
        );
        let metrics = get_metrics(&mut client).await;
        assert!(
            !metrics.contains("pce_prover_interleaved_jobs_total{kind=\"winning\"}"),
            "{metrics}"
        );
    });

    drop(daemon);

    // A budget that holds one of the PoRep's partitions beside the circuits
    // but not two: it is proven one partition at a time, not refused.
    let one_partition = (with_the_porep - circuits) / 2;
    let daemon = with_budget(circuits + one_partition);
    runtime().block_on(async {
        let mut client = daemon.client().await;
        client.submit_proof(porep.clone()).await.unwrap();
        assert_eq!(
            memory_in_use_above(&mut client, circuits).await,
            circuits + one_partition,
            "{}",
            daemon.log()
        );
        cancel(&mut client, "seal").await;
    });
    let log = daemon.log();
    let started = log.lines().find(|l| l.contains("job started")).unwrap();
    assert!(started.contains("in_flight=1"), "{log}");
    assert!(
        log.contains("holds fewer of this circuit's partitions in flight than configured"),
        "{log}"
    );
    drop(daemon);

    // An urgent job of several partitions, with room beside the running
    // job for one of its partitions but not two: proven between the
    // running job's partitions one partition at a time, not put back.
    let daemon = with_budget(with_the_porep + one_partition);
    runtime().block_on(async {
        let mut client = daemon.client().await;
        client.submit_proof(porep.clone()).await.unwrap();
        memory_in_use_above(&mut client, circuits).await;
        let urgent = SubmitProofRequest {
            request_id: "urgent".into(),
            priority: Priority::High.into(),
            ..porep.clone()
        };
        client.submit_proof(urgent).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(300);
        while !daemon.log().contains("job started job=urgent") {
            assert!(Instant::now() < deadline, "never started: {}", daemon.log());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let log = daemon.log();
        assert!(
            log.contains("proving it one partition at a time")
                && !log.contains("no memory for it between partitions now"),
            "{log}"
        );
        let started = log.lines().find(|l| l.contains("job started job=urgent"));
        assert!(started.is_some_and(|l| l.contains("in_flight=1")), "{log}");
        // The same circuit as the running PoRep's: proven on its prover.
        let interleaved = log
            .lines()
            .find(|l| l.contains("proving it between the partitions") && l.contains("job=urgent "));
        assert!(
            interleaved.is_some_and(|l| l.contains("on_the_paused_jobs_prover=true")),
            "{log}"
        );
        cancel(&mut client, "urgent").await;
        cancel(&mut client, "seal").await;
    });
    drop(daemon);

    // The WinningPoSt circuit not preloaded: it is loaded as soon as the
    // job is queued, beside the PoRep's, and the job is still proven
    // between the PoRep's partitions.
    let daemon = Daemon::start("127.0.0.1:0", dir.path(), &[]);
    runtime().block_on(async {
        let mut client = daemon.client().await;
        let circuits = get_status(&mut client).await.pinned_memory_bytes;
        client.submit_proof(porep.clone()).await.unwrap();
        memory_in_use_above(&mut client, circuits).await;
        let request = winning_request("winning", winning_vanilla.clone());
        prove_while_seal_runs(&mut client, request, "not preloaded").await;
        cancel(&mut client, "seal").await;
    });
    let log = daemon.log();
    let loaded_ahead = log.find("circuit loaded ahead of its urgent job circuit=\"winning-2k\"");
    let interleaved = log.find("proving it between the partitions of a less urgent job");
    assert!(
        loaded_ahead.is_some() && loaded_ahead < interleaved,
        "{log}"
    );
}

/// Proves `request` (a WinningPoSt) while job "seal" runs, and checks it
/// completed with "seal" still running; prints its timings under `label`.
async fn prove_while_seal_runs(
    client: &mut ProvingEngineClient<Channel>,
    request: SubmitProofRequest,
    label: &str,
) -> AwaitProofResponse {
    let result = prove(client.clone(), request).await;
    assert_completed(&result);
    eprintln!(
        "{label}: WinningPoSt answered in {} ms ({} ms queued, {} ms setting its circuit up)",
        result.total_ms, result.queue_wait_ms, result.srs_load_ms
    );
    assert!(
        result.queue_wait_ms + result.srs_load_ms <= result.total_ms,
        "the load is not counted as waiting too: {result:?}"
    );
    assert_eq!(
        await_briefly(client, "seal").await,
        Status::Timeout,
        "the PoRep is still being proven"
    );
    result
}

/// Budgets that hold fewer circuits than the jobs use: the idle
/// WinningPoSt circuit is evicted to make room for a PoRep job, the idle
/// PoRep circuit to load the SnapDeals one (larger than a PoRep job), each
/// job completes (the daemon verifies each proof before answering, and
/// verify_seal checks the PoRep's here), preloads that do not fit beside
/// one another refuse the start, and a circuit whose jobs could never fit
/// fails them at once, evicting nothing, or refuses the start when
/// preloaded.
#[test]
fn circuits_the_budget_cannot_hold_together_take_turns_the_idle_one_evicted() {
    let dir = tempfile::tempdir().unwrap();
    // First: filecoin-proofs reads the parameter cache's path once.
    shared_parameter_cache();
    let (sector, wrapper) = sector(41, dir.path());
    let winning = PoStProofType::current(PoStKind::Winning, 2048).unwrap();
    ensure_test_params(winning, 0, false).unwrap();
    let winning_vanilla = post_vanilla_proofs(winning, &[&sector], randomness(2)).unwrap();
    let winning_request = winning_post_request("winning", winning, winning_vanilla);
    let porep = |id: &str| porep_request(id, &sector, &wrapper);
    let update_dir = dir.path().join("update");
    std::fs::create_dir_all(&update_dir).unwrap();
    let updated = snap_update(&sector, 4, &update_dir).unwrap();
    ensure_test_params(updated.proof_type, 0, false).unwrap();
    let snap_request = snap_deals_request(&updated);
    let loaded = |status: &GetStatusResponse| -> Vec<String> {
        let mut names: Vec<String> = status
            .loaded_srs
            .iter()
            .map(|c| c.circuit_id.clone())
            .collect();
        names.sort();
        names
    };
    let completed = |result: AwaitProofResponse| {
        assert_completed(&result);
        result
    };

    // Measured with the default budget (the PoRep circuit preloaded): what
    // the devices and the PoRep circuit hold, that with a PoRep job, and
    // what the WinningPoSt circuit holds.
    let daemon = Daemon::start("127.0.0.1:0", dir.path(), &[]);
    let (porep_circuit, with_a_porep_job, winning_circuit) = runtime().block_on(async {
        let mut client = daemon.client().await;
        let idle = get_status(&mut client).await.pinned_memory_bytes;
        client.submit_proof(porep("measure")).await.unwrap();
        let with_a_porep_job = memory_in_use_above(&mut client, idle).await;
        completed(await_job(&mut client, "measure").await);
        completed(prove(client.clone(), winning_request.clone()).await);
        let both = get_status(&mut client).await.pinned_memory_bytes;
        (idle, with_a_porep_job, both - idle)
    });
    drop(daemon);

    // Exactly a PoRep job's budget: the WinningPoSt fits beside the PoRep
    // circuit, the next PoRep job not beside the idle WinningPoSt circuit.
    let budget = with_a_porep_job.to_string();
    let daemon = Daemon::start("127.0.0.1:0", dir.path(), &["--memory-budget", &budget]);
    runtime().block_on(async {
        let mut client = daemon.client().await;
        completed(prove(client.clone(), winning_request.clone()).await);
        let status = get_status(&mut client).await;
        assert_eq!(loaded(&status), ["porep-2k", "winning-2k"], "{status:?}");
        let result = completed(prove(client.clone(), porep("porep")).await);
        assert!(
            sector.verify(&result.proof).unwrap(),
            "verify_seal rejected it"
        );
        let status = get_status(&mut client).await;
        assert_eq!(loaded(&status), ["porep-2k"], "{status:?}");
        assert_eq!(status.pinned_memory_bytes, porep_circuit, "{status:?}");
        let metrics = get_metrics(&mut client).await;
        assert!(
            metrics.contains("pce_prover_circuit_evictions_total 1"),
            "{metrics}"
        );

        // The SnapDeals circuit holds more than a PoRep job: loading it
        // evicts the idle PoRep circuit before its PCE is read.
        completed(prove(client.clone(), snap_request.clone()).await);
        let status = get_status(&mut client).await;
        assert_eq!(loaded(&status), ["snap-2k"], "{status:?}");
        let metrics = get_metrics(&mut client).await;
        assert!(
            metrics.contains("pce_prover_circuit_evictions_total 2"),
            "{metrics}"
        );
    });
    let log = daemon.log();
    assert!(
        log.contains("evicting the least recently used idle circuit")
            && log.contains("circuit memory released"),
        "{log}"
    );
    // Both lines come from the SnapDeals job's thread, in this order: its
    // circuit was counted in full, evicting, before its PCE was read.
    let second_eviction = log
        .match_indices("evicting the least recently used idle circuit")
        .nth(1)
        .map(|(at, _)| at);
    let snap_loaded = log.find("circuit loaded id=\"empty-sector-update");
    assert!(
        matches!((second_eviction, snap_loaded), (Some(e), Some(l)) if e < l),
        "{log}"
    );
    drop(daemon);

    // Both preloaded under that budget: the second does not fit beside the
    // first, and the start is refused before its PCE is read.
    let refused = refused_start(
        dir.path(),
        &[
            "--memory-budget",
            &budget,
            "--preload",
            "porep-2k",
            "--preload",
            "snap-2k",
        ],
    );
    assert!(
        refused.contains("preloading snap-2k: the memory budget")
            && refused.contains("does not hold it beside porep-2k"),
        "{refused}"
    );

    // One byte short of holding both circuits, and so too small for any
    // PoRep job: the WinningPoSt is proven, a PoRep fails at once saying
    // why, before its PCE is read and without evicting the WinningPoSt's
    // circuit.
    let too_small = (porep_circuit + winning_circuit - 1).to_string();
    let daemon = Daemon::start_preloading(
        "127.0.0.1:0",
        dir.path(),
        "winning-2k",
        &["--memory-budget", &too_small],
        &[],
    );
    runtime().block_on(async {
        let mut client = daemon.client().await;
        completed(prove(client.clone(), winning_request.clone()).await);
        let failed = prove(client.clone(), porep("too-large")).await;
        assert_eq!(failed.status(), Status::Failed);
        assert!(
            failed
                .error_message
                .contains("circuit porep-2k: the memory budget"),
            "{}",
            failed.error_message
        );
        let status = get_status(&mut client).await;
        assert_eq!(loaded(&status), ["winning-2k"], "{status:?}");
        completed(prove(client.clone(), winning_request.clone()).await);
    });
    assert!(
        !daemon.log().contains("circuit loaded id=\"stacked"),
        "{}",
        daemon.log()
    );
    drop(daemon);

    // Preloading it under that budget: refused at start, saying why.
    let refused = refused_start(
        dir.path(),
        &["--memory-budget", &too_small, "--preload", "porep-2k"],
    );
    assert!(
        refused.contains("preloading porep-2k: circuit porep-2k: the memory budget"),
        "{refused}"
    );
}

/// The NTT scratch the devices say a transform of the circuit's domain
/// needs (here 1 TiB, from the test plugin behind a budget of 16 GiB) is
/// counted in the least a job of that circuit reserves: the circuit, whose
/// jobs could never fit beside it, is refused at its preload before its
/// PCE is read, where it was loaded only for every job to fail.
#[test]
fn a_circuit_whose_jobs_need_more_ntt_scratch_than_the_budget_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cpu = common::plugin_dir().join(backend_api::loader::plugin_file_name("cpu"));
    let plugin = common::plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
    let refused = refused_start_with_cache(
        dir.path(),
        &[
            "--backend",
            plugin.to_str().unwrap(),
            "--memory-budget",
            "16GiB",
            "--preload",
            "porep-2k",
        ],
        &shared_parameter_cache(),
        &[
            ("RUST_LOG", "info"),
            (pce_backend_broken::MODE_ENV, "large-scratch"),
            (
                pce_backend_broken::forwarding::DELEGATE_ENV,
                cpu.to_str().unwrap(),
            ),
        ],
    );
    assert!(
        refused.contains("preloading porep-2k: circuit porep-2k: the memory budget 16")
            && refused.contains("cannot hold it"),
        "{refused}"
    );
    assert!(!refused.contains("circuit loaded"), "{refused}");
}

/// What makes a start fail is found before the first circuit's minutes of
/// loading: a mistyped second circuit to preload, and a Unix socket in a
/// directory that does not exist.
#[test]
fn a_bad_preload_name_or_socket_directory_is_refused_before_loading() {
    let dir = tempfile::tempdir().unwrap();
    let refused = refused_start_with_cache(
        dir.path(),
        &["--preload", "porep-2k", "--preload", "porep-3k"],
        &shared_parameter_cache(),
        &[("RUST_LOG", "info")],
    );
    assert!(
        refused.contains("preloading porep-3k: unknown circuit \"porep-3k\""),
        "{refused}"
    );
    assert!(!refused.contains("circuit loaded"), "{refused}");

    let socket = dir.path().join("missing").join("prover.sock");
    let output = Command::new(env!("CARGO_BIN_EXE_pce-prover"))
        .args(["serve", "--preload", "porep-2k", "--listen"])
        .arg(format!("unix://{}", socket.display()))
        .env("PCE_BACKEND_DIR", common::plugin_dir())
        .env("FIL_PROOFS_PARAMETER_CACHE", shared_parameter_cache())
        .env("RUST_LOG", "info")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    assert!(
        said.contains(&format!("unix://{}", socket.display())) && !said.contains("circuit loaded"),
        "{said}"
    );
}

/// A backend that lists no device (which the ABI asks plugins not to do)
/// is refused at start, where the daemon would queue every job for ever.
#[test]
fn a_backend_without_devices_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = common::plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
    let refused = refused_start_with_cache(
        dir.path(),
        &["--backend", plugin.to_str().unwrap()],
        &shared_parameter_cache(),
        &[(pce_backend_broken::MODE_ENV, "no-devices")],
    );
    assert!(
        refused.contains("backend broken lists no device to prove on"),
        "{refused}"
    );
}

/// A configured device the backend does not list is refused at start,
/// named with how many the backend lists, the way `c2 --device` says it.
#[test]
fn a_device_the_backend_does_not_list_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let refused = refused_start_with_cache(
        dir.path(),
        &["--device", "0", "--device", "7"],
        &shared_parameter_cache(),
        &[],
    );
    assert!(
        refused.contains("backend cpu has no device 7 (it lists 1)"),
        "{refused}"
    );
}

/// A circuit whose PCE is missing is recorded when it is first needed,
/// counted in the memory budget as its decoded parameters while it is:
/// under a budget one byte short of that, the daemon refuses to preload it
/// and has recorded nothing; under the default budget it records it, saves
/// it and loads it.
#[test]
fn a_circuit_recorded_on_first_use_is_counted_in_the_budget_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let shared = shared_parameter_cache();
    let winning = PoStProofType::current(PoStKind::Winning, 2048).unwrap();
    ensure_test_params(winning, 0, false).unwrap();
    let files = winning.circuit().unwrap().files();
    let recording = proving_engine::memory::recording_bytes(&files.params).unwrap();
    // The shared cache's parameters, without any PCE.
    let cache = dir.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    for entry in std::fs::read_dir(&shared).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e != "pce") {
            std::os::unix::fs::symlink(&path, cache.join(path.file_name().unwrap())).unwrap();
        }
    }
    let pce = cache.join(files.pce.file_name().unwrap());

    let too_small = (recording - 1).to_string();
    let refused = refused_start_with_cache(
        dir.path(),
        &["--memory-budget", &too_small, "--preload", "winning-2k"],
        &cache,
        &[],
    );
    assert!(
        refused.contains("recording circuit winning-2k: the memory budget"),
        "{refused}"
    );
    assert!(!pce.exists(), "recorded outside the budget");

    let cache_env = cache.to_str().unwrap();
    let env = [("FIL_PROOFS_PARAMETER_CACHE", cache_env)];
    let daemon = Daemon::start_preloading("127.0.0.1:0", dir.path(), "winning-2k", &[], &env);
    let log = daemon.log();
    assert!(
        log.contains(&format!("bytes={recording}")) && log.contains("recording the circuit"),
        "{log}"
    );
    assert!(pce.exists(), "{log}");
    runtime().block_on(async {
        let status = get_status(&mut daemon.client().await).await;
        let loaded: Vec<_> = status.loaded_srs.iter().map(|c| &c.circuit_id).collect();
        assert_eq!(loaded, ["winning-2k"], "{status:?}");
    });
}

/// A daemon runs for weeks, and where its budget holds one circuit at a
/// time its circuits take turns: here a PoRep and a SnapDeals circuit
/// (1.3 and 0.8 GB at 2 KiB), each evicted to load the other, turn after
/// turn. After each turn the process holds little more than the budget
/// counts; after the last it has the threads and open files it had after
/// the second, its resident memory has not grown with the turns (each
/// evicted circuit's memory went back to the system), and the last proofs
/// verify.
#[test]
fn circuits_taking_turns_for_many_jobs_leave_no_threads_files_or_memory_behind() {
    const TURNS: usize = 5;
    let dir = tempfile::tempdir().unwrap();
    // First: filecoin-proofs reads the parameter cache's path once.
    shared_parameter_cache();
    let (sector, wrapper) = sector(43, dir.path());
    let porep = porep_request("porep", &sector, &wrapper);
    let update_dir = dir.path().join("update");
    std::fs::create_dir_all(&update_dir).unwrap();
    let updated = snap_update(&sector, 5, &update_dir).unwrap();
    ensure_test_params(updated.proof_type, 0, false).unwrap();
    let snap = snap_deals_request(&updated);
    let names = ["porep-2k", "snap-2k"];

    // Measured under the default budget: what each circuit holds, what the
    // daemon holds besides its circuits, and what each kind's job reserves.
    let daemon = Daemon::start("127.0.0.1:0", dir.path(), &[]);
    let (circuits, devices) = runtime().block_on(async {
        let mut client = daemon.client().await;
        assert_completed(&prove(client.clone(), porep.clone()).await);
        assert_completed(&prove(client.clone(), snap.clone()).await);
        let status = get_status(&mut client).await;
        let circuits = names.map(|name| {
            let circuit = status.loaded_srs.iter().find(|c| c.circuit_id == name);
            circuit
                .unwrap_or_else(|| panic!("{name} not loaded: {status:?}"))
                .size_bytes
        });
        (
            circuits,
            status.pinned_memory_bytes - circuits[0] - circuits[1],
        )
    });
    let log = daemon.log();
    let jobs = ["porep", "snap"].map(|id| reserved_by(&log, id));
    drop(daemon);
    println!("circuits {names:?}: {circuits:?} bytes, their jobs {jobs:?}, the devices {devices}");

    // Enough for either circuit with its job, not for both circuits with
    // either job: each job of one circuit evicts the other.
    let alone = |i: usize| devices + circuits[i] + jobs[i];
    let budget = alone(0).max(alone(1));
    assert!(
        budget < devices + circuits[0] + circuits[1] + jobs[0].min(jobs[1]),
        "the circuits {circuits:?} and jobs {jobs:?} fit together"
    );
    let budget = budget.to_string();
    let daemon = Daemon::start("127.0.0.1:0", dir.path(), &["--memory-budget", &budget]);
    let (figures, last_proofs) = runtime().block_on(async {
        let mut client = daemon.client().await;
        let mut figures = Vec::new();
        let mut proofs = Vec::new();
        for turn in 1..=TURNS {
            proofs.clear();
            for request in [&snap, &porep] {
                let mut request = request.clone();
                request.request_id = format!("{}-{turn}", request.request_id);
                let result = prove(client.clone(), request).await;
                assert_completed(&result);
                proofs.push(result.proof);
            }
            let metrics = get_metrics(&mut client).await;
            let [resident, evictions] = [
                "pce_prover_process_resident_bytes",
                "pce_prover_circuit_evictions_total",
            ]
            .map(|name| gauge(&metrics, name));
            let counted = get_status(&mut client).await.pinned_memory_bytes;
            let (threads, open_files) = fewest_threads_and_files(&mut client).await;
            println!(
                "after turn {turn}: resident {resident} bytes ({counted} counted), {threads} threads, {open_files} open files, {evictions} evictions"
            );
            // The preloaded PoRep circuit evicted for the first SnapDeals
            // job, and from then on each circuit for the other's job.
            assert_eq!(evictions, 2 * turn as u64, "{metrics}");
            // Beyond what the budget counts (the PoRep circuit, idle), the
            // process holds its code and what its allocator kept, within
            // the margin the memory model leaves for them (256 MiB): freed
            // memory is handed back after each job and each eviction.
            assert!(
                resident < counted + (256 << 20),
                "resident {resident} bytes, {counted} counted"
            );
            figures.push((resident, threads, open_files));
        }
        (figures, proofs)
    });
    let (settled, last) = (figures[1], figures[TURNS - 1]);
    assert_eq!(
        (last.1, last.2),
        (settled.1, settled.2),
        "threads and open files after turns 2 and {TURNS}; its threads now: {:?}",
        thread_names(daemon.child.id())
    );
    // A circuit's memory kept after its eviction would add a gigabyte a
    // turn; what the allocator keeps of freed memory varies by far less.
    let smaller = circuits[0].min(circuits[1]);
    assert!(
        last.0 < settled.0 + smaller / 4,
        "resident memory grew from {} bytes after turn 2 to {} after turn {TURNS}",
        settled.0,
        last.0
    );
    let update_input = UpdateInput {
        proof_type: updated.proof_type,
        commitments: updated.commitments,
        vanilla_proofs: vanilla_bytes(&updated.vanilla_proofs),
    };
    let verified = UpdateJob::<SectorShape2KiB>::new(&update_input).verify(&last_proofs[0]);
    assert!(matches!(verified, Ok(Some(_))), "{verified:?}");
    assert!(
        sector.verify(&last_proofs[1]).unwrap(),
        "verify_seal rejected it"
    );
}

/// Runs `pce-prover serve` with `args` on a free port, expecting it to
/// refuse to start; returns what it wrote to stderr.
fn refused_start(dir: &Path, args: &[&str]) -> String {
    refused_start_with_cache(dir, args, &shared_parameter_cache(), &[])
}

/// [`refused_start`] with the parameter cache `cache` and `env` set in the
/// daemon's environment.
fn refused_start_with_cache(
    dir: &Path,
    args: &[&str],
    cache: &Path,
    env: &[(&str, &str)],
) -> String {
    let log = dir.join("refused.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pce-prover"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .env("PCE_BACKEND_DIR", common::plugin_dir())
        .env("FIL_PROOFS_PARAMETER_CACHE", cache)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "the daemon started: {}",
                std::fs::read_to_string(&log).unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(!exit.success(), "{stderr}");
    stderr
}

/// Fails the test unless `result` is a completed job's.
fn assert_completed(result: &AwaitProofResponse) {
    assert_eq!(
        result.status(),
        Status::Completed,
        "{}: {}",
        result.job_id,
        result.error_message
    );
}

/// The SnapDeals request (job "snap") for `updated`, as Curio sends it.
fn snap_deals_request(updated: &UpdatedSector) -> SubmitProofRequest {
    SubmitProofRequest {
        request_id: "snap".into(),
        proof_kind: ProofKind::SnapDealsUpdate.into(),
        registered_proof: updated.proof_type.id(),
        vanilla_proofs: updated.vanilla_proofs.clone(),
        comm_r_old: updated.commitments.comm_r_old.to_vec(),
        comm_r_new: updated.commitments.comm_r_new.to_vec(),
        comm_d_new: updated.commitments.comm_d_new.to_vec(),
        ..Default::default()
    }
}

/// A WinningPoSt request of miner [`MINER`] with randomness 2, as Curio
/// sends it; no priority given, so a WinningPoSt's (CRITICAL).
fn winning_post_request(
    id: &str,
    winning: PoStProofType,
    vanilla: Vec<Vec<u8>>,
) -> SubmitProofRequest {
    SubmitProofRequest {
        request_id: id.into(),
        proof_kind: ProofKind::WinningPost.into(),
        registered_proof: winning.id(),
        vanilla_proofs: vanilla,
        miner_id: MINER,
        randomness: randomness(2).to_vec(),
        ..Default::default()
    }
}

/// The memory in use once it rises above `before` (a job's reservation).
async fn memory_in_use_above(client: &mut ProvingEngineClient<Channel>, before: u64) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let used = get_status(client).await.pinned_memory_bytes;
        if used > before {
            return used;
        }
        assert!(Instant::now() < deadline, "no job reserved memory");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Job `id`'s status now, or `TIMEOUT` if it is not done.
async fn await_briefly(client: &mut ProvingEngineClient<Channel>, id: &str) -> Status {
    await_for(client, id, 1).await.status()
}

/// Cancels job `id` and waits until it ends cancelled.
async fn cancel(client: &mut ProvingEngineClient<Channel>, id: &str) {
    client
        .cancel_proof(CancelProofRequest { job_id: id.into() })
        .await
        .unwrap();
    assert_eq!(await_job(client, id).await.status(), Status::Cancelled);
}

/// Curio's wrapper of `wrapper`'s C1 output with one bit of its seed
/// flipped: well formed, and no longer what its vanilla proofs prove.
fn with_other_seed(wrapper: &[u8]) -> Vec<u8> {
    use base64::Engine;
    let base64 = base64::engine::general_purpose::STANDARD;
    let mut outer: serde_json::Value = serde_json::from_slice(wrapper).unwrap();
    let mut inner: serde_json::Value =
        serde_json::from_slice(&base64.decode(outer["Phase1Out"].as_str().unwrap()).unwrap())
            .unwrap();
    let seed = inner["seed"][0].as_u64().unwrap();
    inner["seed"][0] = (seed ^ 1).into();
    outer["Phase1Out"] = base64.encode(serde_json::to_vec(&inner).unwrap()).into();
    serde_json::to_vec(&outer).unwrap()
}

fn write_config(dir: &Path, text: &str) -> String {
    let path = dir.join("daemon.toml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

/// A backend that fails mid-proof, through the daemon: behind the default
/// fallback its errors are proven again on the CPU, which the log and the
/// metrics say, the proof passes verify_seal, and the job's reservation
/// counted what the fallback holds; with `fallback = "none"` a panic inside it
/// fails only its job and suspends the device, and the daemon serves the
/// next request once the suspension ends (which fails the same way) and
/// answers GetStatus.
#[test]
fn a_failing_backend_falls_back_to_the_cpu_or_fails_only_its_job() {
    let dir = tempfile::tempdir().unwrap();
    let (sector, wrapper) = sector(28, dir.path());
    let broken = common::plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
    let broken = broken.to_str().unwrap();
    let prove_on = |daemon: &Daemon, id: &str| {
        let request = porep_request(id, &sector, &wrapper);
        runtime().block_on(async {
            let mut client = daemon.client().await;
            let result = prove(client.clone(), request).await;
            let metrics = get_metrics(&mut client).await;
            (result, get_status(&mut client).await, metrics)
        })
    };

    let daemon = Daemon::start_with_env(
        "127.0.0.1:0",
        dir.path(),
        &["--backend", broken],
        &[(pce_backend_broken::MODE_ENV, "error")],
    );
    let (result, status, metrics) = prove_on(&daemon, "falls-back");
    assert_eq!(
        result.status(),
        Status::Completed,
        "{}",
        result.error_message
    );
    assert!(
        sector.verify(&result.proof).unwrap(),
        "verify_seal rejected it"
    );
    assert_eq!(status.total_proofs_completed, 1);
    let log = daemon.log();
    let fell_back = log
        .matches("partition failed on its device; proving it on the fallback backend")
        .count();
    assert!(
        fell_back > 0 && log.contains("simulated device failure"),
        "{log}"
    );
    assert!(
        metrics.contains(&format!(
            "pce_prover_fallback_partitions_total{{kind=\"porep\"}} {fell_back}"
        )),
        "{metrics}"
    );
    let with_fallback = reserved_by(&log, "falls-back");
    let (fallback_tables, proving) = (planned(&log, "fallback"), planned(&log, "proving"));
    assert!(fallback_tables > 0, "{log}");
    drop(daemon);

    let daemon = Daemon::start_with_env(
        "127.0.0.1:0",
        dir.path(),
        &[
            "--backend",
            broken,
            "--config",
            &write_config(
                dir.path(),
                "[proving]\nfallback = \"none\"\nsuspend_failing_device_seconds = 1\n",
            ),
        ],
        &[(pce_backend_broken::MODE_ENV, "panic")],
    );
    // The device fails each job's partition with no fallback: it is
    // suspended after each (1 s, then 2 s), and the next job waits for it.
    for (k, id) in ["panics", "panics-again"].into_iter().enumerate() {
        let (result, status, _) = prove_on(&daemon, id);
        assert_eq!(result.status(), Status::Failed, "{result:?}");
        assert!(
            result.error_message.contains("simulated bug in"),
            "{}",
            result.error_message
        );
        assert_eq!(
            (status.total_proofs_completed, status.total_proofs_failed),
            (0, k as u64 + 1)
        );
    }
    // The one partition's working set may grow too, by the CPU's NTT
    // scratch where it exceeds the device's.
    let log = daemon.log();
    let suspended = "a partition failed on the device and no fallback proved it; \
                     the device takes no job meanwhile";
    assert_eq!(log.matches(suspended).count(), 2, "{log}");
    assert!(
        log.contains("pause=1s") && log.contains("pause=2s"),
        "the second failure in a row doubles the pause: {log}"
    );
    assert_eq!(
        with_fallback - reserved_by(&log, "panics"),
        fallback_tables + proving - planned(&log, "proving"),
        "a job reserves what its fallback would hold beside its partition"
    );
    assert!(daemon.terminate().success());
}

/// A device that fails beside a good one: its set-ups fail (a GPU whose
/// driver faults), or its MSMs after a set-up that worked, with no fallback
/// to prove them. It fails the job it took, then is suspended, and the good
/// device proves the rest of the queue instead of seeing it failed in
/// milliseconds.
#[test]
fn a_failing_device_is_suspended_while_the_other_proves_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    let (sector, wrapper) = sector(29, dir.path());
    let cpu = common::plugin_dir().join(backend_api::loader::plugin_file_name("cpu"));
    let plugin = common::plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
    // Suspended for longer than the test runs on a loaded machine, so that
    // the metrics read at its end still show it.
    let no_fallback = write_config(
        dir.path(),
        "[proving]\nfallback = \"none\"\nsuspend_failing_device_seconds = 600\n",
    );
    for (mode, failure) in [
        (
            "second-broken",
            "simulated device failure in msm_bases_upload",
        ),
        ("second-faulty", "simulated device failure in msm"),
    ] {
        let daemon = Daemon::start_with_env(
            "127.0.0.1:0",
            dir.path(),
            &[
                "--backend",
                plugin.to_str().unwrap(),
                "--config",
                &no_fallback,
            ],
            &[
                (pce_backend_broken::MODE_ENV, mode),
                (
                    pce_backend_broken::forwarding::DELEGATE_ENV,
                    cpu.to_str().unwrap(),
                ),
            ],
        );
        let (results, metrics) = runtime().block_on(async {
            let mut client = daemon.client().await;
            let calls: Vec<_> = (0..3)
                .map(|k| {
                    let request = porep_request(&format!("job-{k}"), &sector, &wrapper);
                    tokio::spawn(prove(client.clone(), request))
                })
                .collect();
            let mut results = Vec::new();
            for call in calls {
                results.push(call.await.unwrap());
            }
            (results, get_metrics(&mut client).await)
        });
        let failed: Vec<&AwaitProofResponse> = results
            .iter()
            .filter(|r| r.status() != Status::Completed)
            .collect();
        let log = daemon.log();
        // Both workers claim a job at once; the bad device's fails, and
        // the good one has proven the other two before the suspension ends.
        assert_eq!(failed.len(), 1, "{mode}: {failed:?}\n{log}");
        assert!(
            failed[0].error_message.contains(failure),
            "{mode}: {failed:?}"
        );
        for result in results.iter().filter(|r| r.status() == Status::Completed) {
            assert!(sector.verify(&result.proof).unwrap());
        }
        assert!(
            log.contains("the device takes no job meanwhile"),
            "{mode}: {log}"
        );
        // Monitoring sees it: one failure, still suspended.
        let failures = metrics
            .lines()
            .filter(|l| l.starts_with("pce_prover_device_failures_total{"))
            .map(|l| l.rsplit(' ').next().unwrap())
            .collect::<Vec<_>>();
        assert_eq!(failures, ["0", "1"], "{mode}: {metrics}");
        let suspended = metrics
            .lines()
            .find(|l| l.starts_with("pce_prover_device_suspended_seconds{device=\"1\""))
            .and_then(|l| l.rsplit(' ').next()?.parse::<u64>().ok());
        assert!(suspended.is_some_and(|s| s > 0), "{mode}: {metrics}");
    }
}

/// The bytes the daemon reserved for job `id`, from its `log`.
fn reserved_by(log: &str, id: &str) -> u64 {
    let started = log
        .lines()
        .find(|line| line.contains("job started") && line.contains(&format!("job={id} ")))
        .unwrap_or_else(|| panic!("job {id} never started: {log}"));
    let bytes = started
        .split("reserved=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next());
    bytes
        .unwrap_or_else(|| panic!("no reservation in {started}"))
        .parse()
        .unwrap()
}

/// The `term` of the memory model in the first memory plan of `log`.
fn planned(log: &str, term: &str) -> u64 {
    let plan = log
        .lines()
        .find(|line| line.contains("memory plan"))
        .unwrap_or_else(|| panic!("no memory plan: {log}"));
    plan.split(&format!(" {term}: "))
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .unwrap_or_else(|| panic!("no {term} in {plan}"))
        .parse()
        .unwrap()
}

#[test]
fn a_daemon_killed_mid_proof_restarts_and_serves_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let (sector, wrapper) = sector(24, dir.path());
    let socket = format!("unix://{}", dir.path().join("prover.sock").display());
    let mut daemon = Daemon::start(&socket, dir.path(), &[]);
    runtime().block_on(async {
        let mut client = daemon.client().await;
        client
            .submit_proof(porep_request("interrupted", &sector, &wrapper))
            .await
            .unwrap();
        wait_until_running(&mut client, "interrupted").await;
    });
    daemon.child.kill().unwrap(); // SIGKILL: no cleanup, the socket file stays
    daemon.child.wait().unwrap();
    assert!(dir.path().join("prover.sock").exists());

    let restarted = Daemon::start(&socket, dir.path(), &[]);
    assert!(
        restarted.log().contains("did not stop cleanly"),
        "{}",
        restarted.log()
    );
    runtime().block_on(async {
        let client = restarted.client().await;
        let result = prove(client, porep_request("interrupted", &sector, &wrapper)).await;
        assert_eq!(
            result.status(),
            Status::Completed,
            "{}",
            result.error_message
        );
        assert!(sector.verify(&result.proof).unwrap());
    });
}

/// Proves `request` with the `Prove` RPC and returns its result.
async fn prove(
    mut client: ProvingEngineClient<Channel>,
    request: SubmitProofRequest,
) -> AwaitProofResponse {
    client
        .prove(ProveRequest {
            submit: Some(request),
        })
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap()
}

/// The value of the gauge or counter `name` in `metrics` (Prometheus text).
fn gauge(metrics: &str, name: &str) -> u64 {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {name} in {metrics}"))
        .parse()
        .unwrap()
}

/// The daemon's threads and open files, the fewest of reads over a
/// second: a thread that has delivered its last result may still be
/// ending when its job's client hears of it, and is no thread left behind.
async fn fewest_threads_and_files(client: &mut ProvingEngineClient<Channel>) -> (u64, u64) {
    let mut fewest = (u64::MAX, u64::MAX);
    for _ in 0..10 {
        let metrics = get_metrics(client).await;
        let threads = gauge(&metrics, "pce_prover_process_threads");
        let files = gauge(&metrics, "pce_prover_process_open_files");
        fewest = (fewest.0.min(threads), fewest.1.min(files));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    fewest
}

/// The names of process `pid`'s threads, to say which one was left.
fn thread_names(pid: u32) -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
        .map(|name| name.trim().to_string())
        .collect();
    names.sort();
    names
}

async fn get_metrics(client: &mut ProvingEngineClient<Channel>) -> String {
    client
        .get_metrics(GetMetricsRequest {})
        .await
        .unwrap()
        .into_inner()
        .prometheus_text
}

async fn get_status(client: &mut ProvingEngineClient<Channel>) -> GetStatusResponse {
    client
        .get_status(GetStatusRequest {})
        .await
        .unwrap()
        .into_inner()
}

async fn wait_until_running(client: &mut ProvingEngineClient<Channel>, id: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = get_status(client).await;
        if status.gpus.iter().any(|g| g.current_job_id == id) {
            return;
        }
        assert!(Instant::now() < deadline, "{id} never started: {status:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[test]
fn sigterm_cancels_what_outlives_the_grace_period_and_answers_its_clients() {
    let dir = tempfile::tempdir().unwrap();
    let (sector, wrapper) = sector(25, dir.path());
    let daemon = Daemon::start("127.0.0.1:0", dir.path(), &["--shutdown-grace", "0"]);
    let (running, queued) = runtime().block_on(async {
        let mut client = daemon.client().await;
        for id in ["running", "queued"] {
            client
                .submit_proof(porep_request(id, &sector, &wrapper))
                .await
                .unwrap();
        }
        wait_until_running(&mut client, "running").await;
        let awaiting = |id: &'static str| {
            let mut client = client.clone();
            tokio::spawn(async move { await_job(&mut client, id).await })
        };
        let (running, queued) = (awaiting("running"), awaiting("queued"));
        tokio::time::sleep(Duration::from_millis(100)).await;
        Command::new("kill")
            .args(["-TERM", &daemon.child.id().to_string()])
            .status()
            .unwrap();
        (running.await.unwrap(), queued.await.unwrap())
    });
    assert_eq!(queued.status(), Status::Cancelled);
    // A job whose last partition was already being proven may still finish.
    assert!(
        matches!(running.status(), Status::Cancelled | Status::Completed),
        "{running:?}"
    );
    let log = daemon.log();
    let status = daemon.terminate();
    assert!(status.success(), "{status:?}\n{log}");
    assert!(log.contains("queue closed"), "{log}");
}

/// A job stuck in a backend call at SIGTERM (the test plugin's MSM waits
/// while its gate file exists, for ever here): cancelled once the grace
/// period is over, abandoned a grace period later, its client answered
/// CANCELLED, and the daemon exits.
#[test]
fn sigterm_abandons_a_job_stuck_in_its_backend_and_answers_its_client() {
    let dir = tempfile::tempdir().unwrap();
    let (sector, wrapper) = sector(30, dir.path());
    let gate = dir.path().join("gate");
    std::fs::write(&gate, b"").unwrap();
    let daemon = Daemon::start_gated(dir.path(), &gate, &["--shutdown-grace", "1"]);
    let stuck = runtime().block_on(async {
        let mut client = daemon.client().await;
        client
            .submit_proof(porep_request("stuck", &sector, &wrapper))
            .await
            .unwrap();
        let reached = pce_backend_broken::forwarding::reached(&gate);
        while !reached.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let awaiting = tokio::spawn(async move { await_job(&mut client, "stuck").await });
        Command::new("kill")
            .args(["-TERM", &daemon.child.id().to_string()])
            .status()
            .unwrap();
        awaiting.await.unwrap()
    });
    assert_eq!(stuck.status(), Status::Cancelled, "{stuck:?}");
    let log = daemon.log();
    let status = daemon.terminate();
    assert!(status.success(), "{status:?}\n{log}");
    assert!(log.contains("abandoned with the process"), "{log}");
}

#[test]
fn pce_prover_prove_sends_a_c1_file_as_curio_does() {
    let dir = tempfile::tempdir().unwrap();
    let (sector, wrapper) = sector(26, dir.path());
    let c1 = dir.path().join("c1.json");
    std::fs::write(&c1, &wrapper).unwrap();
    let daemon = Daemon::start("127.0.0.1:0", dir.path(), &[]);
    let proof = dir.path().join("proof.bin");
    let output = common::pce_prover(
        &[
            "prove",
            "--addr",
            &daemon.address,
            "--c1",
            c1.to_str().unwrap(),
            "--miner-id",
            &MINER.to_string(),
            "--out",
            proof.to_str().unwrap(),
        ],
        &[],
    );
    assert!(output.status.success(), "{}", common::text(&output));
    assert!(sector.verify(&std::fs::read(&proof).unwrap()).unwrap());
    let status = common::pce_prover(&["status", "--addr", &daemon.address], &[]);
    let text = common::text(&status);
    assert!(text.contains("1 proofs completed"), "{text}");
    assert!(text.contains("circuit porep-2k"), "{text}");
}

/// Python's grpcio, with the .proto compiled by grpcio-tools, calls Prove
/// the way Curio's Go client does. `.ci/run` installs grpcio into
/// target/py; without it (outside CI) the test says it did not run.
#[test]
fn a_python_grpc_client_proves_with_curios_wrapper() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python_path = root.join("target/py");
    let has_grpc = Command::new("python3")
        .args(["-c", "import grpc, grpc_tools"])
        .env("PYTHONPATH", &python_path)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_grpc {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install grpcio and grpcio-tools into target/py (see .ci/run)"
        );
        pce_testkit::skip(
            "a_python_grpc_client_proves_with_curios_wrapper",
            "no grpcio: pip3 install --target target/py grpcio grpcio-tools",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (sector, wrapper) = sector(27, dir.path());
    let c1 = dir.path().join("c1.json");
    std::fs::write(&c1, &wrapper).unwrap();
    let socket = format!("unix://{}", dir.path().join("prover.sock").display());
    let daemon = Daemon::start(&socket, dir.path(), &[]);
    let output = Command::new("python3")
        .arg(root.join("crates/prover-cli/tests/curio_client.py"))
        .arg(root.join("crates/prover-daemon/proto"))
        .arg(&daemon.address)
        .arg(&c1)
        .arg(MINER.to_string())
        .env("PYTHONPATH", &python_path)
        .output()
        .unwrap();
    let text = common::text(&output);
    assert!(output.status.success(), "{text}\n{}", daemon.log());
    assert!(text.contains("outcome=\"completed\"} 1"), "{text}");
    let hex = text
        .lines()
        .find_map(|l| l.strip_prefix("PROOF "))
        .expect("the client prints the proof");
    assert!(sector.verify(&hex::decode(hex.trim()).unwrap()).unwrap());
}

/// What a GPU device holds while open (its staging buffers: the OpenCL
/// plugin's twelve of 64 MiB) is resident from the daemon's start:
/// GetStatus counts it in the memory in use, beside the same daemon on the
/// CPU backend, which holds none.
#[test]
fn an_open_gpu_device_holds_its_staging_in_the_memory_in_use() {
    let program_cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("opencl-program-cache");
    let listing = common::pce_prover(
        &["devices", "opencl"],
        &[("PCE_OPENCL_CACHE", program_cache.as_os_str())],
    );
    if listing.status.code() == Some(3) && std::env::var_os("CI").is_none() {
        pce_testkit::skip(
            "an_open_gpu_device_holds_its_staging_in_the_memory_in_use",
            &format!("no OpenCL platform here ({})", common::text(&listing)),
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let in_use = |backend: &str| {
        let daemon = Daemon::start_with_env(
            "127.0.0.1:0",
            dir.path(),
            &["--backend", backend],
            &[("PCE_OPENCL_CACHE", program_cache.to_str().unwrap())],
        );
        let status = runtime().block_on(async { get_status(&mut daemon.client().await).await });
        let log = daemon.log();
        let ended = daemon.terminate();
        assert!(ended.success(), "{backend}: {ended}\n{log}");
        status.pinned_memory_bytes
    };
    let (cpu, opencl) = (in_use("cpu"), in_use("opencl"));
    assert_eq!(opencl - cpu, 12 * (64 << 20), "cpu {cpu}, opencl {opencl}");
}

/// A plugin whose libraries handle SIGTERM and SIGINT by ending the process
/// (LLVM's handlers, inside PoCL's compiler, do) does not take the daemon's
/// graceful stop away: both signals reach the daemon, which drains and
/// exits successfully.
#[test]
fn sigterm_and_sigint_stop_the_daemon_whatever_handlers_its_plugin_installs() {
    let dir = tempfile::tempdir().unwrap();
    let broken = common::plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
    for signal in ["-TERM", "-INT"] {
        let mut daemon = Daemon::start_with_env(
            "127.0.0.1:0",
            dir.path(),
            &["--backend", broken.to_str().unwrap()],
            &[(pce_backend_broken::MODE_ENV, "stop-handlers")],
        );
        runtime().block_on(async { get_status(&mut daemon.client().await).await });
        Command::new("kill")
            .args([signal, &daemon.child.id().to_string()])
            .status()
            .unwrap();
        let ended = daemon.child.wait().unwrap();
        let log = daemon.log();
        assert!(ended.success(), "{signal}: {ended}\n{log}");
        assert!(log.contains(": shutting down"), "{signal}: {log}");
    }
}

/// A stop signal while the daemon preloads (its Unix socket bound, not yet
/// served) ends it at once and removes the socket file it bound. Should the
/// preload be done before the signal, the drain removes it as well.
#[test]
fn a_signal_while_preloading_ends_the_daemon_and_removes_its_socket() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("prover.sock");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pce-prover"))
        .args(["serve", "--preload", "porep-2k", "--listen"])
        .arg(format!("unix://{}", socket.display()))
        .env("PCE_BACKEND_DIR", common::plugin_dir())
        .env("FIL_PROOFS_PARAMETER_CACHE", shared_parameter_cache())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !socket.exists() {
        assert!(Instant::now() < deadline, "the socket was never bound");
        std::thread::sleep(Duration::from_millis(2));
    }
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let ended = child.wait().unwrap();
    assert!(matches!(ended.code(), Some(143) | Some(0)), "{ended}");
    assert!(!socket.exists(), "the socket file is left ({ended})");
}

/// Under systemd (`Type=notify`, `docs/pce-prover.service`): the service
/// manager's socket is told what the daemon loads, that it is ready once
/// it listens, how many jobs run, wait, completed and failed as jobs start
/// and end, and that it is stopping on SIGTERM.
#[test]
fn the_service_manager_is_told_when_the_daemon_loads_listens_and_stops() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("notify");
    let manager = std::os::unix::net::UnixDatagram::bind(&socket).unwrap();
    manager
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let daemon = Daemon::start_with_env(
        "127.0.0.1:0",
        dir.path(),
        &[],
        &[("NOTIFY_SOCKET", socket.to_str().unwrap())],
    );
    let next = || {
        let mut buffer = [0u8; 512];
        let n = manager.recv(&mut buffer).unwrap();
        String::from_utf8(buffer[..n].to_vec()).unwrap()
    };
    assert_eq!(next(), "STATUS=loading circuit porep-2k");
    assert_eq!(
        next(),
        format!("READY=1\nSTATUS=listening on {}", daemon.address)
    );
    // A job whose C1 output does not parse fails as a worker opens it.
    let unreadable = SubmitProofRequest {
        request_id: "unreadable".into(),
        proof_kind: ProofKind::PorepSealCommit.into(),
        sector_size: 2048,
        registered_proof: 5,
        vanilla_proof: b"{".to_vec(),
        miner_id: MINER,
        ..Default::default()
    };
    runtime().block_on(async {
        let mut client = daemon.client().await;
        client.submit_proof(unreadable).await.unwrap();
        assert_eq!(
            await_job(&mut client, "unreadable").await.status(),
            Status::Failed
        );
    });
    assert_eq!(
        next(),
        "STATUS=0 running, 0 queued; 0 completed, 1 failed since start"
    );
    assert!(daemon.terminate().success());
    assert_eq!(next(), "STOPPING=1\nSTATUS=SIGTERM: draining");
}

/// The example unit (`docs/pce-prover.service`) is one systemd accepts:
/// `systemd-analyze verify`, its `ExecStart` pointed at this build's
/// binary, finds nothing wrong with it.
#[test]
fn the_example_systemd_unit_verifies() {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs systemd-analyze (.ci/run)"
        );
        pce_testkit::skip(
            "the_example_systemd_unit_verifies",
            "systemd-analyze is not installed",
        );
        return;
    }
    let unit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/pce-prover.service");
    let text = std::fs::read_to_string(&unit).unwrap();
    let installed = "ExecStart=/usr/local/bin/pce-prover serve";
    assert!(text.contains(installed), "{text}");
    let here = format!("ExecStart={} serve", env!("CARGO_BIN_EXE_pce-prover"));
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("pce-prover.service");
    std::fs::write(&copy, text.replace(installed, &here)).unwrap();
    let verified = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&copy)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&verified.stderr);
    assert!(verified.status.success(), "{said}");
    assert!(!said.contains("pce-prover.service"), "{said}");
}
