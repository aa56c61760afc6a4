//! The pce-prover backend plugin ABI.
//!
//! NTT and MSM run in shared libraries loaded at run time, so a storage
//! provider swaps GPU vendors without rebuilding and third parties ship
//! their own backends. The contract is the C header
//! `include/pce_backend.h` (mirrored in [`ffi`]); `docs/backend-abi.md`
//! explains it to plugin authors.
//!
//! - [`ffi`]: the C types, field for field;
//! - [`loader`]: finding a plugin by name or path and negotiating the version;
//! - [`host`]: the host's safe wrapper (devices, NTT domains, MSM bases);
//! - [`plugin`]: the Rust plugin author's side: a trait and [`export_backend!`];
//! - [`watchdog`]: a deadline on every long plugin operation.

#[cfg(not(target_endian = "little"))]
compile_error!(
    "the backend ABI passes little-endian limbs in native layout: little-endian targets only"
);

mod crash;
pub mod error;
pub mod ffi;
pub mod host;
#[cfg(feature = "blstrs")]
pub mod interop;
pub mod loader;
pub mod plugin;
pub mod watchdog;

pub use error::{BackendError, LoadError, Status};
pub use ffi::{
    FP2_BYTES, FP_BYTES, FR_BYTES, G1_AFFINE_BYTES, G1_PROJECTIVE_BYTES, G2_AFFINE_BYTES,
    G2_PROJECTIVE_BYTES, SCALAR_BYTES,
};
pub use host::{
    Backend, Device, DeviceInfo, DeviceMemory, Group, MsmBases, NttDirection, NttDomain, G1, G2,
};
