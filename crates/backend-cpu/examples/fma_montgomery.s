// The interleaved FMA Montgomery product of fma_montgomery.rs (the same
// limbs, constants and order of columns) for two groups of four lanes, as
// straight-line AVX2 code with every value in a register of its own: the
// compiled Rust spills about a third of its instructions to the stack.
// The assembler's macros unroll it; the two groups' limb products alternate
// so that one group's dependent steps overlap the other's.
//
//     fma_montgomery_mul_x2(out, a, b, constants, scratch)
//
// System V ABI. `out` (rdi), `a` (rsi), `b` (rdx): two groups of eight limbs
// of four doubles (512 bytes, 32-byte aligned); `constants` (rcx): an
// `AsmConstants` of fma_montgomery.rs; `scratch` (r8): 512 bytes for the
// reduction factors. Clobbers every ymm register (all caller-saved).
//
// Registers of group 0, and of group 1 eight above (ymm8 to ymm15):
//   ymm0 low    the column's products' signed rests (doubles in [2^52, 2^53))
//   ymm1 next   their multiples of 2^48, for the next column (from 2^100)
//   ymm2 carry  into the column, an integer (the previous high parts' bits)
//   ymm3 m      the reduction factor just computed
//   ymm4 x, ymm5 t, ymm6 s1, ymm7 s2: temporaries

// Offsets of the fields of `AsmConstants`, four lanes (32 bytes) each.
.set LOW_START, 0
.set HIGH_START, 32
.set MASK, 64
.set TWO_52_BITS, 96
.set TWO_52, 128
.set INVERSE_2_48, 160
.set MINUS_16, 192
.set P0_SCALED, 224
.set MINUS_INVERSE_LOW, 256
.set MINUS_INVERSE_HIGH, 288
.set MODULUS, 320
.set OFFSETS, 576

// x·[y] into a column: its multiple of 2^48 to `next`, the exact signed
// rest, fma(x, y, next − next'), to `low`.
.macro product low, next, x, t, y
    vmovapd \t, \next
    vfmadd231pd \next, \x, ymmword ptr [\y]
    vsubpd \t, \t, \next
    vfmadd231pd \t, \x, ymmword ptr [\y]
    vaddpd \low, \low, \t
.endm

// The same product in both groups, x loaded from `x0` and `x1`.
.macro products x0, x1, y0, y1
    vmovapd ymm4, ymmword ptr [\x0]
    vmovapd ymm12, ymmword ptr [\x1]
    product ymm0, ymm1, ymm4, ymm5, \y0
    product ymm8, ymm9, ymm12, ymm13, \y1
.endm

// The column's value (low, carry, less its offset), split into its low 48
// bits `x` and the rest `s1`, which with the column's high parts starts the
// next column's carry. Below column 8 the reduction factor follows,
// m = x·(−p⁻¹) mod 2^48 from three 32-bit products, stored for the later
// columns, and the carry takes (x + m·p₀)/2^48, exact; from column 8 on,
// x is a limb of the result.
.macro finish k, low, next, carry, m, x, t, s1, s2, scratch, out
    vpaddq \s1, \low, \carry
    vpsubq \s1, \s1, ymmword ptr [rcx+OFFSETS+32*\k]
    vpand \x, \s1, ymmword ptr [rcx+MASK]
    vpsrlq \s1, \s1, 48
    vpaddq \s1, \s1, \next
    .if \k < 8
        vpsrlq \t, \x, 32
        vpmuludq \t, \t, ymmword ptr [rcx+MINUS_INVERSE_LOW]
        vpmuludq \s2, \x, ymmword ptr [rcx+MINUS_INVERSE_HIGH]
        vpaddq \t, \t, \s2
        vpsllq \t, \t, 32
        vpmuludq \s2, \x, ymmword ptr [rcx+MINUS_INVERSE_LOW]
        vpaddq \t, \t, \s2
        vpand \t, \t, ymmword ptr [rcx+MASK]
        vpor \t, \t, ymmword ptr [rcx+TWO_52_BITS]
        vsubpd \m, \t, ymmword ptr [rcx+TWO_52]
        vmovapd ymmword ptr [\scratch+32*\k], \m
        vpor \x, \x, ymmword ptr [rcx+TWO_52_BITS]
        vmovapd \s2, ymmword ptr [rcx+INVERSE_2_48]
        vfmadd213pd \x, \s2, ymmword ptr [rcx+MINUS_16]
        vfmadd231pd \x, \m, ymmword ptr [rcx+P0_SCALED]
        vaddpd \x, \x, ymmword ptr [rcx+TWO_52]
        vpaddq \carry, \s1, \x
    .else
        vpor \x, \x, ymmword ptr [rcx+TWO_52_BITS]
        vsubpd \x, \x, ymmword ptr [rcx+TWO_52]
        vmovapd ymmword ptr [\out+32*(\k-8)], \x
        vmovapd \carry, \s1
    .endif
.endm

// Column k of both groups: the products a[i]·b[k − i], then m[i]·p[k − i]
// for i < k, m[k − 1] (the last to be known, still in its register) last.
.macro column k
    vmovapd ymm0, ymmword ptr [rcx+LOW_START]
    vmovapd ymm8, ymmword ptr [rcx+LOW_START]
    vmovapd ymm1, ymmword ptr [rcx+HIGH_START]
    vmovapd ymm9, ymmword ptr [rcx+HIGH_START]
    .irp i, 0, 1, 2, 3, 4, 5, 6, 7
        .if ((\k - \i) >= 0) && ((\k - \i) < 8)
            products rsi+32*\i, rsi+256+32*\i, rdx+32*(\k-\i), rdx+256+32*(\k-\i)
        .endif
    .endr
    .irp i, 0, 1, 2, 3, 4, 5, 6, 7
        .if (\i < (\k - 1)) && ((\k - \i) < 8)
            products r8+32*\i, r8+256+32*\i, rcx+MODULUS+32*(\k-\i), rcx+MODULUS+32*(\k-\i)
        .endif
    .endr
    .if (\k >= 1) && (\k <= 8)
        product ymm0, ymm1, ymm3, ymm5, rcx+MODULUS+32
        product ymm8, ymm9, ymm11, ymm13, rcx+MODULUS+32
    .endif
    finish \k, ymm0, ymm1, ymm2, ymm3, ymm4, ymm5, ymm6, ymm7, r8, rdi
    finish \k, ymm8, ymm9, ymm10, ymm11, ymm12, ymm13, ymm14, ymm15, r8+256, rdi+256
.endm

.text
.globl fma_montgomery_mul_x2
.p2align 6
fma_montgomery_mul_x2:
    // Column 0 takes the bits of a high accumulator's start, as the others
    // take their previous column's.
    vmovapd ymm2, ymmword ptr [rcx+HIGH_START]
    vmovapd ymm10, ymmword ptr [rcx+HIGH_START]
    .irp k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
        column \k
    .endr
    vzeroupper
    ret
