//! The GPU MSM (kernels/msm.h) from the host.
//!
//! Bases stay in device buffers under their handle ([`Bases`]), cut into
//! chunks of at most one buffer, or on the host when they exceed the
//! device's memory (then each MSM uploads them chunk by chunk).
//!
//! PoRep witnesses are mostly zeros and ones, so the host first splits the
//! scalars (backend-api's [`Split`], over base indices): zeros are dropped,
//! ones go to the `sum_bases`
//! kernel (plain additions spread over every thread, instead of all landing
//! in one bucket), and only the rest go to the bucket kernel, as
//! (base index, scalar) pairs. [`MsmPlan`] picks the window size for the
//! bucket kernel from the number of terms and the device's parallelism.
//! `PCE_GPU_MSM=sorted` ([`Method`]) sends them to the sorted MSM instead
//! (the digits sorted by bucket on the device, each bucket summed in
//! registers, [`SortedPlan`]), which leaves to the bucket kernel a job
//! whose entries do not fit.
//!
//! Everything after the upload of the terms happens on the device: the
//! per-thread partial sums are reduced there (`msm_reduce`, then
//! `msm_combine` joins the windows), added to one accumulator per MSM of
//! the batch, and only those accumulators come back, one point per MSM.
//! Copying every thread's partial sum back (over 10^5 points on a large
//! GPU) and adding them on the host cost more than the MSM's kernels.
//!
//! Device memory is budgeted from what the engine has free when the MSM
//! starts ([`Engine::free_memory`], every buffer of the device counted:
//! resident bases, NTT twiddles, other operations' buffers): the streamed
//! chunks and accumulators first, then half of the rest for the two slots
//! of terms (which caps the terms of one job) and the other half for the
//! buckets and partial sums (which caps the window width). A device
//! buffer refused all the same (another process, fragmentation), the MSM
//! starts over in half the budget, narrower windows and shorter jobs, at
//! most [`MAX_NARROWING`] times and never below [`MIN_JOB_TERMS`] terms a
//! job, before it fails; other errors, those reported as out of memory
//! included, fail at once ([`AllocationWatch`]).
//! Bases are kept on the device only while they leave a quarter of the
//! device free for those working sets and the NTTs; else, or when their
//! upload runs out of memory, they are streamed.
//!
//! An MSM is a sequence of jobs, one per (range of at most the budget's
//! terms within a chunk of bases, MSM of the batch). The uploads of job j + 1 (its terms, and a streamed chunk's
//! points) are started with [`Engine::write_async`] before the kernels of
//! job j are launched, into the other of two slots: copies overlap
//! kernels, and the host splits the next job's scalars meanwhile.

use std::marker::PhantomData;
use std::ops::Range;

use backend_api::ffi::{
    pce_g1_affine, pce_g1_projective, pce_g2_affine, pce_g2_projective, pce_scalar, FP2_BYTES,
    FP_BYTES, PCE_G1, PCE_G2,
};
use backend_api::plugin::split::Split;
use backend_api::plugin::{HostPoints, PluginError, Points, Storage};

use tracing::{debug, warn};

use crate::engine::{bytes_of, AllocationWatch, Arg, Engine, Limits, Plain};

/// Bases are admitted to the device while they leave this share (a
/// quarter) of its memory free: room for the QAP step (three vectors of
/// the domain and its two half-size twiddle tables: 16 GiB, 17.2 GB, at
/// 2^27, a fifth of 80 GB; the vectors are freed when it returns, the
/// twiddles stay on the device with the domain) and then the MSMs' terms
/// and buckets. Bases past it are streamed.
const RESERVE_DIVISOR: u64 = 4;

/// Device bytes per term in one slot at most: a one costs a 4-byte index,
/// another term a 4-byte index and a 32-byte scalar, and each of a slot's
/// three buffers grows to the largest count of its kind over the jobs.
const TERM_BYTES: u64 = 40;

/// Points of the least plan: one slice of two-bit windows (128 windows,
/// two buckets and a partial sum each). Budgets below it all give that
/// plan.
const MIN_PLAN_POINTS: u64 = 3 * (SIGNED_BITS / 2) as u64;

/// Fewest terms of one job (unless the MSM or a chunk of its bases has
/// fewer): 5 MiB of terms in both slots. However little memory the budget
/// sees (a free-memory query that failed, memory taken since), jobs stay
/// this long, so an MSM that cannot run fails out of memory instead of
/// crawling through millions of jobs of a few terms.
const MIN_JOB_TERMS: u64 = 1 << 16;

/// Most times an MSM starts over in half the budget after a device buffer
/// was refused: by then its buckets have a sixteenth of the room they
/// first had, and a device that refuses that much less is not short by a
/// margin that narrowing further would find.
const MAX_NARROWING: u32 = 4;

/// The part of the free memory (one sixteenth) an MSM leaves out of its
/// budget: allocation granularity, alignment and the driver's own needs.
const HEADROOM_DIVISOR: u64 = 16;

/// Bits the signed windows must cover: the 255 bits of a scalar plus the
/// carry a top window above half its range would produce.
const SIGNED_BITS: u32 = 256;

/// Widest window the plan considers.
const MAX_WINDOW_BITS: u32 = 16;

/// Partial sums one thread of `msm_reduce` adds per pass: three passes
/// take the 10^5 partial sums of a large GPU down to one per window.
const REDUCE_FAN_IN: u32 = 32;

/// Largest chunk of streamed bases. An MSM over streamed bases keeps two
/// chunks on the device (one uploading while the kernels read the other);
/// this bounds them however large the device's buffers may be.
const STREAM_CHUNK_BYTES: u64 = 256 << 20;

/// The terms of one MSM over one device buffer of bases, split by scalar:
/// indices into the buffer of the ones' bases and of the others' bases,
/// and the others' scalars.
type Terms = Split<u32>;

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
const SCAN_THREADS: usize = 256;

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
const SORTED_SUMS_BLOCK: usize = 128;

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

/// The device memory one MSM call plans with (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Budget {
    /// Most terms (ones and others) of one job.
    job_terms: usize,
    /// Fewest terms of one job: [`Self::narrower`] stops there.
    least_job_terms: usize,
    /// Most points of buckets and partial sums (in one buffer).
    points: u64,
    /// Most bytes of the sorted MSM's buffers together (each within the
    /// device's largest buffer).
    bytes: u64,
}

impl Budget {
    /// The budget of a batch of `batch` MSMs of `count` terms each over
    /// `bases` in the engine's free memory now. A job never holds more
    /// terms than one MSM has within one chunk of the bases, so the terms'
    /// share is sized for at most that many and the rest goes to buckets:
    /// the 2^27 terms of a large MSM take at most 10.7 GB in both slots,
    /// where half of an H200's free memory would reserve some 28 GB.
    fn new<C: Curve, E: Engine>(
        engine: &E,
        bases: &GroupBases<C::Affine, E::Buffer>,
        count: usize,
        batch: usize,
    ) -> Self {
        let limits = engine.limits();
        let xyzz = C::XYZZ_BYTES as u64;
        let streamed = match bases.place {
            Place::Host(_) => 2 * (bases.chunk_len * size_of::<C::Affine>()) as u64,
            Place::Device(_) => 0,
        };
        let fixed = batch as u64 * (xyzz + size_of::<C::Point>() as u64) + streamed;
        let mut available = engine.free_memory().saturating_sub(fixed);
        available -= available / HEADROOM_DIVISOR;
        let most = (count.min(bases.chunk_len) as u64)
            .min(limits.max_alloc / size_of::<pce_scalar>() as u64)
            .max(1);
        let least = most.min(MIN_JOB_TERMS);
        let job_terms = (available / 2 / (2 * TERM_BYTES)).clamp(least, most);
        let room = available - (2 * TERM_BYTES * job_terms).min(available);
        Self {
            job_terms: job_terms as usize,
            least_job_terms: least as usize,
            points: room.min(limits.max_alloc) / xyzz,
            bytes: room,
        }
    }

    /// Half this budget (jobs no shorter than [`Self::least_job_terms`]),
    /// or `None` when neither half would be less: the least jobs and the
    /// least bucket plan.
    fn narrower(self) -> Option<Self> {
        let narrower = Self {
            job_terms: (self.job_terms / 2).max(self.least_job_terms),
            points: self.points / 2,
            bytes: self.bytes / 2,
            ..self
        };
        (narrower.job_terms < self.job_terms || self.points > MIN_PLAN_POINTS).then_some(narrower)
    }
}

/// A group as the kernels see it: the ABI's affine bases and Jacobian
/// results, the size of its XYZZ points on the device, and its kernels.
pub trait Curve {
    /// The ABI's affine point (the bases).
    type Affine: Plain;
    /// The ABI's Jacobian point (the results).
    type Point: Plain;
    /// `PCE_G1` or `PCE_G2`.
    const GROUP: u32;
    /// Bytes of one XYZZ point on the device (buckets, partial sums,
    /// accumulators); all-zero is infinity.
    const XYZZ_BYTES: usize;
    /// The bucket kernel.
    const BUCKETS_KERNEL: &'static str;
    /// Threads of the bucket kernel the device runs at once.
    fn bucket_threads(limits: &Limits) -> u32;
    /// The kernel summing bases.
    const SUM_KERNEL: &'static str;
    /// One reduction pass over partial sums.
    const REDUCE_KERNEL: &'static str;
    /// Windows joined and added to an accumulator.
    const COMBINE_KERNEL: &'static str;
    /// Accumulators to Jacobian results.
    const FINISH_KERNEL: &'static str;
    /// The sorted MSM's bucket sums.
    const SORTED_SUMS_KERNEL: &'static str;
    /// The sorted MSM's window sums.
    const SORTED_REDUCE_KERNEL: &'static str;
}

/// G1.
pub struct G1;

/// G2.
pub struct G2;

impl Curve for G1 {
    type Affine = pce_g1_affine;
    type Point = pce_g1_projective;
    const GROUP: u32 = PCE_G1;
    const XYZZ_BYTES: usize = 4 * FP_BYTES;
    const BUCKETS_KERNEL: &'static str = "G1_msm_buckets";
    fn bucket_threads(limits: &Limits) -> u32 {
        limits.g1_bucket_threads
    }
    const SUM_KERNEL: &'static str = "G1_sum_bases";
    const REDUCE_KERNEL: &'static str = "G1_msm_reduce";
    const COMBINE_KERNEL: &'static str = "G1_msm_combine";
    const FINISH_KERNEL: &'static str = "G1_msm_finish";
    const SORTED_SUMS_KERNEL: &'static str = "G1_msm_sorted_sums";
    const SORTED_REDUCE_KERNEL: &'static str = "G1_msm_sorted_reduce";
}

impl Curve for G2 {
    type Affine = pce_g2_affine;
    type Point = pce_g2_projective;
    const GROUP: u32 = PCE_G2;
    const XYZZ_BYTES: usize = 4 * FP2_BYTES;
    const BUCKETS_KERNEL: &'static str = "G2_msm_buckets";
    fn bucket_threads(limits: &Limits) -> u32 {
        limits.g2_bucket_threads
    }
    const SUM_KERNEL: &'static str = "G2_sum_bases";
    const REDUCE_KERNEL: &'static str = "G2_msm_reduce";
    const COMBINE_KERNEL: &'static str = "G2_msm_combine";
    const FINISH_KERNEL: &'static str = "G2_msm_finish";
    const SORTED_SUMS_KERNEL: &'static str = "G2_msm_sorted_sums";
    const SORTED_REDUCE_KERNEL: &'static str = "G2_msm_sorted_reduce";
}

/// Where bases live.
enum Place<A, B> {
    /// In device buffers of `chunk_len` points each (the last one shorter).
    Device(Vec<B>),
    /// On the host (a copy, or the host's lent memory), uploaded chunk by
    /// chunk for each MSM.
    Host(Storage<A>),
}

/// The bases of one group, in chunks of `chunk_len` points.
pub struct GroupBases<A, B> {
    place: Place<A, B>,
    chunk_len: usize,
    len: usize,
}

/// Bases of either group.
pub enum Bases<B> {
    /// G1 points.
    G1(GroupBases<pce_g1_affine, B>),
    /// G2 points.
    G2(GroupBases<pce_g2_affine, B>),
}

impl<B> Bases<B> {
    /// Keeps `points` on the device when they fit, else on the host.
    pub fn new<E: Engine<Buffer = B>>(engine: &E, points: Points) -> Result<Self, PluginError> {
        Ok(match points {
            Points::G1(points) => Bases::G1(GroupBases::new(engine, points)?),
            Points::G2(points) => Bases::G2(GroupBases::new(engine, points)?),
        })
    }

    /// Number of points and group.
    pub fn shape(&self) -> (usize, u32) {
        match self {
            Bases::G1(bases) => (bases.len, G1::GROUP),
            Bases::G2(bases) => (bases.len, G2::GROUP),
        }
    }
}

/// Points of `A` in `bytes`, at least one; indices on the device are
/// 31-bit (the sorted MSM keeps a digit's sign in bit 31 of its entries).
fn points_in<A>(bytes: u64) -> usize {
    (bytes / size_of::<A>() as u64).clamp(1, i32::MAX as u64) as usize
}

impl<A: Plain, B> GroupBases<A, B> {
    /// On the device when the bases leave a quarter of its memory free
    /// ([`RESERVE_DIVISOR`]) and twice the least bucket plan (XYZZ points
    /// are twice the affine size) besides, and their upload succeeds; else
    /// streamed. The second term only matters under a small
    /// `PCE_GPU_MEMORY_LIMIT`, where a quarter is less than any MSM needs.
    fn new<E: Engine<Buffer = B>>(engine: &E, points: HostPoints<A>) -> Result<Self, PluginError> {
        let bytes = size_of_val(points.as_slice()) as u64;
        let least_plan = MIN_PLAN_POINTS * 2 * size_of::<A>() as u64;
        let reserve = engine.limits().memory / RESERVE_DIVISOR + 2 * least_plan;
        if bytes.saturating_add(reserve) <= engine.free_memory() {
            let watch = AllocationWatch::new(engine);
            match Self::resident(&watch, points.as_slice()) {
                Ok(bases) => return Ok(bases),
                Err(error) if watch.refused(&error) => {
                    warn!(bytes, %error.message, "MSM bases did not fit on the device; streaming them");
                }
                Err(error) => return Err(error),
            }
        }
        Ok(Self::streamed(engine, Storage::new(points)))
    }

    /// `points` in device buffers as large as the device allows.
    pub(crate) fn resident<E: Engine<Buffer = B>>(
        engine: &E,
        points: &[A],
    ) -> Result<Self, PluginError> {
        let chunk_len = points_in::<A>(engine.limits().max_alloc);
        let buffers = points
            .chunks(chunk_len)
            .map(|chunk| engine.upload(chunk))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            place: Place::Device(buffers),
            chunk_len,
            len: points.len(),
        })
    }

    /// `points` kept on the host, in chunks small enough that two fit in an
    /// eighth of the device's memory.
    fn streamed<E: Engine<Buffer = B>>(engine: &E, points: Storage<A>) -> Self {
        let limits = engine.limits();
        let chunk_bytes = limits
            .max_alloc
            .min(limits.memory / 16)
            .min(STREAM_CHUNK_BYTES);
        Self {
            len: points.as_slice().len(),
            place: Place::Host(points),
            chunk_len: points_in::<A>(chunk_bytes),
        }
    }

    /// The indices of chunk `chunk`.
    fn chunk(&self, chunk: usize) -> Range<usize> {
        let start = chunk * self.chunk_len;
        start..(start + self.chunk_len).min(self.len)
    }
}

/// One run of the kernels: the terms of MSM `k` of the batch that fall in
/// `range` (indices into all the bases), part of chunk `chunk` of the
/// bases.
struct Job {
    /// Position of the chunk among the chunks this MSM touches (which of
    /// the two streaming slots holds it).
    position: usize,
    chunk: usize,
    range: Range<usize>,
    /// Whether this is the chunk's first job.
    first: bool,
    k: usize,
}

/// How many terms of each kind a staged job uploaded.
#[derive(Clone, Copy)]
struct Staged {
    ones: u32,
    terms: u32,
}

/// For each k, `out[k] = Σ_i scalars[k · count + i] · bases[offset + i]`.
///
/// Within the [`Budget`] of the engine's free memory; when a device buffer
/// is refused, again in half the budget, until the least one fails too or
/// [`MAX_NARROWING`] retries have. By the [`Method`] `PCE_GPU_MSM` names.
pub fn msm<C: Curve, E: Engine>(
    engine: &E,
    bases: &GroupBases<C::Affine, E::Buffer>,
    offset: usize,
    count: usize,
    scalars: &[pce_scalar],
    out: &mut [C::Point],
) -> Result<(), PluginError> {
    msm_by::<C, E>(
        Method::from_env(),
        engine,
        bases,
        offset,
        count,
        scalars,
        out,
    )
}

/// [`msm`] by `method`.
fn msm_by<C: Curve, E: Engine>(
    method: Method,
    engine: &E,
    bases: &GroupBases<C::Affine, E::Buffer>,
    offset: usize,
    count: usize,
    scalars: &[pce_scalar],
    out: &mut [C::Point],
) -> Result<(), PluginError> {
    if out.is_empty() {
        return Ok(());
    }
    let watch = AllocationWatch::new(engine);
    let mut budget = Budget::new::<C, E>(engine, bases, count, out.len());
    let mut narrowed = 0;
    loop {
        let within = (method, budget);
        match msm_within::<C, _>(&watch, bases, (offset, count), scalars, out, within) {
            Err(error) if watch.refused(&error) && narrowed < MAX_NARROWING => {
                match budget.narrower() {
                    Some(narrower) => {
                        warn!(?budget, ?narrower, %error.message, "MSM out of device memory; again in less");
                        budget = narrower;
                        narrowed += 1;
                    }
                    None => return Err(error),
                }
            }
            result => return result,
        }
    }
}

/// [`msm`] by `method` within `budget`.
fn msm_within<C: Curve, E: Engine>(
    engine: &E,
    bases: &GroupBases<C::Affine, E::Buffer>,
    (offset, count): (usize, usize),
    scalars: &[pce_scalar],
    out: &mut [C::Point],
    (method, budget): (Method, Budget),
) -> Result<(), PluginError> {
    let chunks: Vec<(usize, Range<usize>)> = (0..bases.len.div_ceil(bases.chunk_len))
        .filter_map(|chunk| {
            let span = bases.chunk(chunk);
            let range = offset.max(span.start)..(offset + count).min(span.end);
            (!range.is_empty()).then_some((chunk, range))
        })
        .collect();
    let step = budget.job_terms.max(1);
    let batch = out.len();
    let jobs: Vec<Job> = chunks
        .iter()
        .enumerate()
        .flat_map(|(position, (chunk, range))| {
            range.clone().step_by(step).flat_map(move |start| {
                let part = start..(start + step).min(range.end);
                (0..batch).map(move |k| Job {
                    position,
                    chunk: *chunk,
                    range: part.clone(),
                    first: start == range.start,
                    k,
                })
            })
        })
        .collect();
    let terms_of = |job: &Job| {
        let start = job.k * count + job.range.start - offset;
        let first = job.range.start - bases.chunk(job.chunk).start;
        Terms::new(&scalars[start..start + job.range.len()], first as u32..)
    };

    let mut run = Run::<C, E>::new(engine, bases, out.len(), method, budget)?;
    if let Some((chunk, _)) = chunks.first() {
        run.stage_bases(*chunk, 0)?;
    }
    let mut staged = match jobs.first() {
        Some(job) => Some(run.stage_terms(&terms_of(job), 0)?),
        None => None,
    };
    for (j, job) in jobs.iter().enumerate() {
        let current = staged.expect("each job is staged before it runs");
        // The kernels of job j see everything uploaded so far; what is
        // uploaded from here on overlaps them.
        engine.wait_writes()?;
        // The next chunk's streamed points, once the previous chunk's
        // kernels (the last readers of its slot) have all been launched.
        if job.k == 0 && job.first {
            if let Some((chunk, _)) = chunks.get(job.position + 1) {
                run.stage_bases(*chunk, (job.position + 1) % 2)?;
            }
        }
        staged = match jobs.get(j + 1) {
            Some(next) => Some(run.stage_terms(&terms_of(next), (j + 1) % 2)?),
            None => None,
        };
        run.launch(job, current, j % 2)?;
    }
    run.finish(out)
}

/// A device buffer reused from job to job, replaced when one needs more.
struct Scratch<B> {
    buffer: Option<B>,
    bytes: usize,
}

impl<B> Default for Scratch<B> {
    fn default() -> Self {
        Self {
            buffer: None,
            bytes: 0,
        }
    }
}

impl<B> Scratch<B> {
    /// The buffer, with room for at least `bytes`. A buffer it replaces may
    /// still be in use by kernels: engines free buffers only after the
    /// work queued on them.
    fn get<E: Engine<Buffer = B>>(
        &mut self,
        engine: &E,
        bytes: usize,
    ) -> Result<&mut B, PluginError> {
        if self.buffer.is_none() || self.bytes < bytes {
            self.buffer = None;
            self.buffer = Some(engine.buffer(bytes)?);
            self.bytes = bytes;
        }
        Ok(self.buffer.as_mut().expect("just allocated"))
    }

    /// [`Self::get`], with a buffer it allocates filled with zeros.
    fn zeroed<E: Engine<Buffer = B>>(
        &mut self,
        engine: &E,
        bytes: usize,
    ) -> Result<&mut B, PluginError> {
        if self.buffer.is_none() || self.bytes < bytes {
            let mut buffer = engine.buffer(bytes)?;
            engine.write(&mut buffer, &vec![0; bytes])?;
            self.buffer = Some(buffer);
            self.bytes = bytes;
        }
        Ok(self.buffer.as_mut().expect("just allocated"))
    }

    /// The buffer the last job staged.
    fn staged(&self) -> &B {
        self.buffer.as_ref().expect("staged before the kernels run")
    }

    /// Starts uploading `values` into the buffer.
    fn write_async<E: Engine<Buffer = B>, T: Plain>(
        &mut self,
        engine: &E,
        values: &[T],
    ) -> Result<(), PluginError> {
        if values.is_empty() {
            return Ok(());
        }
        let buffer = self.get(engine, size_of_val(values))?;
        engine.write_async(buffer, bytes_of(values))
    }
}

/// The device buffers of one job's terms.
struct TermBuffers<B> {
    ones: Scratch<B>,
    indices: Scratch<B>,
    scalars: Scratch<B>,
}

impl<B> Default for TermBuffers<B> {
    fn default() -> Self {
        Self {
            ones: Scratch::default(),
            indices: Scratch::default(),
            scalars: Scratch::default(),
        }
    }
}

/// The device state of one MSM call: accumulators, the two slots of
/// streamed bases and of terms, and the kernels' working memory.
struct Run<'a, C: Curve, E: Engine> {
    engine: &'a E,
    bases: &'a GroupBases<C::Affine, E::Buffer>,
    /// One XYZZ sum per MSM of the batch.
    acc: E::Buffer,
    streamed: [Scratch<E::Buffer>; 2],
    terms: [TermBuffers<E::Buffer>; 2],
    buckets: Scratch<E::Buffer>,
    partials: Scratch<E::Buffer>,
    /// The sorted MSM's buffers ([`Method::Sorted`]).
    sorted: SortedBuffers<E::Buffer>,
    method: Method,
    budget: Budget,
    curve: PhantomData<C>,
}

/// The device buffers of the sorted MSM, reused from job to job.
struct SortedBuffers<B> {
    /// Entries per bucket; all zero between jobs (`msm_scan` zeroes what
    /// it read).
    counts: Scratch<B>,
    offsets: Scratch<B>,
    cursors: Scratch<B>,
    /// The number of entries, for the host.
    total: Scratch<B>,
    entries: Scratch<B>,
    sums: Scratch<B>,
    heads: Scratch<B>,
    tails: Scratch<B>,
}

impl<B> Default for SortedBuffers<B> {
    fn default() -> Self {
        Self {
            counts: Scratch::default(),
            offsets: Scratch::default(),
            cursors: Scratch::default(),
            total: Scratch::default(),
            entries: Scratch::default(),
            sums: Scratch::default(),
            heads: Scratch::default(),
            tails: Scratch::default(),
        }
    }
}

impl<'a, C: Curve, E: Engine> Run<'a, C, E> {
    fn new(
        engine: &'a E,
        bases: &'a GroupBases<C::Affine, E::Buffer>,
        batch: usize,
        method: Method,
        budget: Budget,
    ) -> Result<Self, PluginError> {
        let bytes = batch * C::XYZZ_BYTES;
        let mut acc = engine.buffer(bytes)?;
        // All-zero is the point at infinity.
        engine.write(&mut acc, &vec![0; bytes])?;
        Ok(Self {
            engine,
            bases,
            acc,
            streamed: Default::default(),
            terms: Default::default(),
            buckets: Scratch::default(),
            partials: Scratch::default(),
            sorted: SortedBuffers::default(),
            method,
            budget,
            curve: PhantomData,
        })
    }

    /// Starts uploading chunk `chunk` into streaming slot `slot`, when the
    /// bases are streamed.
    fn stage_bases(&mut self, chunk: usize, slot: usize) -> Result<(), PluginError> {
        if let Place::Host(host) = &self.bases.place {
            let points = &host.as_slice()[self.bases.chunk(chunk)];
            self.streamed[slot].write_async(self.engine, points)?;
        }
        Ok(())
    }

    /// Starts uploading `terms` into terms slot `slot`.
    fn stage_terms(&mut self, terms: &Terms, slot: usize) -> Result<Staged, PluginError> {
        let buffers = &mut self.terms[slot];
        buffers.ones.write_async(self.engine, &terms.ones)?;
        buffers.indices.write_async(self.engine, &terms.others)?;
        buffers
            .scalars
            .write_async(self.engine, &terms.other_scalars)?;
        Ok(Staged {
            ones: terms.ones.len() as u32,
            terms: terms.others.len() as u32,
        })
    }

    /// Launches the kernels of `job`, whose terms are in slot `slot`.
    fn launch(&mut self, job: &Job, staged: Staged, slot: usize) -> Result<(), PluginError> {
        let engine = self.engine;
        let limits = engine.limits();
        let bases = job_bases(self.bases, &self.streamed, job);
        let terms = &self.terms[slot];
        if staged.ones > 0 {
            let room = u32::try_from(self.budget.points).unwrap_or(u32::MAX);
            let slices = limits.parallel_threads.min(room).clamp(1, staged.ones);
            let partials = self.partials.get(engine, slices as usize * C::XYZZ_BYTES)?;
            engine.launch(
                C::SUM_KERNEL,
                slices as usize,
                None,
                &[
                    Arg::Buffer(bases),
                    Arg::Buffer(terms.ones.staged()),
                    Arg::U32(staged.ones),
                    Arg::U32(slices),
                    Arg::Buffer(partials),
                ],
            )?;
            accumulate::<C, E>(engine, partials, 0, 1, slices, &self.acc, job.k)?;
        }
        if staged.terms > 0 {
            match self.method {
                Method::Buckets => self.buckets(job, slot, staged.terms)?,
                Method::Sorted => self.sorted(job, slot, staged.terms)?,
            }
        }
        Ok(())
    }

    /// The bucket kernel over the `count` terms of `job` in terms slot
    /// `slot`, its sums added to the job's accumulator.
    fn buckets(&mut self, job: &Job, slot: usize, count: u32) -> Result<(), PluginError> {
        let engine = self.engine;
        let bases = job_bases(self.bases, &self.streamed, job);
        let terms = &self.terms[slot];
        let plan = MsmPlan::new(
            count as usize,
            C::bucket_threads(&engine.limits()),
            self.budget.points,
        );
        let buckets = self
            .buckets
            .get(engine, plan.buckets() as usize * C::XYZZ_BYTES)?;
        let partials = self
            .partials
            .get(engine, plan.threads() as usize * C::XYZZ_BYTES)?;
        engine.launch(
            C::BUCKETS_KERNEL,
            plan.threads() as usize,
            None,
            &[
                Arg::Buffer(bases),
                Arg::Buffer(terms.indices.staged()),
                Arg::Buffer(terms.scalars.staged()),
                Arg::U32(count),
                Arg::U32(plan.bits),
                Arg::U32(plan.windows),
                Arg::U32(plan.slices),
                Arg::Buffer(buckets),
                Arg::Buffer(partials),
            ],
        )?;
        accumulate::<C, E>(
            engine,
            partials,
            plan.bits,
            plan.windows,
            plan.slices,
            &self.acc,
            job.k,
        )
    }

    /// The sorted MSM over the `count` terms of `job` in terms slot `slot`,
    /// its sums added to the job's accumulator: the digits counted per bucket, the counts scanned
    /// into each bucket's first entry, the entries placed, the buckets
    /// summed, then each window's buckets (kernels/sort.h, kernels/msm.h).
    fn sorted(&mut self, job: &Job, slot: usize, count: u32) -> Result<(), PluginError> {
        let engine = self.engine;
        let bases = job_bases(self.bases, &self.streamed, job);
        let terms = &self.terms[slot];
        let k = job.k;
        let xyzz = C::XYZZ_BYTES;
        let limits = engine.limits();
        // Each buffer within what the bucket kernel's buckets may take (the
        // device's largest buffer, halved with the budget after a refusal).
        let max_buffer = self.budget.points.saturating_mul(xyzz as u64);
        let Some(plan) = SortedPlan::new(
            count as usize,
            C::bucket_threads(&limits),
            (self.budget.bytes, max_buffer),
            xyzz as u64,
        ) else {
            debug!(terms = count, budget = ?self.budget, "no sorted MSM plan fits; the bucket kernel instead");
            return self.buckets(job, slot, count);
        };
        let buckets = plan.buckets() as usize;
        let most = plan.entries(u64::from(count));
        let parallel = C::bucket_threads(&limits);
        let most_segments = SortedPlan::most_segments(most, parallel) as usize;
        let buffers = &mut self.sorted;
        let counts = buffers.counts.zeroed(engine, 4 * buckets)?;
        let offsets = buffers.offsets.get(engine, 4 * (buckets + 1))?;
        let cursors = buffers.cursors.get(engine, 4 * buckets)?;
        let total = buffers.total.get(engine, 4)?;
        let entries = buffers.entries.get(engine, 4 * most as usize)?;
        let sums = buffers.sums.get(engine, xyzz * buckets)?;
        let heads = buffers.heads.get(engine, xyzz * most_segments)?;
        let tails = buffers.tails.get(engine, xyzz * most_segments)?;
        let partials = self
            .partials
            .get(engine, xyzz * plan.reduce_threads() as usize)?;
        let digits = |place: u32| {
            engine.launch(
                "msm_digits",
                count as usize,
                None,
                &[
                    Arg::Buffer(terms.scalars.staged()),
                    Arg::Buffer(terms.indices.staged()),
                    Arg::U32(count),
                    Arg::U32(plan.bits),
                    Arg::U32(plan.windows),
                    Arg::U32(place),
                    Arg::Buffer(counts),
                    Arg::Buffer(cursors),
                    Arg::Buffer(entries),
                ],
            )
        };
        digits(0)?;
        engine.launch(
            "msm_scan",
            SCAN_THREADS,
            Some(SCAN_THREADS),
            &[
                Arg::Buffer(counts),
                Arg::U32(buckets as u32),
                Arg::Buffer(offsets),
                Arg::Buffer(cursors),
                Arg::Buffer(total),
            ],
        )?;
        digits(1)?;
        // How many digits are not zero (small scalars leave most windows
        // empty) decides how the sums spread over the threads: a wait for
        // two short kernels and four bytes.
        let mut found = [0u32];
        engine.download(total, &mut found)?;
        let segment = SortedPlan::segment(u64::from(found[0]), parallel);
        let threads = found[0].div_ceil(segment) as usize;
        debug!(
            ?plan,
            terms = count,
            entries = found[0],
            segment,
            "sorted MSM job"
        );
        // Terms here have scalars other than 0 and 1, so one digit at least;
        // no entries would leave every bucket empty, and no thread to launch.
        if threads > 0 {
            engine.launch(
                C::SORTED_SUMS_KERNEL,
                threads,
                Some(SORTED_SUMS_BLOCK),
                &[
                    Arg::Buffer(bases),
                    Arg::Buffer(entries),
                    Arg::Buffer(offsets),
                    Arg::U32(buckets as u32),
                    Arg::U32(segment),
                    Arg::Buffer(sums),
                    Arg::Buffer(heads),
                    Arg::Buffer(tails),
                ],
            )?;
        }
        engine.launch(
            C::SORTED_REDUCE_KERNEL,
            plan.reduce_threads() as usize,
            None,
            &[
                Arg::Buffer(offsets),
                Arg::U32(plan.bits),
                Arg::U32(plan.windows),
                Arg::U32(plan.parts),
                Arg::U32(segment),
                Arg::Buffer(sums),
                Arg::Buffer(heads),
                Arg::Buffer(tails),
                Arg::Buffer(partials),
            ],
        )?;
        accumulate::<C, E>(
            engine,
            partials,
            plan.bits,
            plan.windows,
            plan.parts,
            &self.acc,
            k,
        )
    }

    /// The accumulators as Jacobian points, copied into `out`.
    fn finish(self, out: &mut [C::Point]) -> Result<(), PluginError> {
        let results = self.engine.buffer(size_of_val(out))?;
        self.engine.launch(
            C::FINISH_KERNEL,
            out.len(),
            None,
            &[
                Arg::Buffer(&self.acc),
                Arg::U32(out.len() as u32),
                Arg::Buffer(&results),
            ],
        )?;
        self.engine.download(&results, out)
    }
}

/// The device buffer of `job`'s bases: resident, or the streaming slot its
/// chunk was uploaded to.
fn job_bases<'b, A, B>(
    bases: &'b GroupBases<A, B>,
    streamed: &'b [Scratch<B>; 2],
    job: &Job,
) -> &'b B {
    match &bases.place {
        Place::Device(buffers) => &buffers[job.chunk],
        Place::Host(_) => streamed[job.position % 2].staged(),
    }
}

/// Adds the partial sums of one MSM, `partials[slice · windows + window]`
/// for `slices` slices, to `acc[index]`: reduction passes down to one
/// slice, then the windows joined (`bits` doublings apart).
fn accumulate<C: Curve, E: Engine>(
    engine: &E,
    partials: &E::Buffer,
    bits: u32,
    windows: u32,
    mut slices: u32,
    acc: &E::Buffer,
    index: usize,
) -> Result<(), PluginError> {
    while slices > 1 {
        let parts = slices.div_ceil(REDUCE_FAN_IN);
        engine.launch(
            C::REDUCE_KERNEL,
            (windows * parts) as usize,
            None,
            &[
                Arg::Buffer(partials),
                Arg::U32(windows),
                Arg::U32(slices),
                Arg::U32(parts),
            ],
        )?;
        slices = parts;
    }
    engine.launch(
        C::COMBINE_KERNEL,
        1,
        None,
        &[
            Arg::Buffer(partials),
            Arg::U32(bits),
            Arg::U32(windows),
            Arg::Buffer(acc),
            Arg::U32(index as u32),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use backend_api::ffi::{
        G1_AFFINE_BYTES, G1_PROJECTIVE_BYTES, G2_AFFINE_BYTES, G2_PROJECTIVE_BYTES,
    };

    #[test]
    fn plans_fit_the_bucket_budget_and_cover_the_scalar() {
        for terms in [1usize, 7, 1000, 1 << 16, 1 << 22] {
            for threads in [1u32, 8, 1 << 10, 1 << 15] {
                let plan = MsmPlan::new(terms, threads, 1 << 24);
                assert!(plan.buckets() <= 1 << 24, "{plan:?}");
                assert!(plan.bits * plan.windows >= SIGNED_BITS, "{plan:?}");
                assert!(u64::from(plan.slices) <= terms as u64, "{plan:?}");
            }
        }
        // Many terms on a small device: wide windows.
        assert!(MsmPlan::new(1 << 20, 8, 1 << 24).bits >= 10);
        // Few terms: narrow windows.
        assert!(MsmPlan::new(4, 8, 1 << 24).bits <= 3);
    }

    /// When the [`Mock`] engine applies a [`Engine::write_async`]: as early
    /// or as late as its contract allows. A driver that reads a slot before
    /// waiting for its upload goes wrong late; one that overwrites a slot
    /// whose kernels have not been launched yet goes wrong early.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Timing {
        /// At the call (the kernels launched before have run: the mock
        /// runs kernels at launch).
        Early,
        /// At the next [`Engine::wait_writes`].
        Late,
    }

    type MockBuffer = std::rc::Rc<std::cell::RefCell<Vec<u8>>>;

    /// An engine on the host whose points are integers modulo 2^64 (the
    /// first eight bytes of each point): its kernels follow the indexing of
    /// kernels/msm.h with additions in place of the group law, so the
    /// driver's chunks, slots, uploads and reduction passes are checked
    /// exactly, on any machine.
    struct Mock {
        limits: Limits,
        timing: Timing,
        pending: std::cell::RefCell<Vec<(MockBuffer, Vec<u8>)>>,
        /// Kernels launched while an upload was still pending: copies that
        /// could overlap kernels.
        overlapped: std::cell::Cell<usize>,
        /// What [`Engine::free_memory`] says.
        free: u64,
        /// Buffers larger than this are refused as out of memory (set once
        /// the bases are on the device).
        refuse_above: std::cell::Cell<usize>,
        /// Buffers refused so.
        refused: std::cell::Cell<usize>,
        /// A kernel (or `write_async`) that fails with
        /// `PCE_ERR_OUT_OF_MEMORY` though no buffer was refused: a kernel
        /// fault an OpenCL driver reports as `CL_OUT_OF_RESOURCES`, or
        /// page-locked staging memory the host could not allocate.
        fault: Option<&'static str>,
        /// Failures so.
        faults: std::cell::Cell<usize>,
        /// Launches of the bucket kernel and of the sorted MSM's sums.
        bucket_launches: std::cell::Cell<usize>,
        sorted_launches: std::cell::Cell<usize>,
    }

    impl Mock {
        /// A failure of `what` that is not a refused device buffer.
        fn fail(&self, what: &str) -> Result<(), PluginError> {
            if self.fault == Some(what) {
                self.faults.set(self.faults.get() + 1);
                return Err(PluginError::new(
                    backend_api::ffi::PCE_ERR_OUT_OF_MEMORY,
                    format!("mock {what} out of resources"),
                ));
            }
            Ok(())
        }
    }

    /// Argument `i` of kernel `name`, a buffer.
    fn buffer_arg(name: &str, args: &[Arg<'_, MockBuffer>], i: usize) -> MockBuffer {
        match &args[i] {
            Arg::Buffer(buffer) => (*buffer).clone(),
            _ => panic!("{name}: argument {i} is not a buffer"),
        }
    }

    /// Argument `i` of kernel `name`, a u32.
    fn u32_arg(name: &str, args: &[Arg<'_, MockBuffer>], i: usize) -> u32 {
        match args[i] {
            Arg::U32(value) => value,
            _ => panic!("{name}: argument {i} is not a u32"),
        }
    }

    fn value(buffer: &[u8], stride: usize, index: usize) -> u64 {
        let at = index * stride;
        u64::from_le_bytes(buffer[at..at + 8].try_into().unwrap())
    }

    fn index(indices: &[u8], i: usize) -> usize {
        u32::from_le_bytes(indices[4 * i..4 * i + 4].try_into().unwrap()) as usize
    }

    fn set(buffer: &mut [u8], stride: usize, index: usize, value: u64) {
        let at = index * stride;
        buffer[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }

    /// kernels/scalar.h's `scalar_signed_digit`.
    fn signed_digit(scalar: &[u8], window: u32, bits: u32) -> i64 {
        let limbs: Vec<u64> = (0..4).map(|i| value(scalar, 8, i)).collect();
        let bits_at = |offset: u32| -> u64 {
            let (limb, shift) = ((offset / 64) as usize, offset % 64);
            if limb >= 4 {
                return 0;
            }
            let mut v = limbs[limb] >> shift;
            if shift + bits > 64 && limb + 1 < 4 {
                v |= limbs[limb + 1] << (64 - shift);
            }
            v & ((1u64 << bits) - 1)
        };
        let (limit, mut carry, mut digit) = (1u64 << (bits - 1), 0, 0);
        for w in 0..=window {
            let d = bits_at(w * bits) + carry;
            carry = u64::from(d > limit);
            digit = d as i64 - if carry == 1 { 1i64 << bits } else { 0 };
        }
        digit
    }

    impl Engine for Mock {
        type Buffer = MockBuffer;

        fn limits(&self) -> Limits {
            self.limits
        }

        fn free_memory(&self) -> u64 {
            self.free
        }

        fn buffer(&self, bytes: usize) -> Result<MockBuffer, PluginError> {
            if bytes > self.refuse_above.get() {
                self.refused.set(self.refused.get() + 1);
                return Err(PluginError::new(
                    backend_api::ffi::PCE_ERR_OUT_OF_MEMORY,
                    "mock out of memory",
                ));
            }
            // Not zero: a kernel reading memory nobody wrote goes wrong.
            Ok(MockBuffer::new(vec![0xa5; bytes.max(1)].into()))
        }

        fn write(&self, buffer: &mut MockBuffer, bytes: &[u8]) -> Result<(), PluginError> {
            buffer.borrow_mut()[..bytes.len()].copy_from_slice(bytes);
            Ok(())
        }

        fn read(&self, buffer: &MockBuffer, bytes: &mut [u8]) -> Result<(), PluginError> {
            bytes.copy_from_slice(&buffer.borrow()[..bytes.len()]);
            Ok(())
        }

        fn write_async(&self, buffer: &mut MockBuffer, bytes: &[u8]) -> Result<(), PluginError> {
            self.fail("write_async")?;
            match self.timing {
                Timing::Early => self.write(buffer, bytes),
                Timing::Late => {
                    let pending = (buffer.clone(), bytes.to_vec());
                    self.pending.borrow_mut().push(pending);
                    Ok(())
                }
            }
        }

        fn wait_writes(&self) -> Result<(), PluginError> {
            for (buffer, bytes) in self.pending.take() {
                buffer.borrow_mut()[..bytes.len()].copy_from_slice(&bytes);
            }
            Ok(())
        }

        fn launch(
            &self,
            name: &str,
            threads: usize,
            block: Option<usize>,
            args: &[Arg<'_, MockBuffer>],
        ) -> Result<(), PluginError> {
            self.fail(name)?;
            if !self.pending.borrow().is_empty() {
                self.overlapped.set(self.overlapped.get() + 1);
            }
            let buffer = |i: usize| buffer_arg(name, args, i);
            let int = |i: usize| u32_arg(name, args, i);
            if let Some(sort) = name.strip_prefix("msm_") {
                self.sort(sort, threads, block, args);
                return Ok(());
            }
            let (group, kernel) = name.split_once('_').unwrap();
            let (affine, xyzz, jacobian) = match group {
                "G1" => (G1_AFFINE_BYTES, G1::XYZZ_BYTES, G1_PROJECTIVE_BYTES),
                "G2" => (G2_AFFINE_BYTES, G2::XYZZ_BYTES, G2_PROJECTIVE_BYTES),
                _ => panic!("unknown kernel {name}"),
            };
            let slice_of = |t: u32, count: u32, slices: u32| {
                let per_slice = count.div_ceil(slices);
                let begin = t * per_slice;
                begin..(begin + per_slice).min(count)
            };
            match kernel {
                "sum_bases" => {
                    let (bases, indices) = (buffer(0).borrow().clone(), buffer(1).borrow().clone());
                    let (count, slices, partials) = (int(2), int(3), buffer(4));
                    assert!(threads >= slices as usize);
                    for t in 0..slices {
                        let sum = slice_of(t, count, slices).fold(0u64, |sum, i| {
                            sum.wrapping_add(value(&bases, affine, index(&indices, i as usize)))
                        });
                        set(&mut partials.borrow_mut(), xyzz, t as usize, sum);
                    }
                }
                "msm_buckets" => {
                    self.bucket_launches.set(self.bucket_launches.get() + 1);
                    let bases = buffer(0).borrow().clone();
                    let (indices, scalars) =
                        (buffer(1).borrow().clone(), buffer(2).borrow().clone());
                    let (count, bits, windows, slices) = (int(3), int(4), int(5), int(6));
                    let partials = buffer(8);
                    assert!(threads >= (windows * slices) as usize);
                    for t in 0..windows * slices {
                        let (window, slice) = (t % windows, t / windows);
                        let sum = slice_of(slice, count, slices).fold(0u64, |sum, i| {
                            let i = i as usize;
                            let base = value(&bases, affine, index(&indices, i));
                            let digit = signed_digit(&scalars[32 * i..32 * i + 32], window, bits);
                            sum.wrapping_add((digit as u64).wrapping_mul(base))
                        });
                        set(&mut partials.borrow_mut(), xyzz, t as usize, sum);
                    }
                }
                "msm_reduce" => {
                    let partials = buffer(0);
                    let (windows, slices, parts) = (int(1), int(2), int(3));
                    assert!(threads >= (windows * parts) as usize);
                    // All threads read before any writes, as on a GPU.
                    let input = partials.borrow().clone();
                    for t in 0..windows * parts {
                        let (window, part) = (t % windows, t / windows);
                        let sum = (part..slices).step_by(parts as usize).fold(0u64, |sum, s| {
                            sum.wrapping_add(value(&input, xyzz, (s * windows + window) as usize))
                        });
                        set(&mut partials.borrow_mut(), xyzz, t as usize, sum);
                    }
                }
                "msm_combine" => {
                    let sums = buffer(0).borrow().clone();
                    let (bits, windows, acc, index) = (int(1), int(2), buffer(3), int(4) as usize);
                    let mut result = 0u64;
                    for w in (0..windows as usize).rev() {
                        for _ in 0..bits {
                            result = result.wrapping_add(result);
                        }
                        result = result.wrapping_add(value(&sums, xyzz, w));
                    }
                    let mut acc = acc.borrow_mut();
                    let total = value(&acc, xyzz, index).wrapping_add(result);
                    set(&mut acc, xyzz, index, total);
                }
                "msm_sorted_sums" => {
                    self.sorted_launches.set(self.sorted_launches.get() + 1);
                    let (bases, entries) = (buffer(0).borrow().clone(), buffer(1).borrow().clone());
                    let offsets = buffer(2).borrow().clone();
                    let (buckets, segment) = (int(3) as usize, int(4) as usize);
                    let (sums, heads, tails) = (buffer(5), buffer(6), buffer(7));
                    let first = |b: usize| index(&offsets, b);
                    let total = first(buckets);
                    assert!(
                        threads >= total.div_ceil(segment),
                        "{name}: too few threads"
                    );
                    for t in 0..total.div_ceil(segment) {
                        let (begin, end) = (t * segment, (t * segment + segment).min(total));
                        let mut i = begin;
                        while i < end {
                            let b = (0..buckets).find(|&b| first(b + 1) > i).unwrap();
                            let stop = end.min(first(b + 1));
                            let acc = (i..stop).fold(0u64, |acc, j| {
                                let entry = index(&entries, j);
                                let base = value(&bases, affine, entry & 0x7fff_ffff);
                                let signed = if entry >> 31 == 1 {
                                    base.wrapping_neg()
                                } else {
                                    base
                                };
                                acc.wrapping_add(signed)
                            });
                            let (to, at) = if i == begin && first(b) < begin {
                                (&heads, t)
                            } else if stop < first(b + 1) {
                                (&tails, t)
                            } else {
                                (&sums, b)
                            };
                            set(&mut to.borrow_mut(), xyzz, at, acc);
                            i = stop;
                        }
                    }
                }
                "msm_sorted_reduce" => {
                    let offsets = buffer(0).borrow().clone();
                    let (bits, windows, parts, segment) = (int(1), int(2), int(3), int(4) as usize);
                    let (sums, heads, tails) = (
                        buffer(5).borrow().clone(),
                        buffer(6).borrow().clone(),
                        buffer(7).borrow().clone(),
                    );
                    let partials = buffer(8);
                    assert!(threads >= (windows * parts) as usize);
                    let magnitudes = 1u32 << (bits - 1);
                    let per = magnitudes.div_ceil(parts);
                    let bucket = |b: usize| -> u64 {
                        let (start, stop) = (index(&offsets, b), index(&offsets, b + 1));
                        if start == stop {
                            return 0;
                        }
                        let (first, last) = (start / segment, (stop - 1) / segment);
                        if first == last {
                            return value(&sums, xyzz, b);
                        }
                        (first + 1..=last).fold(value(&tails, xyzz, first), |sum, t| {
                            sum.wrapping_add(value(&heads, xyzz, t))
                        })
                    };
                    for t in 0..windows * parts {
                        let (window, part) = (t % windows, t / windows);
                        let low = (part * per).min(magnitudes);
                        let high = (low + per).min(magnitudes);
                        let sum = (low + 1..=high).fold(0u64, |sum, m| {
                            let b = (window * magnitudes + m - 1) as usize;
                            sum.wrapping_add(u64::from(m).wrapping_mul(bucket(b)))
                        });
                        set(&mut partials.borrow_mut(), xyzz, t as usize, sum);
                    }
                }
                "msm_finish" => {
                    let (acc, count, out) = (buffer(0).borrow().clone(), int(1), buffer(2));
                    for t in 0..count as usize {
                        set(&mut out.borrow_mut(), jacobian, t, value(&acc, xyzz, t));
                    }
                }
                _ => panic!("unknown kernel {name}"),
            }
            Ok(())
        }
    }

    impl Mock {
        /// kernels/sort.h's kernels `msm_<kernel>`. The entries of a
        /// bucket are placed from the last term to the first, an order the
        /// device's atomics may give as well.
        fn sort(
            &self,
            kernel: &str,
            threads: usize,
            block: Option<usize>,
            args: &[Arg<'_, MockBuffer>],
        ) {
            let name = format!("msm_{kernel}");
            let buffer = |i: usize| buffer_arg(&name, args, i);
            let int = |i: usize| u32_arg(&name, args, i);
            let set_u32 = |buffer: &MockBuffer, i: usize, v: usize| {
                buffer.borrow_mut()[4 * i..4 * i + 4].copy_from_slice(&(v as u32).to_le_bytes());
            };
            match kernel {
                "digits" => {
                    let (scalars, indices) =
                        (buffer(0).borrow().clone(), buffer(1).borrow().clone());
                    let (count, bits, windows, place) = (int(2), int(3), int(4), int(5) == 1);
                    let (counts, cursors, entries) = (buffer(6), buffer(7), buffer(8));
                    assert!(threads >= count as usize);
                    for i in (0..count as usize).rev() {
                        for w in 0..windows {
                            let digit = signed_digit(&scalars[32 * i..32 * i + 32], w, bits);
                            if digit == 0 {
                                continue;
                            }
                            let b = (w << (bits - 1)) as usize + digit.unsigned_abs() as usize - 1;
                            let slot = if place { &cursors } else { &counts };
                            let at = index(&slot.borrow(), b);
                            set_u32(slot, b, at + 1);
                            if place {
                                let entry = index(&indices, i) | usize::from(digit < 0) << 31;
                                set_u32(&entries, at, entry);
                            }
                        }
                    }
                }
                "scan" => {
                    assert_eq!((threads, block), (SCAN_THREADS, Some(SCAN_THREADS)));
                    let (counts, n) = (buffer(0), int(1) as usize);
                    let (offsets, cursors, total) = (buffer(2), buffer(3), buffer(4));
                    let mut running = 0;
                    for b in 0..n {
                        let c = index(&counts.borrow(), b);
                        set_u32(&offsets, b, running);
                        set_u32(&cursors, b, running);
                        set_u32(&counts, b, 0);
                        running += c;
                    }
                    set_u32(&offsets, n, running);
                    set_u32(&total, 0, running);
                }
                _ => panic!("unknown kernel msm_{kernel}"),
            }
        }
    }

    /// A few random numbers (splitmix64).
    fn random(seed: &mut u64) -> u64 {
        *seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Points whose first eight bytes are `values`.
    fn mock_points<A: Plain + Default>(values: &[u64]) -> Vec<A> {
        let mut points = vec![A::default(); values.len()];
        for (i, v) in values.iter().enumerate() {
            set(
                crate::engine::bytes_of_mut(&mut points),
                size_of::<A>(),
                i,
                *v,
            );
        }
        points
    }

    /// Runs one MSM batch on the mock and checks every result: `streamed`
    /// bases or resident ones, in chunks of `chunk_points`.
    fn check_mock<C: Curve>(
        timing: Timing,
        streamed: bool,
        len: usize,
        chunk_points: u64,
        parallel_threads: u32,
        (offset, count, batch): (usize, usize, usize),
    ) where
        C::Affine: Default,
        C::Point: Default,
    {
        let outcome = check_mock_in::<C>(
            timing,
            streamed,
            len,
            chunk_points,
            parallel_threads,
            (offset, count, batch),
            Memory::default(),
        );
        assert!(outcome.error.is_none(), "{:?}", outcome.error);
    }

    /// The device memory of a mock MSM.
    struct Memory {
        /// What [`Engine::free_memory`] says.
        free: u64,
        /// Buffers larger than this are refused once the bases are in.
        refuse_above: usize,
        /// The budget to run in, instead of [`msm`]'s own from `free` (and
        /// without its retries).
        budget: Option<Budget>,
        /// See [`Mock::fault`].
        fault: Option<&'static str>,
        /// The MSM's method.
        method: Method,
        /// The device's largest buffer, when not the chunk of bases
        /// (streamed bases only: resident ones are cut into such buffers).
        largest_buffer: Option<u64>,
    }

    impl Default for Memory {
        fn default() -> Self {
            Self {
                free: 1 << 40,
                refuse_above: usize::MAX,
                budget: None,
                fault: None,
                method: Method::Buckets,
                largest_buffer: None,
            }
        }
    }

    /// What a mock MSM did.
    struct Outcome {
        /// The MSM's error, if it failed (its results are checked
        /// otherwise).
        error: Option<PluginError>,
        /// Buffers refused.
        refused: usize,
        /// Failures of [`Mock::fault`].
        faults: usize,
        /// Launches of the bucket kernel, and of the sorted MSM's sums.
        launches: (usize, usize),
    }

    /// [`check_mock`] in `memory`.
    fn check_mock_in<C: Curve>(
        timing: Timing,
        streamed: bool,
        len: usize,
        chunk_points: u64,
        parallel_threads: u32,
        (offset, count, batch): (usize, usize, usize),
        memory: Memory,
    ) -> Outcome
    where
        C::Affine: Default,
        C::Point: Default,
    {
        let point = size_of::<C::Affine>() as u64;
        let engine = Mock {
            limits: Limits {
                parallel_threads,
                g1_bucket_threads: parallel_threads,
                g2_bucket_threads: parallel_threads,
                max_alloc: memory.largest_buffer.unwrap_or(chunk_points * point),
                memory: if streamed {
                    16 * chunk_points * point
                } else {
                    1 << 40
                },
                ntt_local_log: 1,
            },
            timing,
            pending: Default::default(),
            overlapped: Default::default(),
            free: memory.free,
            refuse_above: std::cell::Cell::new(usize::MAX),
            refused: Default::default(),
            fault: memory.fault,
            faults: Default::default(),
            bucket_launches: Default::default(),
            sorted_launches: Default::default(),
        };
        let mut seed = len as u64 ^ u64::from(parallel_threads) << 32;
        let values: Vec<u64> = (0..len).map(|_| random(&mut seed)).collect();
        let points = mock_points::<C::Affine>(&values);
        let bases = if streamed {
            GroupBases::streamed(&engine, Storage::Owned(points))
        } else {
            GroupBases::resident(&engine, &points).unwrap()
        };
        assert_eq!(bases.chunk_len as u64, chunk_points);
        engine.refuse_above.set(memory.refuse_above);
        // Zeros, ones, small and full-width scalars (below 2^255).
        let scalars: Vec<pce_scalar> = (0..count * batch)
            .map(|_| match random(&mut seed) % 4 {
                0 => pce_scalar::default(),
                1 => pce_scalar { l: [1, 0, 0, 0] },
                2 => pce_scalar {
                    l: [random(&mut seed) % 1000, 0, 0, 0],
                },
                _ => pce_scalar {
                    l: [0, 0, 0, 0].map(|_| random(&mut seed)),
                }
                .with_top_bit_clear(),
            })
            .collect();
        let mut out = vec![C::Point::default(); batch];
        let method = memory.method;
        let result = match memory.budget {
            Some(budget) => msm_within::<C, Mock>(
                &engine,
                &bases,
                (offset, count),
                &scalars,
                &mut out,
                (method, budget),
            ),
            None => msm_by::<C, Mock>(method, &engine, &bases, offset, count, &scalars, &mut out),
        };
        let outcome = Outcome {
            error: result.err(),
            refused: engine.refused.get(),
            faults: engine.faults.get(),
            launches: (engine.bucket_launches.get(), engine.sorted_launches.get()),
        };
        if outcome.error.is_some() {
            return outcome;
        }
        for (k, result) in out.iter().enumerate() {
            let expected = (0..count).fold(0u64, |sum, i| {
                let scalar = scalars[k * count + i].l[0];
                sum.wrapping_add(scalar.wrapping_mul(values[offset + i]))
            });
            let got = value(bytes_of(std::slice::from_ref(result)), 8, 0);
            assert_eq!(got, expected, "{timing:?} streamed={streamed} k={k}");
        }
        // With more than one job, the next job's uploads are pending while
        // the current one's kernels are launched.
        let chunk_len = bases.chunk_len;
        let jobs = (offset + count).div_ceil(chunk_len) - offset / chunk_len;
        if timing == Timing::Late && count > 0 && jobs * batch > 1 {
            assert!(engine.overlapped.get() > 0, "no upload overlapped a kernel");
        }
        outcome
    }

    trait TopBitClear {
        fn with_top_bit_clear(self) -> Self;
    }

    impl TopBitClear for pce_scalar {
        fn with_top_bit_clear(mut self) -> Self {
            self.l[3] >>= 1;
            self
        }
    }

    #[test]
    fn streamed_bases_double_buffer_without_hazards() {
        for timing in [Timing::Early, Timing::Late] {
            // 13 chunks of 8 points, two slots.
            check_mock::<G1>(timing, true, 100, 8, 8, (3, 90, 3));
            check_mock::<G1>(timing, true, 100, 8, 8, (0, 100, 1));
            check_mock::<G2>(timing, true, 40, 4, 8, (5, 30, 2));
            // Within one chunk; an empty MSM.
            check_mock::<G1>(timing, true, 100, 8, 8, (17, 5, 2));
            check_mock::<G1>(timing, true, 100, 8, 8, (17, 0, 2));
        }
    }

    #[test]
    fn a_small_budget_cuts_chunks_into_several_jobs() {
        // 12 terms a job: each chunk of 1024 (or of 8 streamed) points is
        // cut into jobs that share its slot; 16 points of buckets give the
        // least plan.
        let budget = Budget {
            job_terms: 12,
            least_job_terms: 12,
            points: 16,
            bytes: 16 * G1::XYZZ_BYTES as u64,
        };
        for timing in [Timing::Early, Timing::Late] {
            for (streamed, len, chunk, threads, shape) in [
                (false, 300, 1024, 64, (5, 290, 2)),
                (true, 100, 8, 8, (3, 90, 3)),
            ] {
                let memory = Memory {
                    budget: Some(budget),
                    ..Memory::default()
                };
                let outcome =
                    check_mock_in::<G1>(timing, streamed, len, chunk, threads, shape, memory);
                assert!(outcome.error.is_none(), "{:?}", outcome.error);
            }
        }
    }

    #[test]
    fn the_sorted_msm_sums_right_over_chunks_slots_and_jobs() {
        // Room for sorted plans, and jobs of 12 terms in the second run of
        // each shape (several jobs a chunk, buckets cut between threads).
        let short_jobs = Budget {
            job_terms: 12,
            least_job_terms: 12,
            points: 1 << 14,
            bytes: 1 << 22,
        };
        for timing in [Timing::Early, Timing::Late] {
            for (streamed, len, chunk, threads, shape) in [
                (false, 300, 1024, 64, (5, 290, 2)),
                (true, 100, 8, 8, (3, 90, 3)),
                (true, 100, 8, 8, (17, 0, 2)),
            ] {
                for budget in [None, Some(short_jobs)] {
                    let memory = Memory {
                        budget,
                        method: Method::Sorted,
                        largest_buffer: streamed.then_some(1 << 24),
                        ..Memory::default()
                    };
                    let outcome =
                        check_mock_in::<G1>(timing, streamed, len, chunk, threads, shape, memory);
                    assert!(outcome.error.is_none(), "{:?}", outcome.error);
                    let (buckets, sorted) = outcome.launches;
                    assert_eq!(buckets, 0, "{shape:?}");
                    assert!(sorted > 0 || shape.1 == 0, "{shape:?}");
                }
            }
            let memory = Memory {
                method: Method::Sorted,
                largest_buffer: Some(1 << 24),
                ..Memory::default()
            };
            let outcome = check_mock_in::<G2>(timing, true, 40, 4, 8, (5, 30, 2), memory);
            assert!(outcome.error.is_none(), "{:?}", outcome.error);
            assert_eq!(outcome.launches.0, 0);
        }
    }

    #[test]
    fn the_sorted_msm_leaves_to_the_bucket_kernel_what_does_not_fit() {
        let memory = Memory {
            budget: Some(Budget {
                job_terms: 12,
                least_job_terms: 12,
                points: 16,
                bytes: 16 * G1::XYZZ_BYTES as u64,
            }),
            method: Method::Sorted,
            ..Memory::default()
        };
        let outcome = check_mock_in::<G1>(Timing::Late, false, 300, 1024, 64, (5, 290, 2), memory);
        assert!(outcome.error.is_none(), "{:?}", outcome.error);
        let (buckets, sorted) = outcome.launches;
        assert!(buckets > 0 && sorted == 0, "{:?}", outcome.launches);
    }

    #[test]
    fn sorted_plans_fit_their_bytes_and_cover_the_scalar() {
        let xyzz = G1::XYZZ_BYTES as u64;
        for terms in [1usize, 7, 1000, 1 << 16, 1 << 22, 1 << 27] {
            for threads in [1u32, 8, 1 << 10, 33792] {
                let room = 64u64 << 30;
                let plan =
                    SortedPlan::new(terms, threads, (room, room), xyzz).expect("64 GiB fits");
                assert!(plan.bytes(terms as u64, threads, xyzz) <= room, "{plan:?}");
                assert!(plan.bits * plan.windows >= SIGNED_BITS, "{plan:?}");
                assert!(
                    plan.parts >= 1 && plan.parts <= 1 << (plan.bits - 1),
                    "{plan:?}"
                );
                assert!(
                    plan.entries(terms as u64) <= u64::from(u32::MAX),
                    "{plan:?}"
                );
            }
        }
        // A large MSM on a large GPU: wide windows; a tiny one: narrow.
        let room = (64 << 30, 64 << 30);
        assert!(SortedPlan::new(1 << 27, 33792, room, xyzz).unwrap().bits >= 16);
        assert!(SortedPlan::new(7, 33792, room, xyzz).unwrap().bits <= 4);
        // The entries alone (four bytes a term and window) overflow it.
        let small = (1 << 20, 1 << 20);
        assert_eq!(SortedPlan::new(1 << 20, 1024, small, xyzz), None);
        // Each buffer within the largest the device allows.
        let plan = SortedPlan::new(1 << 12, 1024, (1 << 30, 1 << 30), xyzz).unwrap();
        let largest = plan.largest_buffer(1 << 12, xyzz);
        let narrow = SortedPlan::new(1 << 12, 1024, (1 << 30, largest - 1), xyzz).unwrap();
        assert!(narrow.largest_buffer(1 << 12, xyzz) < largest, "{narrow:?}");
    }

    /// The budget of an MSM of `count` terms over 2^20 resident G1 points
    /// in one chunk, with `free` bytes free.
    fn budget_of(count: usize, free: u64) -> Budget {
        let point = size_of::<pce_g1_affine>() as u64;
        let engine = Mock {
            limits: Limits {
                parallel_threads: 1 << 10,
                g1_bucket_threads: 1 << 10,
                g2_bucket_threads: 1 << 10,
                max_alloc: (1 << 20) * point,
                memory: 1 << 40,
                ntt_local_log: 1,
            },
            timing: Timing::Early,
            pending: Default::default(),
            overlapped: Default::default(),
            free,
            refuse_above: std::cell::Cell::new(usize::MAX),
            refused: Default::default(),
            fault: None,
            faults: Default::default(),
            bucket_launches: Default::default(),
            sorted_launches: Default::default(),
        };
        // The mock's bases are never read here: one buffer stands in for
        // the chunk.
        let bases = GroupBases::<pce_g1_affine, MockBuffer> {
            place: Place::Device(vec![engine.buffer(1).unwrap()]),
            chunk_len: 1 << 20,
            len: 1 << 20,
        };
        Budget::new::<G1, Mock>(&engine, &bases, count, 1)
    }

    #[test]
    fn budgets_reserve_terms_for_the_msm_not_the_chunk() {
        // 64 MiB free, half of it room for 400,000 terms in two slots: a
        // short MSM takes only what its terms need, and the rest goes to
        // buckets.
        let short = budget_of(1000, 64 << 20);
        let long = budget_of(1 << 20, 64 << 20);
        assert_eq!(short.job_terms, 1000, "{short:?}");
        assert!(long.job_terms < 1 << 20, "{long:?}");
        assert!(short.points > long.points * 3 / 2, "{short:?} {long:?}");
    }

    #[test]
    fn budgets_keep_jobs_long_without_free_memory() {
        // A free-memory query that failed reads as nothing free: jobs stay
        // at their least length (not one term each), buckets at the least
        // plan, and that budget narrows no further.
        let none = budget_of(1 << 20, 0);
        assert_eq!(none.job_terms, MIN_JOB_TERMS as usize, "{none:?}");
        assert_eq!(none.points, 0, "{none:?}");
        assert_eq!(none.narrower(), None);
        // An MSM shorter than that: one job.
        assert_eq!(budget_of(1000, 0).job_terms, 1000);
    }

    #[test]
    fn out_of_memory_starts_over_narrower() {
        // Ample free memory and 384 KiB buffers, but none above 200 KiB
        // once the bases are in: the first plans' buckets are refused,
        // narrower ones go through.
        for timing in [Timing::Early, Timing::Late] {
            for method in [Method::Buckets, Method::Sorted] {
                let memory = Memory {
                    refuse_above: 200 << 10,
                    method,
                    ..Memory::default()
                };
                let outcome =
                    check_mock_in::<G1>(timing, false, 3000, 4096, 4096, (1, 2998, 2), memory);
                assert!(outcome.error.is_none(), "{method:?}: {:?}", outcome.error);
                assert!(outcome.refused > 0, "{method:?}: nothing was refused");
            }
        }
    }

    #[test]
    fn refused_buffers_are_retried_a_few_times_only() {
        // Every buffer of terms refused: the first attempt and
        // MAX_NARROWING narrower ones fail (8192 points of buckets halve
        // four times before the least plan), then the MSM does.
        let memory = Memory {
            refuse_above: 4 << 10,
            ..Memory::default()
        };
        let outcome =
            check_mock_in::<G1>(Timing::Late, false, 3000, 16384, 4096, (1, 2998, 2), memory);
        let error = outcome.error.expect("no buffer of terms fits");
        assert_eq!(error.status, backend_api::ffi::PCE_ERR_OUT_OF_MEMORY);
        assert_eq!(outcome.refused, 1 + MAX_NARROWING as usize);
    }

    #[test]
    fn other_out_of_memory_errors_are_not_retried() {
        // A kernel fault reported as out of resources, page-locked memory
        // the host could not allocate: out of memory, but no device buffer
        // was refused, so the MSM fails at once.
        let faults = [
            ("G1_msm_buckets", Method::Buckets),
            ("G1_sum_bases", Method::Buckets),
            ("write_async", Method::Buckets),
            ("msm_digits", Method::Sorted),
            ("msm_scan", Method::Sorted),
            ("G1_msm_sorted_sums", Method::Sorted),
            ("G1_msm_sorted_reduce", Method::Sorted),
        ];
        for (fault, method) in faults {
            let memory = Memory {
                fault: Some(fault),
                method,
                ..Memory::default()
            };
            // Chunks of 16384 points: buffers large enough for a sorted plan.
            let outcome =
                check_mock_in::<G1>(Timing::Late, false, 3000, 16384, 64, (1, 2998, 2), memory);
            let error = outcome.error.expect("the fault fails the MSM");
            assert_eq!(error.status, backend_api::ffi::PCE_ERR_OUT_OF_MEMORY);
            assert_eq!((outcome.faults, outcome.refused), (1, 0), "{fault}");
        }
    }

    #[test]
    fn budgets_narrow_to_the_least_plan_and_stop() {
        let mut budget = Budget {
            job_terms: 1 << 20,
            least_job_terms: 1 << 16,
            points: 1 << 30,
            bytes: 1 << 40,
        };
        let mut steps = 0;
        while let Some(narrower) = budget.narrower() {
            assert!(narrower.job_terms <= budget.job_terms && narrower.points <= budget.points);
            budget = narrower;
            steps += 1;
        }
        assert_eq!(budget.job_terms, 1 << 16);
        assert!(budget.points <= MIN_PLAN_POINTS, "{budget:?}");
        assert!(steps <= 30, "{steps}");
    }

    #[test]
    fn resident_bases_reduce_on_the_device_in_several_passes() {
        for timing in [Timing::Early, Timing::Late] {
            // 4096 threads: ones in up to 1000 slices, reduced 1000 → 32 → 1.
            check_mock::<G1>(timing, false, 3000, 1024, 4096, (1, 2998, 2));
            check_mock::<G2>(timing, false, 600, 256, 4096, (0, 600, 1));
            check_mock::<G1>(timing, false, 10, 1024, 1, (0, 10, 1));
        }
    }
}
