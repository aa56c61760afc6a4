//! Checks the kernels' field and curve functions on a CUDA device against
//! blst, one function at a time, for the kernels as built and for variants
//! of them (functions inlined or not, compiler optimisation off, fewer
//! registers for more occupancy, NVRTC's PTX compiled by the driver's own
//! compiler instead of NVRTC's).
//!
//! `backend-check` says that an MSM differs from the reference; this says
//! which function differs, and whether a variant of the source or of the
//! compile options cures it: the tool for a wrong result that shows only on
//! one compiler or architecture. Each variant is the whole kernel source
//! (with textual replacements) plus one probe kernel, compiled on the
//! device's machine with its NVRTC (variants in parallel, each given a
//! time limit), run in one thread, its outputs compared with blst's. A
//! variant that fails says whether its wrong points still lie on their
//! curve and runs again with a 64 KiB stack a thread; every variant runs
//! again after a kernel that leaves patterns in local memory, and says
//! whether its outputs changed (a read of memory it never wrote, which
//! compute-sanitizer's initcheck does not see in local memory); the first line names
//! the GPU (UUID), the driver's CUDA version and the stack a thread starts
//! with, since the same CUBIN has given right G2 points on one H200 and
//! wrong ones on another.
//!
//! ```sh
//! cargo run --release -p backend-cuda --example kernel_probe -- [SECONDS_PER_COMPILE [DIR]]
//! ```
//! With DIR, each variant's module (CUBIN or PTX: all the kernels, and the
//! probe) is also written to DIR/<variant>/ under the name the plugin looks
//! the kernels up by, so that `PCE_CUDA_CACHE=DIR/<variant> pce-prover backend-check cuda`
//! runs the whole plugin on that variant; but a variant that fails the
//! plugin's self-test is replaced there by other builds when the device
//! opens (the plugin warns), and the check then runs on those. Exit
//! status 0 when the kernels as built pass every check.
//!
//! All variants run in one CUDA context: a variant whose kernel faults
//! leaves the context broken, and the variants run after it then report
//! the same error. Rerun with fewer variants to tell them apart.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use backend_api::ffi::{pce_g1_affine, pce_g1_projective, pce_g2_affine, pce_g2_projective};
use backend_api::interop::{
    g1_affines_as_pce, g2_affines_as_pce, pce_g1_projectives, pce_g2_projectives,
};
use blst::{blst_fp, blst_fp2};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use cudarc::driver::sys::CUlimit::CU_LIMIT_STACK_SIZE;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use group::Group;
use pce_backend_cuda::compile::{cache_path, compile_source, Output};

/// The probe: one thread runs each function on the inputs and writes its
/// result. Appended to the kernel source, so it sees its static functions.
const PROBE: &str = r#"
extern "C" __global__ void pce_probe(const Fp2 *fields, const G2_affine *g2, const G1_affine *g1,
                                     Fp2 *field_out, G2_jacobian *g2_out, G1_jacobian *g1_out) {
  if (THREAD_ID() != 0) return;
  Fp2 a = fields[0], b = fields[1];
  field_out[0] = Fp2_mul(a, b);
  field_out[1] = Fp2_sqr(a);
  field_out[2] = Fp2_add(a, b);
  field_out[3] = Fp2_sub(a, b);
  Fp2 products = {Fp_mul(a.c0, b.c0), Fp_sqr(a.c1)};
  field_out[4] = products;
#define PROBE_CURVE(G, points, out)                                  \
  {                                                                  \
    G##_xyzz p = G##_add_affine(G##_infinity(), points[0]);          \
    out[0] = G##_to_jacobian(p);                                     \
    G##_xyzz s = G##_add_affine(p, points[1]);                       \
    out[1] = G##_to_jacobian(s);                                     \
    G##_xyzz d = G##_double(s);                                      \
    out[2] = G##_to_jacobian(d);                                     \
    out[3] = G##_to_jacobian(G##_add(d, s));                         \
    out[4] = G##_to_jacobian(G##_add_affine(p, points[0]));          \
  }
  PROBE_CURVE(G2, g2, g2_out)
  PROBE_CURVE(G1, g1, g1_out)
}

/* Fills 16 KiB of the calling thread's local memory with a pattern: run
 * in one thread before the probe, it leaves that pattern where the
 * probe's stack will be, so a probe reading local memory it never wrote
 * gives results that change with the pattern. The read through an index
 * the compiler cannot know keeps every store. */
extern "C" __global__ void pce_scribble(u64 pattern, u64 *sink) {
  u64 junk[2048];
  for (u32 i = 0; i < 2048; i++) junk[i] = pattern ^ i;
  sink[0] = junk[(u32)(pattern >> 53) & 2047];
}
"#;

/// What each output of the probe is, in order: five Fp2 values, five G2
/// points, five G1 points.
const CHECKS: [&str; 15] = [
    "Fp2 mul",
    "Fp2 sqr",
    "Fp2 add",
    "Fp2 sub",
    "Fp mul, Fp sqr",
    "G2 add_affine to infinity",
    "G2 add_affine",
    "G2 double",
    "G2 add",
    "G2 add_affine doubling",
    "G1 add_affine to infinity",
    "G1 add_affine",
    "G1 double",
    "G1 add",
    "G1 add_affine doubling",
];

/// A variant of the kernels: textual replacements in the source, extra
/// NVRTC options, and what NVRTC hands the driver.
struct Variant {
    name: &'static str,
    /// Its directory under DIR.
    slug: &'static str,
    replace: &'static [(&'static str, &'static str)],
    options: &'static [&'static str],
    /// A CUBIN (NVRTC's machine code), or PTX that the driver compiles
    /// with its own compiler when it loads the module.
    output: Output,
}

const VARIANTS: [Variant; 7] = [
    Variant {
        name: "as built",
        slug: "as-built",
        replace: &[],
        options: &[],
        output: Output::Cubin,
    },
    Variant {
        name: "PTX, driver compiles",
        slug: "driver-compiled",
        replace: &[],
        options: &[],
        output: Output::Ptx,
    },
    Variant {
        name: "Fp2 products inlined",
        slug: "fp2-inlined",
        replace: &[],
        options: &["-DFP2_MUL=DEVICE"],
        output: Output::Cubin,
    },
    Variant {
        name: "point ops inlined",
        slug: "points-inlined",
        replace: &[("DEVICE_CALL G_(", "DEVICE G_(")],
        options: &[],
        output: Output::Cubin,
    },
    Variant {
        name: "2 blocks per SM",
        slug: "blocks2",
        replace: &[],
        options: &["-DKERNEL_MIN_BLOCKS=2"],
        output: Output::Cubin,
    },
    Variant {
        name: "ptxas -O0",
        slug: "ptxas-O0",
        replace: &[],
        options: &["--ptxas-options=-O0"],
        output: Output::Cubin,
    },
    Variant {
        name: "-G (no optimisation)",
        slug: "device-debug",
        replace: &[],
        options: &["--device-debug"],
        output: Output::Cubin,
    },
];

/// The probe's inputs and the results blst gives for them.
struct Case {
    fields: [blst_fp2; 2],
    g2: [G2Affine; 2],
    g1: [G1Affine; 2],
    fields_expected: [blst_fp2; 5],
    g2_expected: [G2Projective; 5],
    g1_expected: [G1Projective; 5],
}

impl Case {
    fn new() -> Self {
        let mut rng = rand::thread_rng();
        let (p2, q2) = (
            G2Projective::random(&mut rng),
            G2Projective::random(&mut rng),
        );
        let (p1, q1) = (
            G1Projective::random(&mut rng),
            G1Projective::random(&mut rng),
        );
        let g2 = [G2Affine::from(p2), G2Affine::from(q2)];
        let g1 = [G1Affine::from(p1), G1Affine::from(q1)];
        // Two reduced Fp2 elements in Montgomery form: coordinates.
        let a = blst_fp2::from(g2[0].x());
        let b = blst_fp2::from(g2[1].y());
        let mut fields_expected = [blst_fp2::default(); 5];
        let mut c0 = blst_fp::default();
        let mut c1 = blst_fp::default();
        // SAFETY: blst's field functions on valid, distinct outputs.
        unsafe {
            blst::blst_fp2_mul(&mut fields_expected[0], &a, &b);
            blst::blst_fp2_sqr(&mut fields_expected[1], &a);
            blst::blst_fp2_add(&mut fields_expected[2], &a, &b);
            blst::blst_fp2_sub(&mut fields_expected[3], &a, &b);
            blst::blst_fp_mul(&mut c0, &a.fp[0], &b.fp[0]);
            blst::blst_fp_sqr(&mut c1, &a.fp[1]);
        }
        fields_expected[4] = blst_fp2 { fp: [c0, c1] };
        let s2 = p2 + q2;
        let s1 = p1 + q1;
        Self {
            fields: [a, b],
            g2,
            g1,
            fields_expected,
            g2_expected: [p2, s2, s2.double(), s2.double() + s2, p2.double()],
            g1_expected: [p1, s1, s1.double(), s1.double() + s1, p1.double()],
        }
    }
}

/// Types whose every byte is data (no padding) and every bit pattern a
/// value: what the probe copies to and from the device as bytes.
///
/// # Safety
/// Only for such types.
unsafe trait Plain: Copy {}
// SAFETY: blst's field element pairs and the ABI's points are arrays of
// u64 limbs, without padding.
unsafe impl Plain for blst_fp2 {}
// SAFETY: as above.
unsafe impl Plain for pce_g1_affine {}
// SAFETY: as above.
unsafe impl Plain for pce_g2_affine {}
// SAFETY: as above.
unsafe impl Plain for pce_g1_projective {}
// SAFETY: as above.
unsafe impl Plain for pce_g2_projective {}

/// The bytes of `values`.
fn bytes<T: Plain>(values: &[T]) -> Vec<u8> {
    // SAFETY: `T: Plain` has no padding, so every byte is initialised.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values)) }
        .to_vec()
}

/// Values of `T` read from `bytes` (which holds `count` of them).
fn values<T: Plain>(bytes: &[u8], count: usize) -> Vec<T> {
    assert!(bytes.len() >= count * size_of::<T>());
    (0..count)
        // SAFETY: in bounds (asserted); any bytes are a `T: Plain`, and
        // `read_unaligned` needs no alignment.
        .map(|i| unsafe { bytes.as_ptr().cast::<T>().add(i).read_unaligned() })
        .collect()
}

/// What one run of the probe found.
struct Outcome {
    /// PASS or FAIL per check, in the order of [`CHECKS`].
    passed: Vec<bool>,
    /// Of the wrong G2 and G1 points, how many still lie on their curve
    /// (a wrong but valid point, against garbage).
    wrong_on_curve: usize,
    /// The probe kernel's registers and local memory a thread.
    resources: String,
    /// Every output as bytes, to compare runs.
    outputs: Vec<u8>,
}

/// Runs the probe of module image `image` (a CUBIN or PTX) on `case`,
/// after [`pce_scribble`]'s pattern `scribble` when there is one.
fn run(
    context: &std::sync::Arc<CudaContext>,
    image: &[u8],
    case: &Case,
    scribble: Option<u64>,
) -> Result<Outcome, String> {
    let error = |e: cudarc::driver::DriverError| e.to_string();
    let module = context
        .load_module(Ptx::from_binary(image.to_vec()))
        .map_err(error)?;
    let probe = module.load_function("pce_probe").map_err(error)?;
    let resources = match (probe.num_regs(), probe.local_size_bytes()) {
        (Ok(registers), Ok(local)) => format!("{registers} registers, {local} B local"),
        _ => "resources unknown".to_owned(),
    };
    let stream = context.default_stream();
    // One thread in a block of one: a block of the default 1024 threads
    // asks for more registers than a multiprocessor has.
    let one_thread = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    if let Some(pattern) = scribble {
        let scribbler = module.load_function("pce_scribble").map_err(error)?;
        let mut sink = stream.alloc_zeros::<u64>(1).map_err(error)?;
        let mut launch = stream.launch_builder(&scribbler);
        launch.arg(&pattern).arg(&mut sink);
        // SAFETY: pce_scribble takes a u64 and writes one u64 to `sink`.
        unsafe { launch.launch(one_thread) }.map_err(error)?;
    }
    let fields = stream.clone_htod(&bytes(&case.fields)).map_err(error)?;
    let g2 = stream
        .clone_htod(&bytes::<pce_g2_affine>(g2_affines_as_pce(&case.g2)))
        .map_err(error)?;
    let g1 = stream
        .clone_htod(&bytes::<pce_g1_affine>(g1_affines_as_pce(&case.g1)))
        .map_err(error)?;
    let mut field_out = stream
        .alloc_zeros::<u8>(5 * size_of::<blst_fp2>())
        .map_err(error)?;
    let mut g2_out = stream
        .alloc_zeros::<u8>(5 * size_of::<pce_g2_projective>())
        .map_err(error)?;
    let mut g1_out = stream
        .alloc_zeros::<u8>(5 * size_of::<pce_g1_projective>())
        .map_err(error)?;
    let mut launch = stream.launch_builder(&probe);
    launch
        .arg(&fields)
        .arg(&g2)
        .arg(&g1)
        .arg(&mut field_out)
        .arg(&mut g2_out)
        .arg(&mut g1_out);
    // SAFETY: the arguments match pce_probe's signature: three inputs and
    // three outputs of the sizes it writes.
    unsafe { launch.launch(one_thread) }.map_err(error)?;
    let field_out: Vec<blst_fp2> = values(&stream.clone_dtoh(&field_out).map_err(error)?, 5);
    let g2_out: Vec<pce_g2_projective> = values(&stream.clone_dtoh(&g2_out).map_err(error)?, 5);
    let g1_out: Vec<pce_g1_projective> = values(&stream.clone_dtoh(&g1_out).map_err(error)?, 5);
    let mut outputs = bytes(&field_out);
    outputs.extend(bytes(&g2_out));
    outputs.extend(bytes(&g1_out));
    let mut passed = Vec::new();
    let mut wrong_on_curve = 0;
    for (got, want) in field_out.iter().zip(&case.fields_expected) {
        passed.push(bytes(std::slice::from_ref(got)) == bytes(std::slice::from_ref(want)));
    }
    for (got, want) in pce_g2_projectives(&g2_out).iter().zip(&case.g2_expected) {
        passed.push(got == want);
        wrong_on_curve += usize::from(got != want && bool::from(got.is_on_curve()));
    }
    for (got, want) in pce_g1_projectives(&g1_out).iter().zip(&case.g1_expected) {
        passed.push(got == want);
        wrong_on_curve += usize::from(got != want && bool::from(got.is_on_curve()));
    }
    Ok(Outcome {
        passed,
        wrong_on_curve,
        resources,
        outputs,
    })
}

/// Per-thread stack the probe asks for when a variant fails with the
/// driver's: a variant that passes then was short of stack.
const LARGE_STACK: usize = 64 << 10;

/// The device's UUID, the driver's CUDA version and the per-thread stack
/// the context starts with: what tells two machines' runs apart.
fn describe(context: &std::sync::Arc<CudaContext>) -> String {
    let uuid = match context.uuid() {
        Ok(uuid) => uuid
            .bytes
            .iter()
            .map(|byte| format!("{:02x}", *byte as u8))
            .collect::<String>(),
        Err(error) => format!("unknown ({error})"),
    };
    let mut version = 0;
    // SAFETY: writes one int; the driver library is loaded (a context exists).
    let driver = match unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }.result() {
        Ok(()) => format!("{}.{}", version / 1000, version % 1000 / 10),
        Err(error) => format!("unknown ({error})"),
    };
    let stack = match context.get_limit(CU_LIMIT_STACK_SIZE) {
        Ok(bytes) => format!("{bytes} B"),
        Err(error) => format!("unknown ({error})"),
    };
    format!("GPU {uuid}, driver CUDA {driver}, stack {stack} a thread")
}

/// `run()` with the context's per-thread stack set to `bytes`, then set
/// back to what it was.
fn with_stack<T>(
    context: &std::sync::Arc<CudaContext>,
    bytes: usize,
    run: impl FnOnce() -> T,
) -> Result<T, String> {
    let error = |e: cudarc::driver::DriverError| format!("stack limit: {e}");
    let before = context.get_limit(CU_LIMIT_STACK_SIZE).map_err(error)?;
    context
        .set_limit(CU_LIMIT_STACK_SIZE, bytes)
        .map_err(error)?;
    let result = run();
    context
        .set_limit(CU_LIMIT_STACK_SIZE, before)
        .map_err(error)?;
    Ok(result)
}

/// Patterns [`pce_scribble`] leaves in local memory before the probe
/// runs again.
const SCRIBBLES: [u64; 2] = [0x5555_5555_5555_5555, 0xaaaa_aaaa_aaaa_aaaa];

/// The row of one variant: PASS or FAIL (with the checks that failed and
/// whether the wrong points lie on their curve), then whether its outputs
/// change when local memory held other values before it ran (a read of
/// memory the probe never wrote) and, for a FAIL, whether a
/// [`LARGE_STACK`] cures it.
fn verdict(context: &std::sync::Arc<CudaContext>, image: &[u8], case: &Case) -> String {
    let failures = |outcome: &Outcome| -> Vec<&str> {
        CHECKS
            .iter()
            .zip(&outcome.passed)
            .filter(|(_, ok)| !**ok)
            .map(|(check, _)| *check)
            .collect()
    };
    let outcome = match run(context, image, case, None) {
        Ok(outcome) => outcome,
        Err(error) => return format!("ERROR: {error}"),
    };
    let mut stale = "outputs the same after other values in local memory".to_owned();
    for pattern in SCRIBBLES {
        match run(context, image, case, Some(pattern)) {
            Ok(again) if again.outputs == outcome.outputs => {}
            Ok(_) => {
                stale = format!("OUTPUTS CHANGE after {pattern:#x} in local memory");
                break;
            }
            Err(error) => {
                stale = format!("local memory scribbled: error: {error}");
                break;
            }
        }
    }
    let failed = failures(&outcome);
    if failed.is_empty() {
        return format!(
            "PASS (all {} checks; {}; {stale})",
            CHECKS.len(),
            outcome.resources
        );
    }
    let again = match with_stack(context, LARGE_STACK, || run(context, image, case, None)) {
        Ok(Ok(outcome)) if failures(&outcome).is_empty() => "passes".to_owned(),
        Ok(Ok(outcome)) => format!("fails {} checks", failures(&outcome).len()),
        Ok(Err(error)) | Err(error) => format!("error: {error}"),
    };
    format!(
        "FAIL: {}; {} of the wrong points on their curve; {}; {stale}; with a {} KiB stack it {again}",
        failed.join("; "),
        outcome.wrong_on_curve,
        outcome.resources,
        LARGE_STACK >> 10
    )
}

fn main() -> Result<(), String> {
    let limit = std::env::args()
        .nth(1)
        .map(|s| {
            s.parse::<u64>()
                .map_err(|e| format!("SECONDS_PER_COMPILE: {e}"))
        })
        .transpose()?
        .unwrap_or(120);
    let cubin_dir = std::env::args().nth(2).map(std::path::PathBuf::from);
    // SAFETY: only tries to load the library.
    let context = if unsafe { cudarc::driver::sys::is_culib_present() } {
        Some(CudaContext::new(0).map_err(|e| format!("opening CUDA device 0: {e}"))?)
    } else {
        None
    };
    let arch = match &context {
        Some(context) => {
            let (major, minor) = context.compute_capability().map_err(|e| e.to_string())?;
            format!("{major}{minor}")
        }
        None => "90".to_owned(),
    };
    match &context {
        Some(context) => println!(
            "device 0: sm_{arch}, {}; each variant compiled by this machine's NVRTC, at most {limit} s",
            describe(context)
        ),
        None => println!("no CUDA driver: the variants are compiled for sm_{arch}, not run"),
    }
    let case = Case::new();

    let (sender, receiver) = mpsc::channel();
    for (index, variant) in VARIANTS.iter().enumerate() {
        let mut source = gpu_backend::source();
        for (from, to) in variant.replace {
            if !source.contains(from) {
                return Err(format!(
                    "variant {:?}: {from:?} is not in the source",
                    variant.name
                ));
            }
            source = source.replace(from, to);
        }
        source.push_str(PROBE);
        let (sender, arch) = (sender.clone(), arch.clone());
        std::thread::spawn(move || {
            let started = Instant::now();
            let image = compile_source(&source, &arch, variant.options, variant.output);
            let _ = sender.send((index, image.map_err(|e| e.message), started.elapsed()));
        });
    }
    drop(sender);

    let deadline = Instant::now() + Duration::from_secs(limit);
    let mut rows: Vec<Option<String>> = (0..VARIANTS.len()).map(|_| None).collect();
    let mut as_built_passed = false;
    while rows.iter().any(Option::is_none) {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok((index, image, took)) = receiver.recv_timeout(left) else {
            break;
        };
        let (name, slug) = (VARIANTS[index].name, VARIANTS[index].slug);
        if let (Some(dir), Ok(image)) = (&cubin_dir, &image) {
            let dir = dir.join(slug);
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            gpu_backend::cache::write(&cache_path(&dir, &arch), image);
        }
        let Some(context) = &context else {
            match image {
                Ok(image) => println!(
                    "{name:<22} {:>6.1} s  compiled ({} bytes)",
                    took.as_secs_f64(),
                    image.len()
                ),
                Err(error) => println!("{name:<22} {:>6.1} s  ERROR: {error}", took.as_secs_f64()),
            }
            rows[index] = Some(String::new());
            continue;
        };
        let verdict = match image {
            Ok(image) => verdict(context, &image, &case),
            Err(error) => format!("ERROR: {error}"),
        };
        if index == 0 {
            as_built_passed = verdict.starts_with("PASS");
        }
        let row = format!(
            "{name:<22} {:>6.1} s  {verdict} [{slug}]",
            took.as_secs_f64()
        );
        println!("{row}");
        rows[index] = Some(row);
    }
    for (variant, row) in VARIANTS.iter().zip(&rows) {
        if row.is_none() {
            println!("{:<22} not compiled within {limit} s", variant.name);
        }
    }
    // Compilations still running are abandoned with the process.
    std::process::exit(if as_built_passed { 0 } else { 1 })
}
