@ Goldilocks multiplication for Thumb-2 cores (ARMv7-M, ARMv8-M Mainline), for
@ kestrel_core::field::goldilocks on those cores: the same value as `Felt::reduce128(a * b)`,
@ canonical (< p = 2^64 - 2^32 + 1) for canonical inputs. The firmware compares it with the
@ portable code at boot (`field::self_test`).
@
@ uint64_t kestrel_gl_mul_thumb2(uint64_t a, uint64_t b);
@ AAPCS: a in r0 (low) : r1 (high), b in r2 : r3, the result in r0 : r1.
@
@ The 128-bit product is x = x0 + x1 2^32 + x2 2^64 + x3 2^96 (32-bit limbs). With
@ 2^64 = 2^32 - 1 and 2^96 = -1 (mod p):
@   x = (x1:x0) - x3 + x2 (2^32 - 1)   (mod p),
@ reduced as the portable code does: t = (x1:x0) - x3, less 2^32 - 1 on a borrow (which
@ cannot borrow again); then t + x2 (2^32 - 1), plus 2^32 - 1 on a carry (which cannot carry
@ again); then one conditional subtraction of p.
.syntax unified
.thumb
.section .text.kestrel_gl_mul_thumb2,"ax",%progbits
.global kestrel_gl_mul_thumb2
.type kestrel_gl_mul_thumb2,%function
.p2align 2
.thumb_func
kestrel_gl_mul_thumb2:
    push {r4, r5, r6, r7, lr}
    @ The product: r4 = x0, r5 = x1, r6 = x2, r7 = x3.
    umull r4, r5, r0, r2        @ r5:r4 = a0 b0
    mov.w r12, #0
    umlal r5, r12, r0, r3       @ r12:r5 = x1 + a0 b1 (below 2^64)
    umull r6, r7, r1, r3        @ r7:r6 = a1 b1
    adds r6, r6, r12
    adc r7, r7, #0              @ + the carry limb (below 2^64)
    mov.w r12, #0
    umlal r5, r12, r1, r2       @ r12:r5 = x1 + a1 b0 (below 2^64)
    adds r6, r6, r12
    adc r7, r7, #0              @ r7:r6 = x3:x2 (below 2^64)
    @ t = (x1:x0) - x3; on a borrow (C clear) subtract 2^32 - 1 more.
    subs r0, r4, r7
    sbcs r1, r5, #0
    sbc r12, r12, r12           @ 0, or 0xffffffff on a borrow
    subs r0, r0, r12
    sbc r1, r1, #0
    @ e = x2 (2^32 - 1) = (x2 - [x2 != 0]) : (-x2 mod 2^32).
    rsbs r2, r6, #0
    sbc r3, r6, #0
    @ t + e; on a carry add 2^32 - 1.
    adds r0, r0, r2
    adcs r1, r1, r3
    mov r12, #0
    adc r12, r12, #0            @ the carry
    rsb r12, r12, #0            @ 0, or 0xffffffff
    adds r0, r0, r12
    adc r1, r1, #0
    @ Canonical: t >= p exactly when t + 2^32 - 1 carries out of 64 bits; then t - p is
    @ that sum modulo 2^64.
    mvn r12, #0
    adds r2, r0, r12
    adcs r3, r1, #0
    itt cs
    movcs r0, r2
    movcs r1, r3
    pop {r4, r5, r6, r7, pc}
.size kestrel_gl_mul_thumb2, . - kestrel_gl_mul_thumb2
