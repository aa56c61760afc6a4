/* g2.h: defines instantiating curve.h and msm.h as G2, over Fp2. */
#define CURVE G2
#define CURVE_FIELD Fp2
