#include "test.h"
START
    TEST_RR(1, sll, 0x8000000000000000, 1, 63)
    TEST_RR(2, sll, 0x100000000, 1, 32)
    TEST_RR(3, sll, 1, 1, 64)          /* shift amount is rs2 mod 64 */
    TEST_RR(4, sll, 2, 1, 65)
    TEST_RR(5, sll, 0x8000000000000000, 1, -1)
    TEST_RR(6, srl, 1, 0x8000000000000000, 63)
    TEST_RR(7, srl, 0x80000000, 0x8000000000000000, 32)
    TEST_RR(8, srl, 0x8000000000000000, 0x8000000000000000, 64)
    TEST_RR(9, sra, -1, 0x8000000000000000, 63)
    TEST_RR(10, sra, 0xffffffff80000000, 0x8000000000000000, 32)
    TEST_RR(11, sra, 0x8000000000000000, 0x8000000000000000, 128)
    TEST_RR(12, sra, 0x3fffffffffffffff, 0x7fffffffffffffff, 1)
    TEST_RI(13, slli, 0x8000000000000000, 1, 63)
    TEST_RI(14, slli, 0xffffffff00000000, -1, 32)
    TEST_RI(15, srli, 0x00000000ffffffff, -1, 32)
    TEST_RI(16, srli, 1, -1, 63)
    TEST_RI(17, srai, -1, -1, 63)
    TEST_RI(18, srai, 0xffffffff80000000, 0x8000000000000000, 32)
    TEST_RI(19, srai, 0x0000000040000000, 0x4000000000000000, 32)
    TEST_RI(20, slli, 0x1234, 0x1234, 0)
    TEST_RR_SAME(21, sll, 24, 3)
    TEST_RR_ZERO(22, sra, -1, 3)
    j pass
END
