//! The dependency rules of docs/architecture.md, checked on every crate's
//! Cargo.toml: a crate gaining a dependency the rules forbid fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each workspace crate and the workspace crates its `[dependencies]` may
/// name (the arrows of docs/architecture.md). Dev-dependencies are free:
/// tests build plugins next to their binaries without linking them.
const ARROWS: &[(&str, &[&str])] = &[
    ("atomic-write", &[]),
    ("large-buffers", &[]),
    ("pce-csr", &["atomic-write"]),
    ("pce-core", &["large-buffers", "pce-csr"]),
    ("pce-testkit", &[]),
    ("backend-api", &[]),
    ("backend-cpu", &["backend-api", "large-buffers"]),
    ("gpu-backend", &["backend-api"]),
    ("backend-opencl", &["backend-api", "gpu-backend"]),
    ("backend-cuda", &["backend-api", "gpu-backend"]),
    ("test-plugins", &["backend-api"]),
    // Its targets are tests; the library is the fuzzing machinery alone.
    ("input-fuzz", &[]),
    (
        "groth16-prover",
        &["backend-api", "large-buffers", "pce-core"],
    ),
    (
        "backend-check",
        &["backend-api", "groth16-prover", "pce-core", "pce-testkit"],
    ),
    (
        "proving-engine",
        &["backend-api", "groth16-prover", "pce-core"],
    ),
    (
        "filecoin-prover",
        &[
            "atomic-write",
            "groth16-prover",
            "large-buffers",
            "pce-core",
            "proving-engine",
        ],
    ),
    (
        "filecoin-testkit",
        &["filecoin-prover", "pce-core", "proving-engine"],
    ),
    (
        "prover-daemon",
        &["backend-api", "filecoin-prover", "proving-engine"],
    ),
    (
        "prover-cli",
        &[
            "atomic-write",
            "backend-api",
            "backend-check",
            "filecoin-prover",
            "filecoin-testkit",
            "proving-engine",
            "prover-daemon",
        ],
    ),
];

/// Outside crates that only some workspace crates may depend on.
const GUARDED: &[(&str, &[&str])] = &[
    // Filecoin lives in filecoin-prover (and its test kit) only.
    ("filecoin-proofs", &["filecoin-prover", "filecoin-testkit"]),
    ("filecoin-hashers", &["filecoin-prover", "filecoin-testkit"]),
    (
        "storage-proofs-core",
        &["filecoin-prover", "filecoin-testkit"],
    ),
    (
        "storage-proofs-porep",
        &["filecoin-prover", "filecoin-testkit"],
    ),
    (
        "storage-proofs-post",
        &["filecoin-prover", "filecoin-testkit"],
    ),
    (
        "storage-proofs-update",
        &["filecoin-prover", "filecoin-testkit"],
    ),
    // Circuits and Groth16 are unknown to the ABI, the plugins and the
    // matrix layer.
    (
        "bellperson",
        &[
            "groth16-prover",
            "proving-engine",
            "filecoin-prover",
            "backend-check",
            "pce-testkit",
        ],
    ),
    (
        "bellpepper-core",
        &[
            "pce-core",
            "filecoin-prover",
            "filecoin-testkit",
            "backend-check",
            "pce-testkit",
        ],
    ),
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/<name> is two levels below the root")
        .to_owned()
}

/// Every crate's `[dependencies]` names, by package name.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let root = workspace_root();
    let workspace: toml::Table = std::fs::read_to_string(root.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let members = workspace["workspace"]["members"].as_array().unwrap();
    members
        .iter()
        .map(|member| {
            let path = root.join(member.as_str().unwrap()).join("Cargo.toml");
            let manifest: toml::Table = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .parse()
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = manifest["package"]["name"].as_str().unwrap().to_owned();
            let deps = manifest
                .get("dependencies")
                .and_then(|d| d.as_table())
                .map(|d| d.keys().cloned().collect())
                .unwrap_or_default();
            (name, deps)
        })
        .collect()
}

#[test]
fn every_crate_depends_only_along_the_arrows() {
    let crates = dependencies();
    let arrows: BTreeMap<&str, &[&str]> = ARROWS.iter().copied().collect();
    let unplaced: Vec<&String> = crates
        .keys()
        .filter(|name| !arrows.contains_key(name.as_str()))
        .collect();
    assert!(
        unplaced.is_empty(),
        "crates missing from docs/architecture.md and this test: {unplaced:?}"
    );
    let mut broken = Vec::new();
    for (name, deps) in &crates {
        for dep in deps.iter().filter(|d| crates.contains_key(*d)) {
            if !arrows[name.as_str()].contains(&dep.as_str()) {
                broken.push(format!("{name} -> {dep}"));
            }
        }
        for (guarded, allowed) in GUARDED {
            if deps.contains(*guarded) && !allowed.contains(&name.as_str()) {
                broken.push(format!("{name} -> {guarded}"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "dependencies that break docs/architecture.md's rules: {broken:?}"
    );
}

#[test]
fn the_rules_see_real_manifests() {
    // The check above must not pass because nothing was read.
    let crates = dependencies();
    assert!(crates.len() >= ARROWS.len(), "{crates:?}");
    assert!(crates["filecoin-prover"].contains("filecoin-proofs"));
    assert!(crates["backend-cpu"].contains("backend-api"));
}
