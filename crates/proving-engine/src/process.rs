//! The process's own memory, as the kernel reports it.
//!
//! The memory model ([`crate::memory`]) starts from what the process
//! already uses, benchmarks report peaks per phase, and a long-running
//! prover hands freed memory back between proofs so that the next
//! reading means what is still in use.

use std::path::Path;

/// Resident memory of this process now and at its peak, from `/proc/self/status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcessMemory {
    /// `VmRSS`, bytes.
    pub rss: u64,
    /// `VmHWM`, the peak of `VmRSS`, bytes.
    pub peak: u64,
}

pub(crate) fn status_kib(status: &str, key: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(key))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

impl ProcessMemory {
    /// Reads the figures (zero where `/proc` is not available).
    pub fn now() -> Self {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        Self {
            rss: status_kib(&status, "VmRSS:").unwrap_or(0),
            peak: status_kib(&status, "VmHWM:").unwrap_or(0),
        }
    }

    /// Resets the peak to the current resident memory (Linux ≥ 4.0), so
    /// that the peak of one phase can be measured after another.
    pub fn reset_peak() -> std::io::Result<()> {
        std::fs::write("/proc/self/clear_refs", "5")
    }
}

/// Threads and open file descriptors of this process: a prover that runs
/// for weeks must not gain either with every proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcessResources {
    /// `Threads` of `/proc/self/status`.
    pub threads: u64,
    /// Entries of `/proc/self/fd` (the listing's own descriptor included).
    pub open_files: u64,
}

impl ProcessResources {
    /// Reads the figures (zero where `/proc` is not available).
    pub fn now() -> Self {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let threads = status
            .lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        let open_files = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count() as u64);
        Self {
            threads,
            open_files,
        }
    }
}

/// Returns freed heap memory to the system (glibc's `malloc_trim`), so
/// that the resident memory measured after a proof is what is still in use.
pub fn release_free_memory() {
    // SAFETY: malloc_trim only walks glibc's own allocator state.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Physical memory of the machine, from `/proc/meminfo`.
pub fn physical_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string(Path::new("/proc/meminfo")).ok()?;
    status_kib(&meminfo, "MemTotal:")
}

#[cfg(test)]
mod tests {
    use super::{ProcessMemory, ProcessResources};

    #[test]
    fn process_memory_is_read() {
        let memory = ProcessMemory::now();
        assert!(memory.rss > 0 && memory.peak >= memory.rss);
        let resources = ProcessResources::now();
        assert!(
            resources.threads >= 1 && resources.open_files >= 3,
            "{resources:?}"
        );
    }
}
