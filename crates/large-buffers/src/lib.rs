//! Vectors of hundreds of megabytes to gigabytes: on 2 MiB pages where the
//! kernel gives them, written in parallel.
//!
//! A proof allocates such vectors afresh (a 32 GiB PoRep partition: a, b
//! and c over the 2^27 domain, 12 GiB, then the MSMs' scalars, another
//! dozen), and the first write to every page of them is a page fault in
//! which the kernel zeroes the page. With 4 KiB pages that costs more than
//! the writing itself, several times over (docs/benchmarks.md), and Linux
//! gives transparent huge pages to an allocation only when asked (the
//! `madvise` setting most distributions ship). So the vectors are asked
//! for before their first write, and the first write is spread over the
//! threads, which then fault their own parts in. A vector that is only
//! overwritten ([`zeroed`]) is not written here at all: the kernel's
//! zeroing is the only pass before its owner's.
//!
//! The advice is only advice: where the kernel has no huge pages to give
//! (or on other systems), nothing changes but the speed. Where free huge
//! pages are scarce, the kernel may compact memory inside the faulting
//! thread (`defrag` set to `madvise`, the usual default): seconds, once.
//! A host that would rather never pay that sets `PCE_HUGE_PAGES=off` and
//! gets plain pages.

use std::sync::OnceLock;

use rayon::iter::{IndexedParallelIterator, ParallelExtend};

/// Size of a huge page on x86-64 and aarch64 (with 4 KiB base pages).
const HUGE_PAGE: usize = 2 << 20;

/// The environment variable that turns the advice off (`off` or `0`).
pub const HUGE_PAGES_ENV: &str = "PCE_HUGE_PAGES";

/// Whether to advise huge pages: unless [`HUGE_PAGES_ENV`] says `off` or
/// `0`, read once per process.
pub fn huge_pages_enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| {
        !matches!(
            std::env::var(HUGE_PAGES_ENV).as_deref(),
            Ok("off") | Ok("0")
        )
    })
}

/// Asks the kernel for huge pages for the whole 2 MiB pages inside the
/// allocation of `buffer` (best before its memory is first written),
/// unless [`huge_pages_enabled`] says no.
pub fn advise_huge_pages<T>(buffer: &mut Vec<T>) {
    if !huge_pages_enabled() {
        return;
    }
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

/// An empty vector with room for `capacity` elements, its memory advised
/// for huge pages (to be filled with [`ParallelExtend::par_extend`] or
/// written through its spare capacity).
pub fn with_capacity<T>(capacity: usize) -> Vec<T> {
    let mut buffer = Vec::with_capacity(capacity);
    advise_huge_pages(&mut buffer);
    buffer
}

/// The items of `items`, in order, in a vector of exactly their number,
/// advised for huge pages and written by all threads.
pub fn collect<T: Send>(items: impl IndexedParallelIterator<Item = T>) -> Vec<T> {
    let mut buffer = with_capacity(items.len());
    buffer.par_extend(items);
    buffer
}

/// `len` copies of `value`, as [`collect`] writes them.
pub fn filled<T: Clone + Send + Sync>(len: usize, value: T) -> Vec<T> {
    collect(rayon::iter::repeat_n(value, len))
}

/// [`filled`], or the allocator's refusal: for sizes a caller must turn
/// into an error (a plugin's `PCE_ERR_OUT_OF_MEMORY`) where a failed
/// allocation would abort the process.
pub fn try_filled<T: Clone + Send + Sync>(
    len: usize,
    value: T,
) -> Result<Vec<T>, std::collections::TryReserveError> {
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len)?;
    advise_huge_pages(&mut buffer);
    buffer.par_extend(rayon::iter::repeat_n(value, len));
    Ok(buffer)
}

/// Types of which a value whose bytes are all zero is valid, and is the
/// value [`zeroed`] is asked for.
///
/// # Safety
///
/// Implement it only for types that hold no pointers, references or
/// niches, for which all-zero bytes are a valid value.
pub unsafe trait ZeroBytes: Sized {}

// SAFETY: integers and arrays of them are valid for every bit pattern.
unsafe impl ZeroBytes for u8 {}
// SAFETY: as above.
unsafe impl ZeroBytes for u32 {}
// SAFETY: as above.
unsafe impl ZeroBytes for u64 {}
// SAFETY: an array of such values is such a value.
unsafe impl<T: ZeroBytes, const N: usize> ZeroBytes for [T; N] {}
// SAFETY: blstrs' `Scalar` is blst's `blst_fr`, four `u64` limbs in
// Montgomery form, and all zero limbs are the field's 0 (`Scalar::ZERO`).
unsafe impl ZeroBytes for blstrs::Scalar {}

/// `len` zeros, in memory that nothing writes here: a vector meant to be
/// overwritten (a, b and c of a proof, a witness being assembled).
///
/// [`filled`] writes every element, and the kernel has already zeroed
/// each page it faults in for that write: for a vector the caller then
/// overwrites, two passes over gigabytes more than it needs (about a
/// second for a 32 GiB partition's 12 GiB of a, b, c on 2 cores,
/// `cargo run --release -p large-buffers --example first_write`). Here the
/// allocator's zeroed memory is taken as it comes (for large vectors,
/// fresh pages that read as zero and are faulted in, zeroed, by whichever
/// threads write them first), advised for huge pages before any write.
pub fn zeroed<T: ZeroBytes>(len: usize) -> Vec<T> {
    let layout = std::alloc::Layout::array::<T>(len).expect("a vector's size fits in isize");
    if layout.size() == 0 {
        return Vec::new();
    }
    // SAFETY: the layout has a non-zero size; the memory it returns (or
    // the null we refuse) is `len` values of T with all bytes zero, valid
    // by `ZeroBytes`, allocated by the global allocator with T's layout,
    // as `Vec::from_raw_parts` requires.
    let mut buffer = unsafe {
        let memory = std::alloc::alloc_zeroed(layout);
        if memory.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Vec::from_raw_parts(memory.cast::<T>(), len, len)
    };
    advise_huge_pages(&mut buffer);
    buffer
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn collect_keeps_order_and_length() {
        let n = 3 * HUGE_PAGE / 8 + 5;
        let v = collect((0..n).into_par_iter().map(|i| 3 * i as u64));
        assert_eq!(v.len(), n);
        assert!(v.iter().enumerate().all(|(i, &x)| x == 3 * i as u64));
    }

    #[test]
    fn zeroed_is_all_zero_at_every_size() {
        // Small vectors come from the heap (zeroed by the allocator's
        // memset), large ones from fresh mappings; both must read as zero,
        // including memory the process used and freed before.
        let reused: Vec<u64> = filled(HUGE_PAGE, u64::MAX);
        drop(reused);
        for n in [0, 1, 1000, HUGE_PAGE / 8 * 3 + 5] {
            let v: Vec<u64> = zeroed(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 0));
        }
        let scalars: Vec<blstrs::Scalar> = zeroed(1000);
        assert!(scalars.iter().all(|x| *x == blstrs::Scalar::from(0u64)));
    }

    #[test]
    fn filled_is_all_the_value() {
        for n in [0, 1, HUGE_PAGE / 4 + 3] {
            let v = filled(n, 7u32);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 7));
        }
    }

    /// Whether the kernel marks the mapping holding `address` as advised
    /// for huge pages (`hg` among its `VmFlags` in /proc/self/smaps).
    #[cfg(target_os = "linux")]
    fn marked_huge(address: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().unwrap_or_default();
            if let Some((start, end)) = range.split_once('-') {
                if let (Ok(start), Ok(end)) = (
                    usize::from_str_radix(start, 16),
                    usize::from_str_radix(end, 16),
                ) {
                    inside = (start..end).contains(&address);
                    continue;
                }
            }
            if let Some(flags) = line.strip_prefix("VmFlags:") {
                if inside {
                    return Some(flags.split_whitespace().any(|flag| flag == "hg"));
                }
            }
        }
        None
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn advised_buffers_are_marked_unless_the_environment_says_off() {
        let expected = match std::env::var(HUGE_PAGES_ENV).as_deref() {
            Err(_) => true,
            Ok("off") => false,
            Ok(other) => {
                return pce_testkit::skip(
                    "advised_buffers_are_marked_unless_the_environment_says_off",
                    &format!("{HUGE_PAGES_ENV}={other}, a setting this test does not state"),
                )
            }
        };
        let mut buffer: Vec<u8> = Vec::with_capacity(16 << 20);
        advise_huge_pages(&mut buffer);
        let inside = buffer.as_ptr() as usize + (8 << 20);
        assert_eq!(marked_huge(inside), Some(expected));
        let zeros: Vec<u8> = zeroed(16 << 20);
        let inside = zeros.as_ptr() as usize + (8 << 20);
        assert_eq!(marked_huge(inside), Some(expected));
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn off_in_the_environment_gives_plain_pages() {
        // Its child runs only the test above.
        if std::env::var_os(HUGE_PAGES_ENV).is_some() {
            return pce_testkit::skip(
                "off_in_the_environment_gives_plain_pages",
                &format!("{HUGE_PAGES_ENV} is set for the whole run"),
            );
        }
        let test = "tests::advised_buffers_are_marked_unless_the_environment_says_off";
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", test, "--test-threads", "1"])
            .env(HUGE_PAGES_ENV, "off")
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{out}");
        assert!(out.contains("1 passed"), "{out}");
    }

    #[test]
    fn advice_leaves_contents_and_small_buffers_alone() {
        let mut small: Vec<u8> = vec![1, 2, 3];
        advise_huge_pages(&mut small);
        assert_eq!(small, [1, 2, 3]);
        let mut large: Vec<u64> = (0..HUGE_PAGE as u64).collect();
        advise_huge_pages(&mut large);
        assert!(large.iter().enumerate().all(|(i, &x)| x == i as u64));
    }
}
