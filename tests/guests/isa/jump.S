#include "test.h"
START
    li TESTNUM, 1
    jal x1, 1f
    j fail
1:  la x7, 1b - 4
    bne x1, x7, fail        /* link = address after the jal */
    li TESTNUM, 2
    la x5, 2f
    jalr x6, 0(x5)
    j fail
2:  la x7, 2b - 4
    bne x6, x7, fail
    li TESTNUM, 3
    la x5, 3f + 1           /* bit 0 of the target is cleared */
    jalr x0, 0(x5)
    j fail
3:  li TESTNUM, 4
    la x5, 4f - 8
    jalr x5, 8(x5)          /* rd == rs1: target uses the old value */
    j fail
4:  la x7, 4b - 4
    bne x5, x7, fail
    li TESTNUM, 5
    la x5, 5f + 16
    jalr x1, -16(x5)
    j fail
5:  li TESTNUM, 6
    jal x0, 6f
    j fail
6:  li TESTNUM, 7
    li x14, 0
    jal x1, 7f
    addi x14, x14, 1        /* skipped */
7:  bnez x14, fail
    j pass
END
