//! The engine on a small circuit, with no Filecoin: results in order and on
//! the caller's thread, each proof verified against the job's own public
//! inputs, one failing job not stopping the others, the witnesses of the
//! partitions in flight generated at once and none after a cancel, the
//! registry loading each circuit once, the errors found before proving,
//! and work let in between partitions.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use blstrs::Scalar;
use ff::Field;
use groth16_prover::{ProveError, PROOF_BYTES};
use pce_core::PrecompiledCircuit;
use proving_engine::{
    run, run_with, Assignment, BetweenPartitions, Devices, EngineError, EngineOptions, Event, Job,
    PartitionProof, Registry,
};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

mod common;

use common::{circuit, job, options, Fault, SquaresJob, TestError};

#[test]
fn results_reach_the_caller_in_order_and_a_failing_job_stops_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), true);
    let jobs = [
        job(&[3, 4, 5], Fault::None),
        job(&[6, 7], Fault::LieIn(1)),
        job(&[8], Fault::Unreadable),
        job(&[9, 10], Fault::None),
        job(&[], Fault::None),
        job(&[11, 12, 13], Fault::PanicIn(1)),
        job(&[14], Fault::PanicInFinish),
        job(&[15], Fault::None),
        job(&[16, 17, 18], Fault::PanicInOpen),
        job(&[19], Fault::None),
    ];
    let caller = std::thread::current().id();
    let proven = AtomicUsize::new(0);
    let observed = |event: Event<'_>| {
        if let Event::PartitionProven { .. } = event {
            proven.fetch_add(1, Ordering::SeqCst);
        }
    };
    let delivered = Mutex::new(Vec::new());
    let run = run(&circuit, &jobs, &options(2), &observed, |job, result| {
        assert_eq!(
            std::thread::current().id(),
            caller,
            "on the caller's thread"
        );
        delivered.lock().unwrap().push((job, result.is_ok()));
    })
    .unwrap();

    let mut delivered = delivered.into_inner().unwrap();
    delivered.sort();
    assert_eq!(
        delivered,
        [
            (0, true),
            (1, false),
            (2, false),
            (3, true),
            (4, false),
            (5, false),
            (6, false),
            (7, true),
            (8, false),
            (9, true)
        ],
        "each job reported once, the failures of some stopping no other"
    );
    assert_eq!(
        run.results[0].as_ref().unwrap().output.len(),
        3 * PROOF_BYTES
    );
    assert_eq!(
        run.results[3].as_ref().unwrap().output.len(),
        2 * PROOF_BYTES
    );
    match &run.results[1] {
        Err(TestError::Engine(EngineError::Prove {
            partition: 1,
            source: ProveError::OtherInputs { index: 0, input: 1 },
        })) => {}
        other => panic!("a proof of a false statement must be refused: {other:?}"),
    }
    assert!(matches!(run.results[2], Err(TestError::Unreadable)));
    assert!(matches!(
        run.results[4],
        Err(TestError::Engine(EngineError::NoPartitions))
    ));
    for (index, expected) in [
        (5, "witness 1 broke"),
        (6, "finishing broke"),
        (8, "parsing broke"),
    ] {
        match &run.results[index] {
            Err(TestError::Engine(EngineError::Panicked { message, .. })) => {
                assert!(message.contains(expected), "{message}")
            }
            other => panic!("job {index}: a panic is that job's error: {other:?}"),
        }
    }
    assert_eq!(run.results[7].as_ref().unwrap().output.len(), PROOF_BYTES);
    assert_eq!(run.results[9].as_ref().unwrap().output.len(), PROOF_BYTES);
    assert!(
        proven.load(Ordering::SeqCst) >= 8,
        "every honest partition was proven"
    );
    assert!(run.memory.peak_in_flight >= 1 && run.memory.peak_in_flight <= run.memory.slots);
}

/// A statement no backend can prove (a witness breaking a constraint, or
/// made for other public inputs) fails at once, saying which, and is not
/// proven again on the fallback backend; the other partitions still are.
#[test]
fn a_false_statement_is_refused_without_trying_the_fallback() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), true);
    let jobs = [
        job(&[3, 4], Fault::BreakIn(1)),
        job(&[5, 6], Fault::LieIn(0)),
        job(&[7], Fault::None),
    ];
    let (fell_back, device_failed) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let observed = |event: Event<'_>| match event {
        Event::FallingBack { .. } => _ = fell_back.fetch_add(1, Ordering::SeqCst),
        Event::DeviceFailed { .. } => _ = device_failed.fetch_add(1, Ordering::SeqCst),
        _ => {}
    };
    let options = EngineOptions {
        fallback: Some("cpu".into()),
        ..options(1)
    };
    let run = run(&circuit, &jobs, &options, &observed, |_, _| {}).unwrap();
    match &run.results[0] {
        // The first of Squares' two constraints uses x, aux 0.
        Err(TestError::Engine(EngineError::Prove {
            partition: 1,
            source:
                ProveError::Unsatisfied {
                    index: 0,
                    constraint: 0,
                },
        })) => {}
        other => panic!("a broken witness is named: {other:?}"),
    }
    let said = proving_engine::chain(run.results[0].as_ref().unwrap_err());
    assert!(
        said.contains("breaks constraint 0") && said.contains("no backend can prove it"),
        "{said}"
    );
    match &run.results[1] {
        Err(TestError::Engine(EngineError::Prove {
            partition: 0,
            source: ProveError::OtherInputs { index: 0, input: 1 },
        })) => {}
        other => panic!("a witness of other inputs is named: {other:?}"),
    }
    assert!(run.results[2].is_ok());
    assert_eq!(fell_back.load(Ordering::SeqCst), 0, "no fallback tried");
    assert_eq!(device_failed.load(Ordering::SeqCst), 0, "no device blamed");
}

#[test]
fn streamed_and_resident_parameters_prove_alike() {
    let dir = tempfile::tempdir().unwrap();
    let job = [job(&[11, 12], Fault::None)];
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let fixed: Vec<(Scalar, Scalar)> = (0..2)
        .map(|_| (Scalar::random(&mut rng), Scalar::random(&mut rng)))
        .collect();
    let proofs = |resident: bool| {
        let circuit = circuit(dir.path(), resident);
        let options = EngineOptions {
            randomness: Some(fixed.clone()),
            ..options(1)
        };
        let mut runs = run(&circuit, &job, &options, &|_| {}, |_, _| {}).unwrap();
        runs.results.remove(0).unwrap().output
    };
    let resident = proofs(true);
    assert_eq!(resident.len(), 2 * PROOF_BYTES);
    assert_eq!(
        resident,
        proofs(false),
        "byte for byte, with the same r and s"
    );
}

#[test]
fn work_between_partitions_runs_before_each_and_leaves_the_proofs_alone() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = std::sync::Arc::new(circuit(dir.path(), true));
    let jobs = [job(&[21, 22, 23], Fault::None)];
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let fixed: Vec<(Scalar, Scalar)> = (0..3)
        .map(|_| (Scalar::random(&mut rng), Scalar::random(&mut rng)))
        .collect();
    let plain = EngineOptions {
        randomness: Some(fixed.clone()),
        ..options(1)
    };
    let mut alone = run(&circuit, &jobs, &plain, &|_| {}, |_, _| {}).unwrap();
    let alone = alone.results.remove(0).unwrap().output;

    // Between partitions, a whole run of another job of the circuit on the
    // idle prover, as the daemon proves an urgent job there.
    let order = std::sync::Arc::new(Mutex::new(Vec::new()));
    let between = {
        let (circuit, order) = (circuit.clone(), order.clone());
        BetweenPartitions::new(move |idle| {
            let urgent = [job(&[30], Fault::None)];
            let idle = std::slice::from_ref(idle);
            let nested =
                run_with(&circuit, idle, &urgent, &options(1), &|_| {}, |_, _| {}).unwrap();
            assert_eq!(
                nested.results[0].as_ref().unwrap().output.len(),
                PROOF_BYTES
            );
            order.lock().unwrap().push("urgent job proven");
            false
        })
    };
    let observer = |event: Event<'_>| {
        if let Event::PartitionProven { .. } = event {
            order.lock().unwrap().push("partition proven");
        }
    };
    let options = EngineOptions {
        between_partitions: Some(between),
        ..plain.clone()
    };
    let mut interleaved = run(&circuit, &jobs, &options, &observer, |_, _| {}).unwrap();
    assert_eq!(
        interleaved.results.remove(0).unwrap().output,
        alone,
        "byte for byte, with the same r and s"
    );
    assert_eq!(
        *order.lock().unwrap(),
        ["urgent job proven", "partition proven"].repeat(3),
        "before each partition, not after the last (the job is done then)"
    );

    // A panic there fails the job whose partition was next.
    let panicking = EngineOptions {
        between_partitions: Some(BetweenPartitions::new(|_| panic!("urgent work broke"))),
        ..plain
    };
    let failed = run(&circuit, &jobs, &panicking, &|_| {}, |_, _| {}).unwrap();
    match &failed.results[0] {
        Err(TestError::Engine(EngineError::Panicked { message, .. })) => {
            assert!(message.contains("urgent work broke"), "{message}")
        }
        other => panic!("a panic between partitions is the job's error: {other:?}"),
    }
}

/// Work between partitions that asks to run again does so while the
/// prover waits for a slow witness: an urgent job submitted meanwhile is
/// not kept waiting for the witness and the partition after it.
#[test]
fn work_between_partitions_runs_again_while_a_witness_is_awaited() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), true);
    // Partition 1's witness takes a second; the prover waits for it idle.
    let jobs = [job(&[41, 42], Fault::SlowIn(1))];
    let calls = std::sync::Arc::new(Mutex::new(Vec::new()));
    let proven = std::sync::Arc::new(AtomicUsize::new(0));
    let run_with_again = |again: bool| {
        calls.lock().unwrap().clear();
        proven.store(0, Ordering::SeqCst);
        let (seen, count) = (calls.clone(), proven.clone());
        let options = EngineOptions {
            between_partitions: Some(BetweenPartitions::new(move |_| {
                seen.lock().unwrap().push(count.load(Ordering::SeqCst));
                again
            })),
            ..options(1)
        };
        let counter = proven.clone();
        let observer = move |event: Event<'_>| {
            if let Event::PartitionProven { .. } = event {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        };
        let run = run(&circuit, &jobs, &options, &observer, |_, _| {}).unwrap();
        assert!(run.results[0].is_ok());
        let seen = calls.lock().unwrap().clone();
        seen
    };
    // Asked to, it runs again while partition 1's witness is generated,
    // after partition 0 is proven: several times in that second.
    let again = run_with_again(true);
    let waiting = again.iter().filter(|&&proven| proven == 1).count();
    assert!(
        waiting >= 3,
        "run {waiting} times during the wait: {again:?}"
    );
    // Not asked to, once before each partition.
    assert_eq!(run_with_again(false), [0, 1]);
}

#[test]
fn what_prevents_every_proof_is_found_before_proving() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), false);
    let job = [job(&[1, 2], Fault::None)];
    let never = |_: usize, _: &_| panic!("no job may start");

    let wrong_randomness = EngineOptions {
        randomness: Some(vec![(Scalar::ONE, Scalar::ONE)]),
        ..options(1)
    };
    let err = run(&circuit, &job, &wrong_randomness, &|_| {}, never)
        .err()
        .unwrap();
    assert!(
        matches!(
            err,
            EngineError::Randomness {
                given: 1,
                partitions: 2
            }
        ),
        "{err}"
    );

    let tiny = EngineOptions {
        memory_budget: Some(1 << 20),
        ..options(1)
    };
    let err = run(&circuit, &job, &tiny, &|_| {}, never).err().unwrap();
    assert!(matches!(err, EngineError::BudgetTooSmall { .. }), "{err}");

    let no_device = EngineOptions {
        devices: Devices::One(99),
        ..options(1)
    };
    let err = run(&circuit, &job, &no_device, &|_| {}, never)
        .err()
        .unwrap();
    assert!(
        matches!(err, EngineError::NoSuchDevice { index: 99, .. }),
        "{err}"
    );

    let none: [SquaresJob; 0] = [];
    let err = run(&circuit, &none, &options(1), &|_| {}, never)
        .err()
        .unwrap();
    assert!(matches!(err, EngineError::NoJobs), "{err}");
}

#[test]
fn the_registry_loads_each_circuit_once() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::new();
    let loads = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                registry
                    .get_or_load::<EngineError>("squares", || {
                        loads.fetch_add(1, Ordering::SeqCst);
                        Ok(circuit(dir.path(), false))
                    })
                    .unwrap()
            });
        }
    });
    assert_eq!(loads.load(Ordering::SeqCst), 1);
    assert_eq!(registry.loaded().len(), 1);
    let failed = registry.get_or_load("other", || Err(EngineError::NoJobs));
    assert!(failed.is_err());
    assert_eq!(registry.loaded().len(), 1, "a failed load is not kept");
    assert!(registry.evict("squares").is_some());
    assert!(registry.evict("squares").is_none());
    assert!(registry.loaded().is_empty());
}

#[test]
fn a_cancelled_run_stops_at_the_next_partition() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), true);
    let jobs = [job(&[1, 2, 3], Fault::None), job(&[4], Fault::None)];
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let options = EngineOptions {
        partitions_in_flight: 1,
        cancel: Some(cancel.clone()),
        fallback: None,
        ..options(1)
    };
    let proven = AtomicUsize::new(0);
    let observer = |event: proving_engine::Event<'_>| {
        if let proving_engine::Event::PartitionProven { .. } = event {
            proven.fetch_add(1, Ordering::SeqCst);
            cancel.store(true, Ordering::SeqCst);
        }
    };
    let run = run(&circuit, &jobs, &options, &observer, |_, _| {}).unwrap();
    for result in &run.results {
        assert!(
            matches!(result, Err(TestError::Engine(EngineError::Cancelled))),
            "{:?}",
            result.as_ref().err()
        );
    }
    // The partition being proven when the flag was set, and at most the
    // one whose witness was already admitted, ran; no other.
    assert!(
        proven.load(Ordering::SeqCst) <= 2,
        "{}",
        proven.load(Ordering::SeqCst)
    );
}

/// A [`SquaresJob`] that calls `on_open` before parsing its input and
/// `on_assign` before generating each witness.
struct HookedJob<O, A> {
    inner: SquaresJob,
    on_open: O,
    on_assign: A,
}

impl<O: Fn() + Sync, A: Fn() + Sync> Job for HookedJob<O, A> {
    type Statement = <SquaresJob as Job>::Statement;
    type Output = <SquaresJob as Job>::Output;
    type Error = TestError;

    fn partitions(&self) -> usize {
        self.inner.partitions()
    }

    fn label(&self) -> String {
        self.inner.label()
    }

    fn open(&self) -> Result<Self::Statement, TestError> {
        (self.on_open)();
        self.inner.open()
    }

    fn assign(
        &self,
        statement: &Self::Statement,
        partition: usize,
        pce: &PrecompiledCircuit,
    ) -> Result<Assignment, TestError> {
        (self.on_assign)();
        self.inner.assign(statement, partition, pce)
    }

    fn finish(
        &self,
        statement: Self::Statement,
        proofs: Vec<PartitionProof>,
    ) -> Result<Self::Output, TestError> {
        self.inner.finish(statement, proofs)
    }
}

#[test]
fn witnesses_of_the_partitions_in_flight_are_generated_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), true);
    let options = EngineOptions {
        partitions_in_flight: 3,
        ..options(1)
    };
    // Each witness waits (up to a deadline) until three are being
    // generated at once; `active` counts them now and at most.
    let expected = 3;
    let active = Mutex::new((0usize, 0usize));
    let changed = Condvar::new();
    let meet = || {
        let mut now = active.lock().unwrap();
        now.0 += 1;
        now.1 = now.1.max(now.0);
        changed.notify_all();
        let deadline = Instant::now() + Duration::from_secs(5);
        while now.1 < expected && Instant::now() < deadline {
            now = changed
                .wait_timeout(now, deadline - Instant::now())
                .unwrap()
                .0;
        }
        now.0 -= 1;
    };
    let jobs = [HookedJob {
        inner: job(&[3, 4, 5, 6], Fault::None),
        on_open: || {},
        on_assign: meet,
    }];
    let run = run(&circuit, &jobs, &options, &|_| {}, |_, _| {}).unwrap();
    assert_eq!(run.memory.slots, 3);
    assert_eq!(
        run.results[0].as_ref().unwrap().output.len(),
        4 * PROOF_BYTES,
        "proofs of every partition, in order"
    );
    assert_eq!(
        active.lock().unwrap().1,
        3,
        "three witnesses generated at once, one per partition in flight"
    );
}

#[test]
fn a_worker_with_no_partition_left_takes_no_memory() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), true);
    let jobs = [job(&[3], Fault::None)];
    let run = run(&circuit, &jobs, &options(1), &|_| {}, |_, _| {}).unwrap();
    assert_eq!(run.memory.slots, 2, "one prover and one witness ahead");
    assert_eq!(
        run.memory.peak_in_flight, 1,
        "one partition, so one admission at most"
    );
    assert_eq!(run.results[0].as_ref().unwrap().output.len(), PROOF_BYTES);
}

#[test]
fn a_run_cancelled_while_its_input_is_parsed_generates_no_witness() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), true);
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let options = EngineOptions {
        partitions_in_flight: 3,
        cancel: Some(cancel.clone()),
        ..options(1)
    };
    // The run is cancelled while the input is parsed.
    let witnesses = AtomicUsize::new(0);
    let jobs = [HookedJob {
        inner: job(&[3, 4, 5], Fault::None),
        on_open: || cancel.store(true, Ordering::SeqCst),
        on_assign: || {
            witnesses.fetch_add(1, Ordering::SeqCst);
        },
    }];
    let run = run(&circuit, &jobs, &options, &|_| {}, |_, _| {}).unwrap();
    assert!(matches!(
        run.results[0],
        Err(TestError::Engine(EngineError::Cancelled))
    ));
    assert_eq!(witnesses.load(Ordering::SeqCst), 0);
}

/// A caller's `done` that panics at the first result cancels the run: the
/// other jobs' partitions are not all proven before the panic reaches the
/// caller (it used to wait for every one of them).
#[test]
fn a_panic_in_the_callers_done_cancels_the_run_and_reaches_the_caller() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), true);
    let jobs: Vec<_> = (0..12).map(|k| job(&[k + 3], Fault::None)).collect();
    let proven = AtomicUsize::new(0);
    let observed = |event: Event<'_>| {
        if let Event::PartitionProven { .. } = event {
            proven.fetch_add(1, Ordering::SeqCst);
        }
    };
    // Each partition takes a moment, as a real one does.
    let slowed = EngineOptions {
        between_partitions: Some(BetweenPartitions::new(|_| {
            std::thread::sleep(Duration::from_millis(50));
            false
        })),
        ..options(1)
    };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run(&circuit, &jobs, &slowed, &observed, |_, _| {
            panic!("the caller's own bug")
        })
    }));
    let Err(panic) = caught else {
        panic!("the panic did not reach the caller");
    };
    assert_eq!(panic.downcast_ref::<&str>(), Some(&"the caller's own bug"));
    let proven = proven.load(Ordering::SeqCst);
    assert!(proven < jobs.len(), "{proven} of {} proven", jobs.len());
}
