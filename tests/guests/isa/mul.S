#include "test.h"
START
    TEST_RR(1, mul, 0, 0, 0)
    TEST_RR(2, mul, 6, 2, 3)
    TEST_RR(3, mul, -6, -2, 3)
    TEST_RR(4, mul, 0x8000000000000000, 0x8000000000000000, -1)
    TEST_RR(5, mul, 1, -1, -1)
    TEST_RR(6, mul, 0xfffffffe00000001, 0xffffffff, 0xffffffff)
    TEST_RR(7, mulh, 0, 2, 3)
    TEST_RR(8, mulh, -1, -2, 3)
    TEST_RR(9, mulh, 0x4000000000000000, 0x8000000000000000, 0x8000000000000000)
    TEST_RR(10, mulh, 0, 0x8000000000000000, -1)
    TEST_RR(11, mulh, 0x3fffffffffffffff, 0x7fffffffffffffff, 0x7fffffffffffffff)
    TEST_RR(12, mulhu, 0xfffffffffffffffe, -1, -1)
    TEST_RR(13, mulhu, 0x4000000000000000, 0x8000000000000000, 0x8000000000000000)
    TEST_RR(14, mulhu, 0, 0xffffffff, 0xffffffff)
    TEST_RR(15, mulhsu, -1, -1, -1)                 /* -1 * (2^64-1) */
    TEST_RR(16, mulhsu, 0, 1, -1)
    TEST_RR(17, mulhsu, 0xc000000000000000, 0x8000000000000000, 0x8000000000000000)
    TEST_RR(18, mulhsu, 0x7ffffffffffffffe, 0x7fffffffffffffff, -1)
    TEST_RR(19, mulw, 0xfffffffffffffffe, 0x7fffffff, 2)
    TEST_RR(20, mulw, 0xffffffff80000000, 0x80000000, 1)
    TEST_RR(21, mulw, 1, 0x1ffffffff, 0xffffffffffffffff)   /* upper bits ignored */
    TEST_RR(22, mulw, 0, 0x100000000, 0x100000000)
    TEST_RR_SAME(23, mulhu, 0, 5)
    TEST_RR_ZERO(24, mul, 3, 4)
    j pass
END
