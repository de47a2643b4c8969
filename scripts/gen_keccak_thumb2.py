#!/usr/bin/env python3
"""Generates core/src/keccak32_thumb2.s: Keccak-p[1600, 12] (the permutation of
TurboSHAKE128, core/src/hash.rs) on a bit-interleaved state for
Thumb-2 cores (ARMv7-M, ARMv8-M Mainline: the Cortex-M3/M4/M7/M33).

    python3 scripts/gen_keccak_thumb2.py > core/src/keccak32_thumb2.s

The state layout is `keccak32::State`: word 2i holds lane i's even bits, word 2i+1 its odd
bits (lane i = x + 5y). One round reads the state from one buffer and writes it to the other
(the caller's state and a copy on the stack, alternately), half a row at a time:

  - each of the five input words is loaded, XORed with its column's theta effect D (kept on
    the stack) and rotated by its rho offset (4 instructions);
  - chi writes the five outputs (BIC, EOR, STR) and XORs each into the running column parity
    C of the next round, which stays in five registers over the five rows of one half;
  - after both halves, D of the next round is computed from the ten parities (so theta costs
    no second pass over the state).

About 421 instructions a round. Registers: r0 the caller's state, r1-r5 the row's five words,
r6 a temporary, r7 the loaded D, r8-r12 the parities, lr the round-constant pointer.
"""

RHO = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14]
ROUNDS = 12  # Keccak-p[1600, 12]: the last 12 rounds of Keccak-f[1600]
RC_F = [
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
]
RC = RC_F[24 - ROUNDS:]

B_OFF = 0  # the stack copy of the state: 50 words
D_OFF = 200  # D: 10 words (even, odd per column)
CE_OFF = 240  # the even parities while the odd half runs: 5 words
END_OFF = 260  # the end of the round-constant table
FRAME = 264

B = ["r1", "r2", "r3", "r4", "r5"]
T = "r6"
DR = "r7"
C = ["r8", "r9", "r10", "r11", "r12"]


def interleave(v):
    even = odd = 0
    for bit in range(32):
        even |= ((v >> (2 * bit)) & 1) << bit
        odd |= ((v >> (2 * bit + 1)) & 1) << bit
    return even, odd


def addr(buf, word):
    """The operand addressing `word` of the caller's state (`buf == "a"`) or the stack copy."""
    return f"[r0, #{4 * word}]" if buf == "a" else f"[sp, #{B_OFF + 4 * word}]"


def source(X, Y, h):
    """The input word, D word and left rotation that give output lane (X, Y)'s half h."""
    y = X
    x = ((Y - 3 * X) * 3) % 5
    lane = x + 5 * y
    r = RHO[lane]
    if r % 2 == 0:
        return 2 * lane + h, 2 * x + h, r // 2
    if h == 0:
        return 2 * lane + 1, 2 * x + 1, (r + 1) // 2
    return 2 * lane, 2 * x, (r - 1) // 2


def d_phase(out):
    """D of the next round from the odd parities (in C) and the even ones (loaded into B)."""
    for x in range(5):
        out.append(f"ldr {B[x]}, [sp, #{CE_OFF + 4 * x}]")
    for x in range(5):
        out.append(f"eor.w {T}, {B[(x - 1) % 5]}, {C[(x + 1) % 5]}, ror #31")
        out.append(f"str {T}, [sp, #{D_OFF + 8 * x}]")
        out.append(f"eor.w {T}, {C[(x - 1) % 5]}, {B[(x + 1) % 5]}")
        out.append(f"str {T}, [sp, #{D_OFF + 8 * x + 4}]")


def round_(src, dst, out):
    for h in range(2):
        for Y in range(5):
            for X in range(5):
                w, d, k = source(X, Y, h)
                out.append(f"ldr {B[X]}, {addr(src, w)}")
                out.append(f"ldr {DR}, [sp, #{D_OFF + 4 * d}]")
                out.append(f"eor.w {B[X]}, {B[X]}, {DR}")
                if k % 32:
                    out.append(f"ror.w {B[X]}, {B[X]}, #{32 - k}")
            for X in range(5):
                # out = b_X ^ (b_{X+2} & ~b_{X+1}); the first row writes the parity register.
                o = C[X] if Y == 0 else T
                out.append(f"bic.w {o}, {B[(X + 2) % 5]}, {B[(X + 1) % 5]}")
                out.append(f"eor.w {o}, {o}, {B[X]}")
                if X == 0 and Y == 0:
                    out.append(f"ldr {DR}, [lr], #4")
                    out.append(f"eor.w {o}, {o}, {DR}")
                out.append(f"str {o}, {addr(dst, 2 * (X + 5 * Y) + h)}")
                if Y != 0:
                    out.append(f"eor.w {C[X]}, {C[X]}, {T}")
        if h == 0:
            for X in range(5):
                out.append(f"str {C[X]}, [sp, #{CE_OFF + 4 * X}]")
    d_phase(out)


def main():
    body = []
    # Prologue: the parities of the input state, then its D.
    for x in range(5):
        for h, reg in ((0, B[x]), (1, C[x])):
            words = [2 * (x + 5 * y) + h for y in range(5)]
            body.append(f"ldr {reg}, [r0, #{4 * words[0]}]")
            for w in words[1:]:
                body.append(f"ldr {T}, [r0, #{4 * w}]")
                body.append(f"eor.w {reg}, {reg}, {T}")
    for x in range(5):
        body.append(f"str {B[x]}, [sp, #{CE_OFF + 4 * x}]")
    d_phase(body)
    loop = []
    round_("a", "b", loop)
    round_("b", "a", loop)

    lines = [
        "@ Generated by scripts/gen_keccak_thumb2.py; do not edit.",
        "@ Keccak-p[1600, 12] on a bit-interleaved state (keccak32::State), Thumb-2.",
        "@ void kestrel_keccak_p1600_12_thumb2(uint32_t state[50]);",
        ".syntax unified",
        ".thumb",
        ".section .text.kestrel_keccak_p1600_12_thumb2,\"ax\",%progbits",
        ".global kestrel_keccak_p1600_12_thumb2",
        ".type kestrel_keccak_p1600_12_thumb2,%function",
        ".p2align 2",
        ".thumb_func",
        "kestrel_keccak_p1600_12_thumb2:",
        "push {r3, r4, r5, r6, r7, r8, r9, r10, r11, lr}",
        f"sub sp, sp, #{FRAME}",
        "movw lr, #:lower16:kestrel_keccak_rc_thumb2",
        "movt lr, #:upper16:kestrel_keccak_rc_thumb2",
        f"add.w {T}, lr, #{8 * ROUNDS}",
        f"str {T}, [sp, #{END_OFF}]",
    ]
    lines += body
    lines.append("1:")
    lines += loop
    lines += [
        f"ldr {T}, [sp, #{END_OFF}]",
        f"cmp lr, {T}",
        "bne.w 1b",
        f"add sp, sp, #{FRAME}",
        "pop {r3, r4, r5, r6, r7, r8, r9, r10, r11, pc}",
        ".size kestrel_keccak_p1600_12_thumb2, . - kestrel_keccak_p1600_12_thumb2",
        ".section .rodata.kestrel_keccak_rc_thumb2,\"a\",%progbits",
        ".p2align 2",
        "kestrel_keccak_rc_thumb2:",
    ]
    for rc in RC:
        e, o = interleave(rc)
        lines.append(f".word 0x{e:08x}, 0x{o:08x}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
