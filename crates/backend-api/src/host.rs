//! The host's safe view of a loaded plugin.
//!
//! Every call goes through `Backend::call`, which turns a status into a
//! [`BackendError`] carrying the plugin's message. Handles free themselves
//! through the plugin when dropped, and their lifetimes keep the device
//! (and, for host-resident bases, the points) alive as long as needed.
//! Optional operations are looked up by name once, at load, and a missing
//! one is an answer (`None`, `false`, 0), never an error.

use std::ffi::{c_char, c_void, CStr};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::Arc;

use crate::error::{BackendError, Status};
use crate::ffi::{self, *};

pub(crate) struct BackendInner {
    pub(crate) path: PathBuf,
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) vtable: &'static pce_backend_vtable,
    pub(crate) ops: Operations,
}

/// The optional operations a plugin has, found by name at load.
#[derive(Default)]
pub(crate) struct Operations {
    pub(crate) qap_h: Option<pce_qap_h_fn>,
    pub(crate) device_memory: Option<pce_device_memory_fn>,
    pub(crate) ntt_scratch_bytes: Option<pce_ntt_scratch_bytes_fn>,
    pub(crate) device_host_bytes: Option<pce_device_host_bytes_fn>,
    pub(crate) msm_scratch_bytes: Option<pce_msm_scratch_bytes_fn>,
}

impl Operations {
    /// Looks each operation up through `get_proc_address`.
    ///
    /// # Safety
    /// `vtable` is a plugin's valid vtable, whose `get_proc_address` returns
    /// null or a function of the signature the header gives that name.
    pub(crate) unsafe fn find(vtable: &pce_backend_vtable) -> Self {
        // SAFETY: a static NUL-terminated name; per the function contract.
        let find = |name: &CStr| unsafe { (vtable.get_proc_address)(name.as_ptr()) };
        // SAFETY: non-null addresses have the signature of their name (the
        // function contract); fn pointers and data pointers share a size.
        unsafe {
            Self {
                qap_h: as_fn(find(PCE_PROC_QAP_H)),
                device_memory: as_fn(find(PCE_PROC_DEVICE_MEMORY)),
                ntt_scratch_bytes: as_fn(find(PCE_PROC_NTT_SCRATCH_BYTES)),
                device_host_bytes: as_fn(find(PCE_PROC_DEVICE_HOST_BYTES)),
                msm_scratch_bytes: as_fn(find(PCE_PROC_MSM_SCRATCH_BYTES)),
            }
        }
    }
}

/// `address` as the function type `F`, `None` when null.
///
/// # Safety
/// `address` is null or the address of a function of type `F`, and `F` is
/// a function pointer type.
unsafe fn as_fn<F: Copy>(address: *mut c_void) -> Option<F> {
    debug_assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
    // SAFETY: per the function contract.
    (!address.is_null()).then(|| unsafe { std::mem::transmute_copy::<*mut c_void, F>(&address) })
}

/// Free and total memory of a device, in bytes, as its plugin reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceMemory {
    /// Bytes that can be allocated now.
    pub free: u64,
    /// Bytes of the device (as the plugin uses it).
    pub total: u64,
}

/// A loaded backend plugin. Cheap to clone.
#[derive(Clone)]
pub struct Backend {
    pub(crate) inner: Arc<BackendInner>,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("name", &self.inner.name)
            .field("path", &self.inner.path)
            .finish()
    }
}

/// One device as the plugin describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Index to open it with.
    pub index: u32,
    /// Name.
    pub name: String,
    /// Vendor.
    pub vendor: String,
    /// Memory in bytes.
    pub memory_bytes: u64,
    /// Cores, SMs or compute units; 0 if unknown.
    pub compute_units: u32,
    /// Stable identifier, formatted as a UUID.
    pub id: String,
}

/// Longest plugin error message kept, in bytes.
const MAX_ERROR_MESSAGE: usize = 64 << 10;
/// More devices than any machine has: a count above it is a plugin bug,
/// not a reason to describe four billion devices.
pub const MAX_DEVICES: u32 = 4096;

fn c_text(bytes: &[c_char]) -> String {
    let bytes: Vec<u8> = bytes
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn uuid_text(id: &[u8; 16]) -> String {
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// Direction of an NTT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NttDirection {
    /// Coefficients to evaluations.
    Forward,
    /// Evaluations to coefficients, including the factor 1/n.
    Inverse,
}

impl Backend {
    /// Short name the plugin gives itself.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The plugin's description of its implementation.
    pub fn description(&self) -> &str {
        &self.inner.description
    }

    /// The file the plugin was loaded from.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The plugin's vtable, for tools that exercise the raw ABI (such as
    /// `backend-check`'s edge cases); everything else goes through the
    /// safe methods.
    pub fn vtable(&self) -> &'static pce_backend_vtable {
        self.inner.vtable
    }

    /// Whether the plugin has the operation called `name` (e.g. `"qap_h"`).
    pub fn has_operation(&self, name: &CStr) -> bool {
        // SAFETY: a NUL-terminated name; the lookup only reads it.
        !unsafe { (self.vtable().get_proc_address)(name.as_ptr()) }.is_null()
    }

    fn error(&self, operation: &'static str, status: Status, message: String) -> BackendError {
        BackendError {
            backend: self.inner.name.clone(),
            device: None,
            operation,
            status,
            message,
        }
    }

    /// Turns a status into a result, fetching the plugin's message on failure.
    fn call(&self, operation: &'static str, status: pce_status) -> Result<(), BackendError> {
        if status == ffi::PCE_OK {
            return Ok(());
        }
        let mut buf = vec![0 as c_char; 1024];
        // SAFETY: the buffer is valid for `buf.len()` bytes.
        let len = unsafe { (self.vtable().last_error)(buf.as_mut_ptr(), buf.len()) };
        if len >= buf.len() {
            // The length is the plugin's word: a longer message is cut.
            buf = vec![0 as c_char; len.min(MAX_ERROR_MESSAGE) + 1];
            // SAFETY: as above, with room for the whole message.
            unsafe { (self.vtable().last_error)(buf.as_mut_ptr(), buf.len()) };
        }
        *buf.last_mut().expect("non-empty buffer") = 0;
        // SAFETY: NUL-terminated above.
        let message = unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let message = if message.is_empty() {
            "no message".to_owned()
        } else {
            message
        };
        Err(self.error(operation, Status(status), message))
    }

    /// The plugin's devices.
    pub fn devices(&self) -> Result<Vec<DeviceInfo>, BackendError> {
        let mut count = 0u32;
        // SAFETY: valid out-pointer.
        self.call("device_count", unsafe {
            (self.vtable().device_count)(&mut count)
        })?;
        if count > MAX_DEVICES {
            return Err(self.error(
                "device_count",
                Status(ffi::PCE_ERR_INTERNAL),
                format!("reported {count} devices, more than the {MAX_DEVICES} any machine has"),
            ));
        }
        (0..count)
            .map(|index| {
                let mut info = pce_device_info::default();
                // SAFETY: valid out-pointer with struct_size set.
                self.call("device_info", unsafe {
                    (self.vtable().device_info)(index, &mut info)
                })?;
                Ok(DeviceInfo {
                    index,
                    name: c_text(&info.name),
                    vendor: c_text(&info.vendor),
                    memory_bytes: info.memory_bytes,
                    compute_units: info.compute_units,
                    id: uuid_text(&info.id),
                })
            })
            .collect()
    }

    /// Opens device `index`.
    pub fn open(&self, index: u32) -> Result<Device, BackendError> {
        let mut handle = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        self.call("device_open", unsafe {
            (self.vtable().device_open)(index, &mut handle)
        })?;
        let handle = NonNull::new(handle).ok_or_else(|| {
            self.error(
                "device_open",
                Status(ffi::PCE_ERR_INTERNAL),
                "returned a null device".into(),
            )
        })?;
        Ok(Device {
            backend: self.clone(),
            handle,
            index,
        })
    }
}

/// An open device; closed when dropped.
pub struct Device {
    backend: Backend,
    handle: NonNull<pce_device>,
    index: u32,
}

// SAFETY: the ABI requires plugins to accept calls on a device from any
// thread, concurrently, and to let any thread close it.
unsafe impl Send for Device {}
// SAFETY: as above: concurrent calls on one device are allowed.
unsafe impl Sync for Device {}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: the handle came from device_open and is closed once.
        unsafe { (self.backend.vtable().device_close)(self.handle.as_ptr()) }
    }
}

/// A prepared NTT size on a device; destroyed when dropped.
pub struct NttDomain<'d> {
    device: &'d Device,
    handle: NonNull<pce_ntt_domain>,
    log_size: u32,
}

// SAFETY: the ABI lets a domain be used and destroyed from any thread.
unsafe impl Send for NttDomain<'_> {}
// SAFETY: the ABI lets a domain be used from several threads at once.
unsafe impl Sync for NttDomain<'_> {}

impl NttDomain<'_> {
    /// The plugin's handle of this domain, for raw ABI calls.
    pub fn as_raw(&self) -> *mut pce_ntt_domain {
        self.handle.as_ptr()
    }

    /// log2 of the transform size.
    pub fn log_size(&self) -> u32 {
        self.log_size
    }

    /// Transform size.
    pub fn size(&self) -> usize {
        1usize << self.log_size
    }
}

impl Drop for NttDomain<'_> {
    fn drop(&mut self) {
        // SAFETY: created by ntt_domain_create, destroyed once.
        unsafe { (self.device.backend.vtable().ntt_domain_destroy)(self.handle.as_ptr()) }
    }
}

/// A curve group whose points an MSM runs over.
pub trait Group {
    /// Affine point layout.
    type Affine: Copy;
    /// Projective (Jacobian) result layout.
    type Projective: Copy + Default;
    /// The ABI's group code.
    const CODE: u32;
}

/// G1 of BLS12-381.
pub enum G1 {}
/// G2 of BLS12-381.
pub enum G2 {}

impl Group for G1 {
    type Affine = pce_g1_affine;
    type Projective = pce_g1_projective;
    const CODE: u32 = PCE_G1;
}

impl Group for G2 {
    type Affine = pce_g2_affine;
    type Projective = pce_g2_projective;
    const CODE: u32 = PCE_G2;
}

/// MSM bases under a plugin handle; released when dropped.
pub struct MsmBases<'a, G: Group> {
    device: &'a Device,
    handle: NonNull<pce_msm_bases>,
    len: usize,
    _group: PhantomData<G>,
}

// SAFETY: the ABI lets bases be used and released from any thread; the
// points they may borrow are shared read-only.
unsafe impl<G: Group> Send for MsmBases<'_, G> {}
// SAFETY: the ABI lets MSMs over the same bases run concurrently.
unsafe impl<G: Group> Sync for MsmBases<'_, G> {}

impl<G: Group> MsmBases<'_, G> {
    /// The plugin's handle of these bases, for raw ABI calls.
    pub fn as_raw(&self) -> *mut pce_msm_bases {
        self.handle.as_ptr()
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<G: Group> Drop for MsmBases<'_, G> {
    fn drop(&mut self) {
        // SAFETY: created by msm_bases_upload, released once.
        unsafe { (self.device.backend.vtable().msm_bases_release)(self.handle.as_ptr()) }
    }
}

impl Device {
    /// The backend this device belongs to.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// Its index in the backend's list.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Runs `call`, the plugin's `operation` on `elements` elements, under
    /// the watchdog's deadline ([`crate::watchdog`]).
    fn watched<T>(&self, operation: &str, elements: u64, call: impl FnOnce() -> T) -> T {
        let what = || {
            let backend = self.backend.name();
            format!("backend {backend}: {operation} on {elements} elements")
        };
        let device = (self.backend.inner.vtable as *const _ as usize, self.index);
        crate::watchdog::watched(what, device, elements, call)
    }

    /// An answer of the plugin that breaks the ABI's contract.
    fn plugin_bug(&self, operation: &'static str, message: &str) -> BackendError {
        self.error(operation, Status(ffi::PCE_ERR_INTERNAL), message.to_owned())
    }

    fn refuse(&self, operation: &'static str, message: String) -> BackendError {
        self.error(operation, Status(ffi::PCE_ERR_INVALID_ARGUMENT), message)
    }

    fn error(&self, operation: &'static str, status: Status, message: String) -> BackendError {
        self.on_this_device(self.backend.error(operation, status, message))
    }

    /// `error`, said of this device.
    fn on_this_device(&self, error: BackendError) -> BackendError {
        BackendError {
            device: Some(self.index),
            ..error
        }
    }

    /// [`Backend::call`] for a call on this device.
    fn call(&self, operation: &'static str, status: pce_status) -> Result<(), BackendError> {
        self.backend
            .call(operation, status)
            .map_err(|e| self.on_this_device(e))
    }

    /// Prepares NTTs of size `2^log_size`.
    pub fn ntt_domain(&self, log_size: u32) -> Result<NttDomain<'_>, BackendError> {
        // Refused here as the ABI says plugins refuse it: the host's own
        // length checks (`1 << log_size`) must not rest on every plugin
        // doing so.
        if !(1..=32).contains(&log_size) {
            return Err(self.refuse(
                "ntt_domain_create",
                format!("log_size {log_size} outside 1..=32"),
            ));
        }
        let mut handle = std::ptr::null_mut();
        let vt = self.backend.vtable();
        let status = self.watched("ntt_domain_create", 1u64 << log_size.min(40), || {
            // SAFETY: valid device handle and out-pointer.
            unsafe { (vt.ntt_domain_create)(self.handle.as_ptr(), log_size, &mut handle) }
        });
        self.call("ntt_domain_create", status)?;
        let handle = NonNull::new(handle)
            .ok_or_else(|| self.plugin_bug("ntt_domain_create", "returned a null domain"))?;
        Ok(NttDomain {
            device: self,
            handle,
            log_size,
        })
    }

    /// The plugin's handle of this device, for raw ABI calls (see
    /// [`Backend::vtable`]).
    pub fn as_raw(&self) -> *mut pce_device {
        self.handle.as_ptr()
    }

    /// Free and total memory of the device, `None` when the plugin does not
    /// report them (operation `"device_memory"`).
    pub fn memory(&self) -> Result<Option<DeviceMemory>, BackendError> {
        let Some(device_memory) = self.backend.inner.ops.device_memory else {
            return Ok(None);
        };
        let (mut free, mut total) = (0u64, 0u64);
        // SAFETY: a live device handle and two valid out-pointers.
        let status = unsafe { device_memory(self.handle.as_ptr(), &mut free, &mut total) };
        self.call("device_memory", status)?;
        if free > total {
            let bug = format!("reported {free} bytes free of {total} in all");
            return Err(self.plugin_bug("device_memory", &bug));
        }
        Ok(Some(DeviceMemory { free, total }))
    }

    /// Host memory, in bytes, that one NTT (or QAP step) on a domain of
    /// size `2^log_size` allocates beyond the caller's data; 0 when the
    /// plugin does not say (operation `"ntt_scratch_bytes"`).
    pub fn ntt_scratch_bytes(&self, log_size: u32) -> Result<u64, BackendError> {
        let Some(ntt_scratch_bytes) = self.backend.inner.ops.ntt_scratch_bytes else {
            return Ok(0);
        };
        let mut bytes = 0u64;
        // SAFETY: a live device handle and a valid out-pointer.
        let status = unsafe { ntt_scratch_bytes(self.handle.as_ptr(), log_size, &mut bytes) };
        self.call("ntt_scratch_bytes", status)?;
        Ok(bytes)
    }

    /// Host memory, in bytes, that one MSM of `count` terms in `G` allocates
    /// beyond the caller's data, at most; 0 when the plugin does
    /// not say (operation `"msm_scratch_bytes"`).
    pub fn msm_scratch_bytes<G: Group>(&self, count: u64) -> Result<u64, BackendError> {
        let Some(msm_scratch_bytes) = self.backend.inner.ops.msm_scratch_bytes else {
            return Ok(0);
        };
        let mut bytes = 0u64;
        // SAFETY: a live device handle and a valid out-pointer.
        let status = unsafe { msm_scratch_bytes(self.handle.as_ptr(), G::CODE, count, &mut bytes) };
        self.call("msm_scratch_bytes", status)?;
        Ok(bytes)
    }

    /// The most host memory, in bytes, this device holds for its own use
    /// while it is open (a GPU backend's staging buffers); 0 when the
    /// plugin does not say (operation `"device_host_bytes"`).
    pub fn device_host_bytes(&self) -> Result<u64, BackendError> {
        let Some(device_host_bytes) = self.backend.inner.ops.device_host_bytes else {
            return Ok(0);
        };
        let mut bytes = 0u64;
        // SAFETY: a live device handle and a valid out-pointer.
        let status = unsafe { device_host_bytes(self.handle.as_ptr(), &mut bytes) };
        self.call("device_host_bytes", status)?;
        Ok(bytes)
    }

    /// The QAP step in one plugin call when the plugin offers it: `abc`
    /// holds the evaluations a, b, c of a satisfied R1CS (three vectors of
    /// the domain's size, zero padded); on success its first vector holds
    /// the coefficients of h and `Ok(true)` is returned. `Ok(false)` (data
    /// untouched) when the plugin lacks the operation or calls it
    /// unsupported: the caller composes it from [`Device::ntt`].
    pub fn qap_h(&self, domain: &NttDomain<'_>, abc: &mut [pce_fr]) -> Result<bool, BackendError> {
        if !std::ptr::eq(domain.device, self) {
            return Err(self.refuse("qap_h", "the domain belongs to another device".into()));
        }
        if abc.len() != 3 * domain.size() {
            return Err(self.refuse(
                "qap_h",
                format!(
                    "{} elements are not three vectors of {}",
                    abc.len(),
                    domain.size()
                ),
            ));
        }
        let Some(qap_h) = self.backend.inner.ops.qap_h else {
            return Ok(false);
        };
        let status = self.watched("qap_h", abc.len() as u64, || {
            // SAFETY: handles are live, abc holds three vectors of the domain's size.
            unsafe {
                qap_h(
                    self.handle.as_ptr(),
                    domain.handle.as_ptr(),
                    abc.as_mut_ptr(),
                )
            }
        });
        if status == ffi::PCE_ERR_UNSUPPORTED {
            return Ok(false);
        }
        self.call("qap_h", status)?;
        Ok(true)
    }

    /// Transforms `data`, a whole number of vectors of the domain's size, in place.
    pub fn ntt(
        &self,
        domain: &NttDomain<'_>,
        direction: NttDirection,
        coset: bool,
        data: &mut [pce_fr],
    ) -> Result<(), BackendError> {
        let n = domain.size();
        if !std::ptr::eq(domain.device, self) {
            return Err(self.refuse("ntt", "the domain belongs to another device".into()));
        }
        if data.is_empty() || !data.len().is_multiple_of(n) || data.len() / n > u32::MAX as usize {
            return Err(self.refuse(
                "ntt",
                format!("{} elements are not a batch of vectors of {n}", data.len()),
            ));
        }
        let direction = match direction {
            NttDirection::Forward => PCE_NTT_FORWARD,
            NttDirection::Inverse => PCE_NTT_INVERSE,
        };
        let flags = if coset { PCE_NTT_COSET } else { 0 };
        let vt = self.backend.vtable();
        let status = self.watched("ntt", data.len() as u64, || {
            // SAFETY: handles are live, data is valid for batch·n elements.
            unsafe {
                (vt.ntt)(
                    self.handle.as_ptr(),
                    domain.handle.as_ptr(),
                    direction,
                    flags,
                    data.as_mut_ptr(),
                    (data.len() / n) as u32,
                )
            }
        });
        self.call("ntt", status)
    }

    fn upload<'a, G: Group>(
        &'a self,
        points: &[G::Affine],
        flags: u32,
    ) -> Result<MsmBases<'a, G>, BackendError> {
        let mut handle = std::ptr::null_mut();
        let vt = self.backend.vtable();
        let status = self.watched("msm_bases_upload", points.len() as u64, || {
            // SAFETY: points are valid for `len` elements of the group's layout.
            unsafe {
                (vt.msm_bases_upload)(
                    self.handle.as_ptr(),
                    G::CODE,
                    points.as_ptr() as *const c_void,
                    points.len() as u64,
                    flags,
                    &mut handle,
                )
            }
        });
        self.call("msm_bases_upload", status)?;
        let handle = NonNull::new(handle)
            .ok_or_else(|| self.plugin_bug("msm_bases_upload", "returned null bases"))?;
        Ok(MsmBases {
            device: self,
            handle,
            len: points.len(),
            _group: PhantomData,
        })
    }

    /// Gives the plugin a copy of `points` to keep as MSM bases.
    pub fn upload_bases<G: Group>(
        &self,
        points: &[G::Affine],
    ) -> Result<MsmBases<'_, G>, BackendError> {
        self.upload(points, 0)
    }

    /// Lends `points` to the plugin as MSM bases for as long as the handle
    /// lives (a CPU plugin then needs no copy of the SRS).
    pub fn lend_bases<'a, G: Group>(
        &'a self,
        points: &'a [G::Affine],
    ) -> Result<MsmBases<'a, G>, BackendError> {
        self.upload(points, PCE_BASES_HOST_RESIDENT)
    }

    /// `batch` MSMs over `bases[offset..offset + count]`; `scalars` holds
    /// `batch · count` entries, one run of `count` per MSM.
    pub fn msm<G: Group>(
        &self,
        bases: &MsmBases<'_, G>,
        offset: usize,
        count: usize,
        batch: usize,
        scalars: &[pce_scalar],
    ) -> Result<Vec<G::Projective>, BackendError> {
        if !std::ptr::eq(bases.device, self) {
            return Err(self.refuse("msm", "the bases belong to another device".into()));
        }
        if offset.checked_add(count).is_none_or(|end| end > bases.len) {
            return Err(self.refuse(
                "msm",
                format!("range {offset}..+{count} outside {} bases", bases.len),
            ));
        }
        if batch == 0
            || batch > u32::MAX as usize
            || count.checked_mul(batch) != Some(scalars.len())
        {
            return Err(self.refuse(
                "msm",
                format!("{} scalars are not {batch} runs of {count}", scalars.len()),
            ));
        }
        let mut out = vec![G::Projective::default(); batch];
        let vt = self.backend.vtable();
        let status = self.watched("msm", scalars.len() as u64, || {
            // SAFETY: handles are live, scalars hold batch·count entries, out holds batch results.
            unsafe {
                (vt.msm)(
                    self.handle.as_ptr(),
                    bases.handle.as_ptr(),
                    offset as u64,
                    count as u64,
                    scalars.as_ptr(),
                    batch as u32,
                    out.as_mut_ptr() as *mut c_void,
                )
            }
        });
        self.call("msm", status)?;
        Ok(out)
    }
}
