//! The C types of `include/pce_backend.h`, field for field.
//!
//! This module and the header must change together; the layout tests at
//! the bottom pin the sizes a C compiler gives the header's structs.

#![allow(non_camel_case_types)]

use std::ffi::c_char;

/// ABI version this crate speaks.
pub const PCE_BACKEND_ABI_VERSION: u32 = 1;
/// Name of the one symbol a plugin exports.
pub const PCE_BACKEND_ENTRY_SYMBOL: &[u8] = b"pce_backend_entry\0";

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

/// The plugin's table of operations.
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
        points: *const std::ffi::c_void,
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
        out: *mut std::ffi::c_void,
    ) -> pce_status,
    /// Optional: the QAP step (a, b, c to the coefficients of h) in one call;
    /// `None` when the plugin does not provide it.
    pub qap_h: Option<
        unsafe extern "C" fn(
            device: *mut pce_device,
            domain: *const pce_ntt_domain,
            data: *mut pce_fr,
        ) -> pce_status,
    >,
}

/// Size of a version-1 vtable without the optional operations: the least
/// `struct_size` a plugin may report.
pub const PCE_BACKEND_VTABLE_V1_BASE_SIZE: usize = std::mem::offset_of!(pce_backend_vtable, qap_h);

// SAFETY: a vtable is immutable static data (function pointers and pointers
// to static strings), shared by all threads of the plugin by contract.
unsafe impl Sync for pce_backend_vtable {}
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
        assert_eq!(PCE_BACKEND_VTABLE_V1_BASE_SIZE, 8 + 2 * 8 + 11 * 8);
        assert_eq!(size_of::<pce_backend_vtable>(), 8 + 2 * 8 + 12 * 8);
    }
}
