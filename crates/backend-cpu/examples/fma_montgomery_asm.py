#!/usr/bin/env python3
"""Writes fma_montgomery.s: the interleaved FMA Montgomery product of
fma_montgomery.rs (same limbs, constants and column order) as straight-line
AVX2 assembly for two groups of four lanes, their instructions alternated
so that one group's dependent steps overlap the other's, every value in a
register chosen here (the compiled Rust spills about a third of its
instructions to the stack).

Run it from this folder: `python3 fma_montgomery_asm.py > fma_montgomery.s`.

The function (System V ABI, Intel syntax):

    fma_montgomery_mul_x2(out, a, b, constants, scratch)

`out`, `a`, `b`: two groups of eight limbs of four doubles (512 bytes,
32-byte aligned); `constants`: `AsmConstants` of fma_montgomery.rs;
`scratch`: 512 bytes for the reduction factors. Clobbers every ymm
register (all caller-saved in the System V ABI). Intel syntax without a
directive: Rust's `global_asm!`, which includes the file, defaults to it.
"""

LIMBS = 8
GROUPS = 2

# Offsets into AsmConstants (32 bytes each), in its field order.
FIELDS = ["low_start", "high_start", "mask", "two_52_bits",
          "two_52", "inverse_2_48", "minus_16", "p0_scaled",
          "minus_inverse_low", "minus_inverse_high"]
CONST = {name: 32 * k for k, name in enumerate(FIELDS)}
MODULUS = 32 * len(FIELDS)            # eight limbs of p
OFFSETS = MODULUS + 32 * LIMBS        # sixteen columns' offsets

# Registers of each group: the column's accumulators (low: the products'
# signed rests, next: their multiples of 2^48, for the next column), the
# carry into the next column (an integer, with the high parts' bits), the
# factor m just computed, and four temporaries.
REGISTERS = [dict(zip(["low", "next", "carry", "m", "x", "t", "s1", "s2"],
                      [f"ymm{8 * g + k}" for k in range(8)])) for g in range(GROUPS)]


def const(name, offset=0):
    return f"ymmword ptr [rcx + {CONST[name] + offset}]"


def column(g, k):
    """The instructions of column k of group g."""
    r = REGISTERS[g]
    a = f"rsi + {256 * g}"
    b = f"rdx + {256 * g}"
    scratch = f"r8 + {256 * g}"
    out = f"rdi + {256 * g}"
    ops = [f"vmovapd {r['low']}, {const('low_start')}",
           f"vmovapd {r['next']}, {const('high_start')}"]

    def product(x_source, y):
        if x_source is not None:
            ops.append(f"vmovapd {r['x']}, ymmword ptr [{x_source}]")
            x = r["x"]
        else:
            x = r["m"]
        ops.extend([
            f"vmovapd {r['t']}, {r['next']}",
            f"vfmadd231pd {r['next']}, {x}, ymmword ptr [{y}]",
            f"vsubpd {r['t']}, {r['t']}, {r['next']}",
            f"vfmadd231pd {r['t']}, {x}, ymmword ptr [{y}]",
            f"vaddpd {r['low']}, {r['low']}, {r['t']}",
        ])

    first, last = max(0, k - (LIMBS - 1)), min(k, LIMBS - 1)
    for i in range(first, last + 1):
        product(f"{a} + {32 * i}", f"{b} + {32 * (k - i)}")
    # m[i]·p[k − i] for i < k, m[k − 1] (still in its register) last.
    for i in range(first, min(last, k - 1) + 1):
        source = None if i == k - 1 else f"{scratch} + {32 * i}"
        product(source, f"rcx + {MODULUS + 32 * (k - i)}")
    s1, s2, x, t = r["s1"], r["s2"], r["x"], r["t"]
    ops.extend([
        f"vpaddq {s1}, {r['low']}, {r['carry']}",
        f"vpsubq {s1}, {s1}, ymmword ptr [rcx + {OFFSETS + 32 * k}]",
        f"vpand {x}, {s1}, {const('mask')}",
        f"vpsrlq {s1}, {s1}, 48",
        # The next column's carry starts with this column's high parts.
        f"vpaddq {s1}, {s1}, {r['next']}",
    ])
    if k < LIMBS:
        ops.extend([
            # m = x·(−p⁻¹) mod 2^48 from three 32-bit products.
            f"vpsrlq {t}, {x}, 32",
            f"vpmuludq {t}, {t}, {const('minus_inverse_low')}",
            f"vpmuludq {s2}, {x}, {const('minus_inverse_high')}",
            f"vpaddq {t}, {t}, {s2}",
            f"vpsllq {t}, {t}, 32",
            f"vpmuludq {s2}, {x}, {const('minus_inverse_low')}",
            f"vpaddq {t}, {t}, {s2}",
            f"vpand {t}, {t}, {const('mask')}",
            f"vpor {t}, {t}, {const('two_52_bits')}",
            f"vsubpd {r['m']}, {t}, {const('two_52')}",
            f"vmovapd ymmword ptr [{scratch} + {32 * k}], {r['m']}",
            # (x + m·p₀) / 2^48, exact.
            f"vpor {x}, {x}, {const('two_52_bits')}",
            f"vmovapd {s2}, {const('inverse_2_48')}",
            f"vfmadd213pd {x}, {s2}, {const('minus_16')}",
            f"vfmadd231pd {x}, {r['m']}, {const('p0_scaled')}",
            f"vaddpd {x}, {x}, {const('two_52')}",
            f"vpaddq {r['carry']}, {s1}, {x}",
        ])
    else:
        ops.extend([
            f"vpor {x}, {x}, {const('two_52_bits')}",
            f"vsubpd {x}, {x}, {const('two_52')}",
            f"vmovapd ymmword ptr [{out} + {32 * (k - LIMBS)}], {x}",
            f"vmovapd {r['carry']}, {s1}",
        ])
    return ops


def main():
    lines = [
        "// Written by fma_montgomery_asm.py; do not edit.",
        ".text",
        ".globl fma_montgomery_mul_x2",
        ".p2align 6",
        "fma_montgomery_mul_x2:",
    ]
    for g in range(GROUPS):
        # Column 0 takes the bits of a high accumulator's start, as the
        # others take their previous column's.
        lines.append(f"vmovapd {REGISTERS[g]['carry']}, {const('high_start')}")
    for k in range(2 * LIMBS):
        streams = [column(g, k) for g in range(GROUPS)]
        for n in range(max(map(len, streams))):
            for stream in streams:
                if n < len(stream):
                    lines.append(stream[n])
    lines += ["vzeroupper", "ret"]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
