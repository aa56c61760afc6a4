/*
 * sort.h: the terms of an MSM sorted by bucket, for the sorted MSM
 * (msm.h's msm_sorted_* kernels; see crates/gpu-backend/src/msm.rs).
 *
 * Every non-zero signed digit of every term is one entry: the term's base
 * index, with bit 31 set when the digit is negative. Entries are ordered by
 * bucket, bucket (window w, magnitude m) being number w 2^(bits-1) + m - 1,
 * by a counting sort: msm_digits counts each bucket's entries, msm_scan
 * turns the counts into each bucket's first entry, and msm_digits again
 * places every entry in its bucket (in no particular order within it: the
 * bucket's sum does not depend on it). Curve-independent.
 */

/* Threads of the one block of msm_scan. */
#define SCAN_THREADS 256

/* For each term i < count and window w < windows with a non-zero signed
 * digit d (scalar.h): without `place`, counts[bucket] += 1; with it, the
 * entry indices[i] | (d < 0) << 31 goes to entries[cursors[bucket]++]. */
KERNEL void msm_digits(GLOBAL const u64 *scalars, GLOBAL const u32 *indices, u32 count, u32 bits,
                       u32 windows, u32 place, GLOBAL u32 *counts, GLOBAL u32 *cursors,
                       GLOBAL u32 *entries) {
  u32 i = THREAD_ID();
  if (i >= count) return;
  GLOBAL const u64 *scalar = scalars + 4 * (u64)i;
  u32 magnitudes = 1u << (bits - 1);
  u32 carry = 0;
  for (u32 w = 0; w < windows; w++) {
    u32 d = scalar_bits(scalar, w * bits, bits) + carry;
    carry = d > magnitudes;
    if (d == 0 || d == (1u << bits)) continue;
    u32 bucket = w * magnitudes + (carry ? (1u << bits) - d : d) - 1;
    if (place) {
      entries[ATOMIC_INC(&cursors[bucket])] = indices[i] | (carry << 31);
    } else {
      ATOMIC_INC(&counts[bucket]);
    }
  }
}

/* offsets[b] = counts[0] + ... + counts[b - 1] for b <= n (offsets[n] and
 * total[0]: all entries), cursors[b] = offsets[b], and counts zeroed for
 * the next sort. The first block does it all, with up to SCAN_THREADS
 * threads (fewer where the device runs this kernel in smaller groups: the
 * host's SCAN_THREADS threads then make several blocks, and the others
 * leave at once), each scanning a contiguous share: the counts are a few
 * MiB at most, a fraction of a millisecond. */
KERNEL void msm_scan(GLOBAL u32 *counts, u32 n, GLOBAL u32 *offsets, GLOBAL u32 *cursors,
                     GLOBAL u32 *total) {
  SHARED u32 shares[SCAN_THREADS];
  if (GROUP_ID() != 0) return;
  u32 t = LOCAL_ID();
  u32 threads = LOCAL_SIZE();
  u32 per = (n + threads - 1) / threads;
  u32 begin = min(t * per, n);
  u32 end = min(begin + per, n);
  u32 sum = 0;
  for (u32 b = begin; b < end; b++) sum += counts[b];
  shares[t] = sum;
  SYNC_THREADS();
  if (t == 0) {
    u32 running = 0;
    for (u32 k = 0; k < threads; k++) {
      u32 share = shares[k];
      shares[k] = running;
      running += share;
    }
    offsets[n] = running;
    total[0] = running;
  }
  SYNC_THREADS();
  u32 running = shares[t];
  for (u32 b = begin; b < end; b++) {
    u32 c = counts[b];
    offsets[b] = running;
    cursors[b] = running;
    counts[b] = 0;
    running += c;
  }
}
