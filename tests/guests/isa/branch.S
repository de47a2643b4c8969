#include "test.h"
/* TEST_BR(n, inst, taken, v1, v2) */
#define TEST_BR(n, inst, taken, v1, v2) \
    li TESTNUM, n;                       \
    li x1, v1;                           \
    li x2, v2;                           \
    li x14, 0;                           \
    inst x1, x2, 1f;                     \
    li x14, 1;                           \
1:  li x7, 1 - taken;                    \
    bne x14, x7, fail;
START
    TEST_BR(1, beq, 1, 0, 0)
    TEST_BR(2, beq, 0, 0, 1)
    TEST_BR(3, beq, 1, -1, -1)
    TEST_BR(4, beq, 0, 0xffffffff, -1)
    TEST_BR(5, bne, 0, 5, 5)
    TEST_BR(6, bne, 1, 0x100000000, 0)
    TEST_BR(7, blt, 1, -1, 0)
    TEST_BR(8, blt, 0, 0, -1)
    TEST_BR(9, blt, 1, 0x8000000000000000, 0x7fffffffffffffff)
    TEST_BR(10, blt, 0, 3, 3)
    TEST_BR(11, bge, 1, 3, 3)
    TEST_BR(12, bge, 1, 0, -1)
    TEST_BR(13, bge, 0, 0x8000000000000000, 0)
    TEST_BR(14, bltu, 0, -1, 0)
    TEST_BR(15, bltu, 1, 0, -1)
    TEST_BR(16, bltu, 1, 0x7fffffffffffffff, 0x8000000000000000)
    TEST_BR(17, bltu, 0, 3, 3)
    TEST_BR(18, bgeu, 1, -1, 0)
    TEST_BR(19, bgeu, 1, 3, 3)
    TEST_BR(20, bgeu, 0, 0xffffffff, 0x100000000)
    /* backward branch loop */
    li TESTNUM, 21
    li x1, 10
    li x14, 0
2:  addi x14, x14, 3
    addi x1, x1, -1
    bnez x1, 2b
    li x7, 30
    bne x14, x7, fail
    j pass
END
