/*
 * curve.h: points of a short Weierstrass curve y^2 = x^3 + b, a template.
 *
 * Included once per group after defining CURVE (G1, G2: the prefix of its
 * types and functions) and CURVE_FIELD (Fp, Fp2). Affine points have the
 * host's layout (blst_p1_affine / blst_p2_affine, all-zero = infinity).
 * Sums are kept in extended Jacobian "XYZZ" coordinates (x = X/ZZ,
 * y = Y/ZZZ, ZZ = 0 is infinity), whose mixed addition costs 8M + 2S and
 * needs no curve constant; results leave the device as blst's Jacobian
 * points.
 */

#define G_(name) PASTE(CURVE, name)
#define K_(name) PASTE(CURVE_FIELD, name)

typedef struct {
  CURVE_FIELD x, y;
} G_(affine);

typedef struct {
  CURVE_FIELD x, y, zz, zzz;
} G_(xyzz);

typedef struct {
  CURVE_FIELD x, y, z;
} G_(jacobian);

DEVICE G_(xyzz) G_(infinity)(void) {
  G_(xyzz) p = {K_(zero)(), K_(zero)(), K_(zero)(), K_(zero)()};
  return p;
}

DEVICE bool G_(is_infinity)(G_(xyzz) p) { return K_(is_zero)(p.zz); }

DEVICE bool G_(affine_is_infinity)(G_(affine) a) {
  return K_(is_zero)(a.x) && K_(is_zero)(a.y);
}

/* -a: the same x, the negated y (infinity stays all-zero). */
DEVICE G_(affine) G_(affine_neg)(G_(affine) a) {
  a.y = K_(neg)(a.y);
  return a;
}

/* 2 (X, Y, ZZ, ZZZ) with ZZ, ZZZ scaled by `zz`, `zzz` (1 for an affine
 * point): dbl-2008-s-1 / mdbl-2008-s. */
DEVICE_CALL G_(xyzz) G_(double_scaled)(CURVE_FIELD x, CURVE_FIELD y, CURVE_FIELD zz, CURVE_FIELD zzz) {
  CURVE_FIELD u = K_(dbl)(y);
  CURVE_FIELD v = K_(sqr)(u);
  CURVE_FIELD w = K_(mul)(u, v);
  CURVE_FIELD s = K_(mul)(x, v);
  CURVE_FIELD x2 = K_(sqr)(x);
  CURVE_FIELD m = K_(add)(K_(dbl)(x2), x2);
  G_(xyzz) r;
  r.x = K_(sub)(K_(sqr)(m), K_(dbl)(s));
  r.y = K_(sub)(K_(mul)(m, K_(sub)(s, r.x)), K_(mul)(w, y));
  r.zz = K_(mul)(v, zz);
  r.zzz = K_(mul)(w, zzz);
  return r;
}

DEVICE G_(xyzz) G_(double)(G_(xyzz) p) {
  if (G_(is_infinity)(p)) return p;
  return G_(double_scaled)(p.x, p.y, p.zz, p.zzz);
}

/* p + a for an affine a (madd-2008-s). */
DEVICE_CALL G_(xyzz) G_(add_affine)(G_(xyzz) p, G_(affine) a) {
  if (G_(affine_is_infinity)(a)) return p;
  if (G_(is_infinity)(p)) {
    G_(xyzz) r = {a.x, a.y, K_(one)(), K_(one)()};
    return r;
  }
  CURVE_FIELD pd = K_(sub)(K_(mul)(a.x, p.zz), p.x);
  CURVE_FIELD rd = K_(sub)(K_(mul)(a.y, p.zzz), p.y);
  if (K_(is_zero)(pd)) {
    if (K_(is_zero)(rd)) return G_(double_scaled)(a.x, a.y, K_(one)(), K_(one)());
    return G_(infinity)();
  }
  CURVE_FIELD pp = K_(sqr)(pd);
  CURVE_FIELD ppp = K_(mul)(pd, pp);
  CURVE_FIELD q = K_(mul)(p.x, pp);
  G_(xyzz) r;
  r.x = K_(sub)(K_(sub)(K_(sqr)(rd), ppp), K_(dbl)(q));
  r.y = K_(sub)(K_(mul)(rd, K_(sub)(q, r.x)), K_(mul)(p.y, ppp));
  r.zz = K_(mul)(p.zz, pp);
  r.zzz = K_(mul)(p.zzz, ppp);
  return r;
}

/* p + q (add-2008-s). */
DEVICE_CALL G_(xyzz) G_(add)(G_(xyzz) p, G_(xyzz) q) {
  if (G_(is_infinity)(q)) return p;
  if (G_(is_infinity)(p)) return q;
  CURVE_FIELD u1 = K_(mul)(p.x, q.zz);
  CURVE_FIELD s1 = K_(mul)(p.y, q.zzz);
  CURVE_FIELD pd = K_(sub)(K_(mul)(q.x, p.zz), u1);
  CURVE_FIELD rd = K_(sub)(K_(mul)(q.y, p.zzz), s1);
  if (K_(is_zero)(pd)) {
    if (K_(is_zero)(rd)) return G_(double)(p);
    return G_(infinity)();
  }
  CURVE_FIELD pp = K_(sqr)(pd);
  CURVE_FIELD ppp = K_(mul)(pd, pp);
  CURVE_FIELD q1 = K_(mul)(u1, pp);
  G_(xyzz) r;
  r.x = K_(sub)(K_(sub)(K_(sqr)(rd), ppp), K_(dbl)(q1));
  r.y = K_(sub)(K_(mul)(rd, K_(sub)(q1, r.x)), K_(mul)(s1, ppp));
  r.zz = K_(mul)(K_(mul)(p.zz, q.zz), pp);
  r.zzz = K_(mul)(K_(mul)(p.zzz, q.zzz), ppp);
  return r;
}

/* The same point in Jacobian coordinates: (X ZZ^2, Y ZZZ^2, ZZZ); infinity
 * stays Z = 0. */
DEVICE G_(jacobian) G_(to_jacobian)(G_(xyzz) p) {
  G_(jacobian) r;
  r.x = K_(mul)(p.x, K_(sqr)(p.zz));
  r.y = K_(mul)(p.y, K_(sqr)(p.zzz));
  r.z = p.zzz;
  return r;
}
