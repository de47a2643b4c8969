#include "test.h"
START
    TEST_RR(1, slt, 0, 0, 0)
    TEST_RR(2, slt, 1, -1, 0)
    TEST_RR(3, slt, 0, 0, -1)
    TEST_RR(4, slt, 1, 0x8000000000000000, 0x7fffffffffffffff)
    TEST_RR(5, slt, 0, 0x7fffffffffffffff, 0x8000000000000000)
    TEST_RR(6, sltu, 0, -1, 0)
    TEST_RR(7, sltu, 1, 0, -1)
    TEST_RR(8, sltu, 0, 0x8000000000000000, 0x7fffffffffffffff)
    TEST_RR(9, sltu, 1, 0xffffffff, 0x100000000)
    TEST_RI(10, slti, 1, -1, 0)
    TEST_RI(11, slti, 0, 0, -2048)
    TEST_RI(12, slti, 1, 0x8000000000000000, -2048)
    TEST_RI(13, slti, 0, 2047, 2047)
    TEST_RI(14, sltiu, 1, 0, 1)
    TEST_RI(15, sltiu, 1, 0x7fffffffffffffff, -1)   /* imm sign-extends to 2^64-1 */
    TEST_RI(16, sltiu, 0, -1, -1)
    TEST_RI(17, sltiu, 1, 5, -2048)
    TEST_RR_SAME(18, slt, 0, 7)
    TEST_RR_SAME(19, sltu, 0, -7)
    j pass
END
