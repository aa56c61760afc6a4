//! A global allocator that watches the size of every single request.
//!
//! An input that makes the reader allocate what a length field claims,
//! before checking that field against the input, is a finding even when
//! the machine happens to have the memory: a 4-byte count must not become
//! a 4 GiB allocation. While a case runs, requests above its limit are
//! recorded (and still served, so the campaign can name the input);
//! requests above [`HARD_LIMIT`] are refused, which aborts the process with
//! Rust's "memory allocation of N bytes failed" after this module has
//! named the campaign and case on standard error.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};

/// Requests above this size are refused outright while a case runs.
pub const HARD_LIMIT: usize = 1 << 30;

/// Limit of the case running now; `usize::MAX` when none is.
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Largest request served during the case.
static LARGEST: AtomicUsize = AtomicUsize::new(0);
/// Largest request above the limit during the case, 0 if none.
static OVER: AtomicUsize = AtomicUsize::new(0);
/// Requests served since the process started (to tell whether this
/// allocator is installed at all).
static SERVED: AtomicU64 = AtomicU64::new(0);
/// Campaign name and case number, for the message before an abort.
static CAMPAIGN: AtomicPtr<&'static str> = AtomicPtr::new(std::ptr::null_mut());
static CASE: AtomicU64 = AtomicU64::new(0);

/// The allocator; install it in a fuzz target's test binary with
/// `#[global_allocator] static ALLOC: CappedAllocator = CappedAllocator;`.
pub struct CappedAllocator;

impl CappedAllocator {
    fn admit(size: usize) -> bool {
        SERVED.fetch_add(1, Ordering::Relaxed);
        if size <= LIMIT.load(Ordering::Relaxed) {
            LARGEST.fetch_max(size, Ordering::Relaxed);
            return true;
        }
        OVER.fetch_max(size, Ordering::Relaxed);
        if size <= HARD_LIMIT {
            return true;
        }
        report_refusal(size);
        false
    }
}

// SAFETY: every request is forwarded unchanged to the system allocator or
// refused with a null pointer, which the `GlobalAlloc` contract allows.
unsafe impl GlobalAlloc for CappedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !Self::admit(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's layout, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !Self::admit(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's layout, forwarded.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !Self::admit(new_size) {
            return std::ptr::null_mut();
        }
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Names the campaign and case whose request is about to be refused.
/// Allocation-free: it runs inside the allocator.
fn report_refusal(size: usize) {
    let campaign = CAMPAIGN.load(Ordering::Relaxed);
    // SAFETY: only ever set from a `&'static &'static str`.
    let campaign: &str = if campaign.is_null() {
        "?"
    } else {
        unsafe { *campaign }
    };
    let mut digits = [0u8; 20];
    let mut line = std::io::stderr().lock();
    let _ = line.write_all(b"input-fuzz: campaign ");
    let _ = line.write_all(campaign.as_bytes());
    let _ = line.write_all(b", case ");
    let _ = line.write_all(decimal(CASE.load(Ordering::Relaxed), &mut digits));
    let _ = line.write_all(b": refusing an allocation of ");
    let _ = line.write_all(decimal(size as u64, &mut digits));
    let _ = line.write_all(b" bytes\n");
}

fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[at..];
        }
    }
}

/// What the allocator saw during one case.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CaseAllocations {
    /// Largest request served within the limit.
    pub largest: usize,
    /// Largest request above the limit, if any.
    pub over: Option<usize>,
}

/// Starts watching requests for case `case` of `campaign`.
pub(crate) fn begin_case(campaign: &'static &'static str, case: u64, limit: usize) {
    CAMPAIGN.store(campaign as *const &str as *mut &str, Ordering::Relaxed);
    CASE.store(case, Ordering::Relaxed);
    LARGEST.store(0, Ordering::Relaxed);
    OVER.store(0, Ordering::Relaxed);
    LIMIT.store(limit, Ordering::SeqCst);
}

/// Stops watching and says what was seen since [`begin_case`].
pub(crate) fn end_case() -> CaseAllocations {
    LIMIT.store(usize::MAX, Ordering::SeqCst);
    let over = OVER.swap(0, Ordering::Relaxed);
    CaseAllocations {
        largest: LARGEST.swap(0, Ordering::Relaxed),
        over: (over != 0).then_some(over),
    }
}

/// Whether [`CappedAllocator`] serves this process's allocations.
pub(crate) fn installed() -> bool {
    let before = SERVED.load(Ordering::SeqCst);
    let probe = std::hint::black_box(Box::new(before));
    drop(probe);
    SERVED.load(Ordering::SeqCst) != before
}
