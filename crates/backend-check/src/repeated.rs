//! A long read-only array that is a short one repeated, held in memory once.
//!
//! The MSMs of a 32 GiB PoRep partition run over queries of up to 134M
//! points (44 GiB of SRS in all). A benchmark of that shape needs arrays
//! that long, but not that many distinct points: making 44 GiB of points
//! takes longer than the benchmark, and does not fit on most machines that
//! should be able to run it. So a pool of random points is repeated.
//!
//! On Linux the pool lives in an anonymous shared-memory file (`memfd`)
//! mapped again and again, back to back, into one reserved address range:
//! the backend sees one contiguous slice of the full length while the
//! machine holds the pool once. The kernel counts each mapped copy in the
//! process's `VmRSS` (as `RssShmem`), which is why `partition` measures its
//! host memory without it. Another OS, or a pool that is not a whole
//! number of pages (or whose elements need more than a page's alignment),
//! gets the pool copied out to the full length instead: the same slice, at
//! its full cost in memory. Each copy is a mapping of its own, so a long
//! array of a short pool can pass the kernel's limit on mappings
//! (`vm.max_map_count`): that is an error naming the limit.

use std::io;

/// `len` elements: `pool` repeated (the last copy cut short).
pub struct Repeated<T> {
    storage: Storage<T>,
    len: usize,
    pool_bytes: usize,
}

enum Storage<T> {
    /// A copy per repetition, in ordinary memory.
    Copied(Vec<T>),
    /// The pool mapped repeatedly, starting at `base`.
    #[cfg(target_os = "linux")]
    Mapped(mapped::Mapping),
}

impl<T: Copy> Repeated<T> {
    /// `pool` repeated to `len` elements (`pool` must not be empty).
    pub fn new(pool: &[T], len: usize) -> io::Result<Self> {
        if pool.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an empty pool cannot be repeated",
            ));
        }
        let pool_bytes = size_of_val(pool);
        #[cfg(target_os = "linux")]
        if let Some(mapping) = mapped::Mapping::new(pool, len)? {
            return Ok(Self {
                storage: Storage::Mapped(mapping),
                len,
                pool_bytes,
            });
        }
        let copied = pool.iter().copied().cycle().take(len).collect();
        Ok(Self {
            storage: Storage::Copied(copied),
            len,
            pool_bytes,
        })
    }

    /// The whole array.
    pub fn as_slice(&self) -> &[T] {
        match &self.storage {
            Storage::Copied(copied) => copied,
            #[cfg(target_os = "linux")]
            // SAFETY: the mapping holds `len` initialised elements of T
            // (copies of a pool of T), readable for as long as `self` lives.
            Storage::Mapped(mapping) => unsafe {
                std::slice::from_raw_parts(mapping.base().cast::<T>(), self.len)
            },
        }
    }

    /// Bytes of memory the pool takes when it is held once (mapped), else
    /// `None`: the array is copied out in ordinary memory.
    pub fn shared_bytes(&self) -> Option<usize> {
        match self.storage {
            Storage::Copied(_) => None,
            #[cfg(target_os = "linux")]
            Storage::Mapped(_) => Some(self.pool_bytes),
        }
    }
}

#[cfg(target_os = "linux")]
mod mapped {
    use std::io;
    use std::ptr::NonNull;

    /// A reserved address range holding a memfd mapped back to back.
    pub struct Mapping {
        base: NonNull<libc::c_void>,
        bytes: usize,
    }

    // SAFETY: the mapping is read-only once made and owned by this value
    // alone; reading it from several threads is as safe as reading a slice.
    unsafe impl Send for Mapping {}
    // SAFETY: as above: shared access only ever reads.
    unsafe impl Sync for Mapping {}

    /// The last OS error, or `what` failed with it.
    fn os_error(what: &str) -> io::Error {
        let error = io::Error::last_os_error();
        io::Error::new(error.kind(), format!("{what}: {error}"))
    }

    impl Mapping {
        /// `pool` repeated to `len` elements, or `None` when the pool is
        /// not a whole number of pages (the copies would not line up).
        pub fn new<T: Copy>(pool: &[T], len: usize) -> io::Result<Option<Self>> {
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            let pool_bytes = size_of_val(pool);
            if page <= 0
                || pool_bytes == 0
                || !pool_bytes.is_multiple_of(page as usize)
                || align_of::<T>() > page as usize
            {
                return Ok(None);
            }
            let copies = len.div_ceil(pool.len()).max(1);
            let bytes = copies.checked_mul(pool_bytes).ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidInput, "array size overflows")
            })?;

            // SAFETY: a valid NUL-terminated name and flags.
            let fd =
                unsafe { libc::memfd_create(c"pce-repeated-pool".as_ptr(), libc::MFD_CLOEXEC) };
            if fd < 0 {
                return Err(os_error("memfd_create"));
            }
            let result = Self::map(fd, pool, pool_bytes, bytes, copies);
            // SAFETY: fd is ours; the mappings keep the file alive without it.
            unsafe { libc::close(fd) };
            result.map(Some)
        }

        fn map<T: Copy>(
            fd: libc::c_int,
            pool: &[T],
            pool_bytes: usize,
            bytes: usize,
            copies: usize,
        ) -> io::Result<Self> {
            // SAFETY: fd is a valid memfd.
            if unsafe { libc::ftruncate(fd, pool_bytes as libc::off_t) } != 0 {
                return Err(os_error("ftruncate of the point pool"));
            }
            // SAFETY: a fresh shared mapping of the whole file, checked below.
            let fill = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    pool_bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    fd,
                    0,
                )
            };
            if fill == libc::MAP_FAILED {
                return Err(os_error("mmap of the point pool"));
            }
            // SAFETY: `fill` is writable for pool_bytes, the size of `pool`,
            // and does not overlap it; then it is unmapped, once.
            unsafe {
                std::ptr::copy_nonoverlapping(pool.as_ptr().cast::<u8>(), fill.cast(), pool_bytes);
                libc::munmap(fill, pool_bytes);
            }
            // Reserve the whole range first so that the copies land back to
            // back where nothing else is mapped.
            // SAFETY: an anonymous, inaccessible reservation, checked below.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    bytes,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return Err(os_error("reserving the repeated array's addresses"));
            }
            let mapping = Self {
                base: NonNull::new(base).expect("mmap does not return null on success"),
                bytes,
            };
            for copy in 0..copies {
                // SAFETY: the target lies inside our reservation (MAP_FIXED
                // replaces only our own PROT_NONE pages there).
                let at = unsafe {
                    libc::mmap(
                        base.cast::<u8>().add(copy * pool_bytes).cast(),
                        pool_bytes,
                        libc::PROT_READ,
                        libc::MAP_SHARED | libc::MAP_FIXED,
                        fd,
                        0,
                    )
                };
                if at == libc::MAP_FAILED {
                    // `mapping` unmaps the whole range when dropped.
                    return Err(os_error(&format!(
                        "mapping copy {} of {copies} of the point pool (each copy is one of \
                         the process's mappings, limited by vm.max_map_count: a larger pool \
                         needs fewer)",
                        copy + 1
                    )));
                }
            }
            Ok(mapping)
        }

        /// Start of the array.
        pub fn base(&self) -> *const libc::c_void {
            self.base.as_ptr()
        }
    }

    impl Drop for Mapping {
        fn drop(&mut self) {
            // SAFETY: the range was reserved by `new` and is unmapped once.
            unsafe { libc::munmap(self.base.as_ptr(), self.bytes) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_the_pool_to_the_length_asked() {
        // 4096 u64s: 8 pages, so the mapped path runs on 4 KiB-page Linux.
        let pool: Vec<u64> = (0..4096).map(|i| i * 3 + 1).collect();
        for len in [1, 4095, 4096, 4097, 3 * 4096 + 17] {
            let repeated = Repeated::new(&pool, len).unwrap();
            let slice = repeated.as_slice();
            assert_eq!(slice.len(), len);
            for (i, value) in slice.iter().enumerate() {
                assert_eq!(*value, pool[i % pool.len()], "element {i} of {len}");
            }
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_page_sized_pool_is_mapped_once() {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let pool = vec![7u8; page];
        let repeated = Repeated::new(&pool, 10 * page + 3).unwrap();
        assert_eq!(repeated.shared_bytes(), Some(page));
        assert!(repeated.as_slice().iter().all(|&b| b == 7));
    }

    #[test]
    fn an_odd_sized_pool_is_copied_out() {
        let pool = [1u8, 2, 3];
        let repeated = Repeated::new(&pool, 7).unwrap();
        assert_eq!(repeated.as_slice(), &[1, 2, 3, 1, 2, 3, 1]);
        assert_eq!(repeated.shared_bytes(), None);
        assert!(Repeated::<u8>::new(&[], 1).is_err());
    }
}
