//! The MSM's bases on the device or streamed from the host, and the
//! groups as the kernels see them ([`Curve`]).

use std::ops::Range;

use backend_api::ffi::{
    pce_g1_affine, pce_g1_projective, pce_g2_affine, pce_g2_projective, FP2_BYTES, FP_BYTES,
    PCE_G1, PCE_G2,
};
use backend_api::plugin::{HostPoints, PluginError, Points, Storage};
use tracing::warn;

use super::plan::MIN_PLAN_POINTS;
use crate::engine::{AllocationWatch, Engine, Limits, Plain};

/// Bases are admitted to the device while they leave this share (a
/// quarter) of its memory free: room for the QAP step (three vectors of
/// the domain and its two half-size twiddle tables: 16 GiB, 17.2 GB, at
/// 2^27, a fifth of 80 GB; the vectors are freed when it returns, the
/// twiddles stay on the device with the domain) and then the MSMs' terms
/// and buckets. Bases past it are streamed.
const RESERVE_DIVISOR: u64 = 4;

/// Largest chunk of streamed bases. An MSM over streamed bases keeps two
/// chunks on the device (one uploading while the kernels read the other);
/// this bounds them however large the device's buffers may be.
const STREAM_CHUNK_BYTES: u64 = 256 << 20;

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
pub(super) enum Place<A, B> {
    /// In device buffers of `chunk_len` points each (the last one shorter).
    Device(Vec<B>),
    /// On the host (a copy, or the host's lent memory), uploaded chunk by
    /// chunk for each MSM.
    Host(Storage<A>),
}

/// The bases of one group, in chunks of `chunk_len` points.
pub struct GroupBases<A, B> {
    pub(super) place: Place<A, B>,
    pub(super) chunk_len: usize,
    pub(super) len: usize,
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
    pub fn new<E: Engine<Buffer = B>>(engine: &E, points: Points<'_>) -> Result<Self, PluginError> {
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
    fn new<E: Engine<Buffer = B>>(
        engine: &E,
        points: HostPoints<'_, A>,
    ) -> Result<Self, PluginError> {
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
        // SAFETY: these bases are what the plugin's upload_bases returns
        // (through `Bases::new`), and they keep the storage and nothing else.
        Ok(Self::streamed(engine, unsafe { Storage::keep(points)? }))
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
    pub(super) fn streamed<E: Engine<Buffer = B>>(engine: &E, points: Storage<A>) -> Self {
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
    pub(super) fn chunk(&self, chunk: usize) -> Range<usize> {
        let start = chunk * self.chunk_len;
        start..(start + self.chunk_len).min(self.len)
    }
}
