//! Finding OpenCL devices: every device of every platform, in one list.
//!
//! libOpenCL is loaded on first use (opencl3's dynamic loading), so the
//! plugin itself loads on machines without OpenCL; a missing library and a
//! loader without any platform (no ICD installed) both come back as
//! `PCE_ERR_NO_DRIVER` with a message saying which.

use backend_api::ffi::{PCE_ERR_DEVICE, PCE_ERR_NO_DEVICE, PCE_ERR_NO_DRIVER};
use backend_api::plugin::{DeviceDescription, PluginError};
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_GPU};
use opencl3::error_codes::ClError;
use opencl3::platform::{get_platforms, Platform};

/// `clGetPlatformIDs` when the ICD loader finds no platform.
const CL_PLATFORM_NOT_FOUND_KHR: i32 = -1001;
/// cl3's code for a libOpenCL that could not be loaded.
const DLOPEN_RUNTIME_LOAD_FAILED: i32 = -2000;

/// One device and the platform it belongs to.
pub struct Found {
    /// The platform.
    pub platform: Platform,
    /// The device.
    pub device: Device,
}

/// A plugin error for an OpenCL call that failed while doing `what`.
pub fn cl_error(what: &str, error: ClError) -> PluginError {
    use backend_api::ffi::PCE_ERR_OUT_OF_MEMORY;
    // CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY, CL_MEM_OBJECT_ALLOCATION_FAILURE,
    // CL_INVALID_BUFFER_SIZE
    let status = match error.0 {
        -5 | -6 | -4 | -61 => PCE_ERR_OUT_OF_MEMORY,
        _ => PCE_ERR_DEVICE,
    };
    PluginError::new(status, format!("OpenCL error {error} while {what}"))
}

/// All devices of all platforms, platforms in the loader's order.
pub fn devices() -> Result<Vec<Found>, PluginError> {
    let platforms = match get_platforms() {
        Ok(platforms) => platforms,
        Err(ClError(DLOPEN_RUNTIME_LOAD_FAILED)) => {
            return Err(PluginError::new(
                PCE_ERR_NO_DRIVER,
                "no OpenCL runtime: libOpenCL.so could not be loaded (install an OpenCL ICD loader and a driver, e.g. ocl-icd-libopencl1 and pocl-opencl-icd)",
            ))
        }
        Err(ClError(CL_PLATFORM_NOT_FOUND_KHR)) => Vec::new(),
        Err(error) => return Err(cl_error("listing OpenCL platforms", error)),
    };
    if platforms.is_empty() {
        return Err(PluginError::new(
            PCE_ERR_NO_DRIVER,
            "no OpenCL platform: the OpenCL loader found no driver (ICD); check /etc/OpenCL/vendors or OCL_ICD_VENDORS",
        ));
    }
    let mut found = Vec::new();
    for platform in platforms {
        // A platform without devices answers CL_DEVICE_NOT_FOUND: skip it.
        for id in platform.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default() {
            found.push(Found {
                platform,
                device: Device::new(id),
            });
        }
    }
    if found.is_empty() {
        return Err(PluginError::new(
            PCE_ERR_NO_DEVICE,
            "no OpenCL device: the OpenCL platforms list no devices",
        ));
    }
    Ok(found)
}

/// Device `index` of [`devices`].
pub fn device(index: u32) -> Result<Found, PluginError> {
    let mut all = devices()?;
    let count = all.len();
    if index as usize >= count {
        return Err(PluginError::invalid(format!(
            "OpenCL device {index} does not exist ({count} found, numbered from 0)"
        )));
    }
    Ok(all.swap_remove(index as usize))
}

/// Whether a device is a GPU (as opposed to a CPU such as PoCL's).
pub fn is_gpu(device: &Device) -> bool {
    device
        .dev_type()
        .is_ok_and(|kind| kind & CL_DEVICE_TYPE_GPU != 0)
}

/// What the ABI reports about a device.
pub fn describe(found: &Found) -> Result<DeviceDescription, PluginError> {
    let device = &found.device;
    let query = |error| cl_error("querying an OpenCL device", error);
    let name = device.name().map_err(query)?;
    let platform = found.platform.name().map_err(query)?;
    let id = match device.uuid_khr() {
        Ok(uuid) => uuid,
        Err(_) => {
            let driver = device.driver_version().unwrap_or_default();
            let key = format!("{platform}\n{name}\n{driver}");
            let hash = blake3::hash(key.as_bytes());
            hash.as_bytes()[..16].try_into().expect("16 bytes")
        }
    };
    Ok(DeviceDescription {
        name: name.trim().to_owned(),
        vendor: format!(
            "{} ({})",
            device.vendor().map_err(query)?.trim(),
            platform.trim()
        ),
        memory_bytes: device.global_mem_size().map_err(query)?,
        compute_units: device.max_compute_units().map_err(query)?,
        id,
    })
}

/// The one-line form of an error for messages that have their own status.
pub fn device_error(message: impl Into<String>) -> PluginError {
    PluginError::new(PCE_ERR_DEVICE, message)
}
