#include "test.h"
START
    TEST_RR(1, div, 3, 20, 6)
    TEST_RR(2, div, -3, -20, 6)
    TEST_RR(3, div, -3, 20, -6)
    TEST_RR(4, div, 3, -20, -6)
    TEST_RR(5, div, -1, 5, 0)                       /* divide by zero: all ones */
    TEST_RR(6, div, -1, 0, 0)
    TEST_RR(7, div, 0x8000000000000000, 0x8000000000000000, -1)   /* overflow */
    TEST_RR(8, divu, 3, 20, 6)
    TEST_RR(9, divu, 0x2aaaaaaaaaaaaaa7, -20, 6)
    TEST_RR(10, divu, -1, 5, 0)
    TEST_RR(11, divu, 0, 0x8000000000000000, -1)
    TEST_RR(12, rem, 2, 20, 6)
    TEST_RR(13, rem, -2, -20, 6)
    TEST_RR(14, rem, 2, 20, -6)
    TEST_RR(15, rem, -2, -20, -6)
    TEST_RR(16, rem, 5, 5, 0)                       /* remainder by zero: dividend */
    TEST_RR(17, rem, 0x8000000000000000, 0x8000000000000000, 0)
    TEST_RR(18, rem, 0, 0x8000000000000000, -1)     /* overflow: 0 */
    TEST_RR(19, remu, 2, 20, 6)
    TEST_RR(20, remu, 2, -20, 6)
    TEST_RR(21, remu, -20, -20, 0)
    TEST_RR(22, remu, 0x7fffffffffffffff, 0x7fffffffffffffff, 0x8000000000000000)
    TEST_RR_SAME(23, div, 1, -9)
    TEST_RR_SAME(24, rem, 0, -9)
    TEST_RR_ZERO(25, divu, 9, 0)
    j pass
END
