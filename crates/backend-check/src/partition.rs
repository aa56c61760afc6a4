//! One Groth16 partition's device work at a production shape, on synthetic
//! inputs: what `pce-prover bench partition` times.
//!
//! Past the witness and the PCE's MatVec, proving a partition is the QAP
//! step over the domain and five MSMs (groth16-prover's `prover`): H over
//! the coefficients of h, L over the aux values, A, B in G1 and B in G2
//! over the values their densities select. What these cost depends on the
//! shape (the domain, the number of points per query) and on the kind of
//! scalars, not on which circuit it is, so here:
//!
//! - a, b, c are pseudo-random 64-bit values (an NTT costs the same on any
//!   values, and the h it gives is full width);
//! - H's scalars are that h, converted as the prover converts it;
//! - L, A and B draw from a witness's mix ([`Scalars::PoRepMix`]: 60 %
//!   zero, 36 % one, the rest r − 1 or random);
//! - the bases are a pool of random points repeated to each query's length
//!   ([`Repeated`]): a 32 GiB partition's 44 GiB of SRS cannot be made in
//!   a benchmark's time. A GPU that keeps bases on the device gets a
//!   full-length copy per query, as with a real SRS (one that streams them
//!   reads the pool from the host); a CPU backend reads the lent pool,
//!   which its caches see as fewer distinct points than a real SRS has.
//!
//! Steps run in the prover's order, holding what the prover holds: a, b, c
//! until h is out, then every query's scalars from the first MSM, each
//! dropped after its own MSM. The host's peak resident memory is sampled
//! while it runs, the repeated pools counted once; the device's memory in
//! use is read after each step.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use backend_api::ffi::{pce_scalar, PCE_ERR_UNSUPPORTED};
use backend_api::interop::{g1_affines_as_pce, g2_affines_as_pce, scalar_of};
use backend_api::{BackendError, Device, G1, G2};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use groth16_prover::qap::{domain_log_size, h_coefficients};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::repeated::Repeated;
use crate::timing::random_points;
use crate::Scalars;

/// Why the benchmark stopped.
#[derive(Debug, thiserror::Error)]
pub enum PartitionError {
    /// A backend call failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The repeated point pools could not be mapped.
    #[error("repeating the point pool: {0}")]
    Pool(#[source] std::io::Error),
}

/// The sizes of one partition's circuit that its device work depends on:
/// the constraints (the domain is the next power of two) and the points of
/// the L, A and B queries (H has one per domain element but the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionShape {
    /// Constraints, including one per public input as bellperson adds them.
    pub constraints: usize,
    /// Points of L: one per aux variable.
    pub l: usize,
    /// Points of A: the inputs and the aux variables used in A.
    pub a: usize,
    /// Points of B, in G1 and in G2: the variables used in B.
    pub b: usize,
}

impl PartitionShape {
    /// `log2` of the NTT domain.
    pub fn domain_log(&self) -> u32 {
        domain_log_size(self.constraints)
    }

    /// Points of the H, L, A and B queries (B in both groups).
    pub fn queries(&self) -> [usize; 4] {
        [(1 << self.domain_log()) - 1, self.l, self.a, self.b]
    }

    /// Every count divided by `2^shift` (at least one each): a quick run of
    /// about the same proportions.
    pub fn shrunk(&self, shift: u32) -> Self {
        let s = |n: usize| (n >> shift).max(1);
        Self {
            constraints: s(self.constraints),
            l: s(self.l),
            a: s(self.a),
            b: s(self.b),
        }
    }
}

/// How to run the benchmark.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Partitions proven one after the other (the first pays for warming
    /// up: kernel loads, memory pools).
    pub runs: usize,
    /// The G1 pool has `2^pool_log` points, the G2 pool a quarter of that
    /// (fewer for a shorter query: its length rounded up to a power of
    /// two; more for a query over [`MAX_COPIES`] times the pool).
    pub pool_log: u32,
}

/// One timed step.
#[derive(Debug, Clone)]
pub struct Step {
    /// What ran, e.g. "H MSM".
    pub name: &'static str,
    /// Its wall time in each run (one entry for the setup steps).
    pub times: Vec<Duration>,
    /// Device memory in use right after it (the most over the runs), when
    /// the backend reports its memory.
    pub device_used: Option<u64>,
}

/// What [`run`] measured.
#[derive(Debug, Clone)]
pub struct PartitionReport {
    /// The shape proven.
    pub shape: PartitionShape,
    /// Points of the H, L, A and B queries.
    pub queries: [usize; 4],
    /// One-off work before the first partition: making the point pools,
    /// giving the device its bases, the NTT domain.
    pub setup: Vec<Step>,
    /// The partition's steps, in order.
    pub steps: Vec<Step>,
    /// The partition's wall time in each run (the sum of its steps).
    pub totals: Vec<Duration>,
    /// Device memory: bytes in use before the bases were given to it, and
    /// its size; `None` when the backend does not report memory.
    pub device_memory: Option<(u64, u64)>,
    /// Peak resident host memory of the process while it ran, the pools
    /// counted once; `None` where `/proc` is not available.
    pub host_peak_rss: Option<u64>,
    /// Bytes of the point pools.
    pub pool_bytes: u64,
    /// Why the device declined the B G2 MSM as unsupported, when it did
    /// and the fallback device timed it instead (as the prover runs it).
    pub g2_on_fallback: Option<String>,
}

/// A step just done, for progress reports (which survive a run that is
/// stopped before its report).
#[derive(Debug, Clone, Copy)]
pub struct StepDone {
    /// What ran.
    pub name: &'static str,
    /// Its wall time.
    pub time: Duration,
    /// Device memory in use after it, when the backend reports memory.
    pub device_used: Option<u64>,
    /// The process's resident host memory after it, the pools counted
    /// once; `None` where `/proc` is not available.
    pub host_rss: Option<u64>,
}

/// Records each step's time and the device's memory after it.
struct Recorder<'d, F> {
    device: &'d Device,
    progress: F,
    /// Bytes of the pools, once they exist.
    pool_bytes: u64,
}

impl<F: FnMut(&StepDone)> Recorder<'_, F> {
    fn used(&self) -> Result<Option<u64>, PartitionError> {
        Ok(self.device.memory()?.map(|m| m.total - m.free))
    }

    /// Runs `work` as step `name`, adding its time to `steps`.
    fn step<T>(
        &mut self,
        steps: &mut Vec<Step>,
        name: &'static str,
        work: impl FnOnce() -> Result<T, PartitionError>,
    ) -> Result<T, PartitionError> {
        let start = Instant::now();
        let value = work()?;
        let elapsed = start.elapsed();
        let used = self.used()?;
        (self.progress)(&StepDone {
            name,
            time: elapsed,
            device_used: used,
            host_rss: private_rss().map(|rss| rss + self.pool_bytes),
        });
        match steps.iter_mut().find(|s| s.name == name) {
            Some(step) => {
                step.times.push(elapsed);
                step.device_used = step.device_used.max(used);
            }
            None => steps.push(Step {
                name,
                times: vec![elapsed],
                device_used: used,
            }),
        }
        Ok(value)
    }
}

/// Times `options.runs` synthetic partitions of `shape` on `device`,
/// calling `progress` after each step. An MSM the device declines as
/// unsupported (a G1-only backend's G2 MSM, or a GPU's whose G2 kernels
/// failed their self-test) runs on `fallback`, as the prover's fallback
/// device runs it; without one it is an error.
pub fn run(
    device: &Device,
    fallback: Option<&Device>,
    shape: &PartitionShape,
    options: Options,
    progress: impl FnMut(&StepDone),
) -> Result<PartitionReport, PartitionError> {
    let host = HostPeak::start();
    let device_memory = device.memory()?.map(|m| (m.total - m.free, m.total));
    let mut recorder = Recorder {
        device,
        progress,
        pool_bytes: 0,
    };
    let queries = shape.queries();
    let [h_len, l_len, a_len, b_len] = queries;
    let log_n = shape.domain_log();
    let n = 1usize << log_n;
    let g1_len = queries.into_iter().max().unwrap_or(1);

    let mut setup = Vec::new();
    let (g1, g2) = recorder.step(&mut setup, "point pools", || {
        let g1_pool: Vec<G1Affine> =
            random_points::<G1Projective>(pool(g1_len, options.pool_log), 11);
        let g2_pool: Vec<G2Affine> =
            random_points::<G2Projective>(pool(b_len, options.pool_log.saturating_sub(2)), 12);
        Ok((
            Repeated::new(&g1_pool, g1_len).map_err(PartitionError::Pool)?,
            Repeated::new(&g2_pool, b_len).map_err(PartitionError::Pool)?,
        ))
    })?;
    let pool_bytes = [g1.shared_bytes(), g2.shared_bytes()]
        .into_iter()
        .flatten()
        .sum::<usize>() as u64;
    recorder.pool_bytes = pool_bytes;
    let g1_points = g1_affines_as_pce(g1.as_slice());
    let g2_points = g2_affines_as_pce(g2.as_slice());
    let (h, l, a, b_g1, b_g2) = recorder.step(&mut setup, "bases to the device", || {
        Ok((
            device.lend_bases::<G1>(&g1_points[..h_len])?,
            device.lend_bases::<G1>(&g1_points[..l_len])?,
            device.lend_bases::<G1>(&g1_points[..a_len])?,
            device.lend_bases::<G1>(&g1_points[..b_len])?,
            // A device without G2 MSMs may decline their bases already:
            // kept as the MSM's refusal, as the prover does.
            match device.lend_bases::<G2>(g2_points) {
                Err(e) if e.status.0 != PCE_ERR_UNSUPPORTED => return Err(e.into()),
                lent => lent,
            },
        ))
    })?;
    let domain = recorder.step(&mut setup, "NTT domain", || Ok(device.ntt_domain(log_n)?))?;

    let mut steps = Vec::new();
    let mut g2_on_fallback = None;
    for run in 0..options.runs.max(1) {
        let seed = run as u64 * 16;
        let mut abc = pseudo_random_values(3 * n, seed);
        let h_values = recorder.step(&mut steps, "QAP (h)", || {
            Ok(h_coefficients(device, &domain, &mut abc)?)
        })?;
        let h_scalars = recorder.step(&mut steps, "h to scalars", || {
            Ok(h_values.par_iter().map(scalar_of).collect::<Vec<_>>())
        })?;
        drop(abc);
        // The prover holds every query's scalars from its first MSM on and
        // drops each after its own.
        let l_scalars = mixed_scalars(l_len, seed + 1);
        let a_scalars = mixed_scalars(a_len, seed + 2);
        let b_scalars = mixed_scalars(b_len, seed + 3);
        for (name, bases, scalars) in [
            ("H MSM", &h, h_scalars),
            ("L MSM", &l, l_scalars),
            ("A MSM", &a, a_scalars),
        ] {
            recorder.step(&mut steps, name, || {
                Ok(device.msm(bases, 0, bases.len(), 1, &scalars)?)
            })?;
        }
        recorder.step(&mut steps, "B G1 MSM", || {
            Ok(device.msm(&b_g1, 0, b_g1.len(), 1, &b_scalars)?)
        })?;
        recorder.step(&mut steps, "B G2 MSM", || {
            let on_device = b_g2
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|bases| device.msm(bases, 0, bases.len(), 1, &b_scalars));
            match (on_device, fallback) {
                (Err(declined), Some(fallback)) if declined.status.0 == PCE_ERR_UNSUPPORTED => {
                    g2_on_fallback = Some(declined.message);
                    let bases = fallback.lend_bases::<G2>(g2_points)?;
                    Ok(fallback.msm(&bases, 0, bases.len(), 1, &b_scalars)?)
                }
                (result, _) => Ok(result?),
            }
        })?;
    }
    let totals = (0..options.runs.max(1))
        .map(|run| steps.iter().map(|step| step.times[run]).sum())
        .collect();
    drop((h, l, a, b_g1, b_g2, domain));
    Ok(PartitionReport {
        shape: *shape,
        queries,
        setup,
        steps,
        totals,
        device_memory,
        host_peak_rss: host.stop().map(|peak| peak + pool_bytes),
        pool_bytes,
        g2_on_fallback,
    })
}

/// Most copies of a pool in one repeated array: each copy is a mapping of
/// its own, and Linux allows a process 65,530 by default
/// (`vm.max_map_count`), both pools' copies and everything else together.
pub const MAX_COPIES: usize = 1 << 13;

/// Points in a pool for a query of `len`: `2^log`, or `len` rounded up to
/// a power of two when that is smaller, or more when `2^log` would take
/// over [`MAX_COPIES`] copies (powers of two so that the pool fills whole
/// pages and can be mapped repeatedly).
fn pool(len: usize, log: u32) -> usize {
    let least = len.div_ceil(MAX_COPIES).next_power_of_two();
    len.next_power_of_two()
        .min(1usize.checked_shl(log).unwrap_or(usize::MAX).max(least))
}

/// `len` values below 2^64, from SplitMix64: as costly to transform as any.
fn pseudo_random_values(len: usize, seed: u64) -> Vec<Scalar> {
    (0..len as u64)
        .into_par_iter()
        .map(|i| {
            let mut z = (seed << 40 ^ i).wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            Scalar::from(z ^ (z >> 31))
        })
        .collect()
}

/// `len` scalars of a witness's mix ([`Scalars::PoRepMix`]).
fn mixed_scalars(len: usize, seed: u64) -> Vec<pce_scalar> {
    const CHUNK: usize = 1 << 16;
    let mut scalars = vec![pce_scalar::default(); len];
    scalars
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(chunk, out)| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed << 32 ^ chunk as u64);
            for scalar in out {
                *scalar = scalar_of(&Scalars::PoRepMix.draw(&mut rng));
            }
        });
    scalars
}

/// The peak of the process's resident memory without its shared-memory
/// mappings (the repeated pools, which `VmRSS` counts once per copy
/// mapped), sampled every 20 ms on a thread of its own.
struct HostPeak {
    stop: Arc<AtomicBool>,
    sampler: Option<JoinHandle<Option<u64>>>,
}

impl HostPeak {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let sampler = std::thread::spawn(move || {
            let mut peak = None;
            loop {
                peak = peak.max(private_rss());
                if stopped.load(Ordering::Relaxed) {
                    return peak;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        Self {
            stop,
            sampler: Some(sampler),
        }
    }

    /// The peak so far, the sampler stopped.
    fn stop(mut self) -> Option<u64> {
        self.stop.store(true, Ordering::Relaxed);
        self.sampler.take()?.join().ok().flatten()
    }
}

impl Drop for HostPeak {
    /// A run that failed half-way stops its sampler too.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// `VmRSS − RssShmem` in bytes, from `/proc/self/status`.
fn private_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = |key: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    };
    Some((kib("VmRSS:")? - kib("RssShmem:").unwrap_or(0)) * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_powers_of_two_within_the_copies_allowed() {
        assert_eq!(pool(1000, 22), 1024);
        assert_eq!(pool((1 << 27) - 1, 22), 1 << 22);
        // 2^8 points would be 2^19 copies of a 2^27 query.
        assert_eq!(pool((1 << 27) - 1, 8), (1 << 27) / MAX_COPIES);
        assert_eq!(pool(5, 64), 8);
    }
}
