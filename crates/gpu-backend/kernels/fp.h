/* fp.h: defines instantiating field.h as Fp, the base field of BLS12-381. */
#define FIELD Fp
#define FIELD_LIMBS 6
#define FIELD_MODULUS {0xb9feffffffffaaabUL, 0x1eabfffeb153ffffUL, 0x6730d2a0f6b0f624UL, 0x64774b84f38512bfUL, 0x4b1ba7b6434bacd7UL, 0x1a0111ea397fe69aUL}
#define FIELD_INV 0x89f3fffcfffcfffdUL
#define FIELD_ONE {0x760900000002fffdUL, 0xebf4000bc40c0002UL, 0x5f48985753c758baUL, 0x77ce585370525745UL, 0x5c071a97a256ec6dUL, 0x15f65ec3fa80e493UL}
/* A call: inlined into every point operation it makes NVRTC's output and
 * time several times larger (docs/benchmarks.md). */
#define FIELD_MUL DEVICE_CALL
