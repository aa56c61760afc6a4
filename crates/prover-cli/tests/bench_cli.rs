//! `pce-prover bench pce` and `bench witness` through the binary, on
//! synthetic sectors and partitions: no sealing and no parameters needed,
//! the PCE recorded into a cache of its own.

mod common;

use std::path::Path;
use std::process::Output;

use common::text;

fn pce_prover(args: &[&str], cache: &Path) -> Output {
    common::pce_prover(args, &[("FIL_PROOFS_PARAMETER_CACHE", cache.as_os_str())])
}

#[test]
fn bench_pce_measures_a_synthetic_sector() {
    let cache = tempfile::tempdir().unwrap();
    let json = cache.path().join("pce.json");
    let output = pce_prover(
        &[
            "bench",
            "pce",
            "--synthetic",
            "2KiB",
            "--json",
            json.to_str().unwrap(),
        ],
        cache.path(),
    );
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains("Synthesis of StackedDrg2KiBV1_1 (synthetic, 1 partition(s))"),
        "{out}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(doc["synthetic_partitions"], 1, "{doc}");
    assert_eq!(doc["c1"], serde_json::Value::Null, "{doc}");
    let rows = doc["partitions"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{doc}");
    assert!(rows[0]["speedup"].as_f64().unwrap() > 0.0, "{doc}");
    assert_eq!(rows[0]["abc_digest"].as_str().unwrap().len(), 64, "{doc}");
}

#[test]
fn bench_pce_refuses_a_synthetic_sector_it_cannot_build() {
    let cache = tempfile::tempdir().unwrap();
    for (args, expected) in [
        (
            &["bench", "pce", "--synthetic", "3KiB"][..],
            "--synthetic \"3KiB\": not a PoRep sector size",
        ),
        (
            &["bench", "pce", "--synthetic", "2KiB", "--partitions", "2"][..],
            "has 2 partition(s)",
        ),
        (&["bench", "pce"][..], "--c1 <FILE>"),
        (
            &["bench", "pce", "--c1", "x.json", "--synthetic", "2KiB"][..],
            "cannot be used with",
        ),
    ] {
        let output = pce_prover(args, cache.path());
        let out = text(&output);
        assert_ne!(output.status.code(), Some(0), "{args:?}: {out}");
        assert!(out.contains(expected), "{args:?}: {out}");
    }
}

#[test]
fn bench_witness_checks_a_synthetic_partition_both_ways() {
    let cache = tempfile::tempdir().unwrap();
    for (kind, shape) in [
        ("window-post", "2 sectors of 10 challenges"),
        ("winning-post", "66 sectors of 1 challenges"),
        ("snap", "10 challenges"),
    ] {
        let args = [
            "bench",
            "witness",
            "--kind",
            kind,
            "--sector-size",
            "2KiB",
            "--rounds",
            "1",
        ];
        let output = pce_prover(&args, cache.path());
        let out = text(&output);
        assert_eq!(output.status.code(), Some(0), "{out}");
        assert!(
            out.contains(&format!("one synthetic partition ({shape})")),
            "{out}"
        );
        assert!(
            out.contains("every round: the two witnesses equal, value for value"),
            "{out}"
        );
    }
    let output = pce_prover(
        &[
            "bench",
            "witness",
            "--kind",
            "window-post",
            "--sector-size",
            "3KiB",
        ],
        cache.path(),
    );
    let out = text(&output);
    assert_ne!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains("--sector-size \"3KiB\": not a sector size"),
        "{out}"
    );
}
