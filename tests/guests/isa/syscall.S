#include "test.h"
/* fence, fence.i, write to fd 1 and 2, read at end of input, brk semantics */
START
    li TESTNUM, 1
    fence
    fence rw, rw
    .word 0x0000100f          /* fence.i */
    li TESTNUM, 2
    li a7, 64
    li a0, 1
    la a1, msg
    li a2, 6
    ecall
    li x7, 6
    bne a0, x7, fail
    li TESTNUM, 3
    li a7, 64
    li a0, 2
    la a1, msg
    li a2, 0
    ecall
    bnez a0, fail
    li TESTNUM, 4              /* read with no input: 0 (end of input) */
    li a7, 63
    li a0, 0
    la a1, buf
    li a2, 8
    ecall
    bnez a0, fail
    li TESTNUM, 5              /* brk(0) is the current break */
    li a7, 214
    li a0, 0
    ecall
    mv s0, a0
    beqz s0, fail
    li TESTNUM, 6              /* grow by 100 */
    li a7, 214
    addi a0, s0, 100
    ecall
    addi x7, s0, 100
    bne a0, x7, fail
    li TESTNUM, 7              /* new heap is zeroed and writable */
    ld x14, 0(s0)
    bnez x14, fail
    li x15, -1
    sd x15, 92(s0)
    ld x14, 92(s0)
    bne x14, x15, fail
    li TESTNUM, 8              /* below the start: unchanged */
    li a7, 214
    li a0, 1
    ecall
    addi x7, s0, 100
    bne a0, x7, fail
    li TESTNUM, 9              /* shrink back, grow again: zeroed */
    li a7, 214
    addi a0, s0, 8
    ecall
    addi x7, s0, 8
    bne a0, x7, fail
    li a7, 214
    addi a0, s0, 100
    ecall
    ld x14, 92(s0)
    bnez x14, fail
    li TESTNUM, 10             /* absurd request: unchanged */
    li a7, 214
    li a0, -4096
    ecall
    addi x7, s0, 100
    bne a0, x7, fail
    j pass
END
    .section .rodata
msg: .ascii "hello\n"
    .data
buf: .zero 16
