//! The backend-ABI side of a GPU backend, written once: a GPU API says how
//! to find and open devices ([`GpuApi`]); [`GpuPlugin`] turns that into a
//! [`Plugin`] whose NTTs, QAP step and MSMs run the shared drivers of
//! [`crate::ntt`] and [`crate::msm`] on the API's [`Engine`], once the
//! device's kernels have passed the [`selftest`].

use std::ffi::CStr;
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard};

use backend_api::ffi::{pce_fr, pce_scalar, PCE_ERR_DEVICE, PCE_ERR_INVALID_ARGUMENT};
use backend_api::plugin::{
    DeviceDescription, MemoryReport, MsmResults, Plugin, PluginError, Points,
};
use tracing::{info, warn};

use crate::engine::Engine;
use crate::msm::{self, G1, G2};
use crate::ntt;
use crate::selftest;

/// What a GPU API provides: its devices and an [`Engine`] per open device.
pub trait GpuApi: 'static {
    /// Short name (`opencl`, `cuda`).
    const NAME: &'static CStr;
    /// Implementation and version.
    const DESCRIPTION: &'static CStr;
    /// An open device.
    type Engine: Engine<Buffer: Send + Sync> + Send;
    /// Number of devices; `PCE_ERR_NO_DRIVER` when the runtime is missing.
    fn device_count() -> Result<u32, PluginError>;
    /// Describes device `index`.
    fn device_info(index: u32) -> Result<DeviceDescription, PluginError>;
    /// Whether the API has a second compiler for [`Kernels::DriverCompiled`]
    /// (CUDA: the driver's own, from PTX).
    const DRIVER_COMPILER: bool;
    /// Opens device `index` with kernels from where `wanted` says; also
    /// says where they came from (compiled when the cache had none).
    fn open(index: u32, wanted: Kernels) -> Result<(Self::Engine, Kernels), PluginError>;
}

/// Where an opened device's kernels come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernels {
    /// Asked for: the compiled-kernel cache when it holds them, else
    /// compiled (and cached). Reported: loaded from the cache.
    Cached,
    /// Compiled, replacing any cached copy: asked for after the cached
    /// kernels failed the self-test.
    Compiled,
    /// Compiled by the GPU driver's own compiler from the intermediate code
    /// the API's compiler produced (CUDA: NVRTC's PTX through the driver's
    /// JIT, not NVRTC's machine code), replacing any cached copy: asked
    /// for, where the API has one ([`GpuApi::DRIVER_COMPILER`]), after
    /// freshly compiled kernels failed the self-test too. Another code
    /// generator for the same source: the last try before the device is
    /// refused.
    DriverCompiled,
}

impl Kernels {
    /// Which kernels, in a message.
    fn describe(self) -> &'static str {
        match self {
            Kernels::Cached => "cached",
            Kernels::Compiled => "freshly compiled",
            Kernels::DriverCompiled => "compiled by the driver",
        }
    }

    /// What to try after kernels from here failed their self-test.
    fn next(self, driver_compiler: bool) -> Option<Kernels> {
        match self {
            Kernels::Cached => Some(Kernels::Compiled),
            Kernels::Compiled if driver_compiler => Some(Kernels::DriverCompiled),
            Kernels::Compiled | Kernels::DriverCompiled => None,
        }
    }
}

/// The first kernels that pass `check` (the [`selftest`]): the cached
/// ones, else freshly compiled ones, else (with `driver_compiler`) the
/// driver's build, each opened by `open`. When every build fails `check`
/// the error says how each failed; an `open` that fails ends the tries
/// (the first with its own error, a later one with the failures so far).
fn open_checked<E>(
    api: &str,
    index: u32,
    driver_compiler: bool,
    mut open: impl FnMut(Kernels) -> Result<(E, Kernels), PluginError>,
    mut check: impl FnMut(&E) -> Result<(), String>,
) -> Result<E, PluginError> {
    let mut failures: Vec<String> = Vec::new();
    let refused = |status, failures: &[String], end: &str| {
        PluginError::new(
            status,
            format!(
                "{api} device {index}: its kernels failed their self-test ({}){end}",
                failures.join("; ")
            ),
        )
    };
    let mut wanted = Kernels::Cached;
    loop {
        let (engine, origin) = match open(wanted) {
            Ok(opened) => opened,
            Err(error) if failures.is_empty() => return Err(error),
            Err(error) => {
                let end = format!(
                    ", and opening the device with kernels {} failed: {}",
                    wanted.describe(),
                    error.message
                );
                return Err(refused(error.status, &failures, &end));
            }
        };
        let started = std::time::Instant::now();
        match check(&engine) {
            Ok(()) => {
                let seconds = started.elapsed().as_secs_f64();
                info!(
                    index,
                    seconds,
                    kernels = origin.describe(),
                    "the device's kernels passed their self-test"
                );
                return Ok(engine);
            }
            Err(failure) => failures.push(format!("{}: {failure}", origin.describe())),
        }
        drop(engine);
        match origin.next(driver_compiler) {
            Some(next) => {
                warn!(
                    index,
                    failure = failures.last().map(String::as_str),
                    "the device's {} kernels failed their self-test; trying them {}",
                    origin.describe(),
                    next.describe()
                );
                wanted = next;
            }
            // The same kernels have been right on one H200 and wrong on
            // another (docs/benchmarks.md): the message names no culprit.
            None => {
                return Err(refused(
                    PCE_ERR_DEVICE,
                    &failures,
                    ": they compute wrong results on this device as built here, so it is \
                     refused (kernel_probe shows which function; --backend cpu proves on the \
                     CPU)",
                ))
            }
        }
    }
}

/// The plugin of GPU API `A`.
pub struct GpuPlugin<A>(PhantomData<A>);

/// An open device; operations on it run one at a time (kernel objects
/// carry their arguments, and the engines copy through one queue).
pub struct OpenDevice<E>(Mutex<E>);

impl<E> OpenDevice<E> {
    fn engine(&self) -> MutexGuard<'_, E> {
        // Operations leave no half-updated host state behind (device
        // buffers are per call), so a poisoned lock is usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

type Buffer<A> = <<A as GpuApi>::Engine as Engine>::Buffer;

impl<A: GpuApi> Plugin for GpuPlugin<A> {
    const NAME: &'static CStr = A::NAME;
    const DESCRIPTION: &'static CStr = A::DESCRIPTION;
    type Device = OpenDevice<A::Engine>;
    type Domain = ntt::Domain<Buffer<A>>;
    type Bases = msm::Bases<Buffer<A>>;
    const QAP_H: bool = true;
    const DEVICE_MEMORY: bool = true;

    fn device_count() -> Result<u32, PluginError> {
        A::device_count()
    }

    fn device_info(index: u32) -> Result<DeviceDescription, PluginError> {
        A::device_info(index)
    }

    /// The device with kernels that pass the [`selftest`] ([`open_checked`]);
    /// a device whose every build fails it is refused.
    fn device_open(index: u32) -> Result<Self::Device, PluginError> {
        let api = A::NAME.to_string_lossy();
        let engine = open_checked(
            &api,
            index,
            A::DRIVER_COMPILER,
            |wanted| A::open(index, wanted),
            selftest::check,
        )?;
        Ok(OpenDevice(Mutex::new(engine)))
    }

    fn ntt_domain(device: &Self::Device, log_size: u32) -> Result<Self::Domain, PluginError> {
        ntt::Domain::new(&*device.engine(), log_size)
    }

    fn domain_size(domain: &Self::Domain) -> usize {
        domain.size()
    }

    fn ntt(
        device: &Self::Device,
        domain: &Self::Domain,
        inverse: bool,
        coset: bool,
        data: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        domain.transform(&*device.engine(), inverse, coset, data)
    }

    fn qap_h(
        device: &Self::Device,
        domain: &Self::Domain,
        abc: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        domain.qap_h(&*device.engine(), abc)
    }

    fn device_memory(device: &Self::Device) -> Result<MemoryReport, PluginError> {
        device.engine().memory()
    }

    fn upload_bases(device: &Self::Device, points: Points) -> Result<Self::Bases, PluginError> {
        msm::Bases::new(&*device.engine(), points)
    }

    fn bases_shape(bases: &Self::Bases) -> (usize, u32) {
        bases.shape()
    }

    fn msm(
        device: &Self::Device,
        bases: &Self::Bases,
        offset: usize,
        count: usize,
        scalars: &[pce_scalar],
        out: MsmResults<'_>,
    ) -> Result<(), PluginError> {
        let engine = device.engine();
        match (bases, out) {
            (msm::Bases::G1(bases), MsmResults::G1(out)) => {
                msm::msm::<G1, _>(&*engine, bases, offset, count, scalars, out)
            }
            (msm::Bases::G2(bases), MsmResults::G2(out)) => {
                msm::msm::<G2, _>(&*engine, bases, offset, count, scalars, out)
            }
            _ => Err(PluginError::new(
                PCE_ERR_INVALID_ARGUMENT,
                "result group differs from the bases' group",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use backend_api::ffi::PCE_ERR_NO_DRIVER;

    /// A fake device: the kernels it was opened with, and whether they
    /// pass the self-test.
    struct Opened {
        kernels: Kernels,
        right: bool,
    }

    /// Runs [`open_checked`] on a fake API whose builds from
    /// `Kernels::Cached` on return `builds` in turn (where each came from,
    /// whether it is right; `None`: the open fails), and returns the
    /// kernels asked for and the result.
    fn tries(
        driver_compiler: bool,
        builds: &[Option<(Kernels, bool)>],
    ) -> (Vec<Kernels>, Result<Kernels, PluginError>) {
        let mut asked = Vec::new();
        let mut builds = builds.iter();
        let result = open_checked(
            "fake",
            3,
            driver_compiler,
            |wanted| {
                asked.push(wanted);
                match builds.next().expect("no more builds than tries") {
                    Some((kernels, right)) => Ok((
                        Opened {
                            kernels: *kernels,
                            right: *right,
                        },
                        *kernels,
                    )),
                    None => Err(PluginError::new(PCE_ERR_NO_DRIVER, "no compiler")),
                }
            },
            |opened| {
                if opened.right {
                    Ok(())
                } else {
                    Err(format!("G2 wrong ({:?})", opened.kernels))
                }
            },
        );
        (asked, result.map(|opened| opened.kernels))
    }

    use Kernels::{Cached, Compiled, DriverCompiled};

    #[test]
    fn right_cached_kernels_are_used_without_compiling() {
        let (asked, result) = tries(true, &[Some((Cached, true))]);
        assert_eq!(asked, [Cached]);
        assert_eq!(result.unwrap(), Cached);
    }

    #[test]
    fn wrong_cached_kernels_are_compiled_afresh() {
        let (asked, result) = tries(true, &[Some((Cached, false)), Some((Compiled, true))]);
        assert_eq!(asked, [Cached, Compiled]);
        assert_eq!(result.unwrap(), Compiled);
    }

    #[test]
    fn wrong_fresh_kernels_go_to_the_drivers_compiler_where_there_is_one() {
        let builds = [
            Some((Cached, false)),
            Some((Compiled, false)),
            Some((DriverCompiled, true)),
        ];
        let (asked, result) = tries(true, &builds);
        assert_eq!(asked, [Cached, Compiled, DriverCompiled]);
        assert_eq!(result.unwrap(), DriverCompiled);

        // Nothing cached: the first open compiled, so the next try is the
        // driver's, not NVRTC again.
        let (asked, result) = tries(
            true,
            &[Some((Compiled, false)), Some((DriverCompiled, true))],
        );
        assert_eq!(asked, [Cached, DriverCompiled]);
        assert_eq!(result.unwrap(), DriverCompiled);
    }

    #[test]
    fn a_device_whose_every_build_is_wrong_is_refused_with_each_reason() {
        let (asked, result) = tries(false, &[Some((Cached, false)), Some((Compiled, false))]);
        assert_eq!(asked, [Cached, Compiled]);
        let error = result.unwrap_err();
        assert_eq!(error.status, PCE_ERR_DEVICE);
        assert!(
            error.message.starts_with(
                "fake device 3: its kernels failed their self-test (cached: G2 wrong (Cached); \
                 freshly compiled: G2 wrong (Compiled)): they compute wrong results"
            ),
            "{}",
            error.message
        );

        let builds = [
            Some((Cached, false)),
            Some((Compiled, false)),
            Some((DriverCompiled, false)),
        ];
        let error = tries(true, &builds).1.unwrap_err();
        assert!(
            error
                .message
                .contains("; compiled by the driver: G2 wrong (DriverCompiled))"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_failed_open_ends_the_tries_with_its_error() {
        // The first open's error is the device's.
        let error = tries(true, &[None]).1.unwrap_err();
        assert_eq!(
            (error.status, error.message.as_str()),
            (PCE_ERR_NO_DRIVER, "no compiler")
        );
        // A later one's comes after the self-test failures so far.
        let error = tries(true, &[Some((Cached, false)), None]).1.unwrap_err();
        assert_eq!(error.status, PCE_ERR_NO_DRIVER);
        assert_eq!(
            error.message,
            "fake device 3: its kernels failed their self-test (cached: G2 wrong (Cached)), \
             and opening the device with kernels freshly compiled failed: no compiler"
        );
    }
}
