//! MSM and NTT of a backend plugin against the baselines, in one run.
//!
//! `cargo bench -p backend-check --bench backends -- [--backend cpu] [--min-log 16] [--max-log 22] [--max-log-g2 22] [--ops msm,ntt,qap]`
//!
//! Per size: the plugin (loaded through the ABI, bases lent), blst's own
//! multi-threaded Pippenger (`MultiPoint::mult` on the same points) and
//! bellperson's CPU multiexp (ec-gpu-gen's bucket method) on random
//! scalars, plus the plugin and blst on a PoRep-like scalar mix (60 % zero,
//! 36 % one); NTT: the plugin against bellperson's `EvaluationDomain::fft`;
//! QAP (only when asked for, `--ops qap`): the prover's QAP step through
//! the plugin (its `qap_h`, or the six transforms the host composes
//! without it) against bellperson's seven-transform one, on the a, b, c of
//! a satisfied R1CS with 60 % of the rows used.
//! Each MSM time is the best of 3 runs below 2^19 and a single run above;
//! each NTT and QAP time the best of 3. Read the ratios: these machines
//! are noisy.
//!
//! `--against OTHER` (a second plugin: another build of the same backend,
//! say) also times OTHER on the same inputs, `--rounds R` times each,
//! alternating with the plugin, and prints both bests and their ratio: the
//! way to tell a change from the noise (G1 and G2 MSMs, NTTs and QAP
//! steps).
//! `--no-baselines` skips the plain rows (the plugin against blst and
//! bellperson).

use std::sync::Arc;
use std::time::{Duration, Instant};

use backend_api::ffi::pce_scalar;
use backend_api::interop::{
    g1_affines_as_pce, g1_as_blst, g2_affines_as_pce, g2_as_blst, scalar_bytes, scalar_of,
    scalars_as_fr_mut,
};
use backend_api::{Backend, Device, Group, NttDirection, G1, G2};
use backend_check::{points, Scalars};
use bellperson::domain::EvaluationDomain;
use blst::MultiPoint;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ec_gpu_gen::multiexp_cpu::{multiexp_cpu, FullDensity};
use ec_gpu_gen::threadpool::Worker;
use ff::{Field, PrimeField};
use groth16_prover::qap::h_coefficients;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn arg(args: &[String], name: &str, default: &str) -> String {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| default.to_owned())
}

fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..reps)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .min()
        .expect("at least one run")
}

/// The best of `rounds` runs of `a` and of `b`, alternated (and each first
/// in every other round), so that a slow spell of the machine or a cold
/// first run hits both.
fn alternated(
    rounds: usize,
    mut a: impl FnMut() -> Duration,
    mut b: impl FnMut() -> Duration,
) -> (Duration, Duration) {
    (0..rounds.max(1))
        .map(|round| {
            if round % 2 == 0 {
                let ta = a();
                (ta, b())
            } else {
                let tb = b();
                (a(), tb)
            }
        })
        .fold((Duration::MAX, Duration::MAX), |(x, y), (ta, tb)| {
            (x.min(ta), y.min(tb))
        })
}

/// The best times of the plugin's and `other`'s MSM of the same bases and
/// scalars, alternated (each with bases of its own lent).
fn msm_against<G: Group>(
    device: &Device,
    other: &Device,
    points: &[G::Affine],
    scalars: &[pce_scalar],
    rounds: usize,
) -> (Duration, Duration) {
    let n = points.len();
    let bases = device.lend_bases::<G>(points).expect("bases");
    let other_bases = other.lend_bases::<G>(points).expect("--against's bases");
    alternated(
        rounds,
        || best(1, || device.msm(&bases, 0, n, 1, scalars).expect("msm")),
        || {
            best(1, || {
                other.msm(&other_bases, 0, n, 1, scalars).expect("msm")
            })
        },
    )
}

/// The line that compares the plugin with `--against`'s.
fn against_line(what: &str, rounds: usize, (plugin, other): (Duration, Duration)) -> String {
    format!(
        "{what}: plugin {} | against {} ({:.3}x, best of {rounds} alternated)",
        ms(plugin),
        ms(other),
        other.as_secs_f64() / plugin.as_secs_f64()
    )
}

fn ms(d: Duration) -> String {
    format!("{:>9.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let spec = arg(&args, "--backend", "cpu");
    let min_log: u32 = arg(&args, "--min-log", "16").parse().expect("--min-log N");
    let max_log: u32 = arg(&args, "--max-log", "22").parse().expect("--max-log N");
    let max_log_g2: u32 = arg(&args, "--max-log-g2", &max_log.to_string())
        .parse()
        .expect("--max-log-g2 N");
    let ops = arg(&args, "--ops", "msm,ntt");
    let (run_msm, run_ntt, run_qap) = (
        ops.contains("msm"),
        ops.contains("ntt"),
        ops.contains("qap"),
    );
    let backend = Backend::load(&spec).expect("loading the backend");
    let device = backend.open(0).expect("opening device 0");
    let against = args.iter().any(|a| a == "--against").then(|| {
        let other = Backend::load(&arg(&args, "--against", "")).expect("loading --against");
        let device = other.open(0).expect("opening --against's device 0");
        (other, device)
    });
    let rounds: usize = arg(&args, "--rounds", "3").parse().expect("--rounds N");
    assert!(rounds >= 1, "--rounds must be at least 1");
    let baselines = !args.iter().any(|a| a == "--no-baselines");
    let worker = Worker::new();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    println!(
        "backend {} ({}), {} threads",
        backend.name(),
        backend.description(),
        rayon_threads()
    );
    println!("ratio = baseline time / plugin time (> 1: the plugin is faster)");

    let g1_all: Vec<G1Affine> =
        points::<G1Projective>(if run_msm { 1 << max_log } else { 0 }, false, &mut rng);
    for log in (min_log..=max_log).filter(|_| run_msm) {
        let n = 1usize << log;
        let reps = if log < 19 { 3 } else { 1 };
        let pts = &g1_all[..n];
        let random: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        let mix: Vec<Scalar> = (0..n).map(|_| Scalars::PoRepMix.draw(&mut rng)).collect();
        let bases = device
            .lend_bases::<G1>(g1_affines_as_pce(pts))
            .expect("bases");
        for (name, values) in [("random", &random), ("porep-mix", &mix)] {
            let abi: Vec<_> = values.iter().map(scalar_of).collect();
            if let Some((_, other)) = &against {
                let times = msm_against::<G1>(&device, other, g1_affines_as_pce(pts), &abi, rounds);
                println!(
                    "{}",
                    against_line(&format!("MSM G1 2^{log} {name:<9}"), rounds, times)
                );
            }
            if !baselines {
                continue;
            }
            let plugin = best(reps, || device.msm(&bases, 0, n, 1, &abi).expect("msm"));
            let blst = best(reps, || {
                g1_as_blst(g1_affines_as_pce(pts)).mult(scalar_bytes(&abi), 255)
            });
            let mut line = format!(
                "MSM G1 2^{log} {name:<9}: plugin {} | blst {} ({:.2}x)",
                ms(plugin),
                ms(blst),
                blst.as_secs_f64() / plugin.as_secs_f64()
            );
            if name == "random" {
                let exps = Arc::new(values.iter().map(|s| s.to_repr()).collect::<Vec<_>>());
                let bases = Arc::new(pts.to_vec());
                let bell = best(reps, || {
                    multiexp_cpu::<_, _, G1Affine, _>(
                        &worker,
                        (bases.clone(), 0),
                        FullDensity,
                        exps.clone(),
                    )
                    .wait()
                });
                line += &format!(
                    " | bellperson {} ({:.2}x)",
                    ms(bell),
                    bell.as_secs_f64() / plugin.as_secs_f64()
                );
            }
            println!("{line}");
        }
    }
    drop(g1_all);

    let g2_all: Vec<G2Affine> =
        points::<G2Projective>(if run_msm { 1 << max_log_g2 } else { 0 }, false, &mut rng);
    for log in (min_log..=max_log_g2).filter(|_| run_msm) {
        let n = 1usize << log;
        let reps = if log < 19 { 3 } else { 1 };
        let pts = &g2_all[..n];
        let random: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        let abi: Vec<_> = random.iter().map(scalar_of).collect();
        let bases = device
            .lend_bases::<G2>(g2_affines_as_pce(pts))
            .expect("bases");
        if let Some((_, other)) = &against {
            let times = msm_against::<G2>(&device, other, g2_affines_as_pce(pts), &abi, rounds);
            println!(
                "{}",
                against_line(&format!("MSM G2 2^{log} random   "), rounds, times)
            );
        }
        if !baselines {
            continue;
        }
        let plugin = best(reps, || device.msm(&bases, 0, n, 1, &abi).expect("msm"));
        let blst = best(reps, || {
            g2_as_blst(g2_affines_as_pce(pts)).mult(scalar_bytes(&abi), 255)
        });
        let exps = Arc::new(random.iter().map(|s| s.to_repr()).collect::<Vec<_>>());
        let shared = Arc::new(pts.to_vec());
        let bell = best(reps, || {
            multiexp_cpu::<_, _, G2Affine, _>(
                &worker,
                (shared.clone(), 0),
                FullDensity,
                exps.clone(),
            )
            .wait()
        });
        println!(
            "MSM G2 2^{log} random   : plugin {} | blst {} ({:.2}x) | bellperson {} ({:.2}x)",
            ms(plugin),
            ms(blst),
            blst.as_secs_f64() / plugin.as_secs_f64(),
            ms(bell),
            bell.as_secs_f64() / plugin.as_secs_f64()
        );
    }
    drop(g2_all);

    for log in (min_log..=max_log).filter(|_| run_ntt) {
        let n = 1usize << log;
        let reps = 3;
        let input: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        let domain = device.ntt_domain(log).expect("domain");
        if let Some((_, other)) = &against {
            let other_domain = other.ntt_domain(log).expect("--against's domain");
            let run = |device: &backend_api::Device, domain| {
                let mut data = input.clone();
                let start = Instant::now();
                device
                    .ntt(
                        domain,
                        NttDirection::Forward,
                        false,
                        scalars_as_fr_mut(&mut data),
                    )
                    .expect("ntt");
                start.elapsed()
            };
            let times = alternated(
                rounds,
                || run(&device, &domain),
                || run(other, &other_domain),
            );
            println!("{}", against_line(&format!("NTT 2^{log}"), rounds, times));
        }
        if !baselines {
            continue;
        }
        let plugin = best(reps, || {
            let mut data = input.clone();
            device
                .ntt(
                    &domain,
                    NttDirection::Forward,
                    false,
                    scalars_as_fr_mut(&mut data),
                )
                .expect("ntt");
        });
        let bell = best(reps, || {
            let mut d = EvaluationDomain::from_coeffs(input.clone()).expect("domain");
            d.fft(&worker, &mut None).expect("fft");
        });
        println!(
            "NTT 2^{log}: plugin {} | bellperson {} ({:.2}x)",
            ms(plugin),
            ms(bell),
            bell.as_secs_f64() / plugin.as_secs_f64()
        );
    }
    if run_qap {
        qap_rows(
            &device,
            against.as_ref().map(|(_, device)| device),
            min_log..=max_log,
            rounds,
            baselines,
            &mut rng,
        );
    }
}

/// The QAP rows (see the module doc).
fn qap_rows(
    device: &backend_api::Device,
    against: Option<&backend_api::Device>,
    logs: std::ops::RangeInclusive<u32>,
    rounds: usize,
    baselines: bool,
    rng: &mut ChaCha8Rng,
) {
    for log in logs {
        let n = 1usize << log;
        let input = backend_check::satisfied_abc(n, n * 3 / 5, rng);
        let domain = device.ntt_domain(log).expect("domain");
        let run = |device: &backend_api::Device, domain: &backend_api::NttDomain<'_>| {
            let mut abc = input.clone();
            let start = Instant::now();
            h_coefficients(device, domain, &mut abc).expect("QAP step");
            start.elapsed()
        };
        if let Some(other) = against {
            let other_domain = other.ntt_domain(log).expect("--against's domain");
            let times = alternated(
                rounds,
                || run(device, &domain),
                || run(other, &other_domain),
            );
            println!("{}", against_line(&format!("QAP 2^{log}"), rounds, times));
        }
        if !baselines {
            continue;
        }
        let plugin = (0..3).map(|_| run(device, &domain)).min().expect("runs");
        let bell = best(3, || backend_check::reference_qap(&input));
        println!(
            "QAP 2^{log}: plugin {} | bellperson {} ({:.2}x)",
            ms(plugin),
            ms(bell),
            bell.as_secs_f64() / plugin.as_secs_f64()
        );
    }
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
