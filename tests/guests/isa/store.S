#include "test.h"
/* TEST_ST(n, store, value, off, load, expect): store then read back with another width */
#define TEST_ST(n, st, val, off, ldi, loff, result) \
    la x1, buf;                                      \
    li x2, val;                                      \
    st x2, off(x1);                                  \
    ldi x14, loff(x1);                               \
    CHECK(n, x14, result)
START
    TEST_ST(1, sd, 0x1122334455667788, 0, ld, 0, 0x1122334455667788)
    TEST_ST(2, sb, 0xabcd, 0, ld, 0, 0x11223344556677cd)
    TEST_ST(3, sh, 0xfffffffffffffedc, 2, ld, 0, 0x11223344fedc77cd)
    TEST_ST(4, sw, 0x99aabbccdd, 4, ld, 0, 0xaabbccddfedc77cd)
    TEST_ST(5, sd, -1, 8, ld, 8, -1)
    TEST_ST(6, sd, 0x0102030405060708, 3, ld, 3, 0x0102030405060708)   /* misaligned */
    TEST_ST(7, ld, 0, 0, ld, 0, 0x0405060708dc77cd)
    TEST_ST(8, sw, 0xdeadbeef, 13, lwu, 13, 0xdeadbeef)
    TEST_ST(9, sh, 0x8001, 7, lh, 7, 0xffffffffffff8001)
    TEST_ST(10, sw, 0, 6, lw, 5, 0x00000006)
    TEST_ST(11, sd, 0x8877665544332211, -8 + 24, ld, 16, 0x8877665544332211)
    /* store x0 */
    li TESTNUM, 12
    la x1, buf
    sd x0, 16(x1)
    ld x14, 16(x1)
    bnez x14, fail
    /* base == value register */
    li TESTNUM, 13
    la x1, buf
    sd x1, 24(x1)
    ld x14, 24(x1)
    bne x14, x1, fail
    j pass
END
    .data
    .balign 8
buf: .zero 64
