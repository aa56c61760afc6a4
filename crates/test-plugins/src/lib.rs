//! A backend plugin that misbehaves on purpose, for tests.
//!
//! `PCE_TEST_PLUGIN_MODE` selects the fault, read at every call:
//!
//! | mode | behaviour |
//! |---|---|
//! | `wrong-abi` | the entry point refuses the host and claims ABI version 99 |
//! | `v1` | the entry point refuses the host and claims ABI version 1, as a plugin built against the old header |
//! | `log` | `device_count` logs a warning and a debug message through `tracing` |
//! | `no-driver` | `device_count` fails with `PCE_ERR_NO_DRIVER` |
//! | `no-devices` | `device_count` answers 0, which the ABI asks plugins not to do |
//! | `refuse-open` | `device_open` fails with `PCE_ERR_DEVICE`, as a GPU plugin whose kernels fail their self-test |
//! | `error` | NTT and MSM fail with `PCE_ERR_DEVICE` and a message |
//! | `panic` | NTT and MSM panic |
//! | `hang` | NTT and MSM never return |
//! | `crash` | NTT and MSM write to an unmapped address (SIGSEGV) |
//! | `crash-thread` | the same, on a thread of the plugin's own |
//! | `wrong` | NTT leaves the data unchanged, MSM returns infinity |
//! | `chaos` | a raw vtable whose every answer comes from fuzzed bytes ([`chaos`]) |
//! | `g1-only` | a real plugin without G2 MSMs ([`forwarding`]) |
//! | `g1-only-bases` | the same, refusing G2 bases at upload ([`forwarding`]) |
//! | `gated` | a real plugin whose MSMs wait while a file exists ([`forwarding`]) |
//! | `qap-h-dirty` | a real plugin whose `qap_h` declines with the data changed ([`forwarding`]) |
//! | `large-scratch` | a real plugin whose NTTs say they need 1 TiB of host scratch ([`forwarding`]) |
//! | `second-broken` | a real plugin with a second device whose bases uploads fail ([`forwarding`]) |
//! | `second-faulty` | a real plugin with a second device whose MSMs fail ([`forwarding`]) |
//! | `stop-handlers` | `device_open` installs handlers for SIGTERM and SIGINT that end the process, as LLVM's do (inside PoCL's compiler) |
//!
//! Except in the modes that forward to a real plugin ([`forwarding`]), it
//! never computes a correct result, so it cannot pass for a backend.

use std::ffi::CStr;

/// A vtable of the calling module's functions named like its fields,
/// called `name` and described as `description` (C string literals).
macro_rules! vtable_of_this_module {
    ($name:expr, $description:expr) => {
        backend_api::ffi::pce_backend_vtable {
            abi_version: backend_api::ffi::PCE_BACKEND_ABI_VERSION,
            struct_size: std::mem::size_of::<backend_api::ffi::pce_backend_vtable>() as u32,
            name: $name.as_ptr(),
            description: $description.as_ptr(),
            last_error,
            get_proc_address,
            set_logger: None,
            device_count,
            device_info,
            device_open,
            device_close,
            ntt_domain_create,
            ntt_domain_destroy,
            ntt,
            msm_bases_upload,
            msm_bases_release,
            msm,
        }
    };
}

pub mod chaos;
pub mod forwarding;

use backend_api::ffi::{self, pce_backend_vtable, pce_fr, pce_scalar};
use backend_api::plugin::{self, DeviceDescription, MsmResults, Plugin, PluginError, Points};

/// Environment variable selecting the fault.
pub const MODE_ENV: &str = "PCE_TEST_PLUGIN_MODE";

fn mode() -> String {
    std::env::var(MODE_ENV).unwrap_or_default()
}

/// The version a plugin built against the first header claims.
const ABI_VERSION_1: u32 = 1;

fn fault(operation: &str) -> Result<(), PluginError> {
    match mode().as_str() {
        "error" => Err(PluginError::new(
            ffi::PCE_ERR_DEVICE,
            format!("simulated device failure in {operation}"),
        )),
        "panic" => panic!("simulated bug in {operation}"),
        "crash" => {
            write_to_an_unmapped_address();
            Ok(())
        }
        "crash-thread" => {
            // As a plugin's worker pool would.
            let worker = std::thread::spawn(write_to_an_unmapped_address);
            let _ = worker.join();
            Ok(())
        }
        "hang" => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        _ => Ok(()),
    }
}

/// Faults as a vendor's bad pointer would: SIGSEGV.
fn write_to_an_unmapped_address() {
    // An address no process maps, hidden from the optimiser.
    let unmapped = std::hint::black_box(8usize) as *mut u8;
    // SAFETY: not safe at all, on purpose: the `crash` modes exist to crash
    // the host with SIGSEGV.
    unsafe { unmapped.write_volatile(1) };
}

/// The broken backend.
pub struct Broken;

impl Plugin for Broken {
    const NAME: &'static CStr = c"broken";
    const DESCRIPTION: &'static CStr = c"test plugin that fails on purpose";
    type Device = ();
    type Domain = usize;
    type Bases = (usize, u32);

    fn device_count() -> Result<u32, PluginError> {
        if mode() == "log" {
            tracing::warn!(devices = 1, "simulated warning");
            tracing::debug!("simulated debug detail");
        }
        if mode() == "no-driver" {
            return Err(PluginError::new(
                ffi::PCE_ERR_NO_DRIVER,
                "no simulated driver installed",
            ));
        }
        Ok(if mode() == "no-devices" { 0 } else { 1 })
    }

    fn device_info(_: u32) -> Result<DeviceDescription, PluginError> {
        Ok(DeviceDescription {
            name: "broken".into(),
            ..Default::default()
        })
    }

    fn device_open(_: u32) -> Result<(), PluginError> {
        if mode() == "refuse-open" {
            return Err(PluginError::new(
                ffi::PCE_ERR_DEVICE,
                "simulated device refused: its kernels failed their self-test",
            ));
        }
        if mode() == "stop-handlers" {
            install_fatal_stop_handlers();
        }
        Self::device_count().map(|_| ())
    }

    fn ntt_domain(_: &(), log_size: u32) -> Result<usize, PluginError> {
        Ok(1 << log_size)
    }

    fn domain_size(domain: &usize) -> usize {
        *domain
    }

    fn ntt(_: &(), _: &usize, _: bool, _: bool, _: &mut [pce_fr]) -> Result<(), PluginError> {
        fault("ntt")
    }

    fn upload_bases(_: &(), points: Points<'_>) -> Result<(usize, u32), PluginError> {
        Ok(match points {
            Points::G1(p) => (p.as_slice().len(), ffi::PCE_G1),
            Points::G2(p) => (p.as_slice().len(), ffi::PCE_G2),
        })
    }

    fn bases_shape(bases: &(usize, u32)) -> (usize, u32) {
        *bases
    }

    fn msm(
        _: &(),
        _: &(usize, u32),
        _: usize,
        _: usize,
        _: &[pce_scalar],
        out: MsmResults<'_>,
    ) -> Result<(), PluginError> {
        fault("msm")?;
        match out {
            MsmResults::G1(out) => out.fill(Default::default()),
            MsmResults::G2(out) => out.fill(Default::default()),
        }
        Ok(())
    }
}

/// Handlers for SIGTERM and SIGINT that do what LLVM's do: restore the
/// default action and raise the signal again, which ends the process.
fn install_fatal_stop_handlers() {
    extern "C" fn raise_again(signal: libc::c_int) {
        // SAFETY: both are async-signal-safe.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
    for signal in [libc::SIGTERM, libc::SIGINT] {
        // SAFETY: installs a handler that only calls async-signal-safe
        // functions.
        unsafe {
            libc::signal(
                signal,
                raise_again as extern "C" fn(libc::c_int) as libc::sighandler_t,
            )
        };
    }
}

static VTABLE: pce_backend_vtable = plugin::vtable::<Broken>();

/// The entry point, which can also refuse the host's ABI version.
///
/// # Safety
/// `plugin_abi_version` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn pce_backend_entry(
    host_abi_version: u32,
    plugin_abi_version: *mut u32,
) -> *const pce_backend_vtable {
    let raw = match mode().as_str() {
        "chaos" => Some(&chaos::VTABLE),
        "g1-only" => Some(&forwarding::G1_ONLY),
        "g1-only-bases" => Some(&forwarding::G1_ONLY_BASES),
        "gated" => Some(&forwarding::GATED),
        "large-scratch" => Some(&forwarding::LARGE_SCRATCH_VTABLE),
        "qap-h-dirty" => Some(&forwarding::QAP_H_DIRTY),
        "second-broken" => Some(&forwarding::SECOND_BROKEN_VTABLE),
        "second-faulty" => Some(&forwarding::SECOND_FAULTY_VTABLE),
        _ => None,
    };
    if let Some(vtable) = raw {
        if !plugin_abi_version.is_null() {
            // SAFETY: per the function contract.
            unsafe { *plugin_abi_version = ffi::PCE_BACKEND_ABI_VERSION };
        }
        return match host_abi_version == ffi::PCE_BACKEND_ABI_VERSION {
            true => vtable,
            false => std::ptr::null(),
        };
    }
    let claimed = match mode().as_str() {
        "wrong-abi" => Some(99),
        "v1" => Some(ABI_VERSION_1),
        _ => None,
    };
    if let Some(claimed) = claimed {
        if !plugin_abi_version.is_null() {
            // SAFETY: per the function contract.
            unsafe { *plugin_abi_version = claimed };
        }
        return std::ptr::null();
    }
    // SAFETY: forwarded from the caller.
    unsafe { plugin::entry(&VTABLE, host_abi_version, plugin_abi_version) }
}
