/* scalar.h: reading MSM scalars (canonical little-endian 256-bit integers). */

/* Bits [offset, offset + bits) of a 256-bit scalar, 1 <= bits <= 32. */
DEVICE u32 scalar_digit(GLOBAL const u64 *scalar, u32 offset, u32 bits) {
  u32 limb = offset / 64;
  u32 shift = offset % 64;
  if (limb >= 4) return 0;
  u64 v = scalar[limb] >> shift;
  if (shift + bits > 64 && limb + 1 < 4) v |= scalar[limb + 1] << (64 - shift);
  return (u32)(v & ((((u64)1) << bits) - 1));
}
