/* fr.h: defines instantiating field.h as Fr, the scalar field of BLS12-381. */
#define FIELD Fr
#define FIELD_LIMBS 4
#define FIELD_MODULUS {0xffffffff00000001UL, 0x53bda402fffe5bfeUL, 0x3339d80809a1d805UL, 0x73eda753299d7d48UL}
#define FIELD_INV 0xfffffffeffffffffUL
#define FIELD_ONE {0x00000001fffffffeUL, 0x5884b7fa00034802UL, 0x998c4fefecbc4ff5UL, 0x1824b159acc5056fUL}
/* Inlined: the NTT butterflies are little else. */
#define FIELD_MUL DEVICE
