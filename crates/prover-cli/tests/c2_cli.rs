//! `pce-prover demo`, `c2` and `aggregate` through the binary: real proofs
//! of 2 KiB sectors checked by filecoin-proofs' verifiers, and failures
//! that leave no output behind. Test parameters are shared through
//! `target/tmp/filecoin-proof-parameters` (generated once).

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Mutex;

use common::text;

use filecoin_proofs::{get_seal_inputs, verify_aggregate_seal_commit_proofs, SectorShape2KiB};
use filecoin_prover::aggregate::{ensure_test_srs, srs_path, VERSION};
use filecoin_prover::c1::lotus_bench_json;
use filecoin_prover::c2::prover_id_of_miner;
use filecoin_prover::params::ensure_test_params;
use filecoin_prover::proof_type::{ProofType, Variant};
use filecoin_testkit::test_sector::{seal_2kib, seal_2kib_for, seal_2kib_with, TestSector};

static PARAMS: Mutex<()> = Mutex::new(());

fn shared_parameter_cache() -> PathBuf {
    let _guard = PARAMS.lock().unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-proof-parameters");
    std::fs::create_dir_all(&dir).unwrap();
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
    ensure_test_params(ProofType::interactive(2048).unwrap(), 0, false).unwrap();
    dir
}

fn pce_prover(args: &[&str], cache: &Path) -> Output {
    common::pce_prover(args, &[("FIL_PROOFS_PARAMETER_CACHE", cache.as_os_str())])
}

/// A freshly sealed 2 KiB sector's C1 output, proven by `c2` on the test
/// plugin `broken` (`crates/test-plugins`) in one of its modes.
struct OnBrokenBackend {
    cache: PathBuf,
    sector: TestSector,
    c1: PathBuf,
    out: PathBuf,
    _work: tempfile::TempDir,
}

impl OnBrokenBackend {
    /// Seals the sector of `seed`.
    fn new(seed: u64) -> Self {
        let cache = shared_parameter_cache();
        let work = tempfile::tempdir().unwrap();
        let sector = seal_2kib(seed, work.path()).unwrap();
        let c1 = work.path().join("c1.json");
        std::fs::write(&c1, serde_json::to_vec(&sector.c1).unwrap()).unwrap();
        Self {
            cache,
            sector,
            c1,
            out: work.path().join("proof.bin"),
            _work: work,
        }
    }

    /// `c2 --c1 … --out … --backend broken` and `args`, the plugin in
    /// `mode`, with `env` set.
    fn c2(&self, mode: &str, args: &[&str], env: &[(&str, &OsStr)]) -> Output {
        let broken = common::plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
        let c2 = [
            "c2",
            "--c1",
            self.c1.to_str().unwrap(),
            "--out",
            self.out.to_str().unwrap(),
            "--backend",
            broken.to_str().unwrap(),
        ];
        let plugin_env = [
            ("FIL_PROOFS_PARAMETER_CACHE", self.cache.as_os_str()),
            (pce_backend_broken::MODE_ENV, mode.as_ref()),
        ];
        common::pce_prover(&[&c2[..], args].concat(), &[&plugin_env[..], env].concat())
    }
}

#[test]
fn demo_proves_a_fresh_sector_twice_alike() {
    let cache = shared_parameter_cache();
    // The same backend twice checks the comparison's plumbing (one r and
    // s for both, two verified proofs, compared); scripts/gpu-check.sh
    // runs it with --backend cuda --reference cpu.
    let output = pce_prover(&["demo", "--reference", "cpu"], &cache);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains("proof (StackedDrg2KiBV1_1, 192 bytes)"),
        "{out}"
    );
    assert_eq!(
        out.matches("verify_seal accepted the proof").count(),
        2,
        "{out}"
    );
    assert!(out.contains("identical, byte for byte"), "{out}");
}

#[test]
fn c2_proves_a_lotus_bench_file_and_writes_a_report() {
    let cache = shared_parameter_cache();
    let work = tempfile::tempdir().unwrap();
    let sector = seal_2kib(5, work.path()).unwrap();
    let wrapper = lotus_bench_json(
        &sector.c1,
        ProofType::interactive(2048).unwrap(),
        u64::from(sector.sector_id),
    );
    let c1 = work.path().join("c1.json");
    std::fs::write(&c1, serde_json::to_vec(&wrapper).unwrap()).unwrap();
    let proof = work.path().join("proof.hex");
    let report = work.path().join("report.json");
    let prover_id = hex::encode(sector.prover_id);
    let args = [
        "c2",
        "--c1",
        c1.to_str().unwrap(),
        "--out",
        proof.to_str().unwrap(),
        "--format",
        "hex",
    ];
    let output = pce_prover(
        &[
            &args[..],
            &[
                "--prover-id",
                &prover_id,
                "--report",
                report.to_str().unwrap(),
            ],
        ]
        .concat(),
        &cache,
    );
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.contains("verify_seal accepted the proof"), "{out}");
    assert_eq!(std::fs::read_to_string(&proof).unwrap().trim().len(), 384);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert!(
        report["seconds"]["prove"].as_f64().unwrap() > 0.0,
        "{report}"
    );
    assert!(report["peak_rss_bytes"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(
        std::fs::read_dir(work.path())
            .unwrap()
            .filter(|e| e
                .as_ref()
                .unwrap()
                .path()
                .to_string_lossy()
                .ends_with(".tmp"))
            .count(),
        0
    );
}

#[test]
fn failures_leave_no_output_behind() {
    // Sealing below reads filecoin-proofs' settings, once per process: the
    // other tests' shared cache must be set first.
    shared_parameter_cache();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("proof.bin");
    // `c2 --c1 c1 --out out` and `extra`, with `env` set.
    let c2 = |c1: &Path, extra: &[&str], env: &[(&str, &OsStr)]| {
        let args = [
            "c2",
            "--c1",
            c1.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        common::pce_prover(&[&args[..], extra].concat(), env)
    };

    let bad = work.path().join("bad.json");
    std::fs::write(&bad, "{ truncated").unwrap();
    let output = c2(
        &bad,
        &[],
        &[("FIL_PROOFS_PARAMETER_CACHE", work.path().as_os_str())],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output).contains("bad.json: not valid JSON"),
        "{}",
        text(&output)
    );
    assert!(!out.exists());

    let sector = seal_2kib(6, work.path()).unwrap();
    let c1 = work.path().join("c1.json");
    std::fs::write(&c1, serde_json::to_vec(&sector.c1).unwrap()).unwrap();
    let empty_cache = work.path().join("no-params");
    std::fs::create_dir_all(&empty_cache).unwrap();
    let empty = [("FIL_PROOFS_PARAMETER_CACHE", empty_cache.as_os_str())];
    let output = c2(&c1, &[], &empty);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output).contains("missing parameters for StackedDrg2KiBV1_1"),
        "{}",
        text(&output)
    );
    assert!(!out.exists());

    // A backend without its driver, and a device the backend does not
    // list: said before the parameters are looked for (and before minutes
    // of recording at 32 GiB).
    let broken = common::plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
    let no_driver = [
        empty[0],
        (pce_backend_broken::MODE_ENV, OsStr::new("no-driver")),
    ];
    for (extra, env, expected) in [
        (
            &["--backend", broken.to_str().unwrap()][..],
            &no_driver[..],
            "no simulated driver installed",
        ),
        (
            &["--device", "5"],
            &empty,
            "backend cpu has no device 5 (it lists 1)",
        ),
        (
            &["--fallback", "/nowhere/libfallback.so"],
            &empty,
            "/nowhere/libfallback.so",
        ),
    ] {
        let output = c2(&c1, extra, env);
        let said = text(&output);
        assert_eq!(output.status.code(), Some(1), "{said}");
        assert!(said.contains(expected), "{said}");
        assert!(!said.contains("missing parameters"), "{said}");
    }

    // Outputs that are one file, or an input: refused before anything is
    // read or proven, and nothing replaced.
    let report = out.to_str().unwrap();
    let output = c2(&c1, &["--report", report], &empty);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("are the same file"), "{said}");
    assert!(!out.exists());
    let input = std::fs::read(&c1).unwrap();
    let output = common::pce_prover(
        &[
            "c2",
            "--c1",
            c1.to_str().unwrap(),
            "--out",
            c1.to_str().unwrap(),
        ],
        &empty,
    );
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("is both an input and an output"), "{said}");
    assert_eq!(std::fs::read(&c1).unwrap(), input);

    // Unreadable inputs whose names are not UTF-8 are reported by name
    // like the others.
    let odd = work.path().join("odd");
    std::fs::create_dir_all(&odd).unwrap();
    std::fs::write(odd.join("a.json"), "{ truncated").unwrap();
    let name = <OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"s\xff.json");
    std::fs::write(odd.join(name), "{ truncated").unwrap();
    // `c2 --c1 dir --out-dir`, which fails: what it says.
    let failing_c2_of_dir = |dir: &Path| {
        let out_dir = dir.with_extension("proofs");
        let args = ["c2", "--c1", dir.to_str().unwrap(), "--out-dir"];
        let output = pce_prover(
            &[&args[..], &[out_dir.to_str().unwrap()]].concat(),
            &empty_cache,
        );
        let said = text(&output);
        assert_eq!(output.status.code(), Some(1), "{said}");
        said
    };
    let said = failing_c2_of_dir(&odd);
    assert!(
        said.contains("none of the 2 C1 outputs could be read"),
        "{said}"
    );

    // An input of another proof type than most (a non-interactive
    // sector's 13 partitions) fails alone, before anything is proven, even
    // where it comes first.
    let dir = work.path().join("mixed");
    std::fs::create_dir_all(&dir).unwrap();
    let mut many = serde_json::to_value(&sector.c1).unwrap();
    let partition = many["vanilla_proofs"][0].clone();
    many["vanilla_proofs"] = serde_json::Value::Array(vec![partition; 13]);
    std::fs::write(dir.join("a.json"), many.to_string()).unwrap();
    std::fs::copy(&c1, dir.join("b.json")).unwrap();
    std::fs::copy(&c1, dir.join("c.json")).unwrap();
    let said = failing_c2_of_dir(&dir);
    assert!(
        said.contains("a.json: a StackedDrg2KiBV1_2_Feat_NonInteractivePoRep sector, where this run proves StackedDrg2KiBV1_1, the proof type of most inputs (one proof type per run)"),
        "{said}"
    );
    assert!(!said.contains("b.json: a"), "{said}");
}

/// `aggregate` over what `c2 --out-dir` wrote: one proof that
/// filecoin-proofs' verifier accepts with the chain's public inputs; the
/// same bytes from hex proofs named one by one; a wrong miner or a missing
/// proof refused, naming the file, with nothing written.
#[test]
fn aggregate_makes_one_proof_of_the_sectors_c2_proved() {
    let cache = shared_parameter_cache();
    ensure_test_srs(0).unwrap();
    let work = tempfile::tempdir().unwrap();
    let miner = 1234;
    let prover_id = prover_id_of_miner(miner);
    let c1_dir = work.path().join("c1");
    std::fs::create_dir_all(&c1_dir).unwrap();
    let sectors: Vec<_> = (0..2u64)
        .map(|i| {
            let dir = work.path().join(format!("sector-{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            let sector = seal_2kib_for(40 + i, &dir, prover_id).unwrap();
            let wrapper = lotus_bench_json(
                &sector.c1,
                ProofType::interactive(2048).unwrap(),
                u64::from(sector.sector_id),
            );
            let c1 = c1_dir.join(format!("s{i}.json"));
            std::fs::write(&c1, serde_json::to_vec(&wrapper).unwrap()).unwrap();
            (sector, c1)
        })
        .collect();
    let proofs = work.path().join("proofs");
    let miner_arg = miner.to_string();
    let (c1_arg, proofs_arg) = (c1_dir.to_str().unwrap(), proofs.to_str().unwrap());
    let output = pce_prover(
        &[
            "c2",
            "--c1",
            c1_arg,
            "--out-dir",
            proofs_arg,
            "--miner-id",
            &miner_arg,
        ],
        &cache,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));

    let aggregate = work.path().join("aggregate.bin");
    let output = pce_prover(
        &[
            "aggregate",
            "--c1",
            c1_arg,
            "--proof",
            proofs_arg,
            "--miner-id",
            &miner_arg,
            "--out",
            aggregate.to_str().unwrap(),
        ],
        &cache,
    );
    let message = text(&output);
    assert_eq!(output.status.code(), Some(0), "{message}");
    assert!(
        message.contains("2 sector(s), 2 partition proofs (padded to 2), each verified")
            && message.contains("as the chain derives them"),
        "{message}"
    );
    // A valid aggregate the chain would refuse (fewer than 4 sectors): said.
    assert!(
        message.contains("ProveCommitAggregate refuses fewer than 4 sectors"),
        "{message}"
    );
    let aggregate = std::fs::read(&aggregate).unwrap();
    let config = ProofType::interactive(2048).unwrap().config();
    let mut inputs = Vec::new();
    for (sector, _) in &sectors {
        let c1 = &sector.c1;
        inputs.extend(
            get_seal_inputs::<SectorShape2KiB>(
                &config,
                c1.comm_r,
                c1.comm_d,
                prover_id,
                sector.sector_id,
                c1.ticket,
                c1.seed,
            )
            .unwrap(),
        );
    }
    let comm_rs: Vec<_> = sectors.iter().map(|(s, _)| s.c1.comm_r).collect();
    let seeds: Vec<_> = sectors.iter().map(|(s, _)| s.c1.seed).collect();
    assert!(verify_aggregate_seal_commit_proofs::<SectorShape2KiB>(
        &config,
        aggregate.clone(),
        &comm_rs,
        &seeds,
        inputs,
        VERSION,
    )
    .unwrap());

    // The proofs in hex, named one by one: the same aggregate, in hex.
    let hex_proofs: Vec<PathBuf> = (0..2)
        .map(|i| {
            let raw = std::fs::read(proofs.join(format!("s{i}.proof"))).unwrap();
            let path = work.path().join(format!("s{i}.hex"));
            std::fs::write(&path, hex::encode(raw) + "\n").unwrap();
            path
        })
        .collect();
    let (c1_0, c1_1) = (
        sectors[0].1.to_str().unwrap(),
        sectors[1].1.to_str().unwrap(),
    );
    let (hex_0, hex_1) = (
        hex_proofs[0].to_str().unwrap(),
        hex_proofs[1].to_str().unwrap(),
    );
    let as_hex = work.path().join("aggregate.hex");
    let output = pce_prover(
        &[
            "aggregate",
            "--c1",
            c1_0,
            c1_1,
            "--proof",
            hex_0,
            hex_1,
            "--format",
            "hex",
            "--out",
            as_hex.to_str().unwrap(),
        ],
        &cache,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let written = std::fs::read_to_string(&as_hex).unwrap();
    assert_eq!(hex::decode(written.trim()).unwrap(), aggregate);

    // Given in the other order: taken in ascending sector number, as the
    // chain verifies the aggregate, so the same aggregate. The same sector
    // twice is refused.
    let reversed = work.path().join("reversed.bin");
    let output = pce_prover(
        &[
            "aggregate",
            "--c1",
            c1_1,
            c1_0,
            "--proof",
            hex_1,
            hex_0,
            "--out",
            reversed.to_str().unwrap(),
        ],
        &cache,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(std::fs::read(&reversed).unwrap(), aggregate);
    // A sector given twice, with or without its sector number (as
    // filecoin-proofs' own C1 outputs are, where only its comm_r tells).
    let unnumbered = work.path().join("unnumbered.json");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(c1_0).unwrap()).unwrap();
    json.as_object_mut().unwrap().remove("SectorNum").unwrap();
    std::fs::write(&unnumbered, json.to_string()).unwrap();
    for c1 in [c1_0, unnumbered.to_str().unwrap()] {
        let output = pce_prover(
            &[
                "aggregate",
                "--c1",
                c1,
                c1,
                "--proof",
                hex_0,
                hex_0,
                "--out",
                reversed.to_str().unwrap(),
            ],
            &cache,
        );
        let message = text(&output);
        assert_eq!(output.status.code(), Some(1), "{message}");
        assert!(
            message.contains("is given twice (the same comm_r"),
            "{message}"
        );
    }

    // Another miner, and a proof missing: refused, nothing written.
    let refused = work.path().join("refused.bin");
    let refused_arg = refused.to_str().unwrap();
    let output = pce_prover(
        &[
            "aggregate",
            "--c1",
            c1_arg,
            "--proof",
            proofs_arg,
            "--miner-id",
            "1235",
            "--out",
            refused_arg,
        ],
        &cache,
    );
    let message = text(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("s0.proof") && message.contains("do not derive the replica id"),
        "{message}"
    );
    // The two sectors with `proofs`: refused (exit 1), with its message.
    let refused_with = |proofs: &[&str]| {
        let mut args = vec!["aggregate", "--c1", c1_0, c1_1, "--proof"];
        args.extend(proofs);
        args.extend(["--out", refused_arg]);
        let output = pce_prover(&args, &cache);
        let message = text(&output);
        assert_eq!(output.status.code(), Some(1), "{message}");
        message
    };
    let message = refused_with(&[hex_0]);
    assert!(
        message.contains("2 C1 output(s) and 1 proof(s)"),
        "{message}"
    );
    // A sealed sector named as a proof by mistake (here a sparse file of
    // its size): refused by its length, not read into memory.
    let sealed = work.path().join("sealed");
    std::fs::File::create(&sealed)
        .unwrap()
        .set_len(2048 << 20)
        .unwrap();
    let message = refused_with(&[hex_0, sealed.to_str().unwrap()]);
    assert!(
        message.contains("sealed") && message.contains("bytes or more, above the"),
        "{message}"
    );
    assert!(!refused.exists());
}

/// `c2 --circuit-proofs` of a non-interactive sector (13 partitions) writes
/// its partition proofs, what filecoin-proofs'
/// `seal_commit_phase2_circuit_proofs` returns, and needs no SnarkPack SRS
/// (without the option, the missing SRS is refused before proving);
/// `aggregate` makes of them the proof filecoin-proofs' verifier accepts.
#[test]
fn circuit_proofs_of_a_non_interactive_sector_are_aggregated_later() {
    let cache = shared_parameter_cache();
    ensure_test_srs(0).unwrap();
    let work = tempfile::tempdir().unwrap();
    // The circuit's files without the SRS.
    let no_srs = work.path().join("parameters-without-srs");
    std::fs::create_dir_all(&no_srs).unwrap();
    let srs_name = srs_path().file_name().unwrap().to_owned();
    for entry in std::fs::read_dir(&cache).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() != srs_name {
            std::os::unix::fs::symlink(entry.path(), no_srs.join(entry.file_name())).unwrap();
        }
    }
    let miner = 2345;
    let prover_id = prover_id_of_miner(miner);
    let ni = ProofType {
        variant: Variant::NonInteractive,
        ..ProofType::interactive(2048).unwrap()
    };
    let sector = seal_2kib_with(ni.config(), 47, work.path(), prover_id).unwrap();
    let c1 = work.path().join("ni.json");
    let wrapper = lotus_bench_json(&sector.c1, ni, u64::from(sector.sector_id));
    std::fs::write(&c1, serde_json::to_vec(&wrapper).unwrap()).unwrap();
    let (c1_arg, miner_arg) = (c1.to_str().unwrap(), miner.to_string());
    let proof = work.path().join("ni.proof");
    let c2 = |extra: &[&str]| {
        let mut args = vec![
            "c2",
            "--c1",
            c1_arg,
            "--out",
            proof.to_str().unwrap(),
            "--miner-id",
            &miner_arg,
        ];
        args.extend_from_slice(extra);
        pce_prover(&args, &no_srs)
    };

    let output = c2(&[]);
    let message = text(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(message.contains("which needs the SRS"), "{message}");
    assert!(!proof.exists());

    let output = c2(&["--circuit-proofs"]);
    let message = text(&output);
    assert_eq!(output.status.code(), Some(0), "{message}");
    assert!(message.contains("13 partition(s)"), "{message}");
    let circuit_proofs = std::fs::read(&proof).unwrap();
    assert_eq!(circuit_proofs.len(), 13 * 192);

    let aggregate = work.path().join("aggregate.bin");
    let output = pce_prover(
        &[
            "aggregate",
            "--c1",
            c1_arg,
            "--proof",
            proof.to_str().unwrap(),
            "--miner-id",
            &miner_arg,
            "--out",
            aggregate.to_str().unwrap(),
        ],
        &cache,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let c1 = &sector.c1;
    let inputs = get_seal_inputs::<SectorShape2KiB>(
        &ni.config(),
        c1.comm_r,
        c1.comm_d,
        prover_id,
        sector.sector_id,
        c1.ticket,
        c1.seed,
    )
    .unwrap();
    assert!(verify_aggregate_seal_commit_proofs::<SectorShape2KiB>(
        &ni.config(),
        std::fs::read(&aggregate).unwrap(),
        &[c1.comm_r],
        &[c1.seed],
        inputs,
        VERSION,
    )
    .unwrap());
}

/// A backend that fails mid-proof, through `c2`: ids of another sector are
/// refused before it is called; its wrong results with no
/// fallback are an error naming the partition and leave no output; its
/// errors behind the default fallback are proven again on the CPU, which
/// `c2` says, and the proof passes verify_seal.
#[test]
fn a_failing_backend_through_c2_fails_cleanly_or_falls_back_to_the_cpu() {
    let run = OnBrokenBackend::new(8);
    let (sector, out) = (&run.sector, &run.out);
    let prover_id = hex::encode(sector.prover_id);
    let sector_id = u64::from(sector.sector_id).to_string();
    let c2_of = |sector_id: &str, mode: &str, extra: &[&str]| {
        let ids = ["--prover-id", &prover_id, "--sector-id", sector_id];
        run.c2(mode, &[&ids[..], extra].concat(), &[])
    };
    let c2 = |mode: &str, extra: &[&str]| c2_of(&sector_id, mode, extra);

    // Ids that are not the sector's are refused before anything reaches
    // the backend (which would panic here) or verify_seal.
    let other_sector = (u64::from(sector.sector_id) + 1).to_string();
    let output = c2_of(&other_sector, "panic", &["--fallback", "none"]);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "sector id {other_sector} do not derive the C1 output's replica id"
        )) && !said.contains("simulated bug"),
        "{said}"
    );
    assert!(!out.exists());

    let output = c2("wrong", &["--fallback", "none"]);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("partition 0") && said.contains("does not verify"),
        "{said}"
    );
    assert!(!out.exists());

    let output = c2("error", &[]);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.contains("partition failed on its device; proving it on the fallback backend")
            && said.contains("partition=0")
            && said.contains("simulated device failure"),
        "{said}"
    );
    assert!(said.contains("verify_seal accepted the proof"), "{said}");
    assert!(sector.verify(&std::fs::read(out).unwrap()).unwrap());
}

/// Admission under pressure: with a budget that fits one partition and
/// its static memory, four provers (`-j 4`) over two sectors still prove
/// one partition at a time, and the peak resident memory stays within the
/// budget plus the model's stated margin.
#[test]
fn a_budget_of_one_partition_admits_one_at_a_time_whatever_the_jobs() {
    let cache = shared_parameter_cache();
    let work = tempfile::tempdir().unwrap();
    let inputs: Vec<String> = (0..2)
        .map(|k| {
            let dir = work.path().join(format!("s{k}"));
            std::fs::create_dir_all(&dir).unwrap();
            let sector = seal_2kib(20 + k, &dir).unwrap();
            let c1 = work.path().join(format!("c1-{k}.json"));
            std::fs::write(&c1, serde_json::to_vec(&sector.c1).unwrap()).unwrap();
            c1.display().to_string()
        })
        .collect();
    let c2 = |inputs: &[String], extra: &[&str]| {
        let report = work.path().join("report.json");
        let out = work.path().join("proofs");
        let mut args = vec!["c2".to_owned()];
        for input in inputs {
            args.extend(["--c1".to_owned(), input.clone()]);
        }
        args.extend(
            [
                "--out-dir",
                out.to_str().unwrap(),
                "--report",
                report.to_str().unwrap(),
            ]
            .map(str::to_owned),
        );
        args.extend(extra.iter().map(|s| s.to_string()));
        let output = pce_prover(&args.iter().map(String::as_str).collect::<Vec<_>>(), &cache);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
        report
    };
    // What one partition needs, as the refusal of a 1-byte budget says it
    // (before anything is proven), to 0.01 GiB.
    let mut args = vec!["c2", "--memory-budget", "1", "--out-dir", "unused"];
    for input in &inputs {
        args.extend(["--c1", input]);
    }
    let refused = text(&pce_prover(&args, &cache));
    let gib_after = |label: &str| -> f64 {
        refused
            .split(label)
            .nth(1)
            .and_then(|rest| rest.split(" GiB").next())
            .and_then(|gib| gib.parse().ok())
            .unwrap_or_else(|| panic!("no {label:?} in the refusal: {refused}"))
    };
    let (needed, proving) = (gib_after("one partition needs "), gib_after("proving "));
    // Rounding, and the resident size before loading, which varies a
    // little between processes: far less than a second partition.
    let budget = ((needed + 0.02) * (1u64 << 30) as f64) as u64;
    assert!(0.02 < proving / 2.0);

    let report = c2(
        &inputs,
        &["-j", "4", "--memory-budget", &budget.to_string()],
    );
    let memory = &report["memory"];
    assert_eq!(memory["partitions_admitted"], 1, "{memory}");
    assert_eq!(memory["partitions_in_flight_peak"], 1, "{memory}");
    let peak = report["peak_rss_bytes"].as_u64().unwrap();
    let margin = memory["margin_bytes"].as_u64().unwrap();
    assert!(
        peak <= budget + margin,
        "peak RSS {peak} above budget {budget} + margin {margin}"
    );
    eprintln!("budget {budget}, margin {margin}, peak RSS {peak}");
}

/// A backend operation that never returns: the watchdog ends `c2` with a
/// message naming the backend and the operation, instead of a silent hang.
#[test]
fn a_hung_backend_is_a_clear_error_not_a_silent_hang() {
    let run = OnBrokenBackend::new(9);
    // Five minutes scaled to about two seconds.
    let output = run.c2(
        "hang",
        &[],
        &[(backend_api::watchdog::SCALE_ENV, "0.007".as_ref())],
    );
    let said = text(&output);
    assert_eq!(
        output.status.code(),
        Some(backend_api::watchdog::EXIT_HUNG),
        "{said}"
    );
    assert!(
        said.contains("backend broken: ntt on") && said.contains("has not returned after"),
        "{said}"
    );
    assert!(!run.out.exists());
}

/// `c2` on the broken backend in `mode`, which crashes the process with
/// SIGSEGV: it dies of the signal, as it must, having said `expected`, and
/// writes no proof.
fn crashes_saying(seed: u64, mode: &str, expected: &[&str]) {
    let run = OnBrokenBackend::new(seed);
    let output = run.c2(mode, &[], &[]);
    let said = text(&output);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(output.status.signal(), Some(11), "SIGSEGV: {said}");
    for words in expected {
        assert!(said.contains(words), "{words:?} not in: {said}");
    }
    assert!(!run.out.exists());
}

/// A backend that crashes the process (SIGSEGV inside an operation): it
/// says which backend and which operation it was in.
#[test]
fn a_crashing_backend_is_named_before_the_process_dies() {
    crashes_saying(
        10,
        "crash",
        &["fatal signal 11 inside the plugin, during backend broken: ntt on"],
    );
}

/// A backend whose own thread crashes the process: the operations in
/// flight are named, the thread's being no plugin call of the host's.
#[test]
fn a_crash_on_a_plugins_own_thread_names_the_operations_in_flight() {
    crashes_saying(
        12,
        "crash-thread",
        &[
            "plugin operations were in flight: backend broken: ntt on",
            "(signal 11)",
        ],
    );
}

/// A `demo` killed by its plugin leaves its working directory behind (no
/// cleanup runs in a crashing process); a later `demo` removes it once it
/// has been left alone for an hour.
#[test]
fn a_demo_that_died_has_its_working_directory_removed_by_the_next() {
    let cache = shared_parameter_cache();
    let tmp = tempfile::tempdir().unwrap();
    let broken = common::plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
    let crashing_demo = || {
        let output = common::pce_prover(
            &["demo", "--backend", broken.to_str().unwrap()],
            &[
                ("FIL_PROOFS_PARAMETER_CACHE", cache.as_os_str()),
                ("TMPDIR", tmp.path().as_os_str()),
                (pce_backend_broken::MODE_ENV, "crash".as_ref()),
            ],
        );
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(output.status.signal(), Some(11), "{}", text(&output));
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.starts_with("pce-prover-demo-"))
            .collect();
        left
    };
    let first = crashing_demo();
    assert_eq!(first.len(), 1, "{first:?}");
    let second = crashing_demo();
    assert_eq!(
        second.len(),
        2,
        "an hour must pass before removal: {second:?}"
    );
    // Two hours later, as far as the directories say.
    for name in &second {
        let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        std::fs::File::open(tmp.path().join(name))
            .unwrap()
            .set_modified(two_hours_ago)
            .unwrap();
    }
    let third = crashing_demo();
    assert_eq!(third.len(), 1, "the dead runs' are gone: {third:?}");
    assert!(!second.contains(&third[0]));
}

/// `demo --reference` checks the backend itself: a backend whose proofs do
/// not verify fails the demo, even though the reference (its fallback for
/// declined MSMs) proved the partition again; a backend that declines its
/// G2 MSMs (as a GPU whose G2 kernels failed their self-test does) proves
/// with the reference taking just those, byte for byte the reference's
/// proof.
#[test]
fn a_demo_against_a_reference_checks_the_backends_own_proofs() {
    let cache = shared_parameter_cache();
    let broken = common::plugin_dir().join(backend_api::loader::plugin_file_name("broken"));
    let demo = |mode: &str, extra: &[(&str, &std::ffi::OsStr)]| {
        let mut env = vec![
            ("FIL_PROOFS_PARAMETER_CACHE", cache.as_os_str()),
            (pce_backend_broken::MODE_ENV, mode.as_ref()),
        ];
        env.extend_from_slice(extra);
        let args = [
            "demo",
            "--backend",
            broken.to_str().unwrap(),
            "--reference",
            "cpu",
        ];
        let output = common::pce_prover(&args, &env);
        (output.status.success(), text(&output))
    };
    let (success, said) = demo("wrong", &[]);
    assert!(!success, "{said}");
    assert!(!said.contains("identical, byte for byte"), "{said}");
    assert!(
        said.contains("backend failed 1 partition(s), which the reference then proved"),
        "{said}"
    );
    assert!(said.contains("does not verify"), "{said}");

    let cpu = common::plugin_dir().join(backend_api::loader::plugin_file_name("cpu"));
    let delegate = [(
        pce_backend_broken::forwarding::DELEGATE_ENV,
        cpu.as_os_str(),
    )];
    // Without G2 MSMs, refused at the MSM or already at the upload of the
    // bases: those MSMs run on the fallback.
    for mode in ["g1-only", "g1-only-bases"] {
        let (success, said) = demo(mode, &delegate);
        assert!(success, "{mode}: {said}");
        assert!(said.contains("identical, byte for byte"), "{mode}: {said}");
    }
}
