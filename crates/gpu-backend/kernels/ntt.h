/*
 * ntt.h: number-theoretic transforms over Fr.
 *
 * A transform of n = 2^log_n elements, in place, natural order in and out:
 * ntt_bit_reverse permutes; ntt_local_stages runs the first log_block
 * radix-2 stages of each block of 2^log_block contiguous elements in
 * shared memory (one work-group per block, one butterfly per thread and
 * stage); ntt_global_stage runs each later stage over global memory.
 * Twiddles are the table w^i, i < n/2, of the domain's root of unity w
 * (or of its inverse for an inverse transform). ntt_scale multiplies
 * element i by scale * step^i: 1/n for inverses, the coset shift g^i or
 * g^-i for coset transforms.
 */

/* Given by the host on the compiler's command line (crates/gpu-backend/src/
 * source.rs defines them once for the kernels and their drivers):
 * NTT_MAX_LOCAL_LOG, the log2 of the largest block of ntt_local_stages;
 * NTT_SCALE_CHUNK, the elements ntt_scale scales per thread. */
#ifndef NTT_MAX_LOCAL_LOG
#error "NTT_MAX_LOCAL_LOG must be defined by the compiler options"
#endif
#ifndef NTT_SCALE_CHUNK
#error "NTT_SCALE_CHUNK must be defined by the compiler options"
#endif

DEVICE void ntt_butterfly(Fr *u, Fr *v, Fr w) {
  Fr t = Fr_mul(*v, w);
  *v = Fr_sub(*u, t);
  *u = Fr_add(*u, t);
}

KERNEL void ntt_bit_reverse(GLOBAL Fr *data, u32 log_n) {
  u32 i = THREAD_ID();
  if (log_n == 0 || i >= (1u << log_n)) return;
  u32 j = reverse_bits(i) >> (32 - log_n);
  if (i < j) {
    Fr t = data[i];
    data[i] = data[j];
    data[j] = t;
  }
}

KERNEL void ntt_local_stages(GLOBAL Fr *data, GLOBAL const Fr *twiddles, u32 log_n, u32 log_block) {
  SHARED Fr block[1 << NTT_MAX_LOCAL_LOG];
  u32 lid = LOCAL_ID();
  u32 half_block = 1u << (log_block - 1);
  u64 base = (u64)GROUP_ID() << log_block;
  block[lid] = data[base + lid];
  block[lid + half_block] = data[base + lid + half_block];
  SYNC_THREADS();
  for (u32 s = 0; s < log_block; s++) {
    u32 j = lid & ((1u << s) - 1);
    u32 k = ((lid >> s) << (s + 1)) + j;
    Fr u = block[k];
    Fr v = block[k + (1u << s)];
    ntt_butterfly(&u, &v, twiddles[(u64)j << (log_n - 1 - s)]);
    block[k] = u;
    block[k + (1u << s)] = v;
    SYNC_THREADS();
  }
  data[base + lid] = block[lid];
  data[base + lid + half_block] = block[lid + half_block];
}

KERNEL void ntt_global_stage(GLOBAL Fr *data, GLOBAL const Fr *twiddles, u32 log_n, u32 s) {
  u32 t = THREAD_ID();
  if (t >= (1u << (log_n - 1))) return;
  u32 j = t & ((1u << s) - 1);
  u64 k = ((u64)(t >> s) << (s + 1)) + j;
  Fr u = data[k];
  Fr v = data[k + (1u << s)];
  ntt_butterfly(&u, &v, twiddles[(u64)j << (log_n - 1 - s)]);
  data[k] = u;
  data[k + (1u << s)] = v;
}

KERNEL void ntt_scale(GLOBAL Fr *data, u32 n, Fr scale, Fr step) {
  u32 begin = THREAD_ID() * NTT_SCALE_CHUNK;
  if (begin >= n) return;
  u32 end = min(begin + NTT_SCALE_CHUNK, n);
  Fr factor = Fr_mul(scale, Fr_pow_u32(step, begin));
  for (u32 i = begin; i < end; i++) {
    data[i] = Fr_mul(data[i], factor);
    factor = Fr_mul(factor, step);
  }
}

/* The QAP reduction's pointwise steps (the derivation is in
 * crates/groth16-prover/src/qap.rs): the product of A and B on the coset,
 * a[i] = a[i] b[i]; then, with a the product interpolated from the coset
 * (L + gamma U) and c the interpolated C, h = (C - (L + gamma U)) / (1 - gamma):
 * a[i] = (c[i] - a[i]) scale, scale = 1 / (1 - g^n). */
KERNEL void qap_mul(GLOBAL Fr *a, GLOBAL const Fr *b, u32 n) {
  u32 i = THREAD_ID();
  if (i >= n) return;
  a[i] = Fr_mul(a[i], b[i]);
}

KERNEL void qap_combine(GLOBAL Fr *a, GLOBAL const Fr *c, u32 n, Fr scale) {
  u32 i = THREAD_ID();
  if (i >= n) return;
  a[i] = Fr_mul(Fr_sub(c[i], a[i]), scale);
}
