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
 * additions) into one partial result. The host adds the partials of each window and
 * combines the windows by doubling (few points; see crates/gpu-kernels).
 *
 * The host sends only the terms whose scalar is neither 0 nor 1, as
 * (base index, scalar) pairs; bases with scalar 1 are summed by
 * sum_bases, spread over all threads. Scalars are canonical little-endian
 * 256-bit integers (4 limbs).
 */

KERNEL void G_(msm_buckets)(GLOBAL const G_(affine) *bases, GLOBAL const u32 *indices,
                            GLOBAL const u64 *scalars, u32 count, u32 bits, u32 windows,
                            u32 slices, GLOBAL G_(xyzz) *buckets, GLOBAL G_(jacobian) *partials) {
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
  partials[t] = G_(to_jacobian)(sum);
}

/* partials[t] = sum of bases[indices[i]] over thread t's slice of `count`. */
KERNEL void G_(sum_bases)(GLOBAL const G_(affine) *bases, GLOBAL const u32 *indices, u32 count,
                          u32 slices, GLOBAL G_(jacobian) *partials) {
  u32 t = THREAD_ID();
  if (t >= slices) return;
  u32 per_slice = (count + slices - 1) / slices;
  u32 begin = t * per_slice;
  u32 end = min(begin + per_slice, count);
  G_(xyzz) sum = G_(infinity)();
  for (u32 i = begin; i < end; i++) sum = G_(add_affine)(sum, bases[indices[i]]);
  partials[t] = G_(to_jacobian)(sum);
}

#undef G_
#undef K_
#undef CURVE
#undef CURVE_FIELD
