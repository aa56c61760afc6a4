//! MSMs on the device: bases resident in device buffers (or streamed from
//! the host when they exceed device memory), scalars split on the host,
//! the kernels of kernels/msm.h, partial sums combined on the host.

use backend_api::ffi::{pce_g1_affine, pce_g2_affine, PCE_G1, PCE_G2};
use backend_api::plugin::{HostPoints, PluginError, Points, Storage};
use gpu_kernels::msm::{combine_windows, sum, Curve, MsmPlan, Terms, G1, G2};
use group::Group;
use opencl3::memory::Buffer;

use crate::engine::{Arg, Engine, Plain};

/// Share of device memory the bases may occupy before they are streamed.
const RESIDENT_SHARE: f64 = 0.6;
/// Share of device memory the buckets of one MSM may occupy.
const BUCKET_SHARE: f64 = 0.25;

/// One group's device-side shapes and kernel names.
pub trait DeviceCurve: Curve<Point: Plain> {
    /// The host layout of an affine base.
    type Affine: Plain + Sync;
    /// `PCE_G1` or `PCE_G2`.
    const GROUP: u32;
    /// Bytes of one XYZZ bucket on the device.
    const BUCKET_BYTES: usize;
    /// The bucket kernel.
    const BUCKETS_KERNEL: &'static str;
    /// The summing kernel.
    const SUM_KERNEL: &'static str;
}

impl DeviceCurve for G1 {
    type Affine = pce_g1_affine;
    const GROUP: u32 = PCE_G1;
    const BUCKET_BYTES: usize = 4 * 48;
    const BUCKETS_KERNEL: &'static str = "G1_msm_buckets";
    const SUM_KERNEL: &'static str = "G1_sum_bases";
}

impl DeviceCurve for G2 {
    type Affine = pce_g2_affine;
    const GROUP: u32 = PCE_G2;
    const BUCKET_BYTES: usize = 4 * 96;
    const BUCKETS_KERNEL: &'static str = "G2_msm_buckets";
    const SUM_KERNEL: &'static str = "G2_sum_bases";
}

/// Where a run of bases lives.
enum Chunk {
    /// In a device buffer.
    Resident(Buffer<u8>),
    /// On the host, uploaded for each MSM.
    Streamed,
}

/// The bases of one group, cut into chunks of at most one device buffer.
pub struct GroupBases<A> {
    /// Host copy (or the host's lent memory) when streamed.
    host: Option<Storage<A>>,
    chunk_len: usize,
    chunks: Vec<Chunk>,
    len: usize,
}

/// Bases of either group.
pub enum Bases {
    /// G1 points.
    G1(GroupBases<pce_g1_affine>),
    /// G2 points.
    G2(GroupBases<pce_g2_affine>),
}

impl Bases {
    /// Keeps `points` on the device when they fit, else on the host.
    pub fn new(engine: &Engine, points: Points) -> Result<Self, PluginError> {
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

impl<A: Plain + Sync> GroupBases<A> {
    fn new(engine: &Engine, points: HostPoints<A>) -> Result<Self, PluginError> {
        let len = points.as_slice().len();
        let point_bytes = size_of::<A>() as u64;
        // Indices on the device are 32-bit.
        let chunk_len =
            (engine.limits.max_alloc / point_bytes).clamp(1, u64::from(u32::MAX)) as usize;
        let resident =
            (len as u64 * point_bytes) as f64 <= engine.limits.memory as f64 * RESIDENT_SHARE;
        let mut chunks = Vec::new();
        for slice in points.as_slice().chunks(chunk_len) {
            chunks.push(if resident {
                Chunk::Resident(engine.upload(slice)?)
            } else {
                Chunk::Streamed
            });
        }
        let host = (!resident).then(|| Storage::new(points));
        Ok(Self {
            host,
            chunk_len,
            chunks,
            len,
        })
    }
}

/// For each k, `out[k] = Σ_i scalars[k · count + i] · bases[offset + i]`.
pub fn msm<C: DeviceCurve>(
    engine: &Engine,
    bases: &GroupBases<C::Affine>,
    offset: usize,
    count: usize,
    scalars: &[backend_api::ffi::pce_scalar],
    out: &mut [C::Point],
) -> Result<(), PluginError> {
    let mut totals = vec![C::Projective::identity(); out.len()];
    for (c, chunk) in bases.chunks.iter().enumerate() {
        let chunk_start = c * bases.chunk_len;
        let chunk_end = (chunk_start + bases.chunk_len).min(bases.len);
        let lo = offset.max(chunk_start);
        let hi = (offset + count).min(chunk_end);
        if lo >= hi {
            continue;
        }
        let streamed;
        let buffer = match chunk {
            Chunk::Resident(buffer) => buffer,
            Chunk::Streamed => {
                let host = bases
                    .host
                    .as_ref()
                    .expect("streamed bases keep a host copy");
                streamed = engine.upload(&host.as_slice()[chunk_start..chunk_end])?;
                &streamed
            }
        };
        for (k, total) in totals.iter_mut().enumerate() {
            let scalars = &scalars[k * count + (lo - offset)..k * count + (hi - offset)];
            let terms = Terms::split(scalars, (lo - chunk_start) as u32);
            *total += run::<C>(engine, buffer, &terms)?;
        }
    }
    for (out, total) in out.iter_mut().zip(totals) {
        *out = C::export(total);
    }
    Ok(())
}

/// The MSM of `terms` over the bases in `buffer`.
fn run<C: DeviceCurve>(
    engine: &Engine,
    bases: &Buffer<u8>,
    terms: &Terms,
) -> Result<C::Projective, PluginError> {
    let mut total = C::Projective::identity();
    let parallel = engine.limits.parallel_threads;
    if !terms.ones.is_empty() {
        let slices = parallel.min(terms.ones.len() as u32);
        let indices = engine.upload(&terms.ones)?;
        let mut partials = vec![C::Point::default(); slices as usize];
        let partial_buffer = engine.buffer(size_of_val(partials.as_slice()))?;
        engine.launch(
            C::SUM_KERNEL,
            slices as usize,
            None,
            &[
                Arg::Buffer(bases),
                Arg::Buffer(&indices),
                Arg::U32(terms.ones.len() as u32),
                Arg::U32(slices),
                Arg::Buffer(&partial_buffer),
            ],
        )?;
        engine.read(&partial_buffer, &mut partials)?;
        total += sum::<C>(&partials);
    }
    if !terms.indices.is_empty() {
        let bucket_budget = (engine.limits.max_alloc as f64)
            .min(engine.limits.memory as f64 * BUCKET_SHARE)
            / C::BUCKET_BYTES as f64;
        let plan = MsmPlan::new(terms.indices.len(), parallel, bucket_budget as u64);
        let indices = engine.upload(&terms.indices)?;
        let scalars = engine.upload(&terms.scalars)?;
        let buckets = engine.buffer(plan.buckets() as usize * C::BUCKET_BYTES)?;
        let mut partials = vec![C::Point::default(); plan.threads() as usize];
        let partial_buffer = engine.buffer(size_of_val(partials.as_slice()))?;
        engine.launch(
            C::BUCKETS_KERNEL,
            plan.threads() as usize,
            None,
            &[
                Arg::Buffer(bases),
                Arg::Buffer(&indices),
                Arg::Buffer(&scalars),
                Arg::U32(terms.indices.len() as u32),
                Arg::U32(plan.bits),
                Arg::U32(plan.windows),
                Arg::U32(plan.slices),
                Arg::Buffer(&buckets),
                Arg::Buffer(&partial_buffer),
            ],
        )?;
        engine.read(&partial_buffer, &mut partials)?;
        total += combine_windows::<C>(&plan, &partials);
    }
    Ok(total)
}
