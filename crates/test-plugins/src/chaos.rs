//! Mode `chaos`: a raw vtable whose every answer is read from bytes the
//! test feeds it (`pce_test_plugin_chaos_feed`), for fuzzing what the host
//! trusts in a plugin's responses: statuses, device counts and
//! descriptions (names without a terminating NUL), error messages whose
//! announced length is absurd, handles that are null on success, memory
//! reports where free exceeds total, scratch sizes near 2^64, and results
//! of garbage bytes.
//!
//! All-zero bytes give a well-behaved (if useless) backend; each byte the
//! fuzzer changes turns one answer hostile. When the bytes run out, the
//! rest are zero.

use std::ffi::{c_char, c_void};
use std::sync::Mutex;

use backend_api::ffi::{
    self, pce_backend_vtable, pce_device, pce_device_info, pce_fr, pce_g1_projective,
    pce_msm_bases, pce_ntt_domain, pce_scalar, pce_status,
};

/// The bytes still to be read, front first.
static FEED: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// Replaces the bytes the chaos plugin reads its answers from.
///
/// # Safety
/// `bytes` is valid for `len` bytes (or `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn pce_test_plugin_chaos_feed(bytes: *const u8, len: usize) {
    let fed = if len == 0 {
        Vec::new()
    } else {
        // SAFETY: per the function contract.
        unsafe { std::slice::from_raw_parts(bytes, len) }.to_vec()
    };
    let mut feed = FEED.lock().unwrap_or_else(|e| e.into_inner());
    *feed = fed.into_iter().rev().collect();
}

fn byte() -> u8 {
    FEED.lock()
        .unwrap_or_else(|e| e.into_inner())
        .pop()
        .unwrap_or(0)
}

fn fill(out: &mut [u8]) {
    out.iter_mut().for_each(|b| *b = byte());
}

fn u64_from_feed() -> u64 {
    let mut bytes = [0u8; 8];
    fill(&mut bytes);
    u64::from_le_bytes(bytes)
}

/// A status: mostly success, sometimes each error code, an unknown one, or a negative one.
fn status() -> pce_status {
    match byte() {
        0..=199 => ffi::PCE_OK,
        b => [1, 2, 3, 4, 5, 6, 7, 99, -1, i32::MIN][usize::from(b) % 10],
    }
}

/// A handle that is not null and never dereferenced.
fn handle<T>() -> *mut T {
    match byte() {
        0..=239 => std::ptr::NonNull::dangling().as_ptr(),
        _ => std::ptr::null_mut(),
    }
}

unsafe extern "C" fn last_error(buf: *mut c_char, cap: usize) -> usize {
    let message = b"chaos\0";
    let (write, announced) = match byte() % 5 {
        0 => (message.len().min(cap), message.len() - 1),
        1 => (0, usize::MAX),
        2 => (cap, cap),
        3 => (0, 1 << 40),
        _ => (cap, cap + 1),
    };
    for k in 0..write {
        // SAFETY: the host's buffer holds `cap` bytes and `write <= cap`.
        unsafe {
            *buf.add(k) = message
                .get(k)
                .map_or_else(|| byte() as c_char, |&b| b as c_char)
        };
    }
    announced
}

unsafe extern "C" fn get_proc_address(name: *const c_char) -> *mut c_void {
    if name.is_null() || byte() > 127 {
        return std::ptr::null_mut();
    }
    // SAFETY: the host passes a NUL-terminated name.
    let name = unsafe { std::ffi::CStr::from_ptr(name) };
    if name == ffi::PCE_PROC_DEVICE_MEMORY {
        device_memory as ffi::pce_device_memory_fn as *mut c_void
    } else if name == ffi::PCE_PROC_NTT_SCRATCH_BYTES {
        ntt_scratch_bytes as ffi::pce_ntt_scratch_bytes_fn as *mut c_void
    } else if name == ffi::PCE_PROC_MSM_SCRATCH_BYTES {
        msm_scratch_bytes as ffi::pce_msm_scratch_bytes_fn as *mut c_void
    } else if name == ffi::PCE_PROC_DEVICE_HOST_BYTES {
        device_host_bytes as ffi::pce_device_host_bytes_fn as *mut c_void
    } else if name == ffi::PCE_PROC_QAP_H {
        qap_h as ffi::pce_qap_h_fn as *mut c_void
    } else {
        std::ptr::null_mut()
    }
}

unsafe extern "C" fn device_count(count: *mut u32) -> pce_status {
    let n = match byte() % 6 {
        0 => 1,
        1 => 0,
        2 => 2,
        3 => u32::MAX,
        4 => 100_000,
        _ => u32::from(byte()),
    };
    // SAFETY: the host passes a valid out-pointer.
    unsafe { *count = n };
    status()
}

unsafe extern "C" fn device_info(_: u32, info: *mut pce_device_info) -> pce_status {
    if byte() % 2 == 1 {
        let mut raw = [0u8; std::mem::size_of::<pce_device_info>()];
        fill(&mut raw);
        // SAFETY: the host's struct has exactly this size (it set struct_size).
        unsafe { std::ptr::copy_nonoverlapping(raw.as_ptr(), info.cast::<u8>(), raw.len()) };
    }
    status()
}

unsafe extern "C" fn device_open(_: u32, device: *mut *mut pce_device) -> pce_status {
    // SAFETY: the host passes a valid out-pointer.
    unsafe { *device = handle() };
    status()
}

unsafe extern "C" fn device_close(_: *mut pce_device) {}

unsafe extern "C" fn ntt_domain_create(
    _: *mut pce_device,
    _: u32,
    domain: *mut *mut pce_ntt_domain,
) -> pce_status {
    // SAFETY: the host passes a valid out-pointer.
    unsafe { *domain = handle() };
    status()
}

unsafe extern "C" fn ntt_domain_destroy(_: *mut pce_ntt_domain) {}

/// Overwrites `count` elements of `T` at `out` with fed bytes, sometimes.
///
/// # Safety
/// `out` is valid for writes of `count` elements of `T`.
unsafe fn maybe_garbage<T>(out: *mut T, count: usize) {
    if byte() % 2 == 1 {
        // SAFETY: per the function contract; any bytes are a valid `T` here
        // (field elements and points are plain integers).
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(out.cast::<u8>(), count * std::mem::size_of::<T>())
        };
        fill(bytes);
    }
}

unsafe extern "C" fn ntt(
    _: *mut pce_device,
    _: *const pce_ntt_domain,
    _: u32,
    _: u32,
    data: *mut pce_fr,
    batch: u32,
) -> pce_status {
    // The host owns `batch` vectors of the domain's size; the first element
    // of each is enough to be wrong.
    // SAFETY: every vector has at least one element.
    unsafe { maybe_garbage(data, batch.min(1) as usize) };
    status()
}

unsafe extern "C" fn msm_bases_upload(
    _: *mut pce_device,
    _: u32,
    _: *const c_void,
    _: u64,
    _: u32,
    bases: *mut *mut pce_msm_bases,
) -> pce_status {
    // SAFETY: the host passes a valid out-pointer.
    unsafe { *bases = handle() };
    status()
}

unsafe extern "C" fn msm_bases_release(_: *mut pce_msm_bases) {}

unsafe extern "C" fn msm(
    _: *mut pce_device,
    _: *const pce_msm_bases,
    _: u64,
    _: u64,
    _: *const pce_scalar,
    batch: u32,
    out: *mut c_void,
) -> pce_status {
    // G1 or G2: the output holds at least `batch` G1 results.
    // SAFETY: the host's output holds `batch` results of at least G1's size.
    unsafe { maybe_garbage(out.cast::<pce_g1_projective>(), batch as usize) };
    status()
}

unsafe extern "C" fn device_memory(
    _: *mut pce_device,
    free: *mut u64,
    total: *mut u64,
) -> pce_status {
    let (f, t) = match byte() % 2 {
        0 => (1 << 30, 1 << 31),
        _ => (u64_from_feed(), u64_from_feed()),
    };
    // SAFETY: the host passes valid out-pointers.
    unsafe { (*free, *total) = (f, t) };
    status()
}

unsafe extern "C" fn ntt_scratch_bytes(_: *mut pce_device, _: u32, bytes: *mut u64) -> pce_status {
    let n = match byte() % 2 {
        0 => 0,
        _ => u64_from_feed(),
    };
    // SAFETY: the host passes a valid out-pointer.
    unsafe { *bytes = n };
    status()
}

unsafe extern "C" fn msm_scratch_bytes(
    _: *mut pce_device,
    _: u32,
    _: u64,
    bytes: *mut u64,
) -> pce_status {
    let n = match byte() % 2 {
        0 => 0,
        _ => u64_from_feed(),
    };
    // SAFETY: the host passes a valid out-pointer.
    unsafe { *bytes = n };
    status()
}

unsafe extern "C" fn device_host_bytes(_: *mut pce_device, bytes: *mut u64) -> pce_status {
    let n = match byte() % 2 {
        0 => 0,
        _ => u64_from_feed(),
    };
    // SAFETY: the host passes a valid out-pointer.
    unsafe { *bytes = n };
    status()
}

unsafe extern "C" fn qap_h(
    _: *mut pce_device,
    _: *const pce_ntt_domain,
    data: *mut pce_fr,
) -> pce_status {
    // SAFETY: the host's data holds three vectors of at least one element.
    unsafe { maybe_garbage(data, 1) };
    status()
}

/// The chaos vtable.
pub static VTABLE: pce_backend_vtable =
    vtable_of_this_module!(c"chaos", c"test plugin whose answers are fuzzed");
