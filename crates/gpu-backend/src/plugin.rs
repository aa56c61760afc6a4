//! The backend-ABI side of a GPU backend, written once: a GPU API says how
//! to find and open devices ([`GpuApi`]); [`GpuPlugin`] turns that into a
//! [`Plugin`] whose NTTs, QAP step and MSMs run the shared drivers of
//! [`crate::ntt`] and [`crate::msm`] on the API's [`Engine`], once the
//! device's kernels have passed the [`selftest`].

use std::ffi::CStr;
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard, TryLockError};

use backend_api::ffi::{
    pce_fr, pce_scalar, PCE_ERR_DEVICE, PCE_ERR_INVALID_ARGUMENT, PCE_ERR_OUT_OF_MEMORY,
    PCE_ERR_UNSUPPORTED, PCE_G2,
};
use backend_api::plugin::{
    DeviceDescription, MemoryReport, MsmResults, Plugin, PluginError, Points,
};
use tracing::{info, warn};

use crate::engine::Engine;
use crate::msm::{self, G1, G2};
use crate::ntt;
use crate::selftest;
use crate::verdict::G2Verdict;

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
    /// The directory of its compiled-kernel cache, if it has one.
    fn cache_dir() -> Option<std::path::PathBuf>;
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

/// What an open device's G2 MSMs may be trusted with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum G2Msms {
    /// They passed the self-test.
    Right,
    /// They computed wrong results on this device while its G1 MSMs and
    /// NTTs were right (as on some H200 machines, `docs/benchmarks.md`).
    /// They are refused as unsupported, with this reason, so the host
    /// runs them on its fallback device (the CPU) and keeps the rest on
    /// the GPU; no G2 bases are uploaded.
    Refused(String),
}

/// The first kernels that pass `check` (the [`selftest`]): the cached
/// ones, else freshly compiled ones, else (with `driver_compiler`) the
/// driver's build, each opened by `open`. When no build passes but one
/// was wrong in its G2 MSM alone, the device is kept with that build and
/// its G2 MSMs refused ([`G2Msms::Refused`]); else the error says how each
/// build failed. An `open` that fails ends the tries (the first with its
/// own error, a later one with the failures so far, unless a build kept
/// for its G2-less use remains). The build the device keeps, and only it,
/// is handed to `keep` (to be cached): a build that failed more never
/// replaces the cached one. A device kept without its G2 MSMs is
/// remembered in `verdict`, and a later open whose cached build is wrong
/// in its G2 MSM alone believes it rather than compile again
/// ([`crate::verdict`]); a build that passes clears it.
fn open_checked<E>(
    api: &str,
    index: u32,
    driver_compiler: bool,
    verdict: &G2Verdict,
    mut open: impl FnMut(Kernels) -> Result<(E, Kernels), PluginError>,
    mut check: impl FnMut(&E) -> Result<(), selftest::Failure>,
    keep: impl Fn(&E),
) -> Result<(E, G2Msms), PluginError> {
    let mut failures: Vec<String> = Vec::new();
    // The first build whose G2 MSM alone was wrong, held while the others
    // are tried.
    let mut without_g2: Option<(E, Kernels)> = None;
    let keep_without_g2 = |without_g2: Option<(E, Kernels)>, failures: &[String], new: bool| {
        without_g2.map(|(engine, origin)| {
            let reason = format!(
                "{api} device {index}: its G2 MSM computes wrong results on this device \
                 ({}), so its G2 MSMs run on the fallback device",
                failures.join("; ")
            );
            warn!(
                index,
                kernels = origin.describe(),
                "{reason}; its G1 MSMs and NTTs passed their self-test"
            );
            keep(&engine);
            if new {
                // Not when believed: the verdict's day runs from when every
                // build was tried.
                verdict.remember(&reason);
            }
            (engine, G2Msms::Refused(reason))
        })
    };
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
    // Whether every build so far failed for want of device memory.
    let mut out_of_memory_only = true;
    // Whether every build so far opened and computed wrong results (not
    // an error): only then is a device kept without G2 remembered so.
    let mut all_judged = true;
    loop {
        let (engine, origin) = match open(wanted) {
            Ok(opened) => opened,
            Err(error) if failures.is_empty() => return Err(error),
            Err(error) => {
                // The builds not opened were never judged: not remembered.
                if let Some(kept) = keep_without_g2(without_g2, &failures, false) {
                    warn!(index, %error.message, "opening the device with kernels {} failed", wanted.describe());
                    return Ok(kept);
                }
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
                keep(&engine);
                verdict.forget();
                return Ok((engine, G2Msms::Right));
            }
            Err(failure) => {
                // Another process holding the device, or (an OpenCL
                // driver's CL_OUT_OF_RESOURCES) a kernel that faults: the
                // other builds are tried all the same.
                out_of_memory_only &= failure.out_of_memory();
                all_judged &= !failure.wrong.is_empty();
                failures.push(format!("{}: {failure}", origin.describe()));
                if failure.only_g2_msm() && without_g2.is_none() {
                    if origin == Kernels::Cached {
                        if let Some(before) = verdict.believed() {
                            // Every build was wrong there within a day:
                            // compiling again would only take minutes.
                            info!(index, before, "the cached kernels' G2 MSM is wrong, as every build's was when the device opened within the last day: not compiling them again");
                            failures.push(
                                "as every build's when the device opened within the last day"
                                    .into(),
                            );
                            return Ok(keep_without_g2(Some((engine, origin)), &failures, false)
                                .expect("a build is held"));
                        }
                    }
                    without_g2 = Some((engine, origin));
                } else {
                    drop(engine);
                }
            }
        }
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
            None => {
                if let Some(kept) = keep_without_g2(without_g2, &failures, all_judged) {
                    return Ok(kept);
                }
                if out_of_memory_only {
                    return Err(refused(
                        PCE_ERR_OUT_OF_MEMORY,
                        &failures,
                        ": each build ran out of device memory (does another process hold it?)",
                    ));
                }
                // The same kernels have been right on one H200 and wrong on
                // another (docs/benchmarks.md): the message names no culprit.
                return Err(refused(
                    PCE_ERR_DEVICE,
                    &failures,
                    ": they compute wrong results on this device as built here, so it is \
                     refused (kernel_probe shows which function; --backend cpu proves on the \
                     CPU)",
                ));
            }
        }
    }
}

/// The plugin of GPU API `A`.
pub struct GpuPlugin<A>(PhantomData<A>);

/// An open device; operations on it run one at a time (kernel objects
/// carry their arguments, and the engines copy through one queue).
pub struct OpenDevice<E> {
    engine: Mutex<E>,
    g2: G2Msms,
    /// Host memory the engine holds while open (fixed when it opens).
    staging: u64,
    /// The device's memory when it was last asked while idle, or at the
    /// end of the last operation: a query made while an operation holds
    /// the engine answers with it rather than wait for the operation (a
    /// daemon's status and metrics ask at any time).
    last_memory: Mutex<Result<MemoryReport, PluginError>>,
}

impl<E: Engine> OpenDevice<E> {
    /// The device of `engine`, its G2 MSMs as `g2` says: what
    /// [`Plugin::device_open`] makes of a device once its kernels have been
    /// checked (public for the GPU plugins' tests, which open engines
    /// themselves).
    pub fn new(engine: E, g2: G2Msms) -> Self {
        let last_memory = engine.memory();
        Self {
            staging: engine.staging_bytes(),
            engine: Mutex::new(engine),
            g2,
            last_memory: Mutex::new(last_memory),
        }
    }

    /// Its memory now, or as last seen while an operation runs on it.
    fn memory(&self) -> Result<MemoryReport, PluginError> {
        let engine = match self.engine.try_lock() {
            Ok(engine) => engine,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                let last = self.last_memory.lock().unwrap_or_else(|p| p.into_inner());
                return last.clone();
            }
        };
        self.remember_memory(&engine)
    }

    /// `engine`'s memory now, kept as the last reading.
    fn remember_memory(&self, engine: &E) -> Result<MemoryReport, PluginError> {
        let now = engine.memory();
        *self.last_memory.lock().unwrap_or_else(|p| p.into_inner()) = now.clone();
        now
    }

    /// The engine, for one operation; the memory reading is refreshed when
    /// the operation ends, so that queries during a busy run (one operation
    /// after another) answer with a recent one.
    fn engine(&self) -> EngineTurn<'_, E> {
        // Operations leave no half-updated host state behind (device
        // buffers are per call), so a poisoned lock is usable.
        let engine = self
            .engine
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        EngineTurn {
            device: self,
            engine,
        }
    }
}

/// An open device's engine held for one operation ([`OpenDevice::engine`]).
struct EngineTurn<'a, E: Engine> {
    device: &'a OpenDevice<E>,
    engine: MutexGuard<'a, E>,
}

impl<E: Engine> std::ops::Deref for EngineTurn<'_, E> {
    type Target = E;

    fn deref(&self) -> &E {
        &self.engine
    }
}

impl<E: Engine> Drop for EngineTurn<'_, E> {
    fn drop(&mut self) {
        // The lock is still held: no query reads the reading meanwhile.
        let _ = self.device.remember_memory(&self.engine);
    }
}

/// MSM bases as a GPU plugin keeps them.
pub enum DeviceBases<B> {
    /// On the device, or streamed to it.
    Kept(msm::Bases<B>),
    /// G2 bases of a device whose G2 MSMs are refused: only their number,
    /// so that the host can lend them and its fallback device computes
    /// their MSMs.
    G2Refused {
        /// Number of points.
        len: usize,
    },
}

type Buffer<A> = <<A as GpuApi>::Engine as Engine>::Buffer;

impl<A: GpuApi> Plugin for GpuPlugin<A> {
    const NAME: &'static CStr = A::NAME;
    const DESCRIPTION: &'static CStr = A::DESCRIPTION;
    type Device = OpenDevice<A::Engine>;
    type Domain = ntt::Domain<Buffer<A>>;
    type Bases = DeviceBases<Buffer<A>>;
    const QAP_H: bool = true;
    const DEVICE_MEMORY: bool = true;
    const DEVICE_HOST_BYTES: bool = true;
    const MSM_SCRATCH_BYTES: bool = true;

    fn device_count() -> Result<u32, PluginError> {
        A::device_count()
    }

    fn device_info(index: u32) -> Result<DeviceDescription, PluginError> {
        A::device_info(index)
    }

    /// The device with kernels that pass the [`selftest`], or that fail it
    /// in their G2 MSM alone, which is then refused ([`open_checked`]); a
    /// device whose every build fails otherwise is refused.
    fn device_open(index: u32) -> Result<Self::Device, PluginError> {
        let api = A::NAME.to_string_lossy();
        // A device that cannot be described gets no verdict: one key
        // shared by every such device could be another's.
        let verdict = match A::device_info(index) {
            Ok(info) => G2Verdict::of_device(A::cache_dir(), &api, index, &info),
            Err(_) => G2Verdict::nowhere(),
        };
        let (engine, g2) = open_checked(
            &api,
            index,
            A::DRIVER_COMPILER,
            &verdict,
            |wanted| A::open(index, wanted),
            selftest::check,
            A::Engine::cache_kernels,
        )?;
        Ok(OpenDevice::new(engine, g2))
    }

    fn ntt_domain(device: &Self::Device, log_size: u32) -> Result<Self::Domain, PluginError> {
        // The device is taken for each table's copy alone.
        let max_alloc = device.engine().limits().max_alloc;
        ntt::Domain::with_uploads(max_alloc, log_size, |table| device.engine().upload(table))
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
        device.memory()
    }

    fn device_host_bytes(device: &Self::Device) -> Result<u64, PluginError> {
        Ok(device.staging)
    }

    fn msm_scratch_bytes(_: &Self::Device, _: u32, count: u64) -> Result<u64, PluginError> {
        Ok(msm::host_scratch_bytes(count))
    }

    /// G2 bases of a device whose G2 MSMs are refused stay on the host's
    /// side: their MSMs are refused in [`Plugin::msm`].
    fn upload_bases(device: &Self::Device, points: Points<'_>) -> Result<Self::Bases, PluginError> {
        match (&device.g2, points) {
            (G2Msms::Refused(_), Points::G2(points)) => Ok(DeviceBases::G2Refused {
                len: points.as_slice().len(),
            }),
            (_, points) => Ok(DeviceBases::Kept(msm::Bases::new(
                &*device.engine(),
                points,
            )?)),
        }
    }

    fn bases_shape(bases: &Self::Bases) -> (usize, u32) {
        match bases {
            DeviceBases::Kept(bases) => bases.shape(),
            DeviceBases::G2Refused { len } => (*len, PCE_G2),
        }
    }

    fn msm(
        device: &Self::Device,
        bases: &Self::Bases,
        offset: usize,
        count: usize,
        scalars: &[pce_scalar],
        out: MsmResults<'_>,
    ) -> Result<(), PluginError> {
        let DeviceBases::Kept(bases) = bases else {
            let reason = match &device.g2 {
                G2Msms::Refused(reason) => reason.clone(),
                G2Msms::Right => "these G2 bases were kept by a device that refuses G2 MSMs".into(),
            };
            return Err(PluginError::new(PCE_ERR_UNSUPPORTED, reason));
        };
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
    use std::cell::RefCell;

    /// What a fake build computes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Results {
        Right,
        /// Its G2 MSM alone is wrong.
        G2Wrong,
        /// Its G1 and G2 MSMs are wrong.
        MsmsWrong,
        /// The device runs out of memory.
        OutOfMemory,
    }
    use Results::{G2Wrong, MsmsWrong, OutOfMemory, Right};

    /// Runs [`open_checked`] on a fake API whose builds from
    /// `Kernels::Cached` on return `builds` in turn (where each came from,
    /// what it computes; `None`: the open fails), and returns the kernels
    /// asked for and the result: the kernels kept and their G2 MSMs.
    fn tries(
        driver_compiler: bool,
        builds: &[Option<(Kernels, Results)>],
    ) -> (Vec<Kernels>, Result<(Kernels, G2Msms), PluginError>) {
        let (asked, result, _) = tries_caching(driver_compiler, builds);
        (asked, result)
    }

    /// The kernels asked for, the result, and the builds handed to be
    /// cached.
    type Tried = (
        Vec<Kernels>,
        Result<(Kernels, G2Msms), PluginError>,
        Vec<Kernels>,
    );

    /// [`tries`], with the builds handed to be cached.
    fn tries_caching(driver_compiler: bool, builds: &[Option<(Kernels, Results)>]) -> Tried {
        tries_remembering(&G2Verdict::nowhere(), driver_compiler, builds)
    }

    /// [`tries_caching`], with the device's G2 verdict kept in `verdict`.
    fn tries_remembering(
        verdict: &G2Verdict,
        driver_compiler: bool,
        builds: &[Option<(Kernels, Results)>],
    ) -> Tried {
        let mut asked = Vec::new();
        let cached = RefCell::new(Vec::new());
        let mut builds = builds.iter();
        let result = open_checked(
            "fake",
            3,
            driver_compiler,
            verdict,
            |wanted| {
                asked.push(wanted);
                match builds.next().expect("no more builds than tries") {
                    Some(build) => Ok((*build, build.0)),
                    None => Err(PluginError::new(PCE_ERR_NO_DRIVER, "no compiler")),
                }
            },
            |(_, results)| match results {
                Right => Ok(()),
                OutOfMemory => Err(selftest::Failure::of_error(
                    "G1 MSM",
                    &PluginError::new(PCE_ERR_OUT_OF_MEMORY, "no room"),
                )),
                G2Wrong => Err(selftest::Failure::of_wrong(vec!["G2 MSM"])),
                MsmsWrong => Err(selftest::Failure::of_wrong(vec!["G1 MSM", "G2 MSM"])),
            },
            |(kernels, _)| cached.borrow_mut().push(*kernels),
        );
        (
            asked,
            result.map(|((kernels, _), g2)| (kernels, g2)),
            cached.into_inner(),
        )
    }

    #[test]
    fn only_the_build_kept_is_cached() {
        let (_, _, cached) =
            tries_caching(true, &[Some((Cached, MsmsWrong)), Some((Compiled, Right))]);
        assert_eq!(cached, [Compiled]);
        // The cached build kept without its G2 MSMs: the fresh builds,
        // wrong in more, are not cached in its place.
        let builds = [
            Some((Cached, G2Wrong)),
            Some((Compiled, MsmsWrong)),
            Some((DriverCompiled, MsmsWrong)),
        ];
        let (_, result, cached) = tries_caching(true, &builds);
        assert!(matches!(result.unwrap(), (Cached, G2Msms::Refused(_))));
        assert_eq!(cached, [Cached]);
        let (_, result, cached) = tries_caching(
            false,
            &[Some((Cached, MsmsWrong)), Some((Compiled, MsmsWrong))],
        );
        assert!(result.is_err());
        assert!(cached.is_empty(), "{cached:?}");
    }

    use Kernels::{Cached, Compiled, DriverCompiled};

    #[test]
    fn right_cached_kernels_are_used_without_compiling() {
        let (asked, result) = tries(true, &[Some((Cached, Right))]);
        assert_eq!(asked, [Cached]);
        assert_eq!(result.unwrap(), (Cached, G2Msms::Right));
    }

    #[test]
    fn wrong_cached_kernels_are_compiled_afresh() {
        for wrong in [G2Wrong, MsmsWrong] {
            let (asked, result) = tries(true, &[Some((Cached, wrong)), Some((Compiled, Right))]);
            assert_eq!(asked, [Cached, Compiled]);
            assert_eq!(result.unwrap(), (Compiled, G2Msms::Right), "{wrong:?}");
        }
    }

    #[test]
    fn wrong_fresh_kernels_go_to_the_drivers_compiler_where_there_is_one() {
        let builds = [
            Some((Cached, MsmsWrong)),
            Some((Compiled, G2Wrong)),
            Some((DriverCompiled, Right)),
        ];
        let (asked, result) = tries(true, &builds);
        assert_eq!(asked, [Cached, Compiled, DriverCompiled]);
        assert_eq!(result.unwrap(), (DriverCompiled, G2Msms::Right));

        // Nothing cached: the first open compiled, so the next try is the
        // driver's, not NVRTC again.
        let (asked, result) = tries(
            true,
            &[Some((Compiled, MsmsWrong)), Some((DriverCompiled, Right))],
        );
        assert_eq!(asked, [Cached, DriverCompiled]);
        assert_eq!(result.unwrap(), (DriverCompiled, G2Msms::Right));
    }

    #[test]
    fn a_device_out_of_memory_in_every_build_is_refused_as_such() {
        let builds = [Some((Cached, OutOfMemory)), Some((Compiled, OutOfMemory))];
        let (asked, result, cached) = tries_caching(false, &builds);
        assert_eq!(asked, [Cached, Compiled]);
        assert!(cached.is_empty(), "{cached:?}");
        let error = result.unwrap_err();
        assert_eq!(error.status, PCE_ERR_OUT_OF_MEMORY);
        assert!(
            error
                .message
                .contains("each build ran out of device memory"),
            "{}",
            error.message
        );
        // An OpenCL driver reports a faulting kernel so too: a stale
        // cached build is compiled afresh.
        let (_, result) = tries(
            false,
            &[Some((Cached, OutOfMemory)), Some((Compiled, Right))],
        );
        assert_eq!(result.unwrap(), (Compiled, G2Msms::Right));
        let builds = [Some((Cached, OutOfMemory)), Some((Compiled, MsmsWrong))];
        assert_eq!(tries(false, &builds).1.unwrap_err().status, PCE_ERR_DEVICE);
    }

    #[test]
    fn a_device_whose_every_build_is_wrong_is_refused_with_each_reason() {
        let (asked, result) = tries(
            false,
            &[Some((Cached, MsmsWrong)), Some((Compiled, MsmsWrong))],
        );
        assert_eq!(asked, [Cached, Compiled]);
        let error = result.unwrap_err();
        assert_eq!(error.status, PCE_ERR_DEVICE);
        assert!(
            error.message.starts_with(
                "fake device 3: its kernels failed their self-test (cached: results differ \
                 from blst's: G1 MSM, G2 MSM; freshly compiled: results differ from blst's: \
                 G1 MSM, G2 MSM): they compute wrong results"
            ),
            "{}",
            error.message
        );

        let builds = [
            Some((Cached, MsmsWrong)),
            Some((Compiled, MsmsWrong)),
            Some((DriverCompiled, MsmsWrong)),
        ];
        let error = tries(true, &builds).1.unwrap_err();
        assert!(
            error
                .message
                .contains("; compiled by the driver: results differ from blst's: G1 MSM, G2 MSM)"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_device_wrong_only_in_its_g2_msm_is_kept_without_it() {
        // Every build wrong, the first in G2 alone: that one is kept.
        let builds = [
            Some((Cached, G2Wrong)),
            Some((Compiled, MsmsWrong)),
            Some((DriverCompiled, G2Wrong)),
        ];
        let (asked, result) = tries(true, &builds);
        assert_eq!(asked, [Cached, Compiled, DriverCompiled]);
        let (kept, g2) = result.unwrap();
        assert_eq!(kept, Cached);
        let G2Msms::Refused(reason) = g2 else {
            panic!("G2 MSMs kept: {g2:?}")
        };
        assert_eq!(
            reason,
            "fake device 3: its G2 MSM computes wrong results on this device (cached: \
             results differ from blst's: G2 MSM; freshly compiled: results differ from \
             blst's: G1 MSM, G2 MSM; compiled by the driver: results differ from blst's: \
             G2 MSM), so its G2 MSMs run on the fallback device"
        );

        // A later build wrong in G2 alone, after one wrong otherwise.
        let (_, result) = tries(
            false,
            &[Some((Cached, MsmsWrong)), Some((Compiled, G2Wrong))],
        );
        assert!(matches!(result.unwrap(), (Compiled, G2Msms::Refused(_))));

        // A later open that fails leaves the kept build.
        let (asked, result) = tries(true, &[Some((Cached, G2Wrong)), None]);
        assert_eq!(asked, [Cached, Compiled]);
        assert!(matches!(result.unwrap(), (Cached, G2Msms::Refused(_))));
    }

    /// A device whose every build got its G2 MSM wrong opens the next
    /// time on its cached build without compiling again, until a build
    /// passes; other failures of the cached build still compile afresh.
    #[test]
    fn a_device_known_wrong_in_its_g2_msm_is_not_compiled_again() {
        let dir = tempfile::tempdir().unwrap();
        let device = DeviceDescription {
            name: "fake device".into(),
            ..DeviceDescription::default()
        };
        let verdict = G2Verdict::of_device(Some(dir.path().into()), "fake", 3, &device);
        // Builds not judged (one that does not open, one out of memory):
        // nothing remembered.
        let unjudged = [Some((Cached, G2Wrong)), None];
        let (_, result, _) = tries_remembering(&verdict, true, &unjudged);
        assert!(matches!(result, Ok((Cached, G2Msms::Refused(_)))));
        let out_of_memory = [Some((Cached, G2Wrong)), Some((Compiled, OutOfMemory))];
        let (_, result, _) = tries_remembering(&verdict, false, &out_of_memory);
        assert!(matches!(result, Ok((Cached, G2Msms::Refused(_)))));
        assert_eq!(verdict.believed(), None);

        let every_build_wrong = [
            Some((Cached, G2Wrong)),
            Some((Compiled, G2Wrong)),
            Some((DriverCompiled, G2Wrong)),
        ];
        let (asked, result, _) = tries_remembering(&verdict, true, &every_build_wrong);
        assert_eq!(asked, [Cached, Compiled, DriverCompiled]);
        assert!(matches!(result, Ok((Cached, G2Msms::Refused(_)))));
        assert!(verdict.believed().is_some());

        let (asked, result, cached) = tries_remembering(&verdict, true, &every_build_wrong);
        assert_eq!(asked, [Cached], "believed, not compiled again");
        let Ok((Cached, G2Msms::Refused(reason))) = result else {
            panic!("{result:?}");
        };
        assert!(
            reason.contains("as every build's when the device opened within the last day"),
            "{reason}"
        );
        assert_eq!(cached, [Cached]);

        let (asked, _, _) = tries_remembering(
            &verdict,
            true,
            &[Some((Cached, MsmsWrong)), Some((Compiled, Right))],
        );
        assert_eq!(
            asked,
            [Cached, Compiled],
            "wrong otherwise: compiled afresh"
        );
        assert_eq!(verdict.believed(), None, "a build that passes clears it");
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
        let error = tries(true, &[Some((Cached, MsmsWrong)), None])
            .1
            .unwrap_err();
        assert_eq!(error.status, PCE_ERR_NO_DRIVER);
        assert_eq!(
            error.message,
            "fake device 3: its kernels failed their self-test (cached: results differ from \
             blst's: G1 MSM, G2 MSM), and opening the device with kernels freshly compiled \
             failed: no compiler"
        );
    }
}
