//! Large buffers: 2 MiB pages for the vectors of a proof.
//!
//! A proof allocates vectors of hundreds of megabytes (parameter queries,
//! NTT buffers) and touches every page of them once more per proof. With
//! 4 KiB pages every first touch is a page fault; asking for transparent
//! huge pages cuts the faults (and the TLB misses of strided passes) by a
//! large factor (docs/benchmarks.md). The advice is only advice: where the kernel has none to give, nothing
//! changes.

/// Size of a huge page on x86-64 and aarch64 (with 4 KiB base pages).
const HUGE_PAGE: usize = 2 << 20;

/// Asks the kernel for huge pages for the whole 2 MiB pages inside the
/// allocation of `buffer` (best before its memory is first written).
pub fn advise_huge_pages<T>(buffer: &mut Vec<T>) {
    let start = buffer.as_mut_ptr() as usize;
    let end = start + buffer.capacity() * std::mem::size_of::<T>();
    let first = start.next_multiple_of(HUGE_PAGE);
    if end >= first + HUGE_PAGE {
        let len = (end - first) / HUGE_PAGE * HUGE_PAGE;
        #[cfg(target_os = "linux")]
        // SAFETY: advice on whole pages inside the buffer's allocation; it
        // changes no contents.
        unsafe {
            libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = len;
    }
}
