/*
 * msm.h: multi-scalar multiplication kernels of one group, a template
 * (after curve.h, with the same CURVE and CURVE_FIELD).
 *
 * Pippenger's bucket method with no sorting and no atomics, so it runs the
 * same on GPUs and on PoCL: thread t = slice * windows + window owns
 * 2^(bits-1) buckets in `buckets` (signed digits: a negative digit adds
 * the negated base, so buckets only cover magnitudes), adds the bases of
 * its slice of the terms whose digit in its window is non-zero, then sums
 * its buckets with the running-sum trick (k * B_k for all k in 2^bits
 * additions) into one partial sum.
 *
 * The partial sums stay on the device: msm_reduce adds them up slice by
 * slice in a few passes, msm_combine joins the windows by doubling and adds
 * the result to the MSM's accumulator, and msm_finish converts the
 * accumulators to blst's Jacobian points, so one point per MSM is copied
 * back, not one per thread (see crates/gpu-backend/src/msm.rs).
 *
 * The host sends only the terms whose scalar is neither 0 nor 1, as
 * (base index, scalar) pairs; bases with scalar 1 are summed by
 * sum_bases, spread over all threads, and reduced the same way (one
 * window). Scalars are canonical little-endian 256-bit integers (4 limbs).
 */

KERNEL void G_(msm_buckets)(GLOBAL const G_(affine) *bases, GLOBAL const u32 *indices,
                            GLOBAL const u64 *scalars, u32 count, u32 bits, u32 windows,
                            u32 slices, GLOBAL G_(xyzz) *buckets, GLOBAL G_(xyzz) *partials) {
  u32 t = THREAD_ID();
  if (t >= windows * slices) return;
  u32 window = t % windows;
  u32 slice = t / windows;
  u32 per_slice = (count + slices - 1) / slices;
  u32 begin = slice * per_slice;
  u32 end = min(begin + per_slice, count);
  u32 bucket_count = 1u << (bits - 1);
  GLOBAL G_(xyzz) *mine = buckets + (u64)t * bucket_count;
  for (u32 b = 0; b < bucket_count; b++) mine[b] = G_(infinity)();
  for (u32 i = begin; i < end; i++) {
    int digit = scalar_signed_digit(scalars + 4 * (u64)i, window, bits);
    if (digit > 0) {
      mine[digit - 1] = G_(add_affine)(mine[digit - 1], bases[indices[i]]);
    } else if (digit < 0) {
      mine[-digit - 1] = G_(add_affine)(mine[-digit - 1], G_(affine_neg)(bases[indices[i]]));
    }
  }
  G_(xyzz) running = G_(infinity)();
  G_(xyzz) sum = G_(infinity)();
  for (u32 b = bucket_count; b > 0; b--) {
    running = G_(add)(running, mine[b - 1]);
    sum = G_(add)(sum, running);
  }
  partials[t] = sum;
}

/* partials[t] = sum of bases[indices[i]] over thread t's slice of `count`. */
KERNEL void G_(sum_bases)(GLOBAL const G_(affine) *bases, GLOBAL const u32 *indices, u32 count,
                          u32 slices, GLOBAL G_(xyzz) *partials) {
  u32 t = THREAD_ID();
  if (t >= slices) return;
  u32 per_slice = (count + slices - 1) / slices;
  u32 begin = t * per_slice;
  u32 end = min(begin + per_slice, count);
  G_(xyzz) sum = G_(infinity)();
  for (u32 i = begin; i < end; i++) sum = G_(add_affine)(sum, bases[indices[i]]);
  partials[t] = sum;
}

/* One reduction pass over partials[slice * windows + window], in place:
 * thread t = part * windows + window adds the slices part, part + parts,
 * part + 2 parts, ... below `slices` of its window into
 * partials[part * windows + window]. Each thread reads only its own
 * residue class of slices and writes only the first of them, so no thread
 * reads what another writes; after the pass `parts` slices remain. */
KERNEL void G_(msm_reduce)(GLOBAL G_(xyzz) *partials, u32 windows, u32 slices, u32 parts) {
  u32 t = THREAD_ID();
  if (t >= windows * parts) return;
  u32 window = t % windows;
  u32 part = t / windows;
  G_(xyzz) sum = G_(infinity)();
  for (u32 s = part; s < slices; s += parts) {
    sum = G_(add)(sum, partials[(u64)s * windows + window]);
  }
  partials[(u64)part * windows + window] = sum;
}

/* acc[index] += sum over w of 2^(bits w) sums[w], for the window sums of one
 * MSM (Horner's rule from the top window: `bits` doublings per window).
 * A single thread: about 256 doublings, a few milliseconds at most,
 * instead of copying every partial sum to the host. */
KERNEL void G_(msm_combine)(GLOBAL const G_(xyzz) *sums, u32 bits, u32 windows,
                            GLOBAL G_(xyzz) *acc, u32 index) {
  if (THREAD_ID() != 0) return;
  G_(xyzz) result = G_(infinity)();
  for (u32 w = windows; w > 0; w--) {
    for (u32 i = 0; i < bits; i++) result = G_(double)(result);
    result = G_(add)(result, sums[w - 1]);
  }
  acc[index] = G_(add)(acc[index], result);
}

/* out[t] = acc[t] as blst's Jacobian point, for the `count` MSMs of a batch. */
KERNEL void G_(msm_finish)(GLOBAL const G_(xyzz) *acc, u32 count, GLOBAL G_(jacobian) *out) {
  u32 t = THREAD_ID();
  if (t >= count) return;
  out[t] = G_(to_jacobian)(acc[t]);
}

#undef G_
#undef K_
#undef CURVE
#undef CURVE_FIELD
