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

/* k p, for k < 2^32: double and add from the top bit. */
DEVICE G_(xyzz) G_(times)(G_(xyzz) p, u32 k) {
  G_(xyzz) r = G_(infinity)();
  for (u32 bit = 1u << 31; bit != 0; bit >>= 1) {
    r = G_(double)(r);
    if (k & bit) r = G_(add)(r, p);
  }
  return r;
}

/*
 * The sorted MSM (sort.h gives the entries in bucket order, `offsets[b]`
 * the first entry of bucket b, offsets[buckets] their number).
 *
 * msm_sorted_sums: thread t adds up entries [t segment, (t + 1) segment) in
 * registers, one run of equal bucket at a time, so every thread has the
 * same work however unevenly the digits fall into buckets. A run that is
 * its whole bucket goes to sums[b]; a bucket cut by segment boundaries
 * leaves its first piece in tails[t0] (the last run of its first segment
 * t0) and the others in heads[t] (the first run of each later segment),
 * which sorted_bucket adds up. Entries of empty buckets are never read.
 */
KERNEL void G_(msm_sorted_sums)(GLOBAL const G_(affine) *bases, GLOBAL const u32 *entries,
                                GLOBAL const u32 *offsets, u32 buckets, u32 segment,
                                GLOBAL G_(xyzz) *sums, GLOBAL G_(xyzz) *heads,
                                GLOBAL G_(xyzz) *tails) {
  u32 t = THREAD_ID();
  u32 total = offsets[buckets];
  u32 begin = t * segment;
  if (segment == 0 || begin / segment != t || begin >= total) return;
  u32 end = min(begin + segment, total);
  /* The last bucket whose first entry is at or before `begin`. */
  u32 low = 0, high = buckets;
  while (high - low > 1) {
    u32 middle = low + (high - low) / 2;
    if (offsets[middle] <= begin) {
      low = middle;
    } else {
      high = middle;
    }
  }
  u32 b = low;
  for (u32 i = begin; i < end;) {
    while (offsets[b + 1] <= i) b++;
    u32 stop = min(end, offsets[b + 1]);
    G_(xyzz) acc = G_(infinity)();
    /* Each base is loaded one addition ahead: the load's latency overlaps
     * the previous addition instead of stalling the next. */
    u32 entry = entries[i];
    G_(affine) base = bases[entry & 0x7fffffffu];
    for (u32 j = i; j < stop; j++) {
      u32 sign = entry >> 31;
      G_(affine) current = base;
      if (j + 1 < stop) {
        entry = entries[j + 1];
        base = bases[entry & 0x7fffffffu];
      }
      acc = G_(add_affine)(acc, sign ? G_(affine_neg)(current) : current);
    }
    if (i == begin && offsets[b] < begin) {
      heads[t] = acc;
    } else if (stop < offsets[b + 1]) {
      tails[t] = acc;
    } else {
      sums[b] = acc;
    }
    i = stop;
  }
}

/* The sum of bucket b's points, from what msm_sorted_sums wrote. */
DEVICE G_(xyzz) G_(sorted_bucket)(GLOBAL const u32 *offsets, u32 b, u32 segment,
                                  GLOBAL const G_(xyzz) *sums, GLOBAL const G_(xyzz) *heads,
                                  GLOBAL const G_(xyzz) *tails) {
  u32 start = offsets[b];
  u32 stop = offsets[b + 1];
  if (start == stop) return G_(infinity)();
  u32 first = start / segment;
  u32 last = (stop - 1) / segment;
  if (first == last) return sums[b];
  G_(xyzz) sum = tails[first];
  for (u32 t = first + 1; t <= last; t++) sum = G_(add)(sum, heads[t]);
  return sum;
}

/* The window sums of the sorted MSM as partial sums for msm_reduce:
 * thread t = part * windows + window sums the buckets of its part of its
 * window, sum over them of magnitude * bucket, by the running-sum trick
 * from the part's top bucket (weights 1, 2, ... from its bottom one) plus
 * (bottom magnitude - 1) * the part's total. */
KERNEL void G_(msm_sorted_reduce)(GLOBAL const u32 *offsets, u32 bits, u32 windows, u32 parts,
                                  u32 segment, GLOBAL const G_(xyzz) *sums,
                                  GLOBAL const G_(xyzz) *heads, GLOBAL const G_(xyzz) *tails,
                                  GLOBAL G_(xyzz) *partials) {
  u32 t = THREAD_ID();
  if (t >= windows * parts) return;
  u32 window = t % windows;
  u32 part = t / windows;
  u32 magnitudes = 1u << (bits - 1);
  u32 per = (magnitudes + parts - 1) / parts;
  u32 low = min(part * per, magnitudes);
  u32 high = min(low + per, magnitudes);
  G_(xyzz) running = G_(infinity)();
  G_(xyzz) sum = G_(infinity)();
  for (u32 m = high; m > low; m--) {
    u32 b = window * magnitudes + m - 1;
    running = G_(add)(running, G_(sorted_bucket)(offsets, b, segment, sums, heads, tails));
    sum = G_(add)(sum, running);
  }
  partials[t] = G_(add)(sum, G_(times)(running, low));
}

#undef G_
#undef K_
#undef CURVE
#undef CURVE_FIELD
