//! Finding the CUDA driver and its devices without ever panicking.
//!
//! cudarc loads libcuda and libnvrtc on first use and panics when they are
//! missing, so every path into it starts with [`probe`], which checks that
//! the libraries can be loaded and turns their absence into
//! `PCE_ERR_NO_DRIVER` with a message saying which one is missing.

use backend_api::ffi::{PCE_ERR_DEVICE, PCE_ERR_NO_DEVICE, PCE_ERR_NO_DRIVER};
use backend_api::plugin::{DeviceDescription, PluginError};
use cudarc::driver::result;
use cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cudarc::driver::DriverError;

/// A plugin error for a CUDA call that failed while doing `what`.
pub fn cuda_error(what: &str, error: DriverError) -> PluginError {
    let status = match error.0 {
        CUresult::CUDA_ERROR_OUT_OF_MEMORY => backend_api::ffi::PCE_ERR_OUT_OF_MEMORY,
        CUresult::CUDA_ERROR_NO_DEVICE => PCE_ERR_NO_DEVICE,
        _ => PCE_ERR_DEVICE,
    };
    PluginError::new(status, format!("CUDA error {error} while {what}"))
}

/// Checks that the CUDA driver library is there and initialises it.
pub fn probe() -> Result<(), PluginError> {
    // SAFETY: only tries to load the library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(PluginError::new(
            PCE_ERR_NO_DRIVER,
            "no CUDA driver: libcuda.so could not be loaded (install the NVIDIA driver)",
        ));
    }
    result::init().map_err(|e| match e.0 {
        CUresult::CUDA_ERROR_NO_DEVICE => {
            PluginError::new(PCE_ERR_NO_DEVICE, "no CUDA device: the driver found no GPU")
        }
        _ => cuda_error("initialising the CUDA driver", e),
    })
}

/// Checks that NVRTC, which compiles the kernels, can be loaded.
pub fn probe_nvrtc() -> Result<(), PluginError> {
    // SAFETY: only tries to load the library.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(PluginError::new(
            PCE_ERR_NO_DRIVER,
            "no NVRTC: libnvrtc.so could not be loaded (install the CUDA toolkit's NVRTC, or `pip install nvidia-cuda-nvrtc` and add its lib directory to LD_LIBRARY_PATH)",
        ));
    }
    Ok(())
}

/// Number of CUDA devices.
pub fn count() -> Result<u32, PluginError> {
    probe()?;
    let count = result::device::get_count().map_err(|e| cuda_error("counting devices", e))?;
    if count <= 0 {
        return Err(PluginError::new(
            PCE_ERR_NO_DEVICE,
            "no CUDA device: the driver found no GPU",
        ));
    }
    Ok(count as u32)
}

/// Checks that device `index` exists.
pub fn check_index(index: u32) -> Result<(), PluginError> {
    let count = count()?;
    if index >= count {
        return Err(PluginError::invalid(format!(
            "CUDA device {index} does not exist ({count} found, numbered from 0)"
        )));
    }
    Ok(())
}

/// What the ABI reports about device `index`.
pub fn describe(index: u32) -> Result<DeviceDescription, PluginError> {
    check_index(index)?;
    let query = |e| cuda_error("querying a CUDA device", e);
    let device = result::device::get(index as i32).map_err(query)?;
    let name = result::device::get_name(device).map_err(query)?;
    // SAFETY: `device` is a valid device handle.
    let memory = unsafe { result::device::total_mem(device) }.map_err(query)?;
    // SAFETY: as above.
    let units = unsafe {
        result::device::get_attribute(
            device,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
    }
    .map_err(query)?;
    let uuid = result::device::get_uuid(device).map_err(query)?;
    Ok(DeviceDescription {
        name,
        vendor: "NVIDIA".to_owned(),
        memory_bytes: memory as u64,
        compute_units: units.max(0) as u32,
        id: uuid.bytes.map(|b| b as u8),
    })
}
