//! Building the kernels for a device, with a cache of compiled programs.
//!
//! Compiling the BLS12-381 kernels takes seconds to minutes (PoCL runs all
//! of LLVM), so the program binary is kept in a cache directory under a key
//! made of the kernel source hash, the device, its driver and the build
//! options. Each cache file carries the BLAKE3 of its contents: a damaged
//! or stale file is detected, rebuilt from source and replaced (written to
//! a temporary file and renamed, so readers never see half a file).

use std::path::{Path, PathBuf};

use backend_api::plugin::PluginError;
use gpu_backend::cache::{self, Pending};
use gpu_backend::plugin::Kernels;
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::program::Program;
use tracing::{info, warn};

use crate::platform::{device_error, Found};

/// The define that turns the point operations and the Fp and Fp2 products
/// into real calls (kernels/dialect.h). Inlined into every call site they
/// make the program several times larger and slower to build (the CUDA
/// backend measured 23 MB of PTX and minutes of NVRTC time that way); a
/// compiler that rejects the attribute gets the inlined program instead.
const NOINLINE_CALLS: &str = "-DPCE_NOINLINE_CALLS";

/// Options for `clBuildProgram`: the kernels' constants, and
/// [`NOINLINE_CALLS`] when `calls`.
fn build_options(calls: bool) -> String {
    let mut options = gpu_backend::compiler_defines();
    if calls {
        options.push(NOINLINE_CALLS.to_owned());
    }
    options.join(" ")
}

/// Environment variable naming the cache directory.
pub const CACHE_ENV: &str = "PCE_OPENCL_CACHE";

/// The cache file of the kernels built for `found` with `options`, if
/// there is a cache directory.
fn cache_path(found: &Found, options: &str) -> Option<PathBuf> {
    let text = |value: Result<String, _>| value.unwrap_or_default();
    let name = cache::file_name(
        &[
            &text(found.platform.name()),
            &text(found.platform.version()),
            &text(found.device.name()),
            &text(found.device.driver_version()),
            options,
        ],
        "bin",
    );
    Some(cache::dir(CACHE_ENV, "opencl")?.join(name))
}

fn from_binary(
    context: &Context,
    device: &Device,
    binary: &[u8],
    options: &str,
) -> Option<Program> {
    // SAFETY: `device` is the context's only device.
    let mut program =
        unsafe { Program::create_from_binary(context, &[device.id()], &[binary]) }.ok()?;
    program.build(&[device.id()], options).ok()?;
    Some(program)
}

fn from_source(context: &Context, options: &str) -> Result<Program, String> {
    info!(options, "building the OpenCL kernels (cached afterwards)");
    let started = std::time::Instant::now();
    let program = Program::create_and_build_from_source(context, &gpu_backend::source(), options)?;
    info!(
        seconds = started.elapsed().as_secs_f64(),
        "OpenCL kernels built"
    );
    Ok(program)
}

/// Built kernels: the program, where it came from, and for a program
/// compiled here, its binary and the cache file to store it in once the
/// device keeps it (`Engine::cache_kernels`).
pub struct Built {
    /// The program.
    pub program: Program,
    /// Where it came from.
    pub origin: Kernels,
    /// The binary, if compiled here, for its cache file.
    pub uncached: Pending,
}

/// The kernels built for `found`'s device in `context` with `options`,
/// from the cache when `wanted` allows and it holds a valid binary.
fn build_with(
    context: &Context,
    found: &Found,
    options: &str,
    wanted: Kernels,
) -> Result<Built, String> {
    let path = cache_path(found, options);
    if let (Some(path), Kernels::Cached) = (&path, wanted) {
        if let Some(binary) = cache::read(path) {
            if let Some(program) = from_binary(context, &found.device, &binary, options) {
                return Ok(Built {
                    program,
                    origin: Kernels::Cached,
                    uncached: Pending::default(),
                });
            }
            warn!(path = %path.display(), "cached OpenCL program rejected by the driver; rebuilding");
        }
    }
    let program = from_source(context, options)?;
    let binary = program
        .get_binaries()
        .ok()
        .and_then(|binaries| binaries.into_iter().next())
        .filter(|b| !b.is_empty());
    Ok(Built {
        program,
        origin: Kernels::Compiled,
        uncached: match binary {
            Some(binary) => Pending::new(path, binary),
            None => Pending::default(),
        },
    })
}

/// The file next to the cache entry `cache_file` of the build with
/// [`NOINLINE_CALLS`] that records that the compiler refused that build.
fn refusal_marker(cache_file: &Path) -> PathBuf {
    cache_file.with_extension("refused")
}

/// `build(true)`, the program with the point operations as calls, or
/// `build(false)`, the inlined one, where the compiler refuses the first.
/// A refusal is remembered in `marker` (its compiler's log), written once
/// the inlined build has succeeded (a compiler that fails on both is asked
/// again next time), and found there first: a compiler that refuses the
/// calls costs one failed build, not one at every start. The marker's name
/// derives from the calls build's cache key, so a new driver or new
/// kernels are tried afresh; deleting it (or the cache) does the same.
fn build_preferring_calls<P>(
    marker: Option<&Path>,
    mut build: impl FnMut(bool) -> Result<P, String>,
) -> Result<P, String> {
    if let Some(marker) = marker.filter(|marker| cache::read(marker).is_some()) {
        info!(marker = %marker.display(), "this OpenCL compiler refused the kernels with real calls before; building them inlined");
        return build(false);
    }
    let refusal = match build(true) {
        Ok(program) => return Ok(program),
        Err(log) => log,
    };
    warn!(log = %refusal, "the OpenCL kernels did not build with real calls; building them inlined");
    let program = build(false)?;
    if let Some(marker) = marker {
        cache::write(marker, refusal.as_bytes());
    }
    Ok(program)
}

/// The kernels built for `found`'s device in `context` (or cached, as
/// `wanted` says), with where they came from: with the point operations as
/// calls, or inlined where the compiler refuses that build (see
/// [`build_preferring_calls`]).
pub fn build(context: &Context, found: &Found, wanted: Kernels) -> Result<Built, PluginError> {
    let marker = cache_path(found, &build_options(true)).map(|path| refusal_marker(&path));
    build_preferring_calls(marker.as_deref(), |calls| {
        build_with(context, found, &build_options(calls), wanted)
    })
    .map_err(|log| device_error(format!("building the OpenCL kernels failed:\n{log}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// Runs [`build_preferring_calls`] with a compiler that accepts the
    /// builds in `accepts` (calls, inlined); returns the result and the
    /// builds tried.
    fn run(marker: &Path, accepts: (bool, bool)) -> (Result<&'static str, String>, Vec<bool>) {
        let tried = RefCell::new(Vec::new());
        let result = build_preferring_calls(Some(marker), |calls| {
            tried.borrow_mut().push(calls);
            match (calls, accepts) {
                (true, (true, _)) => Ok("calls"),
                (false, (_, true)) => Ok("inlined"),
                _ => Err(format!("refused (calls: {calls})")),
            }
        });
        (result, tried.into_inner())
    }

    #[test]
    fn a_refused_calls_build_is_remembered() {
        let dir = std::env::temp_dir().join(format!("opencl-refusal-{}", std::process::id()));
        let marker = refusal_marker(&dir.join("kernels-key.bin"));
        assert_eq!(marker, dir.join("kernels-key.refused"));
        // Accepted: no marker.
        assert_eq!(run(&marker, (true, true)), (Ok("calls"), vec![true]));
        assert!(!marker.exists());
        // Both refused: an error, and no marker (the next start tries
        // the calls again).
        let (result, tried) = run(&marker, (false, false));
        assert!(result.is_err());
        assert_eq!(tried, [true, false]);
        assert!(!marker.exists());
        // Calls refused: inlined, and remembered with the log...
        assert_eq!(
            run(&marker, (false, true)),
            (Ok("inlined"), vec![true, false])
        );
        let log = cache::read(&marker).expect("the refusal is recorded");
        assert_eq!(log, b"refused (calls: true)");
        // ... so the next start builds inlined at once.
        assert_eq!(run(&marker, (false, true)), (Ok("inlined"), vec![false]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A cached program that builds and runs but computes wrong G2 sums (as
    /// a miscompiled one would) fails the device's self-test; opening the
    /// device through the plugin then compiles the kernels afresh, passes,
    /// and replaces the cached program.
    #[test]
    fn cached_kernels_that_fail_the_self_test_are_compiled_afresh() {
        use crate::engine::Engine;
        use crate::OpenClApi;
        use backend_api::plugin::Plugin;
        use gpu_backend::plugin::GpuPlugin;

        const TEST: &str = "cached_kernels_that_fail_the_self_test_are_compiled_afresh";
        let found = match crate::platform::device(0) {
            Ok(found) => found,
            // CI installs PoCL: there, no device is a failure.
            Err(error) if std::env::var_os("CI").is_none() => {
                return pce_testkit::skip(TEST, &format!("no OpenCL device: {}", error.message))
            }
            Err(error) => panic!("no OpenCL device under CI: {}", error.message),
        };
        let dir = std::env::temp_dir().join(format!("opencl-selftest-{}", std::process::id()));
        // Only this test in this crate opens devices, so only it reads the
        // variable.
        std::env::set_var(CACHE_ENV, &dir);
        let options = build_options(true);
        let path = cache_path(&found, &options).expect("the cache directory is set");

        // Fp2 products with c0 = v0 + v1 instead of v0 - v1: G1 and the
        // NTT stay right, every G2 sum goes wrong.
        let right = "Fp2 r = {Fp_sub(v0, v1),";
        let source = gpu_backend::source();
        assert!(
            source.contains(right),
            "kernels/fp2.h changed: update this test"
        );
        let wrong = source.replace(right, "Fp2 r = {Fp_add(v0, v1),");
        let context = Context::from_device(&found.device).unwrap();
        let broken = Program::create_and_build_from_source(&context, &wrong, &options).unwrap();
        let binary = broken.get_binaries().unwrap().remove(0);
        cache::write(&path, &binary);

        let (engine, origin) = Engine::open(&found, Kernels::Cached).unwrap();
        assert_eq!(origin, Kernels::Cached);
        let failure = gpu_backend::selftest::check(&engine).unwrap_err();
        assert_eq!(failure.to_string(), "results differ from blst's: G2 MSM");
        assert!(failure.only_g2_msm());
        drop(engine);

        a_device_whose_every_build_is_wrong_in_g2_keeps_the_rest(&path, &binary);
        let verdicts = std::fs::read_dir(&dir)
            .unwrap()
            .filter(|entry| {
                let name = entry.as_ref().unwrap().file_name();
                name.to_string_lossy().ends_with(".g2-wrong")
            })
            .count();
        assert_eq!(
            verdicts, 1,
            "the device's G2 verdict is kept for its next open"
        );

        GpuPlugin::<OpenClApi>::device_open(0).expect("recovered by compiling afresh");
        let cached = cache::read(&path).expect("a program is cached");
        assert_ne!(cached, binary, "the failing program was not replaced");
        let (engine, origin) = Engine::open(&found, Kernels::Cached).unwrap();
        assert_eq!(origin, Kernels::Cached);
        assert_eq!(gpu_backend::selftest::check(&engine), Ok(()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An API whose every build is `binary` (written into the cache at
    /// `path` before each open): the broken program of the test above.
    struct BrokenG2Api;

    static BROKEN: std::sync::Mutex<Option<(PathBuf, Vec<u8>)>> = std::sync::Mutex::new(None);

    impl gpu_backend::plugin::GpuApi for BrokenG2Api {
        const NAME: &'static std::ffi::CStr = c"broken-g2";
        const DESCRIPTION: &'static std::ffi::CStr = c"OpenCL kernels with wrong Fp2 products";
        type Engine = crate::engine::Engine;
        const DRIVER_COMPILER: bool = false;

        fn cache_dir() -> Option<PathBuf> {
            cache::dir(CACHE_ENV, "opencl")
        }

        fn device_count() -> Result<u32, PluginError> {
            crate::OpenClApi::device_count()
        }

        fn device_info(index: u32) -> Result<backend_api::plugin::DeviceDescription, PluginError> {
            crate::OpenClApi::device_info(index)
        }

        fn open(
            index: u32,
            wanted: Kernels,
        ) -> Result<(crate::engine::Engine, Kernels), PluginError> {
            let broken = BROKEN.lock().unwrap();
            let (path, binary) = broken.as_ref().expect("set by the test");
            cache::write(path, binary);
            let (engine, _) =
                crate::engine::Engine::open(&crate::platform::device(index)?, Kernels::Cached)?;
            Ok((engine, wanted))
        }
    }

    /// Through the plugin's C ABI: a device whose every build computes
    /// wrong G2 sums (and right G1 sums and NTTs) opens, its G1 MSMs right,
    /// its G2 MSMs refused as unsupported with the reason (so the host
    /// sends them to its fallback device).
    fn a_device_whose_every_build_is_wrong_in_g2_keeps_the_rest(path: &Path, binary: &[u8]) {
        use backend_api::ffi::{
            pce_device, pce_g1_projective, pce_g2_projective, pce_msm_bases, PCE_ERR_UNSUPPORTED,
            PCE_G1, PCE_G2, PCE_OK,
        };
        use backend_api::interop::{
            g1_affines_as_pce, g2_affines_as_pce, pce_g1_projectives, scalar_of,
        };
        use blstrs::{G1Affine, G1Projective, G2Affine, Scalar};
        use group::{prime::PrimeCurveAffine, Curve};

        *BROKEN.lock().unwrap() = Some((path.to_owned(), binary.to_owned()));
        let vt = backend_api::plugin::vtable::<gpu_backend::plugin::GpuPlugin<BrokenG2Api>>();
        let scalars: Vec<Scalar> = (3..8u64).map(|i| Scalar::from(i * i * 1_000_003)).collect();
        let terms: Vec<_> = scalars.iter().map(scalar_of).collect();
        let g1: Vec<G1Affine> = (2..7u64)
            .map(|i| (G1Affine::generator() * Scalar::from(i)).to_affine())
            .collect();
        let g2: Vec<G2Affine> = (2..7u64)
            .map(|i| (G2Affine::generator() * Scalar::from(i)).to_affine())
            .collect();
        let mut device: *mut pce_device = std::ptr::null_mut();
        // SAFETY: the vtable's functions are called as the C header says:
        // out-pointers valid for a write, points and scalars of `count`
        // entries, results of one point, handles used while open.
        unsafe {
            assert_eq!((vt.device_open)(0, &mut device), PCE_OK, "the device opens");
            // The five points of `group` at `points` as bases, and their
            // MSM by `terms` into `out`: the MSM's status, and the bases.
            let sum = |group, points: *const std::ffi::c_void, out: *mut std::ffi::c_void| {
                let mut bases: *mut pce_msm_bases = std::ptr::null_mut();
                let uploaded = (vt.msm_bases_upload)(device, group, points, 5, 0, &mut bases);
                assert_eq!(uploaded, PCE_OK, "bases of group {group} uploaded");
                ((vt.msm)(device, bases, 0, 5, terms.as_ptr(), 1, out), bases)
            };
            let mut g1_sum = [pce_g1_projective::default()];
            let g1_points = g1_affines_as_pce(&g1).as_ptr().cast();
            let (status, bases) = sum(PCE_G1, g1_points, g1_sum.as_mut_ptr().cast());
            assert_eq!(status, PCE_OK);
            let expected: G1Projective = g1.iter().zip(&scalars).map(|(p, s)| *p * s).sum();
            assert_eq!(
                pce_g1_projectives(&g1_sum)[0],
                expected,
                "G1 MSM on the device"
            );
            (vt.msm_bases_release)(bases);

            let mut g2_sum = [pce_g2_projective::default()];
            let g2_points = g2_affines_as_pce(&g2).as_ptr().cast();
            let (status, bases) = sum(PCE_G2, g2_points, g2_sum.as_mut_ptr().cast());
            assert_eq!(status, PCE_ERR_UNSUPPORTED, "G2 MSM refused");
            let mut message = vec![0u8; 512];
            let len = (vt.last_error)(message.as_mut_ptr().cast(), message.len());
            let message = String::from_utf8_lossy(&message[..len.min(message.len() - 1)]);
            assert!(
                message.contains("broken-g2 device 0: its G2 MSM computes wrong results")
                    && message.contains("run on the fallback device"),
                "{message}"
            );
            (vt.msm_bases_release)(bases);
            (vt.device_close)(device);
        }
        *BROKEN.lock().unwrap() = None;
    }

    #[test]
    fn without_a_cache_the_calls_are_tried_each_time() {
        let result = build_preferring_calls(None, |calls| {
            if calls {
                Err("refused".to_owned())
            } else {
                Ok(())
            }
        });
        assert_eq!(result, Ok(()));
    }
}
