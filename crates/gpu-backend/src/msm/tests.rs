//! The driver checked on a mock engine whose points are integers: chunks,
//! slots, uploads, plans, budgets and retries, exactly, on any machine.

use super::bases::Place;
use super::budget::MIN_JOB_TERMS;
use super::plan::{MIN_PLAN_POINTS, SCAN_THREADS, SIGNED_BITS};
use super::*;
use crate::engine::{bytes_of, Arg, Limits, Plain};
use backend_api::ffi::pce_g1_affine;
use backend_api::ffi::{
    G1_AFFINE_BYTES, G1_PROJECTIVE_BYTES, G2_AFFINE_BYTES, G2_PROJECTIVE_BYTES,
};
use backend_api::plugin::Storage;

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
                let (indices, scalars) = (buffer(1).borrow().clone(), buffer(2).borrow().clone());
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
                let (scalars, indices) = (buffer(0).borrow().clone(), buffer(1).borrow().clone());
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
            let outcome = check_mock_in::<G1>(timing, streamed, len, chunk, threads, shape, memory);
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
            let plan = SortedPlan::new(terms, threads, (room, room), xyzz).expect("64 GiB fits");
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
    let outcome = check_mock_in::<G1>(Timing::Late, false, 3000, 16384, 4096, (1, 2998, 2), memory);
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
