//! `backend-check` and `devices`: loading a plugin and exercising it.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use backend_api::{Backend, BackendError, Device};
use backend_check::timing::Outcome;
use backend_check::{check as run_checks, check_proofs, Limits, Row};
use clap::Args;
use proving_engine::memory::gib;
use proving_engine::{pick_devices, EngineError};

use crate::EXIT_BACKEND_UNAVAILABLE;

/// Exit status when the plugin cannot be loaded at all.
const EXIT_LOAD_FAILED: u8 = 4;

/// Which backend and device.
#[derive(Args)]
pub struct BackendArgs {
    /// Backend: a name (cpu, opencl, cuda, ...) or the path of a plugin library.
    backend: String,
    /// Device index (see `pce-prover devices BACKEND`).
    #[arg(long, default_value_t = 0)]
    device: u32,
}

/// Arguments of `backend-check`.
#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    target: BackendArgs,
    /// Largest NTT checked is 2^N.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=28))]
    max_log_ntt: u32,
    /// Largest G1 MSM checked is 2^N points.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(4..=26))]
    max_log_msm_g1: u32,
    /// Largest G2 MSM checked is 2^N points.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(4..=26))]
    max_log_msm_g2: u32,
    /// Also prove N random circuits and a SHA-256 circuit through this
    /// backend and through the reference backend with the same
    /// randomness; the proofs must be valid and byte-identical. 0 skips it.
    #[arg(long, value_name = "N", default_value_t = 3)]
    proofs: usize,
    /// The backend whose proofs are the reference (device 0).
    #[arg(long, value_name = "BACKEND", default_value = "cpu")]
    reference: String,
}

/// A range of sizes, `LO..HI` as powers of two (inclusive).
fn log_range(text: &str) -> Result<(u32, u32), String> {
    let (lo, hi) = text
        .split_once("..")
        .ok_or_else(|| format!("expected LO..HI (e.g. 20..26), got {text:?}"))?;
    let parse = |v: &str| v.trim().parse::<u32>().map_err(|e| format!("{v:?}: {e}"));
    let (lo, hi) = (parse(lo)?, parse(hi)?);
    if lo > hi || hi > 31 {
        return Err(format!("need LO <= HI <= 31, got {lo}..{hi}"));
    }
    Ok((lo, hi))
}

/// Arguments of `bench backend`.
#[derive(Args)]
pub struct BenchBackendArgs {
    #[command(flatten)]
    target: BackendArgs,
    /// The backend to compare with (device 0).
    #[arg(long, value_name = "BACKEND", default_value = "cpu")]
    versus: String,
    /// G1 MSM sizes, as powers of two: LO..HI.
    #[arg(long, value_name = "LO..HI", default_value = "16..20", value_parser = log_range)]
    msm_g1: (u32, u32),
    /// G2 MSM sizes, as powers of two: LO..HI.
    #[arg(long, value_name = "LO..HI", default_value = "16..18", value_parser = log_range)]
    msm_g2: (u32, u32),
    /// NTT sizes, as powers of two: LO..HI.
    #[arg(long, value_name = "LO..HI", default_value = "16..22", value_parser = log_range)]
    ntt: (u32, u32),
    /// Runs per case; the best time counts.
    #[arg(long, default_value_t = 2)]
    reps: usize,
}

/// `pce-prover bench backend`.
pub fn bench(args: BenchBackendArgs) -> Result<ExitCode> {
    let mut opened = Vec::new();
    for (spec, index) in [
        (&args.target.backend, args.target.device),
        (&args.versus, 0),
    ] {
        let backend = match load(spec) {
            Ok(backend) => backend,
            Err(code) => return Ok(code),
        };
        let device = match open(&backend, index) {
            Ok(device) => device,
            Err(code) => return Ok(code),
        };
        opened.push((backend, device));
    }
    let [(backend, device), (versus, versus_device)] =
        <[_; 2]>::try_from(opened).unwrap_or_else(|_| unreachable!("two backends were opened"));
    if args.ntt.0 == 0 {
        eprintln!("error: --ntt starts at 1 (an NTT has two elements or more)");
        return Ok(ExitCode::from(2));
    }
    let sizes = backend_check::timing::Sizes {
        msm_g1: args.msm_g1,
        msm_g2: args.msm_g2,
        ntt: args.ntt,
    };
    let (name, other) = (backend.name(), versus.name());
    println!(
        "{:<14} {:>12} {:>12} {:>8}  results",
        "case", name, other, "ratio"
    );
    let timings = backend_check::timing::compare(&device, &versus_device, sizes, args.reps, |t| {
        match &t.outcome {
            Outcome::Timed {
                device,
                versus,
                agree,
            } => println!(
                "{:<14} {:>9.1} ms {:>9.1} ms {:>7.2}x  {}",
                t.case,
                device.as_secs_f64() * 1e3,
                versus.as_secs_f64() * 1e3,
                versus.as_secs_f64() / device.as_secs_f64(),
                if *agree { "same" } else { "DIFFER" }
            ),
            Outcome::Declined(why) => println!("{:<14} declined by {name}: {why}", t.case),
        }
    });
    match timings {
        Ok(timings) => {
            println!("ratio = {other} time / {name} time (> 1: {name} is faster)");
            let differ: Vec<&str> = timings
                .iter()
                .filter(|t| matches!(t.outcome, Outcome::Timed { agree: false, .. }))
                .map(|t| t.case.as_str())
                .collect();
            if differ.is_empty() {
                return Ok(ExitCode::SUCCESS);
            }
            eprintln!(
                "error: {name}'s results differ from {other}'s on the same inputs: {}",
                differ.join(", ")
            );
            Ok(ExitCode::FAILURE)
        }
        Err(error) => Ok(unavailable(error)),
    }
}

/// Arguments of `devices`.
#[derive(Args)]
pub struct DevicesArgs {
    /// Backend: a name (cpu, opencl, cuda, ...) or the path of a plugin library.
    backend: String,
    /// Also open each device, as a proof would: a GPU plugin loads or
    /// compiles its kernels and checks them against the CPU (its
    /// self-test), and refuses a device whose kernels compute wrong
    /// results. Says which devices can be used; exit status 1 if one
    /// cannot.
    #[arg(long)]
    open: bool,
}

/// Loads the backend, or says why not with the load-failure exit status.
pub(crate) fn load(spec: &str) -> Result<Backend, ExitCode> {
    Backend::load(spec).map_err(|error| {
        eprintln!("error: {error}");
        ExitCode::from(EXIT_LOAD_FAILED)
    })
}

/// Reports a backend error, with the distinct status for a missing driver or device.
pub(crate) fn unavailable(error: BackendError) -> ExitCode {
    eprintln!("error: {error}");
    if error.is_no_driver() || error.is_no_device() {
        ExitCode::from(EXIT_BACKEND_UNAVAILABLE)
    } else {
        ExitCode::FAILURE
    }
}

/// Opens device `index`, or says why not with the matching exit status.
pub(crate) fn open(backend: &Backend, index: u32) -> Result<Device, ExitCode> {
    match pick_devices(backend, &[index]) {
        Ok(_) => backend.open(index).map_err(unavailable),
        Err(EngineError::Backend(error)) => Err(unavailable(error)),
        Err(error) => {
            eprintln!("error: {error}");
            // None at all is the backend unavailable, as a plugin that says
            // so itself.
            Err(match error {
                EngineError::BackendListsNone { .. } => ExitCode::from(EXIT_BACKEND_UNAVAILABLE),
                _ => ExitCode::FAILURE,
            })
        }
    }
}

/// `pce-prover backend-check`.
pub fn check(args: CheckArgs) -> Result<ExitCode> {
    let backend = match load(&args.target.backend) {
        Ok(backend) => backend,
        Err(code) => return Ok(code),
    };
    let device = match open(&backend, args.target.device) {
        Ok(device) => device,
        Err(code) => return Ok(code),
    };
    println!(
        "backend {} ({}): {}",
        backend.name(),
        backend.path().display(),
        backend.description()
    );
    let limits = Limits {
        max_log_ntt: args.max_log_ntt,
        max_log_msm_g1: args.max_log_msm_g1,
        max_log_msm_g2: args.max_log_msm_g2,
    };
    let print = |row: &Row| {
        let status = row.verdict.label();
        if row.detail.is_empty() {
            println!("{status}  {}", row.case);
        } else {
            println!("{status}  {}  ({})", row.case, row.detail);
        }
    };
    // The reference first, and its failure is not the backend's (whose
    // statuses 3 and 4 are): 1, before any check runs.
    let reference = if args.proofs > 0 {
        let unusable = |_| {
            eprintln!(
                "error: the reference backend {} cannot be used, so proofs cannot be compared",
                args.reference
            );
            ExitCode::FAILURE
        };
        let reference = match load(&args.reference).map_err(unusable) {
            Ok(reference) => reference,
            Err(code) => return Ok(code),
        };
        match open(&reference, 0).map_err(unusable) {
            Ok(device) => Some(device),
            Err(code) => return Ok(code),
        }
    } else {
        None
    };
    let mut report = run_checks(&device, limits, print);
    if let Some(reference_device) = &reference {
        let proofs = check_proofs(&device, reference_device, args.proofs, print);
        report.rows.extend(proofs.rows);
    }
    let absent = match report.absent() {
        0 => String::new(),
        n => {
            format!(" ({n} of them for optional operations the backend does not have or declines)")
        }
    };
    println!(
        "{} of {} cases passed{absent}{}",
        report.rows.len() - report.failures(),
        report.rows.len(),
        if report.passed() {
            ""
        } else {
            ": the backend does not conform"
        }
    );
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Why `device` refuses G2 MSMs as unsupported (a G1-only backend, or a
/// GPU whose G2 kernels failed their self-test), if it does: one MSM of
/// one term tells.
fn g2_msms_refused(device: &Device) -> Option<String> {
    use backend_api::ffi::PCE_ERR_UNSUPPORTED;
    use backend_api::interop::{g2_affines_as_pce, scalar_of};
    use group::prime::PrimeCurveAffine;

    let point = [blstrs::G2Affine::generator()];
    let scalar = [scalar_of(&blstrs::Scalar::from(3u64))];
    let result = device
        .upload_bases::<backend_api::G2>(g2_affines_as_pce(&point))
        .and_then(|bases| device.msm(&bases, 0, 1, 1, &scalar));
    match result {
        Err(error) if error.status.0 == PCE_ERR_UNSUPPORTED => Some(error.message),
        _ => None,
    }
}

/// `pce-prover devices`.
pub fn devices(args: DevicesArgs) -> Result<ExitCode> {
    let backend = match load(&args.backend) {
        Ok(backend) => backend,
        Err(code) => return Ok(code),
    };
    let devices = match backend.devices() {
        Ok(devices) => devices,
        Err(error) => return Ok(unavailable(error)),
    };
    println!(
        "backend {} ({}): {}",
        backend.name(),
        backend.path().display(),
        backend.description()
    );
    let operations: Vec<&str> = [
        backend_api::ffi::PCE_PROC_QAP_H,
        backend_api::ffi::PCE_PROC_DEVICE_MEMORY,
        backend_api::ffi::PCE_PROC_NTT_SCRATCH_BYTES,
        backend_api::ffi::PCE_PROC_MSM_SCRATCH_BYTES,
        backend_api::ffi::PCE_PROC_DEVICE_HOST_BYTES,
    ]
    .into_iter()
    .filter(|name| backend.has_operation(name))
    .map(|name| name.to_str().expect("ASCII names"))
    .collect();
    println!(
        "  optional operations: {}",
        if operations.is_empty() {
            "none".to_owned()
        } else {
            operations.join(", ")
        }
    );
    let mut refused = false;
    for d in devices {
        println!(
            "  [{}] {} ({}), {:.1} GiB, {} compute units, id {}",
            d.index,
            d.name,
            d.vendor,
            d.memory_bytes as f64 / (1u64 << 30) as f64,
            d.compute_units,
            d.id
        );
        if args.open {
            let started = Instant::now();
            match backend.open(d.index) {
                Ok(device) => {
                    println!(
                        "      opens: usable (opened in {:.2} s)",
                        started.elapsed().as_secs_f64()
                    );
                    match device.device_host_bytes() {
                        Ok(0) => {}
                        Ok(bytes) => println!(
                            "      host memory it holds while open: {} (staging for copies; counted in --memory-budget)",
                            gib(bytes)
                        ),
                        Err(error) => println!("      host memory it holds: not known ({error})"),
                    }
                    if let Some(reason) = g2_msms_refused(&device) {
                        println!("      G2 MSMs: unsupported, run on the fallback device (--fallback, default cpu): {reason}");
                    }
                }
                Err(error) => {
                    println!("      refused: {error}");
                    refused = true;
                }
            }
        }
    }
    Ok(if refused {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
