#include "test.h"
START
    TEST_RI(1, addiw, 0xffffffff80000000, 0x7fffffff, 1)
    TEST_RI(2, addiw, 0x7fffffff, 0x80000000, -1)
    TEST_RI(3, addiw, 0, 0xffffffff00000000, 0)      /* upper bits ignored */
    TEST_RI(4, addiw, -1, 0x12345678ffffffff, 0)
    TEST_RR(5, addw, 0xffffffff80000000, 0x7fffffff, 1)
    TEST_RR(6, addw, 0, 0xffffffff, 1)
    TEST_RR(7, subw, 0x7fffffff, 0x80000000, 1)
    TEST_RR(8, subw, -1, 0x100000000, 1)
    TEST_RI(9, slliw, 0xffffffff80000000, 1, 31)
    TEST_RI(10, slliw, 0, 0x100000000, 0)
    TEST_RI(11, slliw, 0x12340000, 0xabcd00001234, 16)
    TEST_RI(12, srliw, 1, 0x80000000, 31)
    TEST_RI(13, srliw, 0xffffffff80000000, 0xffffffff80000000, 0)  /* result sign-extended */
    TEST_RI(14, srliw, 0x7fffffff, -1, 1)
    TEST_RI(15, sraiw, -1, 0x80000000, 31)
    TEST_RI(16, sraiw, 0xfffffffff8000000, 0x80000000, 4)
    TEST_RI(17, sraiw, 0x07ffffff, 0xffffffff7fffffff, 4)
    TEST_RR(18, sllw, 0xffffffff80000000, 1, 31)
    TEST_RR(19, sllw, 1, 1, 32)          /* amount is rs2 mod 32 */
    TEST_RR(20, sllw, 2, 1, 33)
    TEST_RR(21, srlw, 0x7fffffff, 0xffffffff, 33)
    TEST_RR(22, srlw, 0xffffffffffffffff, 0xffffffff, 64)
    TEST_RR(23, sraw, -1, 0x80000000, 63)
    TEST_RR(24, sraw, 0xffffffffc0000000, 0x80000000, 33)
    TEST_RR(25, sraw, 0x12345678, 0xabcd12345678, 32)
    TEST_RR_SAME(26, addw, 0xfffffffffffffffe, 0x7fffffffffffffff)
    TEST_RR_ZERO(27, subw, 1, 2)
    j pass
END
