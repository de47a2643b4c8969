#include "test.h"
/* TEST_LD(n, inst, result, offset): load from data+offset */
#define TEST_LD(n, inst, result, off) \
    la x1, data;                       \
    inst x14, off(x1);                 \
    CHECK(n, x14, result)
START
    TEST_LD(1, lb, 0xffffffffffffff80, 0)
    TEST_LD(2, lbu, 0x80, 0)
    TEST_LD(3, lb, 0x7f, 7)
    TEST_LD(4, lh, 0xffffffffffff8180, 0)
    TEST_LD(5, lhu, 0x8180, 0)
    TEST_LD(6, lw, 0xffffffff83828180, 0)
    TEST_LD(7, lwu, 0x83828180, 0)
    TEST_LD(8, ld, 0x7f86858483828180, 0)
    TEST_LD(9, lh, 0xffffffffffff8281, 1)        /* misaligned */
    TEST_LD(10, lhu, 0x7f86, 6)
    TEST_LD(11, lw, 0xffffffff84838281, 1)
    TEST_LD(12, lw, 0x0201007f, 7)               /* crosses 8-byte boundary */
    TEST_LD(13, lwu, 0x86858483, 3)
    TEST_LD(14, ld, 0x0201007f86858483, 3)
    TEST_LD(15, ld, 0x060504030201007f, 7)
    TEST_LD(16, lh, 0x0100, 8)
    /* negative offsets */
    li TESTNUM, 17
    la x1, data + 16
    ld x14, -16(x1)
    li x7, 0x7f86858483828180
    bne x14, x7, fail
    li TESTNUM, 18
    la x1, data + 2048
    lbu x14, -2048(x1)
    li x7, 0x80
    bne x14, x7, fail
    /* load into x0 */
    li TESTNUM, 19
    la x1, data
    ld x0, 0(x1)
    bnez x0, fail
    /* rd == rs1 */
    li TESTNUM, 20
    la x14, data
    ld x14, 8(x14)
    li x7, 0x0706050403020100
    bne x14, x7, fail
    /* read-only data */
    li TESTNUM, 21
    la x1, rodata
    lw x14, 0(x1)
    li x7, 0x12345678
    bne x14, x7, fail
    j pass
END
    .section .rodata
rodata: .word 0x12345678
    .data
    .balign 8
data:
    .byte 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x7f
    .byte 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07
    .zero 2048
