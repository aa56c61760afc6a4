//! The edge cases of the ABI that hosts rely on, called through the raw
//! vtable (the safe wrapper refuses most of them before the plugin sees
//! them, so only a raw call shows what the plugin does):
//!
//! - `ntt` and `msm` with a batch of 0: `PCE_OK`, nothing touched, null
//!   buffers accepted;
//! - `msm` with `offset + count` beyond the uploaded bases, or overflowing:
//!   `PCE_ERR_INVALID_ARGUMENT` with a message, the result untouched;
//! - `ntt_domain_create` above the ABI's limit (2^33):
//!   `PCE_ERR_INVALID_ARGUMENT`; at 2^32, above most devices' limit:
//!   success, `PCE_ERR_UNSUPPORTED` or `PCE_ERR_OUT_OF_MEMORY`, never a
//!   crash;
//! - `last_error` after a successful call: the empty message.

use std::ffi::{c_char, c_void};

use backend_api::ffi::{
    pce_g1_projective, pce_ntt_domain, pce_status, PCE_ERR_INVALID_ARGUMENT, PCE_ERR_OUT_OF_MEMORY,
    PCE_ERR_UNSUPPORTED, PCE_NTT_FORWARD, PCE_OK,
};
use backend_api::interop::g1_affines_as_pce;
use backend_api::{BackendError, Device, Status, G1};
use blstrs::G1Affine;
use group::prime::PrimeCurveAffine;

use crate::Verdict;

/// The plugin's last error message on this thread and its reported length.
fn last_error(device: &Device) -> (usize, String) {
    let mut buf = [0 as c_char; 512];
    // SAFETY: the buffer is valid for its length.
    let len = unsafe { (device.backend().vtable().last_error)(buf.as_mut_ptr(), buf.len()) };
    let text: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    (len, String::from_utf8_lossy(&text).into_owned())
}

/// Whether `status` is `expected`; otherwise a failure naming both.
fn expect(status: pce_status, expected: pce_status) -> Result<Verdict, String> {
    if status == expected {
        Ok(Verdict::Pass)
    } else {
        Err(format!(
            "returned {}, the ABI says {}",
            Status(status),
            Status(expected)
        ))
    }
}

/// Runs the edge cases on `device`, calling `record` per case.
pub fn check(device: &Device, record: &mut dyn FnMut(String, Result<Verdict, String>)) {
    let vtable = device.backend().vtable();
    let error = |e: BackendError| e.to_string();

    let create = |log_size: u32| {
        let mut domain: *mut pce_ntt_domain = std::ptr::null_mut();
        // SAFETY: a live device handle and a valid out-pointer.
        let status = unsafe { (vtable.ntt_domain_create)(device.as_raw(), log_size, &mut domain) };
        if status == PCE_OK && !domain.is_null() {
            // SAFETY: created just above, destroyed once.
            unsafe { (vtable.ntt_domain_destroy)(domain) };
        }
        status
    };
    record(
        "edge: NTT domain 2^33 (above the ABI's 2^32) is refused".to_owned(),
        expect(create(33), PCE_ERR_INVALID_ARGUMENT),
    );
    let status = create(32);
    let outcome = match status {
        PCE_OK | PCE_ERR_UNSUPPORTED | PCE_ERR_OUT_OF_MEMORY => Ok(Verdict::Pass),
        other => Err(format!(
            "returned {}; a size beyond the device is UNSUPPORTED or OUT_OF_MEMORY",
            Status(other)
        )),
    };
    record(
        "edge: NTT domain 2^32 is built or refused as unsupported".to_owned(),
        outcome,
    );

    // A failure, then a success: the message must be gone.
    let _ = create(33);
    let mut count = 0u32;
    // SAFETY: a valid out-pointer.
    let status = unsafe { (vtable.device_count)(&mut count) };
    let (len, message) = last_error(device);
    let outcome = expect(status, PCE_OK).and_then(|verdict| {
        if len == 0 && message.is_empty() {
            Ok(verdict)
        } else {
            Err(format!(
                "last_error after a success returns {len} bytes: {message:?}"
            ))
        }
    });
    record(
        "edge: last_error is empty after a success".to_owned(),
        outcome,
    );

    let outcome = device.ntt_domain(4).map_err(error).and_then(|domain| {
        // SAFETY: live handles; a batch of 0 reads and writes nothing.
        let status = unsafe {
            (vtable.ntt)(
                device.as_raw(),
                domain.as_raw(),
                PCE_NTT_FORWARD,
                0,
                std::ptr::null_mut(),
                0,
            )
        };
        expect(status, PCE_OK)
    });
    record("edge: NTT batch 0 is a no-op".to_owned(), outcome);

    let points = [G1Affine::generator(); 4];
    let bases = match device.upload_bases::<G1>(g1_affines_as_pce(&points)) {
        Ok(bases) => bases,
        Err(e) => {
            record("edge: MSM bases of 4 points".to_owned(), Err(e.to_string()));
            return;
        }
    };
    let msm = |offset: u64, count: u64, batch: u32, out: *mut c_void| {
        let scalars = [backend_api::ffi::pce_scalar { l: [1, 0, 0, 0] }; 8];
        // SAFETY: live handles; `scalars` holds more than batch·count
        // entries for every call below, `out` room for `batch` results or
        // null with batch 0.
        unsafe {
            (vtable.msm)(
                device.as_raw(),
                bases.as_raw(),
                offset,
                count,
                if batch == 0 {
                    std::ptr::null()
                } else {
                    scalars.as_ptr()
                },
                batch,
                out,
            )
        }
    };
    record(
        "edge: MSM batch 0 is a no-op".to_owned(),
        expect(msm(0, 4, 0, std::ptr::null_mut()), PCE_OK),
    );

    for (offset, count, what) in [
        (2, 3, "offset + count beyond the bases"),
        (5, 0, "offset beyond the bases"),
        (u64::MAX, 2, "offset + count overflowing"),
    ] {
        let sentinel = pce_g1_projective {
            z: backend_api::ffi::pce_fp { l: [7; 6] },
            ..Default::default()
        };
        let mut out = sentinel;
        let status = msm(offset, count, 1, &mut out as *mut _ as *mut c_void);
        let (len, message) = last_error(device);
        let outcome = expect(status, PCE_ERR_INVALID_ARGUMENT).and_then(|verdict| {
            if out != sentinel {
                Err("wrote a result for a refused range".to_owned())
            } else if len == 0 || message.is_empty() {
                Err("refused without a message".to_owned())
            } else {
                Ok(verdict)
            }
        });
        record(format!("edge: MSM {what} is refused"), outcome);
    }
    drop(bases);
}
