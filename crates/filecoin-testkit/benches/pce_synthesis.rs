//! PCE synthesis against enforce-time synthesis on the 2 KiB PoRep circuit.
//!
//! `cargo bench -p filecoin-testkit --bench pce_synthesis [-- --reps N]`
//!
//! Seals a 2 KiB sector, records the PCE from the blank partition circuit,
//! then alternates, N times, the enforce-time path (bellperson's
//! `ProvingAssignment`, ported as `EnforcingCS`) and the PCE path (witness
//! only, then A·w, B·w, C·w). Only one path's vectors are alive at a time;
//! their digests are compared to show both computed the same a, b, c.
//! Times are medians over the repetitions; the ratio is what to quote.

use std::time::{Duration, Instant};

use filecoin_proofs::SectorShape2KiB;
use filecoin_prover::partition::{blank_circuit, PartitionCircuits};
use filecoin_prover::witness::partition_witness;
use filecoin_testkit::synthesis_compare::abc_digest as digest;
use filecoin_testkit::test_sector::seal_2kib;
use pce_core::{synthesize_enforcing, synthesize_witness, PrecompiledCircuit};

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .map(|n| n.parse::<usize>().expect("--reps takes a number"))
        .unwrap_or(3)
        .max(1);

    let dir = tempfile::tempdir().expect("temporary directory");
    let sector = seal_2kib(1, dir.path()).expect("sealing a 2 KiB sector");
    let circuits = PartitionCircuits::new(&sector.config, sector.c1).expect("partition circuits");
    let circuit = || circuits.circuit(0).expect("partition circuit");

    let start = Instant::now();
    let blank = blank_circuit::<SectorShape2KiB>(&sector.config).expect("blank circuit");
    let pce = PrecompiledCircuit::extract(blank).expect("extraction");
    let extraction = start.elapsed();
    let path = dir.path().join("porep-2kib.pce");
    let start = Instant::now();
    pce.save(&path).expect("saving the PCE");
    let save = start.elapsed();
    let start = Instant::now();
    let loaded = PrecompiledCircuit::load(&path).expect("loading the PCE");
    let load = start.elapsed();
    assert!(loaded == pce, "the PCE read back differs");
    drop(loaded);
    let file_bytes = std::fs::metadata(&path).expect("PCE file").len();

    let (mut enforce_times, mut witness_times, mut matvec_times) = (vec![], vec![], vec![]);
    let mut parallel_witness_times = vec![];
    let mut digests = None;
    for _ in 0..reps {
        let c = circuit();
        let start = Instant::now();
        let reference = synthesize_enforcing(c).expect("enforce-time synthesis");
        enforce_times.push(start.elapsed());
        let reference_digest = digest([&reference.a, &reference.b, &reference.c]);
        drop(reference);

        let c = circuit();
        let start = Instant::now();
        let witness = synthesize_witness(c).expect("witness generation");
        witness_times.push(start.elapsed());
        drop(witness);
        let start = Instant::now();
        let witness = partition_witness(&circuits, 0, pce.num_inputs(), pce.num_aux())
            .expect("parallel witness");
        parallel_witness_times.push(start.elapsed());
        let start = Instant::now();
        let eval = pce.evaluate(&witness).expect("MatVec");
        matvec_times.push(start.elapsed());
        let pce_digest = digest([&eval.a, &eval.b, &eval.c]);
        drop((witness, eval));

        assert_eq!(
            reference_digest, pce_digest,
            "the two paths computed different a, b, c"
        );
        digests = Some(pce_digest);
    }

    let enforce = median(&mut enforce_times);
    let witness = median(&mut witness_times);
    let parallel_witness = median(&mut parallel_witness_times);
    let matvec = median(&mut matvec_times);
    let nnz = pce.nnz();
    println!(
        "PCE synthesis benchmark: 2 KiB PoRep partition, {reps} repetitions (medians), {} threads",
        rayon::current_num_threads()
    );
    println!(
        "  circuit: {} constraints, {} inputs, {} aux",
        pce.num_constraints(),
        pce.num_inputs(),
        pce.num_aux()
    );
    for (name, m) in ["A", "B", "C"].iter().zip(pce.matrices()) {
        println!(
            "  matrix {name}: {} non-zeros, {} table values, {} escaped, {:.2} B/nnz",
            m.nnz(),
            m.table_len(),
            m.num_escapes(),
            m.size_bytes() as f64 / m.nnz() as f64
        );
    }
    println!(
        "  PCE size:  {} bytes in memory ({:.2} B/nnz), file {} bytes ({:.2} B/nnz)",
        pce.matrix_bytes(),
        pce.matrix_bytes() as f64 / nnz as f64,
        file_bytes,
        file_bytes as f64 / nnz as f64
    );
    println!("  extraction (blank circuit -> PCE): {}", secs(extraction));
    println!(
        "  save / load with checksum:         {} / {}",
        secs(save),
        secs(load)
    );
    println!("  enforce-time synthesis (baseline): {}", secs(enforce));
    let challenges = circuits.num_challenges(0);
    let ratio = |pce: Duration| enforce.as_secs_f64() / pce.as_secs_f64();
    println!("  PCE witness, sequential:           {}", secs(witness));
    println!(
        "  PCE witness, {challenges} challenges in parallel: {}",
        secs(parallel_witness)
    );
    println!("  PCE MatVec (A·w, B·w, C·w):         {}", secs(matvec));
    println!(
        "  PCE synthesis (parallel witness + MatVec):   {}  speedup {:.2}x",
        secs(parallel_witness + matvec),
        ratio(parallel_witness + matvec)
    );
    println!(
        "  PCE synthesis (sequential witness + MatVec): {}  speedup {:.2}x",
        secs(witness + matvec),
        ratio(witness + matvec)
    );
    println!(
        "  a, b, c digest (both paths):       {}",
        blake3::Hash::from(digests.expect("at least one repetition"))
    );
}
