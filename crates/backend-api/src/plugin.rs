//! Writing a backend in Rust: implement [`Plugin`], then `export_backend!(MyPlugin);`.
//!
//! The macro exports `pce_backend_entry` and a static vtable whose functions
//! check pointers, convert handles, catch panics and record error messages
//! for [`crate::ffi::pce_backend_vtable::last_error`], so the trait methods
//! are plain safe Rust returning `Result`. The optional operations are
//! found by name (`get_proc_address`) when the plugin says it has them
//! (`Plugin::QAP_H` and the like); the plugin's `tracing` events go to the
//! host's log callback ([`log`]); [`split`] holds the zeros / ones / rest
//! rule of MSM scalars every plugin applies.

pub mod log;
pub mod split;

use std::any::Any;
use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::ffi::{self, *};

/// An error a plugin reports: a status code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginError {
    /// One of the `PCE_ERR_*` codes.
    pub status: pce_status,
    /// What went wrong, for the user.
    pub message: String,
}

impl PluginError {
    /// An error with `status` and `message`.
    pub fn new(status: pce_status, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    /// `PCE_ERR_INVALID_ARGUMENT`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ffi::PCE_ERR_INVALID_ARGUMENT, message)
    }
}

/// Free and total memory of a device, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryReport {
    /// Bytes that can be allocated now.
    pub free: u64,
    /// Bytes of the device (as the plugin uses it).
    pub total: u64,
}

/// What a plugin says about one of its devices.
#[derive(Debug, Clone, Default)]
pub struct DeviceDescription {
    /// Name.
    pub name: String,
    /// Vendor.
    pub vendor: String,
    /// Memory in bytes.
    pub memory_bytes: u64,
    /// Cores, SMs or compute units.
    pub compute_units: u32,
    /// Stable identifier.
    pub id: [u8; 16],
}

/// Points handed to [`Plugin::upload_bases`], valid for the call.
///
/// When `resident` is true the host keeps the memory alive and unchanged
/// until the bases are released, so the plugin may keep it instead of a
/// copy, through [`Storage::keep`], whose contract says how long: bases
/// that kept the view itself would not compile.
///
/// ```compile_fail
/// use backend_api::ffi::pce_g1_affine;
/// use backend_api::plugin::{HostPoints, Points};
///
/// struct Kept(HostPoints<'static, pce_g1_affine>);
///
/// fn upload_bases(points: Points<'_>) -> Option<Kept> {
///     match points {
///         Points::G1(points) => Some(Kept(points)),
///         Points::G2(_) => None,
///     }
/// }
/// ```
pub struct HostPoints<'a, T> {
    points: &'a [T],
    /// Whether the host lends the memory for the bases' lifetime.
    pub resident: bool,
}

impl<'a, T> HostPoints<'a, T> {
    /// The same memory viewed as another point type of identical layout.
    pub fn cast<U>(self, view: impl Fn(&'a [T]) -> &'a [U]) -> HostPoints<'a, U> {
        HostPoints {
            points: view(self.points),
            resident: self.resident,
        }
    }

    /// The points.
    pub fn as_slice(&self) -> &'a [T] {
        self.points
    }
}

/// Points the host lends until the bases holding them are released.
pub struct Lent<T> {
    ptr: *const T,
    len: usize,
}

// SAFETY: a read-only view of host memory the ABI keeps valid and unchanged
// until the bases holding it are released (a `Lent` is made only by
// `Storage::keep` from resident points, whose caller keeps it in those
// bases); sending it to another thread only shares `T`s, which are `Sync`.
unsafe impl<T: Sync> Send for Lent<T> {}
// SAFETY: as above; the view never writes, so sharing it shares `&T`s.
unsafe impl<T: Sync> Sync for Lent<T> {}

impl<T> Lent<T> {
    /// The points.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: made from a live slice the host lends until release (see
        // the type's Send impl).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// Points a plugin keeps (e.g. MSM bases): a copy, or the host's memory
/// when it lends it.
pub enum Storage<T> {
    /// Copied at upload.
    Owned(Vec<T>),
    /// Lent by the host until release.
    Lent(Lent<T>),
}

impl<T: Copy> Storage<T> {
    /// Keeps `points`: the host's memory where it lends it, else a copy
    /// (`PCE_ERR_OUT_OF_MEMORY` where the host cannot hold one: an SRS
    /// query is tens of GiB).
    ///
    /// # Safety
    /// Lent memory is valid only until the bases are released: the result
    /// must be kept in the bases that the [`Plugin::upload_bases`] call
    /// given `points` returns, and nowhere else (not in a static, not in a
    /// thread that outlives them).
    pub unsafe fn keep(points: HostPoints<'_, T>) -> Result<Self, PluginError> {
        if points.resident {
            return Ok(Storage::Lent(Lent {
                ptr: points.points.as_ptr(),
                len: points.points.len(),
            }));
        }
        let mut copy = Vec::new();
        copy.try_reserve_exact(points.points.len()).map_err(|_| {
            PluginError::new(
                ffi::PCE_ERR_OUT_OF_MEMORY,
                format!(
                    "the host refused the {} bytes of a copy of the bases (a host keeping the points while the bases live can lend them instead: PCE_BASES_HOST_RESIDENT)",
                    std::mem::size_of_val(points.points)
                ),
            )
        })?;
        copy.extend_from_slice(points.points);
        Ok(Storage::Owned(copy))
    }

    /// The points.
    pub fn as_slice(&self) -> &[T] {
        match self {
            Storage::Owned(points) => points,
            Storage::Lent(points) => points.as_slice(),
        }
    }
}

/// Points of either group.
pub enum Points<'a> {
    /// G1 points.
    G1(HostPoints<'a, pce_g1_affine>),
    /// G2 points.
    G2(HostPoints<'a, pce_g2_affine>),
}

/// MSM results of either group.
pub enum MsmResults<'a> {
    /// G1 results.
    G1(&'a mut [pce_g1_projective]),
    /// G2 results.
    G2(&'a mut [pce_g2_projective]),
}

/// A backend implemented in Rust.
pub trait Plugin: 'static {
    /// Short name (`cpu`, `opencl`, ...).
    const NAME: &'static CStr;
    /// Implementation and version.
    const DESCRIPTION: &'static CStr;
    /// An open device.
    type Device: Send + Sync;
    /// A prepared NTT size.
    type Domain: Send + Sync;
    /// MSM bases.
    type Bases: Send + Sync;

    /// Number of devices; `PCE_ERR_NO_DRIVER` when the runtime is missing.
    fn device_count() -> Result<u32, PluginError>;
    /// Describes device `index`.
    fn device_info(index: u32) -> Result<DeviceDescription, PluginError>;
    /// Opens device `index`.
    fn device_open(index: u32) -> Result<Self::Device, PluginError>;
    /// Prepares NTTs of size `2^log_size`.
    fn ntt_domain(device: &Self::Device, log_size: u32) -> Result<Self::Domain, PluginError>;
    /// Transforms `data` (a batch of vectors of the domain's size) in place.
    fn ntt(
        device: &Self::Device,
        domain: &Self::Domain,
        inverse: bool,
        coset: bool,
        data: &mut [pce_fr],
    ) -> Result<(), PluginError>;
    /// Keeps `points` as MSM bases.
    fn upload_bases(device: &Self::Device, points: Points<'_>) -> Result<Self::Bases, PluginError>;
    /// Computes `out.len()` MSMs of `count` terms over `bases[offset..]`;
    /// `scalars` holds `out.len() · count` entries. The range and the group
    /// of `out` are checked against the bases before the call.
    fn msm(
        device: &Self::Device,
        bases: &Self::Bases,
        offset: usize,
        count: usize,
        scalars: &[pce_scalar],
        out: MsmResults<'_>,
    ) -> Result<(), PluginError>;
    /// Whether the plugin has [`Plugin::qap_h`]: `get_proc_address("qap_h")`
    /// finds it only then.
    const QAP_H: bool = false;
    /// Whether the plugin has [`Plugin::device_memory`].
    const DEVICE_MEMORY: bool = false;
    /// Whether the plugin has [`Plugin::ntt_scratch_bytes`].
    const NTT_SCRATCH_BYTES: bool = false;
    /// Whether the plugin has [`Plugin::device_host_bytes`].
    const DEVICE_HOST_BYTES: bool = false;
    /// Whether the plugin has [`Plugin::msm_scratch_bytes`].
    const MSM_SCRATCH_BYTES: bool = false;

    /// Optional ([`Plugin::QAP_H`]): the QAP step in one call, for the
    /// evaluations a, b, c of a satisfied R1CS (see `qap_h` in the header):
    /// `abc` holds a, b, c, each of the domain's size; on return its first
    /// vector holds the coefficients of h. Without it the host composes the
    /// step from [`Plugin::ntt`] calls.
    fn qap_h(
        device: &Self::Device,
        domain: &Self::Domain,
        abc: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        let _ = (device, domain, abc);
        Err(PluginError::new(
            ffi::PCE_ERR_UNSUPPORTED,
            "this backend has no fused QAP step",
        ))
    }
    /// Optional ([`Plugin::DEVICE_MEMORY`]): free and total memory of an
    /// open device.
    fn device_memory(device: &Self::Device) -> Result<MemoryReport, PluginError> {
        let _ = device;
        Err(PluginError::new(
            ffi::PCE_ERR_UNSUPPORTED,
            "this backend does not report its memory",
        ))
    }
    /// Optional ([`Plugin::NTT_SCRATCH_BYTES`]): host memory one NTT (or
    /// QAP step) on a domain of size `2^log_size` allocates beyond the
    /// caller's data.
    fn ntt_scratch_bytes(device: &Self::Device, log_size: u32) -> Result<u64, PluginError> {
        let _ = (device, log_size);
        Ok(0)
    }
    /// Optional ([`Plugin::MSM_SCRATCH_BYTES`]): host memory one MSM of
    /// `count` terms in `group` allocates beyond the caller's data, at
    /// most, whatever the device's state.
    fn msm_scratch_bytes(
        device: &Self::Device,
        group: u32,
        count: u64,
    ) -> Result<u64, PluginError> {
        let _ = (device, group, count);
        Ok(0)
    }
    /// Optional ([`Plugin::DEVICE_HOST_BYTES`]): the most host memory an
    /// open device holds for its own use while it is open (staging
    /// buffers), beyond the caller's data and single calls' scratch.
    fn device_host_bytes(device: &Self::Device) -> Result<u64, PluginError> {
        let _ = device;
        Ok(0)
    }
    /// Number of elements of one vector of a domain.
    fn domain_size(domain: &Self::Domain) -> usize;
    /// Number of points and group (`PCE_G1`/`PCE_G2`) of some bases.
    fn bases_shape(bases: &Self::Bases) -> (usize, u32);
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("unknown panic")
}

/// Runs `f`, catching panics and recording the message of any failure;
/// a success clears the message (`last_error` then returns 0).
#[doc(hidden)]
pub fn guard(f: impl FnOnce() -> Result<(), PluginError>) -> pce_status {
    let result = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        Err(PluginError::new(
            PCE_ERR_INTERNAL,
            format!("plugin panicked: {}", panic_message(&*panic)),
        ))
    });
    match result {
        Ok(()) => {
            LAST_ERROR.with(|last| last.borrow_mut().clear());
            PCE_OK
        }
        Err(error) => {
            LAST_ERROR.with(|last| *last.borrow_mut() = error.message);
            error.status
        }
    }
}

fn non_null<T>(ptr: *const T, what: &str) -> Result<(), PluginError> {
    if ptr.is_null() {
        Err(PluginError::invalid(format!("{what} is null")))
    } else {
        Ok(())
    }
}

unsafe extern "C" fn last_error(buf: *mut c_char, cap: usize) -> usize {
    LAST_ERROR.with(|last| {
        let last = last.borrow();
        if !buf.is_null() && cap > 0 {
            let n = last.len().min(cap - 1);
            // SAFETY: the host provides `cap` writable bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(last.as_ptr() as *const c_char, buf, n);
                *buf.add(n) = 0;
            }
        }
        last.len()
    })
}

unsafe extern "C" fn device_count<P: Plugin>(count: *mut u32) -> pce_status {
    guard(|| {
        non_null(count, "count")?;
        let n = P::device_count()?;
        // SAFETY: checked non-null; the host provides the out-pointer.
        unsafe { *count = n };
        Ok(())
    })
}

fn copy_text(dst: &mut [c_char], text: &str) {
    let n = text.len().min(dst.len() - 1);
    for (d, s) in dst.iter_mut().zip(text.as_bytes()[..n].iter()) {
        *d = *s as c_char;
    }
    dst[n] = 0;
}

unsafe extern "C" fn device_info<P: Plugin>(index: u32, info: *mut pce_device_info) -> pce_status {
    guard(|| {
        non_null(info, "info")?;
        // SAFETY: checked non-null; the ABI makes `struct_size` the first
        // field of every version, so it is read alone, before the whole
        // struct is known to be there.
        let struct_size = unsafe { std::ptr::addr_of!((*info).struct_size).read() };
        if (struct_size as usize) < std::mem::size_of::<pce_device_info>() {
            return Err(PluginError::invalid(format!(
                "pce_device_info.struct_size {struct_size} too small"
            )));
        }
        // SAFETY: non-null, and the host says it is this whole struct.
        let info = unsafe { &mut *info };
        let description = P::device_info(index)?;
        copy_text(&mut info.name, &description.name);
        copy_text(&mut info.vendor, &description.vendor);
        info.memory_bytes = description.memory_bytes;
        info.compute_units = description.compute_units;
        info.id = description.id;
        Ok(())
    })
}

unsafe extern "C" fn device_open<P: Plugin>(
    index: u32,
    device: *mut *mut pce_device,
) -> pce_status {
    guard(|| {
        non_null(device, "device")?;
        let opened = Box::new(P::device_open(index)?);
        // SAFETY: checked non-null.
        unsafe { *device = Box::into_raw(opened) as *mut pce_device };
        Ok(())
    })
}

unsafe extern "C" fn device_close<P: Plugin>(device: *mut pce_device) {
    if !device.is_null() {
        guard(|| {
            // SAFETY: created by device_open as a Box<P::Device>.
            drop(unsafe { Box::from_raw(device as *mut P::Device) });
            Ok(())
        });
    }
}

/// # Safety
/// `ptr` is null or a live handle created as a `Box<T>`.
unsafe fn handle<'a, T>(ptr: *const c_void, what: &str) -> Result<&'a T, PluginError> {
    non_null(ptr, what)?;
    // SAFETY: per the function contract.
    Ok(unsafe { &*(ptr as *const T) })
}

/// What a domain or bases handle points to: the plugin's value and the
/// device it was made on, which every use must name (a GPU's twiddles or
/// bases handed to another GPU's kernels would fault that device's
/// context for the rest of the process).
struct OnDevice<T> {
    device: *const c_void,
    value: T,
}

/// The value behind handle `ptr` (`what`), made on `device`.
///
/// # Safety
/// `ptr` is null or a live handle of this plugin holding an `OnDevice<T>`.
unsafe fn handle_on<'a, T>(
    ptr: *const c_void,
    what: &str,
    device: *mut pce_device,
) -> Result<&'a T, PluginError> {
    // SAFETY: per the function contract.
    let on = unsafe { handle::<OnDevice<T>>(ptr, what)? };
    if on.device != device as *const c_void {
        return Err(PluginError::invalid(format!(
            "the {what} belongs to another device"
        )));
    }
    Ok(&on.value)
}

unsafe extern "C" fn ntt_domain_create<P: Plugin>(
    device: *mut pce_device,
    log_size: u32,
    domain: *mut *mut pce_ntt_domain,
) -> pce_status {
    guard(|| {
        let on = device as *const c_void;
        // SAFETY: a device handle of this plugin.
        let device = unsafe { handle::<P::Device>(on, "device")? };
        non_null(domain, "domain")?;
        if !(1..=32).contains(&log_size) {
            return Err(PluginError::invalid(format!(
                "log_size {log_size} outside 1..=32"
            )));
        }
        let value = P::ntt_domain(device, log_size)?;
        let created = Box::new(OnDevice { device: on, value });
        // SAFETY: checked non-null.
        unsafe { *domain = Box::into_raw(created) as *mut pce_ntt_domain };
        Ok(())
    })
}

unsafe extern "C" fn ntt_domain_destroy<P: Plugin>(domain: *mut pce_ntt_domain) {
    if !domain.is_null() {
        guard(|| {
            // SAFETY: created by ntt_domain_create as a Box<OnDevice<P::Domain>>.
            drop(unsafe { Box::from_raw(domain as *mut OnDevice<P::Domain>) });
            Ok(())
        });
    }
}

/// Wraps [`Plugin::ntt`]; the plugin only ever sees whole, non-empty
/// batches (a batch of 0 is a successful no-op, `data` may then be null).
unsafe extern "C" fn ntt<P: Plugin>(
    device: *mut pce_device,
    domain: *const pce_ntt_domain,
    direction: u32,
    flags: u32,
    data: *mut pce_fr,
    batch: u32,
) -> pce_status {
    guard(|| {
        let raw_device = device;
        // SAFETY: a device handle of this plugin.
        let device = unsafe { handle::<P::Device>(raw_device as *const c_void, "device")? };
        // SAFETY: a domain handle of this plugin.
        let domain =
            unsafe { handle_on::<P::Domain>(domain as *const c_void, "domain", raw_device)? };
        let inverse = match direction {
            PCE_NTT_FORWARD => false,
            PCE_NTT_INVERSE => true,
            other => {
                return Err(PluginError::invalid(format!(
                    "unknown NTT direction {other}"
                )))
            }
        };
        if flags & !PCE_NTT_COSET != 0 {
            return Err(PluginError::invalid(format!(
                "unknown NTT flags {flags:#x}"
            )));
        }
        if batch == 0 {
            return Ok(());
        }
        non_null(data, "data")?;
        let len = (batch as usize)
            .checked_mul(P::domain_size(domain))
            .ok_or_else(|| PluginError::invalid(format!("batch of {batch} vectors")))?;
        // SAFETY: the host provides batch·n elements.
        let data = unsafe { std::slice::from_raw_parts_mut(data, len) };
        P::ntt(device, domain, inverse, flags & PCE_NTT_COSET != 0, data)
    })
}

/// Wraps [`Plugin::qap_h`]; found by name as `"qap_h"`.
unsafe extern "C" fn qap_h<P: Plugin>(
    device: *mut pce_device,
    domain: *const pce_ntt_domain,
    data: *mut pce_fr,
) -> pce_status {
    guard(|| {
        let raw_device = device;
        // SAFETY: a device handle of this plugin.
        let device = unsafe { handle::<P::Device>(raw_device as *const c_void, "device")? };
        // SAFETY: a domain handle of this plugin.
        let domain =
            unsafe { handle_on::<P::Domain>(domain as *const c_void, "domain", raw_device)? };
        non_null(data, "data")?;
        // SAFETY: the host provides three vectors of the domain's size.
        let abc = unsafe { std::slice::from_raw_parts_mut(data, 3 * P::domain_size(domain)) };
        P::qap_h(device, domain, abc)
    })
}

/// Wraps [`Plugin::device_memory`]; found by name as `"device_memory"`.
unsafe extern "C" fn device_memory<P: Plugin>(
    device: *mut pce_device,
    free: *mut u64,
    total: *mut u64,
) -> pce_status {
    guard(|| {
        // SAFETY: a device handle of this plugin.
        let device = unsafe { handle::<P::Device>(device as *const c_void, "device")? };
        non_null(free, "free")?;
        non_null(total, "total")?;
        let report = P::device_memory(device)?;
        // SAFETY: checked non-null; the host provides the out-pointers.
        unsafe {
            *free = report.free;
            *total = report.total;
        }
        Ok(())
    })
}

/// Wraps [`Plugin::ntt_scratch_bytes`]; found by name as `"ntt_scratch_bytes"`.
unsafe extern "C" fn ntt_scratch_bytes<P: Plugin>(
    device: *mut pce_device,
    log_size: u32,
    bytes: *mut u64,
) -> pce_status {
    guard(|| {
        // SAFETY: a device handle of this plugin.
        let device = unsafe { handle::<P::Device>(device as *const c_void, "device")? };
        non_null(bytes, "bytes")?;
        if !(1..=32).contains(&log_size) {
            return Err(PluginError::invalid(format!(
                "log_size {log_size} outside 1..=32"
            )));
        }
        let scratch = P::ntt_scratch_bytes(device, log_size)?;
        // SAFETY: checked non-null; the host provides the out-pointer.
        unsafe { *bytes = scratch };
        Ok(())
    })
}

/// Wraps [`Plugin::msm_scratch_bytes`]; found by name as `"msm_scratch_bytes"`.
unsafe extern "C" fn msm_scratch_bytes<P: Plugin>(
    device: *mut pce_device,
    group: u32,
    count: u64,
    bytes: *mut u64,
) -> pce_status {
    guard(|| {
        // SAFETY: a device handle of this plugin.
        let device = unsafe { handle::<P::Device>(device as *const c_void, "device")? };
        non_null(bytes, "bytes")?;
        if group != ffi::PCE_G1 && group != ffi::PCE_G2 {
            return Err(PluginError::invalid(format!("unknown group {group}")));
        }
        let scratch = P::msm_scratch_bytes(device, group, count)?;
        // SAFETY: checked non-null; the host provides the out-pointer.
        unsafe { *bytes = scratch };
        Ok(())
    })
}

/// Wraps [`Plugin::device_host_bytes`]; found by name as `"device_host_bytes"`.
unsafe extern "C" fn device_host_bytes<P: Plugin>(
    device: *mut pce_device,
    bytes: *mut u64,
) -> pce_status {
    guard(|| {
        // SAFETY: a device handle of this plugin.
        let device = unsafe { handle::<P::Device>(device as *const c_void, "device")? };
        non_null(bytes, "bytes")?;
        let held = P::device_host_bytes(device)?;
        // SAFETY: checked non-null; the host provides the out-pointer.
        unsafe { *bytes = held };
        Ok(())
    })
}

/// The operations of `P` found by name: those it says it has.
unsafe extern "C" fn get_proc_address<P: Plugin>(name: *const c_char) -> *mut c_void {
    if name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the host passes a NUL-terminated string.
    let name = unsafe { CStr::from_ptr(name) };
    let found: Option<*mut c_void> = if name == PCE_PROC_QAP_H {
        P::QAP_H.then_some(qap_h::<P> as pce_qap_h_fn as *mut c_void)
    } else if name == PCE_PROC_DEVICE_MEMORY {
        P::DEVICE_MEMORY.then_some(device_memory::<P> as pce_device_memory_fn as *mut c_void)
    } else if name == PCE_PROC_NTT_SCRATCH_BYTES {
        P::NTT_SCRATCH_BYTES
            .then_some(ntt_scratch_bytes::<P> as pce_ntt_scratch_bytes_fn as *mut c_void)
    } else if name == PCE_PROC_MSM_SCRATCH_BYTES {
        P::MSM_SCRATCH_BYTES
            .then_some(msm_scratch_bytes::<P> as pce_msm_scratch_bytes_fn as *mut c_void)
    } else if name == PCE_PROC_DEVICE_HOST_BYTES {
        P::DEVICE_HOST_BYTES
            .then_some(device_host_bytes::<P> as pce_device_host_bytes_fn as *mut c_void)
    } else {
        None
    };
    found.unwrap_or(std::ptr::null_mut())
}

unsafe extern "C" fn set_logger(log: Option<pce_log_fn>, max_level: u32) {
    log::set_sink(log, max_level);
}

unsafe extern "C" fn msm_bases_upload<P: Plugin>(
    device: *mut pce_device,
    group: u32,
    points: *const c_void,
    count: u64,
    flags: u32,
    bases: *mut *mut pce_msm_bases,
) -> pce_status {
    guard(|| {
        let on = device as *const c_void;
        // SAFETY: a device handle of this plugin.
        let device = unsafe { handle::<P::Device>(on, "device")? };
        non_null(bases, "bases")?;
        if count > 0 {
            non_null(points, "points")?;
        }
        if flags & !PCE_BASES_HOST_RESIDENT != 0 {
            return Err(PluginError::invalid(format!(
                "unknown bases flags {flags:#x}"
            )));
        }
        let len = usize::try_from(count).map_err(|_| PluginError::invalid("count overflows"))?;
        let resident = flags & PCE_BASES_HOST_RESIDENT != 0;
        /// `len` points of type `T` at `points`, or none.
        ///
        /// # Safety
        /// Non-null with `len > 0`, and the host provides `len` of them.
        unsafe fn view<'a, T>(points: *const c_void, len: usize) -> &'a [T] {
            match len {
                0 => &[],
                // SAFETY: per the function contract.
                _ => unsafe { std::slice::from_raw_parts(points as *const T, len) },
            }
        }
        let points = match group {
            PCE_G1 => Points::G1(HostPoints {
                // SAFETY: checked non-null when non-empty; the host
                // provides `count` points of the group.
                points: unsafe { view::<pce_g1_affine>(points, len) },
                resident,
            }),
            PCE_G2 => Points::G2(HostPoints {
                // SAFETY: as above.
                points: unsafe { view::<pce_g2_affine>(points, len) },
                resident,
            }),
            other => return Err(PluginError::invalid(format!("unknown group {other}"))),
        };
        let value = P::upload_bases(device, points)?;
        let created = Box::new(OnDevice { device: on, value });
        // SAFETY: checked non-null.
        unsafe { *bases = Box::into_raw(created) as *mut pce_msm_bases };
        Ok(())
    })
}

unsafe extern "C" fn msm_bases_release<P: Plugin>(bases: *mut pce_msm_bases) {
    if !bases.is_null() {
        guard(|| {
            // SAFETY: created by msm_bases_upload as a Box<OnDevice<P::Bases>>.
            drop(unsafe { Box::from_raw(bases as *mut OnDevice<P::Bases>) });
            Ok(())
        });
    }
}

/// Wraps [`Plugin::msm`]: the range is checked against the bases first; a
/// batch of 0 is then a successful no-op (`scalars` and `out` may be null).
unsafe extern "C" fn msm<P: Plugin>(
    device: *mut pce_device,
    bases: *const pce_msm_bases,
    offset: u64,
    count: u64,
    scalars: *const pce_scalar,
    batch: u32,
    out: *mut c_void,
) -> pce_status {
    guard(|| {
        let raw_device = device;
        // SAFETY: a device handle of this plugin.
        let device = unsafe { handle::<P::Device>(raw_device as *const c_void, "device")? };
        // SAFETY: a bases handle of this plugin.
        let bases = unsafe { handle_on::<P::Bases>(bases as *const c_void, "bases", raw_device)? };
        let (len, group) = P::bases_shape(bases);
        if offset.checked_add(count).is_none_or(|end| end > len as u64) {
            return Err(PluginError::invalid(format!(
                "range {offset}..+{count} outside {len} bases"
            )));
        }
        if batch == 0 {
            return Ok(());
        }
        non_null(out, "out")?;
        let (offset, count, batch) = (offset as usize, count as usize, batch as usize);
        let total = count
            .checked_mul(batch)
            .ok_or_else(|| PluginError::invalid("batch overflows"))?;
        let scalars = if total == 0 {
            &[][..]
        } else {
            non_null(scalars, "scalars")?;
            // SAFETY: the host provides batch·count scalars.
            unsafe { std::slice::from_raw_parts(scalars, total) }
        };
        let out = match group {
            // SAFETY: the host provides `batch` results of the bases' group.
            PCE_G1 => MsmResults::G1(unsafe {
                std::slice::from_raw_parts_mut(out as *mut pce_g1_projective, batch)
            }),
            // SAFETY: as above.
            _ => MsmResults::G2(unsafe {
                std::slice::from_raw_parts_mut(out as *mut pce_g2_projective, batch)
            }),
        };
        P::msm(device, bases, offset, count, scalars, out)
    })
}

/// The vtable of plugin `P`; used by [`export_backend!`](crate::export_backend!).
pub const fn vtable<P: Plugin>() -> pce_backend_vtable {
    pce_backend_vtable {
        abi_version: PCE_BACKEND_ABI_VERSION,
        struct_size: std::mem::size_of::<pce_backend_vtable>() as u32,
        name: P::NAME.as_ptr(),
        description: P::DESCRIPTION.as_ptr(),
        last_error,
        get_proc_address: get_proc_address::<P>,
        set_logger: Some(set_logger),
        device_count: device_count::<P>,
        device_info: device_info::<P>,
        device_open: device_open::<P>,
        device_close: device_close::<P>,
        ntt_domain_create: ntt_domain_create::<P>,
        ntt_domain_destroy: ntt_domain_destroy::<P>,
        ntt: ntt::<P>,
        msm_bases_upload: msm_bases_upload::<P>,
        msm_bases_release: msm_bases_release::<P>,
        msm: msm::<P>,
    }
}

/// The entry point's negotiation: reports this ABI version and returns the
/// vtable if the host speaks it.
///
/// # Safety
/// `plugin_abi_version` is null or valid for a write.
#[doc(hidden)]
pub unsafe fn entry(
    vtable: &'static pce_backend_vtable,
    host_abi_version: u32,
    plugin_abi_version: *mut u32,
) -> *const pce_backend_vtable {
    if !plugin_abi_version.is_null() {
        // SAFETY: per the function contract.
        unsafe { *plugin_abi_version = vtable.abi_version };
    }
    log::install();
    if host_abi_version == vtable.abi_version {
        vtable
    } else {
        std::ptr::null()
    }
}

/// Exports `pce_backend_entry` for a type implementing [`Plugin`].
#[macro_export]
macro_rules! export_backend {
    ($plugin:ty) => {
        /// The backend entry point (see `pce_backend.h`).
        ///
        /// # Safety
        /// `plugin_abi_version` is null or valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn pce_backend_entry(
            host_abi_version: u32,
            plugin_abi_version: *mut u32,
        ) -> *const $crate::ffi::pce_backend_vtable {
            static VTABLE: $crate::ffi::pce_backend_vtable = $crate::plugin::vtable::<$plugin>();
            // SAFETY: forwarded from the caller.
            unsafe { $crate::plugin::entry(&VTABLE, host_abi_version, plugin_abi_version) }
        }
    };
}
