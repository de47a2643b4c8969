#include "test.h"
START
    TEST_RR(1, and, 0x0f000f00, 0xff00ff00, 0x0f0f0f0f)
    TEST_RR(2, or, 0xff0fff0f, 0xff00ff00, 0x0f0f0f0f)
    TEST_RR(3, xor, 0xf00ff00f, 0xff00ff00, 0x0f0f0f0f)
    TEST_RR(4, and, 0x8000000000000000, 0x8000000000000000, -1)
    TEST_RR(5, or, -1, 0x8000000000000000, 0x7fffffffffffffff)
    TEST_RR(6, xor, 0x7fffffffffffffff, 0x8000000000000000, -1)
    TEST_RI(7, andi, 0xff00ff00, 0xff00ff00, -1)
    TEST_RI(8, andi, 0x00000700, 0xff00ff00, 0x70f)
    TEST_RI(9, ori, 0xffffffffffffff0f, 0xff00ff00, -2033)
    TEST_RI(10, xori, 0xff00ff00ff00f700, 0x00ff00ff00ff0f00, -2048)
    TEST_RI(11, xori, -1, 0, -1)
    TEST_RI(12, andi, 0, -1, 0)
    TEST_RR_SAME(13, xor, 0, 0x1234)
    TEST_RR_SAME(14, and, 0x1234, 0x1234)
    TEST_RR_ZERO(15, or, 5, 6)
    j pass
END
