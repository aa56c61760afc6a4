//! Fuzzing the daemon's request decoding: protobuf bytes as a client
//! could send them in a `SubmitProofRequest`, of each proof kind.
//!
//! Seeds are the requests Curio sends for a 2 KiB PoRep, WindowPoSt
//! partition, WinningPoSt and SnapDeals update. Each case decodes the
//! mutated message, translates it into a job and opens it as a worker
//! does before proving (the C1 output parsed; vanilla proofs decoded,
//! arranged and verified): a malformed request must fail its own job with
//! a message, never the daemon.

use std::path::Path;

use filecoin_proofs::SectorShape2KiB;
use filecoin_prover::c1::lotus_bench_json;
use filecoin_prover::compound::ProofKind as _;
use filecoin_prover::post::{PoStInput, PoStJob};
use filecoin_prover::proof_type::ProofType;
use filecoin_prover::update::UpdateJob;
use input_fuzz::{Campaign, CappedAllocator, Mutator};
use prost::Message;
use prover_daemon::proto::{ProofKind, SubmitProofRequest};
use prover_daemon::requests::Opened;
use prover_daemon::service::translate;

#[global_allocator]
static ALLOC: CappedAllocator = CappedAllocator;

const MINER: u64 = 1000;

fn bytes_of(proofs: &[filecoin_prover::vanilla::VanillaBytes]) -> Vec<Vec<u8>> {
    proofs.iter().map(|p| p.bytes.clone()).collect()
}

/// Curio's four kinds of request, encoded.
fn seeds(dir: &Path) -> Vec<Vec<u8>> {
    let kinds = filecoin_testkit::kinds::inputs_2kib(dir, 41).unwrap();
    let sector_dir = dir.join("porep");
    std::fs::create_dir_all(&sector_dir).unwrap();
    let sector = filecoin_testkit::test_sector::seal_2kib(43, &sector_dir).unwrap();
    let proof_type = ProofType::interactive(2048).unwrap();
    let c1 = lotus_bench_json(&sector.c1, proof_type, 9);
    // Curio asks for one WindowPoSt partition at a time: two 2 KiB sectors.
    let post = |kind: ProofKind, input: &PoStInput, sectors: usize| SubmitProofRequest {
        request_id: "post".into(),
        proof_kind: kind.into(),
        registered_proof: input.proof_type.id(),
        vanilla_proofs: bytes_of(&input.vanilla_proofs[..sectors]),
        miner_id: MINER,
        randomness: input.randomness.to_vec(),
        partition_index: 0,
        ..Default::default()
    };
    let snap = &kinds.snap;
    [
        SubmitProofRequest {
            request_id: "porep".into(),
            proof_kind: ProofKind::PorepSealCommit.into(),
            sector_size: 2048,
            registered_proof: proof_type.id(),
            vanilla_proof: serde_json::to_vec(&c1).unwrap(),
            sector_number: 9,
            miner_id: MINER,
            ..Default::default()
        },
        post(ProofKind::WindowPostPartition, &kinds.window, 2),
        post(ProofKind::WinningPost, &kinds.winning, 1),
        SubmitProofRequest {
            request_id: "snap".into(),
            proof_kind: ProofKind::SnapDealsUpdate.into(),
            registered_proof: snap.proof_type.id(),
            vanilla_proofs: bytes_of(&snap.vanilla_proofs),
            comm_r_old: snap.commitments.comm_r_old.to_vec(),
            comm_r_new: snap.commitments.comm_r_new.to_vec(),
            comm_d_new: snap.commitments.comm_d_new.to_vec(),
            ..Default::default()
        },
    ]
    .map(|request| request.encode_to_vec())
    .into()
}

/// What the daemon does with a request before proving it.
fn accept(bytes: &[u8]) -> Result<(), String> {
    let request =
        SubmitProofRequest::decode(bytes).map_err(|e| format!("not a SubmitProofRequest: {e}"))?;
    let (_, _, parsed) = translate(&request.request_id, request.proof_kind(), &request);
    let opened = parsed?.open()?;
    let s = |e: filecoin_prover::C2Error| e.to_string();
    match opened {
        Opened::Porep { input, .. } => {
            let _ = input.num_partitions();
        }
        Opened::PoSt(input) if input.proof_type.sector_size == 2048 => {
            PoStJob::<SectorShape2KiB>::new(&input).open().map_err(s)?;
        }
        Opened::Snap(input) if input.proof_type.sector_size == 2048 => {
            UpdateJob::<SectorShape2KiB>::new(&input)
                .open()
                .map_err(s)?;
        }
        _ => return Err("a request for another sector size (not opened here)".into()),
    }
    Ok(())
}

#[test]
fn daemon_request_decoding_survives_mutated_messages() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = seeds(dir.path());
    let report = Campaign::new(
        "daemon-request",
        1200,
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    )
    .run(
        &seeds,
        |m: &mut Mutator, seed, others| m.bytes(seed, others),
        accept,
    );
    eprintln!("{report}");
    report.assert_clean();
}
