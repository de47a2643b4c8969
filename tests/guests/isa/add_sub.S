#include "test.h"
START
    TEST_RR(1, add, 0, 0, 0)
    TEST_RR(2, add, 2, 1, 1)
    TEST_RR(3, add, 0, 1, -1)
    TEST_RR(4, add, 0x8000000000000000, 0x7fffffffffffffff, 1)
    TEST_RR(5, add, 0x7fffffffffffffff, 0x8000000000000000, -1)
    TEST_RR(6, add, 0x100000000, 0xffffffff, 1)
    TEST_RR(7, sub, 0, 0, 0)
    TEST_RR(8, sub, -1, 0, 1)
    TEST_RR(9, sub, 0x7fffffffffffffff, 0x8000000000000000, 1)
    TEST_RR(10, sub, 0x8000000000000001, 1, 0x8000000000000000)
    TEST_RI(11, addi, 0, 0, 0)
    TEST_RI(12, addi, -2048, 0, -2048)
    TEST_RI(13, addi, 2047, 0, 2047)
    TEST_RI(14, addi, 0x8000000000000000, 0x7fffffffffffffff, 1)
    TEST_RI(15, addi, 0x7fffffffffffffff, 0x8000000000000000, -1)
    TEST_RI(16, addi, 0x00000000fffff801, 0x100000001, -2048)
    TEST_RR_SAME(17, add, 26, 13)
    TEST_RR_SAME(18, sub, 0, 13)
    TEST_RR_ZERO(19, add, 5, 6)
    li TESTNUM, 20
    addi x0, x0, 5
    bnez x0, fail
    j pass
END
