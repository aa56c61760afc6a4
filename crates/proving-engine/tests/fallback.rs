//! A backend that fails mid-proof, behind the CPU backend as fallback:
//! the test plugin fails every NTT and MSM (`error`), or returns wrong
//! results (`wrong`). With a fallback each partition is proven again on
//! the CPU, and the proofs equal the CPU's own with the same r and s (the
//! memory plan counting the fallback's tables);
//! without one, the job fails naming the partition. A backend without G2
//! MSMs (`g1-only`) proves every partition, its G2 MSMs on the CPU. The
//! plugin's mode is
//! an environment variable read at every call, so the cases run in one
//! test, one after another.

mod common;

use blstrs::Scalar;
use ff::Field;
use proving_engine::memory::domain_size;
use proving_engine::{chain, run, EngineOptions, Event};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use common::{circuit, job, options, Fault};

#[test]
fn a_failing_backend_falls_back_to_the_cpu_partition_by_partition() {
    let dir = tempfile::tempdir().unwrap();
    let circuit = circuit(dir.path(), true);
    let jobs = [job(&[3, 4, 5], Fault::None)];
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let fixed: Vec<(Scalar, Scalar)> = (0..3)
        .map(|_| (Scalar::random(&mut rng), Scalar::random(&mut rng)))
        .collect();
    let broken = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .join(backend_api::loader::plugin_file_name("broken"));
    let on = |backend: &str, fallback: Option<&str>| EngineOptions {
        backend: backend.into(),
        randomness: Some(fixed.clone()),
        fallback: fallback.map(str::to_owned),
        ..options(1)
    };
    let on_cpu = run(&circuit, &jobs, &on("cpu", None), &|_| {}, |_, _| {}).unwrap();
    let expected = on_cpu.results[0].as_ref().unwrap().output.clone();

    for mode in ["error", "wrong"] {
        std::env::set_var(test_plugins_mode(), mode);
        let fell_back = std::sync::Mutex::new(Vec::new());
        let planned_fallback = std::sync::Mutex::new(None);
        let observe = |event: Event<'_>| match event {
            Event::FallingBack {
                partition, error, ..
            } => fell_back
                .lock()
                .unwrap()
                .push((partition, error.to_owned())),
            Event::Ready { plan } => *planned_fallback.lock().unwrap() = Some(plan.model.fallback),
            _ => {}
        };
        let options = on(broken.to_str().unwrap(), Some("cpu"));
        let with = run(&circuit, &jobs, &options, &observe, |_, _| {}).unwrap();
        let proofs = &with.results[0].as_ref().unwrap().output;
        assert_eq!(proofs, &expected, "{mode}: the CPU's proofs, byte for byte");
        assert_eq!(
            planned_fallback.into_inner().unwrap(),
            Some(domain_size(&circuit.pce) * 32),
            "{mode}: the plan counts the fallback's NTT tables (its device holds nothing)"
        );
        let mut fell_back = fell_back.into_inner().unwrap();
        fell_back.sort();
        assert_eq!(fell_back.len(), 3, "{mode}: {fell_back:?}");
        let why = &fell_back[0].1;
        match mode {
            "error" => assert!(why.contains("simulated device failure"), "{why}"),
            _ => assert!(why.contains("does not verify"), "{why}"),
        }
        let shares: Vec<_> = with
            .devices
            .iter()
            .map(|d| (d.name.as_str(), d.partitions))
            .collect();
        assert_eq!(shares.len(), 2, "{shares:?}");
        assert_eq!(
            shares[0].1, 0,
            "{mode}: the broken device proved nothing: {shares:?}"
        );
        assert!(
            shares[1].0.ends_with("(fallback)") && shares[1].1 == 3,
            "{shares:?}"
        );

        let planned_fallback = std::sync::Mutex::new(None);
        let device_failed = std::sync::atomic::AtomicUsize::new(0);
        let observe = |event: Event<'_>| match event {
            Event::Ready { plan } => *planned_fallback.lock().unwrap() = Some(plan.model.fallback),
            Event::DeviceFailed { .. } => {
                device_failed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            _ => {}
        };
        let without = run(
            &circuit,
            &jobs,
            &on(broken.to_str().unwrap(), None),
            &observe,
            |_, _| {},
        )
        .unwrap();
        assert_eq!(planned_fallback.into_inner().unwrap(), Some(0));
        // The witnesses are generated at once, so whichever partition the
        // prover takes first is the one that fails: any of the three.
        let error = chain(without.results[0].as_ref().unwrap_err());
        assert!(
            (0..3).any(|k| error.contains(&format!("partition {k}:"))),
            "{mode}: {error}"
        );
        assert_eq!(
            device_failed.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "{mode}: the device is blamed for the partition that failed the job"
        );

        // A fallback that fails too: with errors, the device is still
        // blamed; with wrong results, a proof neither side makes verify
        // is not the device's fault.
        let device_failed = std::sync::atomic::AtomicUsize::new(0);
        let observe = |event: Event<'_>| {
            if let Event::DeviceFailed { .. } = event {
                device_failed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        };
        let options = on(broken.to_str().unwrap(), Some(broken.to_str().unwrap()));
        let both = run(&circuit, &jobs, &options, &observe, |_, _| {}).unwrap();
        let error = chain(both.results[0].as_ref().unwrap_err());
        assert!(error.contains("fallback"), "{mode}: {error}");
        let blamed = device_failed.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(blamed, usize::from(mode == "error"), "{mode}: {error}");
    }

    // A real backend without G2 MSMs (the CPU plugin behind the test
    // plugin's `g1-only` mode): only its G2 MSMs go to the fallback, no
    // partition fails, and the proofs are the CPU's.
    std::env::set_var(test_plugins_mode(), "g1-only");
    let cpu = broken.with_file_name(backend_api::loader::plugin_file_name("cpu"));
    std::env::set_var(pce_backend_broken::forwarding::DELEGATE_ENV, &cpu);
    let fell_back = std::sync::Mutex::new(0);
    let observe = |event: Event<'_>| {
        if let Event::FallingBack { .. } = event {
            *fell_back.lock().unwrap() += 1;
        }
    };
    let options = on(broken.to_str().unwrap(), Some("cpu"));
    let with = run(&circuit, &jobs, &options, &observe, |_, _| {}).unwrap();
    assert_eq!(with.results[0].as_ref().unwrap().output, expected);
    assert_eq!(*fell_back.lock().unwrap(), 0, "no partition failed");
    assert_eq!(
        with.devices[0].partitions, 3,
        "all proven on the G1-only backend"
    );
    let without = run(
        &circuit,
        &jobs,
        &on(broken.to_str().unwrap(), None),
        &|_| {},
        |_, _| {},
    )
    .unwrap();
    let error = chain(without.results[0].as_ref().unwrap_err());
    assert!(
        error.contains("UNSUPPORTED") && error.contains("no G2 MSM"),
        "{error}"
    );
}

fn test_plugins_mode() -> &'static str {
    pce_backend_broken::MODE_ENV
}
