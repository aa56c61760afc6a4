//! Modes that forward every operation to a real plugin (the library
//! `PCE_TEST_PLUGIN_DELEGATE` names, the CPU plugin in the tests), changing
//! one thing:
//!
//! - `g1-only`: an MSM over G2 bases is `PCE_ERR_UNSUPPORTED`, as in many
//!   GPU MSM libraries, which have G1 MSMs only;
//! - `g1-only-bases`: the same, refused earlier: G2 bases are
//!   `PCE_ERR_UNSUPPORTED` at upload;
//! - `gated`: an MSM waits while the file `PCE_TEST_PLUGIN_GATE` names
//!   exists, so that a test holds a proof running, without racing it, for
//!   as long as it needs (to see what queues behind it); it first creates
//!   the file [`reached`] names, so that the test knows a call is held.
//! - `qap-h-dirty`: `qap_h` declines every call as unsupported, having
//!   changed the data first, which the ABI forbids;
//! - `second-broken`: two devices, both the delegate's first; the
//!   second's bases uploads fail (`PCE_ERR_DEVICE`), as a GPU's whose
//!   driver faults, so that a test sees one bad device beside a good one
//!   (it has no optional operation: they would need its own handle);
//! - `second-faulty`: the same two devices, the second's set-up working
//!   and its MSMs failing (`PCE_ERR_DEVICE`), as a GPU's that faults after
//!   its bases are uploaded;
//! - `large-scratch`: every NTT says it needs [`LARGE_SCRATCH`] bytes of
//!   host scratch (`ntt_scratch_bytes`), more than any test machine has, so
//!   that a test sees where the scratch is counted.

use std::cell::Cell;
use std::collections::HashSet;
use std::ffi::{c_char, c_void};
use std::sync::{Mutex, OnceLock};

use backend_api::ffi::{
    self, pce_backend_vtable, pce_device, pce_device_info, pce_fr, pce_msm_bases, pce_ntt_domain,
    pce_scalar, pce_status,
};

/// Environment variable: the plugin library to forward to.
pub const DELEGATE_ENV: &str = "PCE_TEST_PLUGIN_DELEGATE";
/// Environment variable: the file whose existence holds `gated` mode's MSMs.
pub const GATE_ENV: &str = "PCE_TEST_PLUGIN_GATE";

const REFUSAL: &[u8] = b"this backend has no G2 MSM";

/// The file a `gated` MSM creates when it reaches the gate `gate`.
pub fn reached(gate: &std::path::Path) -> std::path::PathBuf {
    gate.with_extension("reached")
}

/// The delegate's vtable, loaded on first use.
fn delegate() -> &'static pce_backend_vtable {
    static DELEGATE: OnceLock<&'static pce_backend_vtable> = OnceLock::new();
    DELEGATE.get_or_init(|| {
        let path =
            std::env::var(DELEGATE_ENV).expect("g1-only mode needs PCE_TEST_PLUGIN_DELEGATE");
        // SAFETY: loading the plugin the test names; never unloaded.
        let library = Box::leak(Box::new(
            unsafe { libloading::Library::new(&path) }.expect("delegate"),
        ));
        // SAFETY: the entry point's type is fixed by the ABI.
        let entry =
            unsafe { library.get::<ffi::pce_backend_entry_fn>(ffi::PCE_BACKEND_ENTRY_SYMBOL) }
                .expect("a plugin");
        let mut version = 0;
        // SAFETY: plain integers and a valid out-pointer.
        let vtable = unsafe { entry(ffi::PCE_BACKEND_ABI_VERSION, &mut version) };
        // SAFETY: a non-null vtable of this ABI version is static.
        unsafe { vtable.as_ref() }.expect("the delegate accepts this ABI version")
    })
}

/// G2 bases handles, as the delegate returned them.
static G2_BASES: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

thread_local! {
    /// Whether this thread's last error is ours rather than the delegate's.
    static REFUSED: Cell<Option<&'static [u8]>> = const { Cell::new(None) };
}

unsafe extern "C" fn last_error(buf: *mut c_char, cap: usize) -> usize {
    let Some(message) = REFUSED.get() else {
        // SAFETY: forwarded unchanged.
        return unsafe { (delegate().last_error)(buf, cap) };
    };
    let n = message.len().min(cap.saturating_sub(1));
    if cap > 0 {
        // SAFETY: the host's buffer holds `cap` bytes; `n + 1 <= cap`.
        unsafe {
            std::ptr::copy_nonoverlapping(message.as_ptr(), buf.cast::<u8>(), n);
            *buf.add(n) = 0;
        }
    }
    message.len()
}

macro_rules! forward {
    ($name:ident ( $($arg:ident : $ty:ty),* ) $(-> $ret:ty)?) => {
        unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
            REFUSED.set(None);
            // SAFETY: the host's arguments, forwarded unchanged to the same operation.
            unsafe { (delegate().$name)($($arg),*) }
        }
    };
}

/// What `large-scratch` mode's NTTs say they need: 1 TiB.
pub const LARGE_SCRATCH: u64 = 1 << 40;

unsafe extern "C" fn get_proc_address(name: *const c_char) -> *mut c_void {
    REFUSED.set(None);
    // SAFETY: the host passes a NUL-terminated name.
    let asked = unsafe { std::ffi::CStr::from_ptr(name) };
    match crate::mode().as_str() {
        "second-broken" | "second-faulty" => return std::ptr::null_mut(),
        "large-scratch" if asked == ffi::PCE_PROC_NTT_SCRATCH_BYTES => {
            return large_ntt_scratch_bytes as ffi::pce_ntt_scratch_bytes_fn as *mut c_void;
        }
        "qap-h-dirty" if asked == ffi::PCE_PROC_QAP_H => {
            return dirty_qap_h as ffi::pce_qap_h_fn as *mut c_void;
        }
        _ => {}
    }
    // SAFETY: forwarded unchanged.
    unsafe { (delegate().get_proc_address)(name) }
}

unsafe extern "C" fn dirty_qap_h(
    _: *mut pce_device,
    _: *const ffi::pce_ntt_domain,
    data: *mut pce_fr,
) -> pce_status {
    // SAFETY: the host passes at least one element (a domain has two or
    // more).
    unsafe { (*data).l[0] ^= 1 };
    REFUSED.set(Some(REFUSAL));
    ffi::PCE_ERR_UNSUPPORTED
}

unsafe extern "C" fn large_ntt_scratch_bytes(
    _: *mut pce_device,
    _: u32,
    bytes: *mut u64,
) -> pce_status {
    // SAFETY: the host passes a valid out-pointer.
    unsafe { *bytes = LARGE_SCRATCH };
    ffi::PCE_OK
}

/// `second-broken` mode's message for its second device's uploads.
const SECOND_BROKEN: &[u8] = b"simulated device failure in msm_bases_upload";
/// `second-faulty` mode's message for its second device's MSMs.
const SECOND_FAULTY: &[u8] = b"simulated device failure in msm";

/// Whether the mode has two devices, the second a bad one.
fn two_devices() -> bool {
    matches!(crate::mode().as_str(), "second-broken" | "second-faulty")
}

unsafe extern "C" fn device_count(count: *mut u32) -> pce_status {
    REFUSED.set(None);
    // SAFETY: forwarded unchanged.
    let status = unsafe { (delegate().device_count)(count) };
    if status == ffi::PCE_OK && two_devices() {
        // SAFETY: the host's out-pointer, written by the delegate.
        unsafe { *count = 2 };
    }
    status
}

/// The delegate's device standing for device `index`: in the modes with a
/// second device, its first for both.
fn delegate_index(index: u32) -> u32 {
    if two_devices() {
        0
    } else {
        index
    }
}

unsafe extern "C" fn device_info(index: u32, info: *mut pce_device_info) -> pce_status {
    REFUSED.set(None);
    // SAFETY: the host's out-pointer, forwarded.
    unsafe { (delegate().device_info)(delegate_index(index), info) }
}

unsafe extern "C" fn device_open(index: u32, device: *mut *mut pce_device) -> pce_status {
    REFUSED.set(None);
    // SAFETY: the host's out-pointer, forwarded.
    let status = unsafe { (delegate().device_open)(delegate_index(index), device) };
    if status == ffi::PCE_OK && index == 1 && two_devices() {
        // The delegate may hand out one handle for both devices: the
        // second gets a handle of its own, a box holding the delegate's.
        // SAFETY: the delegate wrote the handle on success.
        let wrapper = Box::into_raw(Box::new(unsafe { *device })).cast::<pce_device>();
        let mut second = SECOND_DEVICES.lock().unwrap_or_else(|e| e.into_inner());
        second
            .get_or_insert_with(HashSet::new)
            .insert(wrapper as usize);
        // SAFETY: the host's out-pointer.
        unsafe { *device = wrapper };
    }
    status
}

/// The second device's handles, in the modes that have one.
static SECOND_DEVICES: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

/// Whether `device` is the second device of a mode that has one.
fn is_second(device: *mut pce_device) -> bool {
    let second = SECOND_DEVICES.lock().unwrap_or_else(|e| e.into_inner());
    second
        .as_ref()
        .is_some_and(|set| set.contains(&(device as usize)))
}

/// The delegate's handle of `device`.
fn delegate_device(device: *mut pce_device) -> *mut pce_device {
    if is_second(device) {
        // SAFETY: a box device_open made, not yet closed.
        unsafe { *device.cast::<*mut pce_device>() }
    } else {
        device
    }
}

unsafe extern "C" fn device_close(device: *mut pce_device) {
    REFUSED.set(None);
    let inner = delegate_device(device);
    if is_second(device) {
        let mut second = SECOND_DEVICES.lock().unwrap_or_else(|e| e.into_inner());
        second.as_mut().map(|set| set.remove(&(device as usize)));
        // SAFETY: the box device_open made, freed once.
        drop(unsafe { Box::from_raw(device.cast::<*mut pce_device>()) });
    }
    // SAFETY: the delegate's handle.
    unsafe { (delegate().device_close)(inner) }
}

unsafe extern "C" fn ntt_domain_create(
    device: *mut pce_device,
    log_size: u32,
    domain: *mut *mut pce_ntt_domain,
) -> pce_status {
    REFUSED.set(None);
    // SAFETY: the delegate's handle and the host's out-pointer.
    unsafe { (delegate().ntt_domain_create)(delegate_device(device), log_size, domain) }
}

unsafe extern "C" fn ntt(
    device: *mut pce_device,
    domain: *const pce_ntt_domain,
    direction: u32,
    flags: u32,
    data: *mut pce_fr,
    batch: u32,
) -> pce_status {
    REFUSED.set(None);
    // SAFETY: the delegate's handle, the host's other arguments.
    unsafe {
        (delegate().ntt)(
            delegate_device(device),
            domain,
            direction,
            flags,
            data,
            batch,
        )
    }
}

forward!(ntt_domain_destroy(domain: *mut pce_ntt_domain));

unsafe extern "C" fn msm_bases_upload(
    device: *mut pce_device,
    group: u32,
    points: *const c_void,
    count: u64,
    flags: u32,
    bases: *mut *mut pce_msm_bases,
) -> pce_status {
    if is_second(device) && crate::mode() == "second-broken" {
        REFUSED.set(Some(SECOND_BROKEN));
        return ffi::PCE_ERR_DEVICE;
    }
    if group == ffi::PCE_G2 && crate::mode() == "g1-only-bases" {
        REFUSED.set(Some(REFUSAL));
        return ffi::PCE_ERR_UNSUPPORTED;
    }
    REFUSED.set(None);
    let device = delegate_device(device);
    // SAFETY: the delegate's handle, the host's other arguments.
    let status =
        unsafe { (delegate().msm_bases_upload)(device, group, points, count, flags, bases) };
    if status == ffi::PCE_OK && group == ffi::PCE_G2 && crate::mode() == "g1-only" {
        // SAFETY: the delegate wrote the handle on success.
        let handle = unsafe { *bases } as usize;
        let mut g2 = G2_BASES.lock().unwrap_or_else(|e| e.into_inner());
        g2.get_or_insert_with(HashSet::new).insert(handle);
    }
    status
}

unsafe extern "C" fn msm_bases_release(bases: *mut pce_msm_bases) {
    REFUSED.set(None);
    // Forgotten first: the allocator may give a later (G1) upload the same
    // address, which must not be refused as G2.
    let mut g2 = G2_BASES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(set) = g2.as_mut() {
        set.remove(&(bases as usize));
    }
    drop(g2);
    // SAFETY: the host's handle, forwarded unchanged.
    unsafe { (delegate().msm_bases_release)(bases) }
}

unsafe extern "C" fn msm(
    device: *mut pce_device,
    bases: *const pce_msm_bases,
    offset: u64,
    count: u64,
    scalars: *const pce_scalar,
    batch: u32,
    out: *mut c_void,
) -> pce_status {
    if let Some(gate) = std::env::var_os(GATE_ENV).filter(|_| crate::mode() == "gated") {
        let gate = std::path::Path::new(&gate);
        // Best effort: a test that needs it fails on its own if it is missing.
        let _ = std::fs::write(reached(gate), b"");
        while gate.exists() {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    let g2 = G2_BASES.lock().unwrap_or_else(|e| e.into_inner());
    if g2
        .as_ref()
        .is_some_and(|set| set.contains(&(bases as usize)))
    {
        REFUSED.set(Some(REFUSAL));
        return ffi::PCE_ERR_UNSUPPORTED;
    }
    drop(g2);
    if is_second(device) && crate::mode() == "second-faulty" {
        REFUSED.set(Some(SECOND_FAULTY));
        return ffi::PCE_ERR_DEVICE;
    }
    REFUSED.set(None);
    let device = delegate_device(device);
    // SAFETY: the delegate's handle, the host's other arguments.
    unsafe { (delegate().msm)(device, bases, offset, count, scalars, batch, out) }
}

/// The `g1-only` vtable.
pub static G1_ONLY: pce_backend_vtable =
    vtable_of_this_module!(c"g1-only", c"test plugin: a real backend without G2 MSMs");

/// The `large-scratch` vtable.
pub static LARGE_SCRATCH_VTABLE: pce_backend_vtable = vtable_of_this_module!(
    c"large-scratch",
    c"test plugin: a real backend whose NTTs say they need 1 TiB of scratch"
);

/// The `g1-only-bases` vtable.
pub static G1_ONLY_BASES: pce_backend_vtable = vtable_of_this_module!(
    c"g1-only-bases",
    c"test plugin: a real backend that refuses G2 bases"
);

/// The `qap-h-dirty` vtable.
pub static QAP_H_DIRTY: pce_backend_vtable = vtable_of_this_module!(
    c"qap-h-dirty",
    c"test plugin: a real backend whose qap_h declines with the data changed"
);

/// The `second-broken` vtable.
pub static SECOND_BROKEN_VTABLE: pce_backend_vtable = vtable_of_this_module!(
    c"second-broken",
    c"test plugin: a real backend with a second device whose bases uploads fail"
);

/// The `second-faulty` vtable.
pub static SECOND_FAULTY_VTABLE: pce_backend_vtable = vtable_of_this_module!(
    c"second-faulty",
    c"test plugin: a real backend with a second device whose MSMs fail"
);

/// The `gated` vtable.
pub static GATED: pce_backend_vtable = vtable_of_this_module!(
    c"gated",
    c"test plugin: a real backend whose MSMs wait while a file exists"
);
