/* g1.h: defines instantiating curve.h and msm.h as G1, over Fp. */
#define CURVE G1
#define CURVE_FIELD Fp
