//! `pce-prover c2` over several inputs under a memory budget: a budget
//! below one partition is refused before any proving; a budget that
//! admits one partition at a time keeps two sectors at `-j 2` to one
//! partition in flight, and the peak RSS under the budget plus the stated
//! margin. Test parameters are shared through
//! `target/tmp/filecoin-proof-parameters`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::text;
use filecoin_prover::c1::lotus_bench_json;
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::proof_type::ProofType;
use filecoin_testkit::test_sector::seal_2kib_for;

const MIB: f64 = (1u64 << 20) as f64;

fn pce_prover(args: &[&str], cache: &Path) -> Output {
    common::pce_prover(args, &[("FIL_PROOFS_PARAMETER_CACHE", cache.as_os_str())])
}

/// The "one partition needs N GiB" of a refusal, in bytes.
fn needed_bytes(message: &str) -> f64 {
    let rest = message
        .split("one partition needs ")
        .nth(1)
        .unwrap_or_else(|| panic!("no need stated: {message}"));
    let gib: f64 = rest.split(' ').next().unwrap().parse().unwrap();
    gib * 1024.0 * MIB
}

#[test]
fn the_memory_budget_is_respected_or_refused() {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-proof-parameters");
    std::fs::create_dir_all(&cache).unwrap();
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &cache);
    let proof_type = ProofType::interactive(2048).unwrap();
    ensure_test_params(proof_type, 0, false).unwrap();

    let work = tempfile::tempdir().unwrap();
    let inputs = work.path().join("c1");
    std::fs::create_dir_all(&inputs).unwrap();
    for seed in [21u64, 22] {
        let dir = work.path().join(seed.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let sector = seal_2kib_for(seed, &dir, [1; 32]).unwrap();
        let wrapper = lotus_bench_json(&sector.c1, proof_type, u64::from(sector.sector_id));
        std::fs::write(
            inputs.join(format!("sector-{seed}.json")),
            serde_json::to_vec(&wrapper).unwrap(),
        )
        .unwrap();
    }
    let out_dir = work.path().join("proofs");
    let report = work.path().join("report.json");
    let prover_id = hex::encode([1u8; 32]);
    let c2 = |budget: &str| {
        pce_prover(
            &[
                "c2",
                "--c1",
                inputs.to_str().unwrap(),
                "--out-dir",
                out_dir.to_str().unwrap(),
                "-j",
                "2",
                "--memory-budget",
                budget,
                "--prover-id",
                &prover_id,
                "--report",
                report.to_str().unwrap(),
            ],
            &cache,
        )
    };

    // Too small for one partition: refused before any proof.
    let refused = c2("64MiB");
    let message = text(&refused);
    assert_eq!(refused.status.code(), Some(1), "{message}");
    assert!(
        message.contains("memory budget 0.06 GiB is too small: one partition needs"),
        "{message}"
    );
    assert!(!message.contains("partitions proven"), "{message}");
    assert!(!out_dir.join("sector-21.proof").exists());

    // Room for one partition and a tenth of a GiB: one at a time.
    let budget = needed_bytes(&message) + 100.0 * MIB;
    let output = c2(&format!("{}", budget as u64));
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert_eq!(
        out.matches("verify_seal accepted the proof").count(),
        2,
        "{out}"
    );
    for name in ["sector-21.proof", "sector-22.proof"] {
        assert_eq!(
            std::fs::read(out_dir.join(name)).unwrap().len(),
            192,
            "{name}"
        );
    }
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let memory = &report["memory"];
    assert_eq!(memory["partitions_admitted"], 1, "{report}");
    assert_eq!(memory["partitions_in_flight_peak"], 1, "{report}");
    let peak = report["peak_rss_bytes"].as_u64().unwrap() as f64;
    let margin = memory["margin_bytes"].as_u64().unwrap() as f64;
    assert!(
        peak <= budget + margin,
        "peak RSS {:.0} MiB exceeds the budget {:.0} MiB plus the margin {:.0} MiB",
        peak / MIB,
        budget / MIB,
        margin / MIB
    );
    assert_eq!(report["sectors"].as_array().unwrap().len(), 2, "{report}");

    // A C1 file still being copied in fails alone: the others are proven
    // and written, the run's status says one failed, the report says why.
    std::fs::write(inputs.join("sector-23.json"), "{\"Phase1Out\": ").unwrap();
    for name in ["sector-21.proof", "sector-22.proof"] {
        std::fs::remove_file(out_dir.join(name)).unwrap();
    }
    let output = c2(&format!("{}", budget as u64));
    let out = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(
        out.contains("sector-23.json: not valid JSON") && out.contains("1 of 3 sector(s) failed"),
        "{out}"
    );
    for name in ["sector-21.proof", "sector-22.proof"] {
        assert!(out_dir.join(name).exists(), "{name}: {out}");
    }
    assert!(!out_dir.join("sector-23.proof").exists());
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work.path().join("report.json")).unwrap()).unwrap();
    let sectors = report["sectors"].as_array().unwrap();
    assert_eq!(sectors.len(), 3, "{report}");
    assert!(
        sectors[2]["error"]
            .as_str()
            .unwrap()
            .contains("sector-23.json"),
        "{report}"
    );
}
