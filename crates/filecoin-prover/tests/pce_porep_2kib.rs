//! The PCE on the real PoRep circuit: seal a 2 KiB sector, record the PCE
//! from the blank partition circuit, evaluate it on the witness of the real
//! partition circuit, and compare with the enforce-time evaluation.

use ff::Field;
use filecoin_proofs::SectorShape2KiB;
use filecoin_prover::partition::{blank_circuit, PartitionCircuits};
use filecoin_prover::witness::{partition_witness, placed_partition_witness};
use filecoin_testkit::test_sector::seal_2kib;
use pce_core::{synthesize_enforcing, synthesize_witness, PrecompiledCircuit, Scalar};
use rayon::prelude::*;

/// Constraints of one 2 KiB PoRep partition as the circuit enforces them;
/// bellperson's prover appends one `input · 0 = 0` row per input.
const CONSTRAINTS_2KIB: usize = 2_687_921;
const INPUTS_2KIB: usize = 40;
const AUX_2KIB: usize = 2_685_673;

#[test]
fn pce_of_2kib_porep_partition_matches_enforce_time_synthesis() {
    let dir = tempfile::tempdir().unwrap();
    let sector = seal_2kib(2026, dir.path()).unwrap();
    let circuits = PartitionCircuits::new(&sector.config, sector.c1).unwrap();
    assert_eq!(
        circuits.num_partitions(),
        1,
        "a 2 KiB sector has one partition"
    );
    assert!(
        circuits.num_challenges(0) > 1,
        "the parallel witness path is exercised"
    );

    let pce =
        PrecompiledCircuit::extract(blank_circuit::<SectorShape2KiB>(&sector.config).unwrap())
            .unwrap();
    assert_eq!(pce.num_inputs(), INPUTS_2KIB);
    assert_eq!(pce.num_aux(), AUX_2KIB);
    assert_eq!(pce.num_constraints(), CONSTRAINTS_2KIB + INPUTS_2KIB);

    let witness = synthesize_witness(circuits.circuit(0).unwrap()).unwrap();
    let parallel = partition_witness(&circuits, 0, pce.num_inputs(), pce.num_aux()).unwrap();
    assert!(
        parallel == witness,
        "challenge-parallel witness differs from the sequential one"
    );
    drop(parallel);
    // The first partition of its shape taught the process the layout: the
    // next is synthesized in place.
    let placed = placed_partition_witness(&circuits, 0, pce.num_inputs(), pce.num_aux())
        .unwrap()
        .expect("the layout was learned from the partition assembled above");
    assert!(
        placed == witness,
        "witness synthesized in place differs from the sequential one"
    );
    drop(placed);
    let eval = pce.evaluate(&witness).unwrap();
    let unsatisfied = (0..eval.a.len())
        .into_par_iter()
        .filter(|&i| eval.a[i] * eval.b[i] != eval.c[i])
        .count();
    assert_eq!(unsatisfied, 0, "rows with a·b ≠ c");
    assert!(eval.a.iter().any(|v| !bool::from(v.is_zero())));

    let reference = synthesize_enforcing(circuits.circuit(0).unwrap()).unwrap();
    assert_eq!(witness.inputs, reference.inputs);
    assert!(witness.aux == reference.aux, "aux assignments differ");
    assert!(eval.a == reference.a, "A·w differs from the enforce-time a");
    assert!(eval.b == reference.b, "B·w differs from the enforce-time b");
    assert!(eval.c == reference.c, "C·w differs from the enforce-time c");
    assert_eq!(pce.a_aux_density(), &reference.a_aux_density);
    assert_eq!(pce.b_input_density(), &reference.b_input_density);
    assert_eq!(pce.b_aux_density(), &reference.b_aux_density);
    assert_eq!(reference.inputs[0], Scalar::ONE);
}
