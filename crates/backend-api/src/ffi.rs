//! The C types of `include/pce_backend.h`, field for field.
//!
//! This module and the header must change together; the layout tests at
//! the bottom pin the sizes a C compiler gives the header's structs.

#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_void, CStr};

/// ABI version this crate speaks. Version 2 reaches optional and
/// domain-specific operations by name ([`pce_backend_vtable::get_proc_address`])
/// and takes the host's log callback ([`pce_backend_vtable::set_logger`]);
/// version 1 had `qap_h` as a vtable field.
pub const PCE_BACKEND_ABI_VERSION: u32 = 2;
/// Name of the one symbol a plugin exports.
pub const PCE_BACKEND_ENTRY_SYMBOL: &[u8] = b"pce_backend_entry\0";

/// Bytes of a scalar-field element ([`pce_fr`]).
pub const FR_BYTES: usize = 32;
/// Bytes of an MSM scalar ([`pce_scalar`]).
pub const SCALAR_BYTES: usize = 32;
/// Bytes of a base-field element ([`pce_fp`]).
pub const FP_BYTES: usize = 48;
/// Bytes of a quadratic-extension element ([`pce_fp2`]).
pub const FP2_BYTES: usize = 2 * FP_BYTES;
/// Bytes of a G1 affine point ([`pce_g1_affine`]).
pub const G1_AFFINE_BYTES: usize = 2 * FP_BYTES;
/// Bytes of a G2 affine point ([`pce_g2_affine`]).
pub const G2_AFFINE_BYTES: usize = 2 * FP2_BYTES;
/// Bytes of a G1 Jacobian point ([`pce_g1_projective`]).
pub const G1_PROJECTIVE_BYTES: usize = 3 * FP_BYTES;
/// Bytes of a G2 Jacobian point ([`pce_g2_projective`]).
pub const G2_PROJECTIVE_BYTES: usize = 3 * FP2_BYTES;

/// Status returned by every plugin call; 0 is success.
pub type pce_status = i32;
/// Success.
pub const PCE_OK: pce_status = 0;
/// Bad pointer, size, index or flag.
pub const PCE_ERR_INVALID_ARGUMENT: pce_status = 1;
/// A valid request this backend cannot serve.
pub const PCE_ERR_UNSUPPORTED: pce_status = 2;
/// The vendor runtime or driver is not installed.
pub const PCE_ERR_NO_DRIVER: pce_status = 3;
/// The runtime is there, the device is not.
pub const PCE_ERR_NO_DEVICE: pce_status = 4;
/// Host or device allocation failed.
pub const PCE_ERR_OUT_OF_MEMORY: pce_status = 5;
/// The device or its runtime reported an error.
pub const PCE_ERR_DEVICE: pce_status = 6;
/// A bug in the plugin, e.g. a caught panic.
pub const PCE_ERR_INTERNAL: pce_status = 7;

/// Scalar-field element in Montgomery form (`blst_fr`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct pce_fr {
    /// Little-endian limbs.
    pub l: [u64; 4],
}

/// MSM scalar: canonical little-endian integer below r.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct pce_scalar {
    /// Little-endian limbs.
    pub l: [u64; 4],
}

/// Base-field element in Montgomery form (`blst_fp`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct pce_fp {
    /// Little-endian limbs.
    pub l: [u64; 6],
}

/// Quadratic extension element (`blst_fp2`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct pce_fp2 {
    /// Real part.
    pub c0: pce_fp,
    /// Imaginary part.
    pub c1: pce_fp,
}

/// G1 affine point (`blst_p1_affine`); all-zero is infinity.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct pce_g1_affine {
    /// x coordinate.
    pub x: pce_fp,
    /// y coordinate.
    pub y: pce_fp,
}

/// G2 affine point (`blst_p2_affine`); all-zero is infinity.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct pce_g2_affine {
    /// x coordinate.
    pub x: pce_fp2,
    /// y coordinate.
    pub y: pce_fp2,
}

/// G1 Jacobian point (`blst_p1`); z = 0 is infinity.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct pce_g1_projective {
    /// X.
    pub x: pce_fp,
    /// Y.
    pub y: pce_fp,
    /// Z.
    pub z: pce_fp,
}

/// G2 Jacobian point (`blst_p2`); z = 0 is infinity.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct pce_g2_projective {
    /// X.
    pub x: pce_fp2,
    /// Y.
    pub y: pce_fp2,
    /// Z.
    pub z: pce_fp2,
}

/// Opaque device handle owned by the plugin.
#[repr(C)]
pub struct pce_device {
    _private: [u8; 0],
}

/// Opaque NTT domain handle owned by the plugin.
#[repr(C)]
pub struct pce_ntt_domain {
    _private: [u8; 0],
}

/// Opaque MSM bases handle owned by the plugin.
#[repr(C)]
pub struct pce_msm_bases {
    _private: [u8; 0],
}

/// Description of one device.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pce_device_info {
    /// `size_of::<pce_device_info>()`, set by the host.
    pub struct_size: u32,
    /// Cores, SMs or compute units; 0 if unknown.
    pub compute_units: u32,
    /// Device memory (host memory for a CPU backend).
    pub memory_bytes: u64,
    /// Stable identifier (a UUID where the API has one).
    pub id: [u8; 16],
    /// NUL-terminated name.
    pub name: [c_char; 128],
    /// NUL-terminated vendor.
    pub vendor: [c_char; 64],
}

impl Default for pce_device_info {
    fn default() -> Self {
        Self {
            struct_size: std::mem::size_of::<Self>() as u32,
            compute_units: 0,
            memory_bytes: 0,
            id: [0; 16],
            name: [0; 128],
            vendor: [0; 64],
        }
    }
}

/// Forward transform.
pub const PCE_NTT_FORWARD: u32 = 0;
/// Inverse transform (includes 1/n).
pub const PCE_NTT_INVERSE: u32 = 1;
/// Flag: transform on the coset g·H, g = 7.
pub const PCE_NTT_COSET: u32 = 1;
/// Group G1.
pub const PCE_G1: u32 = 1;
/// Group G2.
pub const PCE_G2: u32 = 2;
/// Bases flag: the host keeps the points alive until release.
pub const PCE_BASES_HOST_RESIDENT: u32 = 1;

/// Log levels of [`pce_log_fn`]; a logger's `max_level` of 0 is "off".
pub const PCE_LOG_ERROR: u32 = 1;
/// Warnings.
pub const PCE_LOG_WARN: u32 = 2;
/// Information.
pub const PCE_LOG_INFO: u32 = 3;
/// Debugging detail.
pub const PCE_LOG_DEBUG: u32 = 4;
/// Tracing detail.
pub const PCE_LOG_TRACE: u32 = 5;

/// The host's log sink: `level` is one of `PCE_LOG_*`, `target` the
/// plugin's module path, both strings NUL-terminated and valid during the
/// call only. Callable from any thread.
pub type pce_log_fn =
    unsafe extern "C" fn(level: u32, target: *const c_char, message: *const c_char);

/// `"qap_h"`: the QAP step of a Groth16 proof in one call (see the header).
pub type pce_qap_h_fn = unsafe extern "C" fn(
    device: *mut pce_device,
    domain: *const pce_ntt_domain,
    data: *mut pce_fr,
) -> pce_status;

/// `"device_memory"`: free and total memory of an open device, in bytes.
pub type pce_device_memory_fn =
    unsafe extern "C" fn(device: *mut pce_device, free: *mut u64, total: *mut u64) -> pce_status;

/// `"ntt_scratch_bytes"`: host memory one `ntt` or `qap_h` call on a domain
/// of size `2^log_size` allocates beyond the caller's data, in bytes.
pub type pce_ntt_scratch_bytes_fn =
    unsafe extern "C" fn(device: *mut pce_device, log_size: u32, bytes: *mut u64) -> pce_status;

/// `"msm_scratch_bytes"`: host memory one `msm` call of `count` terms in
/// `group` ([`PCE_G1`] or [`PCE_G2`]) allocates beyond the caller's data,
/// in bytes.
pub type pce_msm_scratch_bytes_fn = unsafe extern "C" fn(
    device: *mut pce_device,
    group: u32,
    count: u64,
    bytes: *mut u64,
) -> pce_status;

/// `"device_host_bytes"`: the most host memory an open device holds for
/// its own use while it is open (a GPU backend's staging buffers), in bytes.
pub type pce_device_host_bytes_fn =
    unsafe extern "C" fn(device: *mut pce_device, bytes: *mut u64) -> pce_status;

/// Name of the [`pce_qap_h_fn`] operation for `get_proc_address`.
pub const PCE_PROC_QAP_H: &CStr = c"qap_h";
/// Name of the [`pce_device_memory_fn`] operation.
pub const PCE_PROC_DEVICE_MEMORY: &CStr = c"device_memory";
/// Name of the [`pce_ntt_scratch_bytes_fn`] operation.
pub const PCE_PROC_NTT_SCRATCH_BYTES: &CStr = c"ntt_scratch_bytes";
/// Name of the [`pce_msm_scratch_bytes_fn`] operation.
pub const PCE_PROC_MSM_SCRATCH_BYTES: &CStr = c"msm_scratch_bytes";
/// Name of the [`pce_device_host_bytes_fn`] operation.
pub const PCE_PROC_DEVICE_HOST_BYTES: &CStr = c"device_host_bytes";

/// The plugin's table of operations.
///
/// The core operations are curve- and proof-agnostic in shape; optional
/// and domain-specific ones (the QAP step, memory reports) are looked up by
/// name through `get_proc_address`, so adding one needs no new field.
#[repr(C)]
pub struct pce_backend_vtable {
    /// ABI version the plugin implements.
    pub abi_version: u32,
    /// `size_of` this struct as the plugin knows it.
    pub struct_size: u32,
    /// Short name, static, NUL-terminated.
    pub name: *const c_char,
    /// Implementation and version, static, NUL-terminated.
    pub description: *const c_char,
    /// Copies the last error message of this thread; returns its full length.
    pub last_error: unsafe extern "C" fn(buf: *mut c_char, cap: usize) -> usize,
    /// The operation called `name` (e.g. `"qap_h"`), or null when the
    /// plugin does not have it.
    pub get_proc_address: unsafe extern "C" fn(name: *const c_char) -> *mut c_void,
    /// Optional (may be null): gives the plugin the host's log sink and the
    /// most verbose level the host wants; `log` null means "no sink".
    pub set_logger: Option<unsafe extern "C" fn(log: Option<pce_log_fn>, max_level: u32)>,
    /// Number of devices.
    pub device_count: unsafe extern "C" fn(count: *mut u32) -> pce_status,
    /// Describes device `index`.
    pub device_info: unsafe extern "C" fn(index: u32, info: *mut pce_device_info) -> pce_status,
    /// Opens device `index`.
    pub device_open: unsafe extern "C" fn(index: u32, device: *mut *mut pce_device) -> pce_status,
    /// Closes a device.
    pub device_close: unsafe extern "C" fn(device: *mut pce_device),
    /// Prepares NTTs of size `2^log_size`.
    pub ntt_domain_create: unsafe extern "C" fn(
        device: *mut pce_device,
        log_size: u32,
        domain: *mut *mut pce_ntt_domain,
    ) -> pce_status,
    /// Frees a domain.
    pub ntt_domain_destroy: unsafe extern "C" fn(domain: *mut pce_ntt_domain),
    /// Transforms `batch` consecutive vectors in place.
    pub ntt: unsafe extern "C" fn(
        device: *mut pce_device,
        domain: *const pce_ntt_domain,
        direction: u32,
        flags: u32,
        data: *mut pce_fr,
        batch: u32,
    ) -> pce_status,
    /// Makes bases available under a handle.
    pub msm_bases_upload: unsafe extern "C" fn(
        device: *mut pce_device,
        group: u32,
        points: *const c_void,
        count: u64,
        flags: u32,
        bases: *mut *mut pce_msm_bases,
    ) -> pce_status,
    /// Frees bases.
    pub msm_bases_release: unsafe extern "C" fn(bases: *mut pce_msm_bases),
    /// `batch` MSMs over `bases[offset..offset + count]`.
    pub msm: unsafe extern "C" fn(
        device: *mut pce_device,
        bases: *const pce_msm_bases,
        offset: u64,
        count: u64,
        scalars: *const pce_scalar,
        batch: u32,
        out: *mut c_void,
    ) -> pce_status,
}

/// Size of a version-2 vtable: the least `struct_size` a plugin may
/// report. It ends at `msm`, not at the struct's end, so that a field
/// appended later within version 2 stays optional: plugins built before it
/// (a smaller `struct_size`) still load.
pub const PCE_BACKEND_VTABLE_V2_SIZE: usize =
    std::mem::offset_of!(pce_backend_vtable, msm) + std::mem::size_of::<usize>();

// SAFETY: a vtable is immutable static data (function pointers and pointers
// to static strings), shared by all threads of the plugin by contract.
unsafe impl Sync for pce_backend_vtable {}
// SAFETY: as above; nothing in it is tied to the thread that made it.
unsafe impl Send for pce_backend_vtable {}

/// Signature of the entry symbol.
pub type pce_backend_entry_fn = unsafe extern "C" fn(
    host_abi_version: u32,
    plugin_abi_version: *mut u32,
) -> *const pce_backend_vtable;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    #[test]
    fn layouts_match_the_c_header() {
        assert_eq!(size_of::<pce_fr>(), 32);
        assert_eq!(size_of::<pce_scalar>(), 32);
        assert_eq!(size_of::<pce_g1_affine>(), 96);
        assert_eq!(size_of::<pce_g2_affine>(), 192);
        assert_eq!(size_of::<pce_g1_projective>(), 144);
        assert_eq!(size_of::<pce_g2_projective>(), 288);
        assert_eq!(size_of::<pce_device_info>(), 4 + 4 + 8 + 16 + 128 + 64);
        assert_eq!(size_of::<pce_backend_vtable>(), 8 + 2 * 8 + 13 * 8);
        assert_eq!(PCE_BACKEND_VTABLE_V2_SIZE, size_of::<pce_backend_vtable>());
        assert_eq!(size_of::<pce_fr>(), FR_BYTES);
        assert_eq!(size_of::<pce_scalar>(), SCALAR_BYTES);
        assert_eq!(size_of::<pce_fp>(), FP_BYTES);
        assert_eq!(size_of::<pce_fp2>(), FP2_BYTES);
        assert_eq!(size_of::<pce_g1_affine>(), G1_AFFINE_BYTES);
        assert_eq!(size_of::<pce_g2_affine>(), G2_AFFINE_BYTES);
        assert_eq!(size_of::<pce_g1_projective>(), G1_PROJECTIVE_BYTES);
        assert_eq!(size_of::<pce_g2_projective>(), G2_PROJECTIVE_BYTES);
    }
}
