#!/usr/bin/env bash
# kernels-on-host.sh: the GPU kernels' field and point functions compiled
# for the host, to look for undefined behaviour in their source without a
# GPU.
#
#   scripts/kernels-on-host.sh
#
# Needs g++ and valgrind. The functions of crates/gpu-backend/kernels (Fp,
# Fp2, G1 and G2 XYZZ additions and doublings, the Jacobian conversion) run
# on pseudo-random inputs, built four ways: -O0, -O2, -O1 under UBSan and
# ASan, and the -O2 build under valgrind's memcheck. A read of memory never
# written, an out-of-bounds access or an overflow that C++ leaves undefined
# shows as a sanitizer or memcheck error, or as outputs that differ between
# the builds. It says nothing of a compiler's or a GPU's own faults: the
# same source right here and wrong on a GPU points there.
set -euo pipefail

KERNELS=$(cd "$(dirname "$0")/../crates/gpu-backend/kernels" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The CUDA dialect of dialect.h, its keywords spelled for a host compiler.
cat > "$WORK/host.h" <<'EOF'
#define __CUDACC_RTC__ 1
#define MAX_BLOCK_THREADS 256
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __global__
#define __launch_bounds__(threads, blocks)
#define __shared__ static
struct dim3_host { unsigned x; };
static dim3_host blockIdx, blockDim, threadIdx;
static inline unsigned atomicAdd(unsigned *p, unsigned v) { unsigned old = *p; *p += v; return old; }
static inline void __syncthreads() {}
EOF

cat > "$WORK/main.cpp" <<EOF
#include <stdio.h>
#include "host.h"
#include "$KERNELS/dialect.h"
#include "$KERNELS/fp.h"
#include "$KERNELS/field.h"
#include "$KERNELS/field_end.h"
#include "$KERNELS/fp2.h"
#include "$KERNELS/g1.h"
#include "$KERNELS/curve.h"
#undef G_
#undef K_
#undef CURVE
#undef CURVE_FIELD
#include "$KERNELS/g2.h"
#include "$KERNELS/curve.h"

static u64 next_random() {
  static u64 s = 88172645463325252ULL; /* xorshift64 */
  s ^= s << 13; s ^= s >> 7; s ^= s << 17;
  return s;
}
/* Below the modulus: its top limb is 0x1a01..., so 60 bits are enough. */
static Fp random_fp() {
  Fp a;
  for (int i = 0; i < 6; i++) a.l[i] = next_random();
  a.l[5] &= 0x0fffffffffffffffULL;
  return a;
}
static Fp2 random_fp2() { Fp2 a = {random_fp(), random_fp()}; return a; }
static G1_xyzz random_g1() { G1_xyzz p = {random_fp(), random_fp(), random_fp(), random_fp()}; return p; }
static G2_xyzz random_g2() { G2_xyzz p = {random_fp2(), random_fp2(), random_fp2(), random_fp2()}; return p; }

/* FNV-1a of every output byte, printed per function. */
static u64 digest[8];
static void absorb(int which, const void *bytes, size_t len) {
  const unsigned char *b = (const unsigned char *)bytes;
  u64 h = digest[which] ? digest[which] : 1469598103934665603ULL;
  for (size_t i = 0; i < len; i++) { h ^= b[i]; h *= 1099511628211ULL; }
  digest[which] = h;
}

int main() {
  for (int round = 0; round < 64; round++) {
    G2_xyzz p = random_g2(), q = random_g2();
    G2_affine a = {random_fp2(), random_fp2()};
    G2_affine p_affine = {p.x, p.y};
    G2_xyzz sums[] = {G2_add_affine(p, a), G2_add(p, q), G2_double(p), G2_add(p, p),
                      G2_add_affine(G2_infinity(), a), G2_add(G2_infinity(), q),
                      G2_add_affine(G2_add_affine(G2_infinity(), p_affine), p_affine)};
    absorb(0, sums, sizeof sums);
    G2_jacobian j = G2_to_jacobian(sums[0]);
    absorb(1, &j, sizeof j);
    G1_xyzz g = random_g1(), h = random_g1();
    G1_affine b = {random_fp(), random_fp()};
    G1_xyzz g_sums[] = {G1_add_affine(g, b), G1_add(g, h), G1_double(g), G1_add(g, g)};
    absorb(2, g_sums, sizeof g_sums);
    Fp2 x = random_fp2(), y = random_fp2();
    Fp2 products[] = {Fp2_mul(x, y), Fp2_sqr(x), Fp2_sub(x, y), Fp2_neg(y)};
    absorb(3, products, sizeof products);
  }
  const char *names[] = {"G2 sums", "G2 to Jacobian", "G1 sums", "Fp2 products"};
  for (int i = 0; i < 4; i++) printf("%-16s %016llx\n", names[i], (unsigned long long)digest[i]);
  return 0;
}
EOF

cd "$WORK"
g++ -w -O0 -o o0 main.cpp
g++ -w -O2 -g -o o2 main.cpp
g++ -w -O1 -g -fsanitize=undefined,address -fno-sanitize-recover=all -o sanitized main.cpp
./o0 > o0.txt
./o2 > o2.txt
./sanitized > sanitized.txt
valgrind --quiet --error-exitcode=3 ./o2 > memcheck.txt
cmp -s o0.txt o2.txt && cmp -s o0.txt sanitized.txt && cmp -s o0.txt memcheck.txt || {
  echo "the builds disagree:" >&2
  paste o0.txt o2.txt >&2
  exit 1
}
cat o2.txt
echo "kernels-on-host: -O0, -O2, UBSan/ASan and memcheck agree, no errors"
