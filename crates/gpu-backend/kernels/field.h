/*
 * field.h: Montgomery arithmetic in a prime field, a template.
 *
 * Included once per field after defining
 *   FIELD         the type name (Fr, Fp), also the prefix of its functions;
 *   FIELD_LIMBS   number of 64-bit limbs, little-endian;
 *   FIELD_MODULUS the modulus as a brace list of limbs;
 *   FIELD_INV     -modulus^-1 mod 2^64 (the product uses its low 32 bits,
 *                 -modulus^-1 mod 2^32);
 *   FIELD_ONE     R mod modulus (1 in Montgomery form) as a brace list;
 *   FIELD_MUL     the qualifier of the multiplication: DEVICE (inlined)
 *                 or DEVICE_CALL (a function, see dialect.h).
 * The layout is blst's (blst_fr, blst_fp), so host buffers are used as is.
 *
 * Both BLS12-381 moduli leave the top bit of the top limb clear (their top
 * 32-bit words are below 2^31 - 1). Sums of two reduced elements
 * therefore fit in FIELD_LIMBS limbs, and the multiplication is the CIOS
 * variant without the extra carry word.
 */

typedef struct {
  u64 l[FIELD_LIMBS];
} FIELD;

#define F_(name) PASTE(FIELD, name)

DEVICE FIELD F_(modulus)(void) {
  FIELD m = {FIELD_MODULUS};
  return m;
}

DEVICE FIELD F_(zero)(void) {
  FIELD z;
#pragma unroll
  for (int i = 0; i < FIELD_LIMBS; i++) z.l[i] = 0;
  return z;
}

DEVICE FIELD F_(one)(void) {
  FIELD o = {FIELD_ONE};
  return o;
}

DEVICE bool F_(is_zero)(FIELD a) {
  u64 bits = 0;
#pragma unroll
  for (int i = 0; i < FIELD_LIMBS; i++) bits |= a.l[i];
  return bits == 0;
}

DEVICE bool F_(eq)(FIELD a, FIELD b) {
  u64 diff = 0;
#pragma unroll
  for (int i = 0; i < FIELD_LIMBS; i++) diff |= a.l[i] ^ b.l[i];
  return diff == 0;
}

/* a - modulus if that does not borrow, else a; for a < 2 modulus. */
DEVICE FIELD F_(reduce_once)(FIELD a) {
  FIELD m = F_(modulus)();
  FIELD d;
  u64 borrow = 0;
#pragma unroll
  for (int i = 0; i < FIELD_LIMBS; i++) d.l[i] = sub_borrow(a.l[i], m.l[i], &borrow);
  return borrow ? a : d;
}

DEVICE FIELD F_(add)(FIELD a, FIELD b) {
  FIELD s;
  u64 carry = 0;
#pragma unroll
  for (int i = 0; i < FIELD_LIMBS; i++) s.l[i] = add_carry(a.l[i], b.l[i], &carry);
  return F_(reduce_once)(s);
}

DEVICE FIELD F_(sub)(FIELD a, FIELD b) {
  FIELD d;
  u64 borrow = 0;
#pragma unroll
  for (int i = 0; i < FIELD_LIMBS; i++) d.l[i] = sub_borrow(a.l[i], b.l[i], &borrow);
  if (borrow) {
    FIELD m = F_(modulus)();
    u64 carry = 0;
#pragma unroll
    for (int i = 0; i < FIELD_LIMBS; i++) d.l[i] = add_carry(d.l[i], m.l[i], &carry);
  }
  return d;
}

DEVICE FIELD F_(dbl)(FIELD a) { return F_(add)(a, a); }

DEVICE FIELD F_(neg)(FIELD a) { return F_(sub)(F_(zero)(), a); }

/* a b R^-1 mod modulus: CIOS on 32-bit words, one reduction step per word
 * of b. GPUs multiply 32-bit words natively (a 32 x 32 + 64-bit product
 * is one instruction on NVIDIA's), where a product of 64-bit limbs and its
 * high half take several instructions and its carries comparisons: the
 * same algorithm on twice the words is faster (docs/benchmarks.md). Each
 * step's sum fits 64 bits: (2^32 - 1)^2 + 2 (2^32 - 1) = 2^64 - 1. */
#define WORDS (2 * FIELD_LIMBS)
FIELD_MUL FIELD F_(mul)(FIELD a, FIELD b) {
  FIELD m = F_(modulus)();
  u32 x[WORDS], y[WORDS], p[WORDS], t[WORDS];
#pragma unroll
  for (int i = 0; i < FIELD_LIMBS; i++) {
    x[2 * i] = (u32)a.l[i];
    x[2 * i + 1] = (u32)(a.l[i] >> 32);
    y[2 * i] = (u32)b.l[i];
    y[2 * i + 1] = (u32)(b.l[i] >> 32);
    p[2 * i] = (u32)m.l[i];
    p[2 * i + 1] = (u32)(m.l[i] >> 32);
    t[2 * i] = 0;
    t[2 * i + 1] = 0;
  }
#pragma unroll
  for (int i = 0; i < WORDS; i++) {
    u64 acc = 0;
#pragma unroll
    for (int j = 0; j < WORDS; j++) {
      acc = (u64)x[j] * y[i] + t[j] + (acc >> 32);
      t[j] = (u32)acc;
    }
    u32 high = (u32)(acc >> 32);
    u32 q = t[0] * (u32)FIELD_INV;
    acc = (u64)q * p[0] + t[0];
#pragma unroll
    for (int j = 1; j < WORDS; j++) {
      acc = (u64)q * p[j] + t[j] + (acc >> 32);
      t[j - 1] = (u32)acc;
    }
    t[WORDS - 1] = high + (u32)(acc >> 32);
  }
  FIELD r;
#pragma unroll
  for (int i = 0; i < FIELD_LIMBS; i++) r.l[i] = (u64)t[2 * i] | ((u64)t[2 * i + 1] << 32);
  return F_(reduce_once)(r);
}
#undef WORDS

DEVICE FIELD F_(sqr)(FIELD a) { return F_(mul)(a, a); }

/* a^e for a 32-bit exponent, by square and multiply. */
DEVICE FIELD F_(pow_u32)(FIELD a, u32 e) {
  FIELD r = F_(one)();
  while (e) {
    if (e & 1) r = F_(mul)(r, a);
    a = F_(sqr)(a);
    e >>= 1;
  }
  return r;
}

#undef F_
