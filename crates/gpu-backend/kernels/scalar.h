/* scalar.h: reading MSM scalars (canonical little-endian 256-bit integers)
 * as signed digits. */

/* Bits [offset, offset + bits) of a 256-bit scalar, 1 <= bits <= 32. */
DEVICE u32 scalar_bits(GLOBAL const u64 *scalar, u32 offset, u32 bits) {
  u32 limb = offset / 64;
  u32 shift = offset % 64;
  if (limb >= 4) return 0;
  u64 v = scalar[limb] >> shift;
  if (shift + bits > 64 && limb + 1 < 4) v |= scalar[limb + 1] << (64 - shift);
  return (u32)(v & ((((u64)1) << bits) - 1));
}

/* The signed digit of window `window` (width `bits` <= 31) in the
 * representation scalar = sum_w d_w 2^(bits w) with -2^(bits-1) < d_w <=
 * 2^(bits-1): a window above half its range borrows one from the next.
 * Each thread walks the lower windows to find its carry (a few integer
 * operations per window, nothing next to one point addition). With
 * windows * bits >= 256 the top digit never carries out. */
DEVICE int scalar_signed_digit(GLOBAL const u64 *scalar, u32 window, u32 bits) {
  u32 limit = 1u << (bits - 1);
  u32 carry = 0;
  int digit = 0;
  for (u32 w = 0; w <= window; w++) {
    u32 d = scalar_bits(scalar, w * bits, bits) + carry;
    carry = d > limit;
    digit = carry ? (int)d - (int)(1u << bits) : (int)d;
  }
  return digit;
}
