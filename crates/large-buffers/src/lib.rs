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
//! threads, which then fault their own parts in.
//!
//! The advice is only advice: where the kernel has no huge pages to give
//! (or on other systems), nothing changes but the speed.

use rayon::iter::{IndexedParallelIterator, ParallelExtend};

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
    fn filled_is_all_the_value() {
        for n in [0, 1, HUGE_PAGE / 4 + 3] {
            let v = filled(n, 7u32);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 7));
        }
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
