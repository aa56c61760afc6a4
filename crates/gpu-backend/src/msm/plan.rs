//! The shapes the MSM kernels run in: the bucket kernel's windows and
//! slices ([`MsmPlan`]), the sorted MSM's windows and parts
//! ([`SortedPlan`]), and which of the two runs ([`Method`]). Arithmetic
//! on counts of terms, threads and bytes, so every choice is tested
//! without a device.

use tracing::warn;

/// Bits the signed windows must cover: the 255 bits of a scalar plus the
/// carry a top window above half its range would produce.
pub(super) const SIGNED_BITS: u32 = 256;

/// Widest window the plan considers.
const MAX_WINDOW_BITS: u32 = 16;

/// Points of the least plan: one slice of two-bit windows (128 windows,
/// two buckets and a partial sum each). Budgets below it all give that
/// plan.
pub(super) const MIN_PLAN_POINTS: u64 = 3 * (SIGNED_BITS / 2) as u64;

/// How the bucket kernel runs: `windows` signed windows of `bits` bits, the
/// terms cut into `slices` slices, one thread per (slice, window).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsmPlan {
    /// Window width in bits.
    pub bits: u32,
    /// Number of windows covering 256 bits (signed digits carry).
    pub windows: u32,
    /// Number of slices the terms are cut into.
    pub slices: u32,
}

impl MsmPlan {
    /// The plan for `terms` terms on a device that runs about
    /// `parallel_threads` threads at once, with room for at most
    /// `max_points` points of buckets and partial sums ([`Self::points`]).
    ///
    /// Each thread adds its slice's terms to its buckets, then sums its
    /// 2^(bits−1) buckets with about 2^bits additions; threads beyond
    /// the device's parallelism run in further waves. The plan minimises
    /// waves × additions per thread. Within the room, slices are fewer
    /// than the parallelism asks where the buckets would not fit; where no
    /// plan fits, the one with the fewest points ([`MIN_PLAN_POINTS`]).
    pub fn new(terms: usize, parallel_threads: u32, max_points: u64) -> Self {
        let terms = terms.max(1) as u64;
        let parallel = u64::from(parallel_threads.max(1));
        let mut best: Option<(u64, MsmPlan)> = None;
        let mut smallest: Option<MsmPlan> = None;
        for bits in 1..=MAX_WINDOW_BITS {
            let windows = SIGNED_BITS.div_ceil(bits);
            let per_slice = u64::from(windows) * ((1u64 << (bits - 1)) + 1);
            let fitting = max_points / per_slice;
            let slices = (parallel / u64::from(windows)).min(fitting).clamp(1, terms) as u32;
            let plan = MsmPlan {
                bits,
                windows,
                slices,
            };
            if smallest.is_none_or(|small| plan.points() < small.points()) {
                smallest = Some(plan);
            }
            if plan.points() > max_points {
                continue;
            }
            let threads = u64::from(plan.threads());
            let waves = threads.div_ceil(parallel);
            let per_thread = terms.div_ceil(u64::from(slices)) + (1u64 << bits);
            let cost = waves * per_thread;
            if best.is_none_or(|(best_cost, _)| cost < best_cost) {
                best = Some((cost, plan));
            }
        }
        best.map(|(_, plan)| plan)
            .or(smallest)
            .expect("at least one width is considered")
    }

    /// Threads of the bucket kernel.
    pub fn threads(&self) -> u32 {
        self.windows * self.slices
    }

    /// Buckets the kernel needs: 2^(bits−1) per thread (one per digit
    /// magnitude).
    pub fn buckets(&self) -> u64 {
        u64::from(self.threads()) << (self.bits - 1)
    }

    /// Points of device memory the plan needs: its buckets and one partial
    /// sum per thread.
    pub fn points(&self) -> u64 {
        self.buckets() + u64::from(self.threads())
    }
}

/// Threads of the one block of `msm_scan` (kernels/sort.h's SCAN_THREADS).
pub(super) const SCAN_THREADS: usize = 256;

/// Widest window of the sorted MSM: 2^19 buckets a window.
const MAX_SORTED_BITS: u32 = 20;

/// Fewest entries one thread of `msm_sorted_sums` adds (unless there are
/// fewer): below it, more of the buckets are cut between threads and summed
/// again from their pieces.
const MIN_SEGMENT: u64 = 16;

/// Threads of `msm_sorted_sums` per thread of the bucket kernel the device
/// holds at once (the parallelism the plans count): the sums kernel uses
/// fewer registers (162 a thread for G1 on sm_90, against 254) and runs in
/// blocks of [`SORTED_SUMS_BLOCK`], so a multiprocessor may hold more of
/// its threads; launching several times as many keeps it full to the end,
/// at the price of more buckets cut between threads.
const SORTED_SUMS_OVERSUBSCRIPTION: u64 = 8;

/// Threads per block of `msm_sorted_sums`: with 162 registers a thread, an
/// sm_90 multiprocessor holds three blocks of 128 (12 warps) where it holds
/// one of 256 (8 warps).
pub(super) const SORTED_SUMS_BLOCK: usize = 128;

/// Which MSM the terms of scalars other than 0 and 1 go through, from
/// `PCE_GPU_MSM`: `buckets` (the default) or `sorted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `msm_buckets`: a thread per (slice, window), its own buckets in
    /// device memory.
    Buckets,
    /// The terms' digits sorted by bucket (kernels/sort.h), each bucket
    /// summed in registers (`msm_sorted_sums`), then every window's buckets
    /// (`msm_sorted_reduce`).
    Sorted,
}

impl Method {
    /// The environment variable that chooses.
    pub const ENV: &'static str = "PCE_GPU_MSM";

    /// The method `PCE_GPU_MSM` names, read once per process; the default
    /// for anything else (with a warning).
    pub fn from_env() -> Self {
        static METHOD: std::sync::OnceLock<Method> = std::sync::OnceLock::new();
        *METHOD.get_or_init(|| match std::env::var(Self::ENV).as_deref() {
            Err(_) | Ok("") | Ok("buckets") => Method::Buckets,
            Ok("sorted") => Method::Sorted,
            Ok(other) => {
                warn!(
                    value = other,
                    "{} is buckets or sorted; using buckets",
                    Self::ENV
                );
                Method::Buckets
            }
        })
    }
}

/// How the sorted MSM runs one job: `windows` signed windows of `bits`
/// bits, each window's buckets summed in `parts` parts. The entries (a
/// term's non-zero digit each) are spread over the threads of
/// `msm_sorted_sums` once their number is known ([`Self::segment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortedPlan {
    /// Window width in bits.
    pub bits: u32,
    /// Number of windows covering 256 bits.
    pub windows: u32,
    /// Parts each window's buckets are summed in.
    pub parts: u32,
}

impl SortedPlan {
    /// The plan for `terms` terms on a device that runs about
    /// `parallel_threads` threads at once, in at most `max_bytes` of
    /// device memory ([`Self::bytes`], with points of `xyzz_bytes`).
    ///
    /// Every term adds one point per window (in the bucket sums, spread
    /// evenly over the threads); every window then sums its 2^(bits−1)
    /// buckets with about 2^bits additions, in parts. Wider windows mean
    /// fewer windows and more buckets: the plan minimises the additions
    /// of a thread, counted in waves of `parallel_threads`, among the
    /// plans whose buffers take at most `max_bytes` together and
    /// `max_buffer` each. `None` where no plan fits: the entries alone take
    /// four bytes per term and window, which the bucket kernel does not
    /// need.
    pub fn new(
        terms: usize,
        parallel_threads: u32,
        (max_bytes, max_buffer): (u64, u64),
        xyzz_bytes: u64,
    ) -> Option<Self> {
        let terms = terms.max(1) as u64;
        let parallel = u64::from(parallel_threads.max(1));
        let mut best: Option<(u64, SortedPlan)> = None;
        for bits in 2..=MAX_SORTED_BITS {
            let windows = SIGNED_BITS.div_ceil(bits);
            let entries = terms * u64::from(windows);
            let half = 1u64 << (bits - 1);
            let parts = (parallel / u64::from(windows)).clamp(1, half);
            let plan = SortedPlan {
                bits,
                windows,
                parts: parts as u32,
            };
            let bytes = plan.bytes(terms, parallel_threads, xyzz_bytes);
            if bytes > max_bytes
                || plan.largest_buffer(terms, xyzz_bytes) > max_buffer
                || entries > u64::from(u32::MAX)
            {
                continue;
            }
            // The entries in equal shares over the threads running at once.
            let sums = entries.div_ceil(parallel).max(MIN_SEGMENT);
            let reduce = (u64::from(windows) * parts).div_ceil(parallel)
                * (2 * half.div_ceil(parts) + 2 * u64::from(bits));
            let cost = sums + reduce;
            if best.is_none_or(|(best_cost, _)| cost < best_cost) {
                best = Some((cost, plan));
            }
        }
        best.map(|(_, plan)| plan)
    }

    /// Buckets of all windows: 2^(bits−1) a window.
    pub fn buckets(&self) -> u64 {
        u64::from(self.windows) << (self.bits - 1)
    }

    /// Entries of `terms` terms at most: one per window each.
    pub fn entries(&self, terms: u64) -> u64 {
        terms * u64::from(self.windows)
    }

    /// Entries each thread of the bucket sums adds, for `entries` entries
    /// on a device running `parallel_threads` threads of the bucket kernel
    /// at once: [`SORTED_SUMS_OVERSUBSCRIPTION`] times as many threads, but
    /// no fewer than [`MIN_SEGMENT`] entries a thread.
    pub fn segment(entries: u64, parallel_threads: u32) -> u32 {
        let threads = SORTED_SUMS_OVERSUBSCRIPTION * u64::from(parallel_threads.max(1));
        let segment = entries.div_ceil(threads);
        segment.max(MIN_SEGMENT).min(u64::from(u32::MAX)) as u32
    }

    /// Threads of the reduction, and partial sums it leaves.
    pub fn reduce_threads(&self) -> u32 {
        self.windows * self.parts
    }

    /// Bytes of the largest buffer for `terms` terms: the entries' or the
    /// bucket sums'.
    pub fn largest_buffer(&self, terms: u64, xyzz_bytes: u64) -> u64 {
        (4 * self.entries(terms)).max(xyzz_bytes * self.buckets())
    }

    /// Threads of the bucket sums for at most `entries` entries
    /// ([`Self::segment`]).
    pub fn most_segments(entries: u64, parallel_threads: u32) -> u64 {
        entries
            .div_ceil(MIN_SEGMENT)
            .min(SORTED_SUMS_OVERSUBSCRIPTION * u64::from(parallel_threads.max(1)))
    }

    /// Device bytes the plan needs for `terms` terms on a device running
    /// `parallel_threads` threads at once: the entries, three words a
    /// bucket (counts, first entries, cursors), a point a bucket, two
    /// points per thread of the sums (heads, tails) and the partial sums.
    pub fn bytes(&self, terms: u64, parallel_threads: u32, xyzz_bytes: u64) -> u64 {
        let entries = self.entries(terms);
        let segments = Self::most_segments(entries, parallel_threads);
        4 * entries
            + 4 * (3 * self.buckets() + 2)
            + xyzz_bytes * (self.buckets() + 2 * segments + u64::from(self.reduce_threads()))
    }
}
