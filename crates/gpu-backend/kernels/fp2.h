/*
 * fp2.h: Fp2 = Fp[u] / (u^2 + 1), the field of G2's coordinates.
 *
 * Same function names as field.h (Fp2_add, Fp2_mul, ...) so that curve.h
 * is one template for G1 over Fp and G2 over Fp2. Layout: blst_fp2.
 */

typedef struct {
  Fp c0, c1;
} Fp2;

/* The qualifier of the Fp2 products: calls, like the Fp product (see
 * dialect.h). A compiler option -DFP2_MUL=DEVICE inlines them
 * (kernel_probe builds that as a variant: on one H200 it was right where
 * the calls gave wrong G2 points, on another both were wrong, and inlined
 * they made G2 MSMs slower: docs/benchmarks.md). */
#ifndef FP2_MUL
#define FP2_MUL DEVICE_CALL
#endif

DEVICE Fp2 Fp2_zero(void) {
  Fp2 z = {Fp_zero(), Fp_zero()};
  return z;
}

DEVICE Fp2 Fp2_one(void) {
  Fp2 o = {Fp_one(), Fp_zero()};
  return o;
}

DEVICE bool Fp2_is_zero(Fp2 a) { return Fp_is_zero(a.c0) && Fp_is_zero(a.c1); }

DEVICE Fp2 Fp2_add(Fp2 a, Fp2 b) {
  Fp2 r = {Fp_add(a.c0, b.c0), Fp_add(a.c1, b.c1)};
  return r;
}

DEVICE Fp2 Fp2_sub(Fp2 a, Fp2 b) {
  Fp2 r = {Fp_sub(a.c0, b.c0), Fp_sub(a.c1, b.c1)};
  return r;
}

DEVICE Fp2 Fp2_dbl(Fp2 a) { return Fp2_add(a, a); }

DEVICE Fp2 Fp2_neg(Fp2 a) {
  Fp2 r = {Fp_neg(a.c0), Fp_neg(a.c1)};
  return r;
}

/* Karatsuba: three Fp multiplications. */
FP2_MUL Fp2 Fp2_mul(Fp2 a, Fp2 b) {
  Fp v0 = Fp_mul(a.c0, b.c0);
  Fp v1 = Fp_mul(a.c1, b.c1);
  Fp cross = Fp_mul(Fp_add(a.c0, a.c1), Fp_add(b.c0, b.c1));
  Fp2 r = {Fp_sub(v0, v1), Fp_sub(Fp_sub(cross, v0), v1)};
  return r;
}

/* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u. */
FP2_MUL Fp2 Fp2_sqr(Fp2 a) {
  Fp product = Fp_mul(a.c0, a.c1);
  Fp2 r = {Fp_mul(Fp_add(a.c0, a.c1), Fp_sub(a.c0, a.c1)), Fp_dbl(product)};
  return r;
}
