#include "test.h"
START
    li TESTNUM, 1
    lui x14, 0
    bnez x14, fail
    li TESTNUM, 2
    lui x14, 0x80000
    li x7, 0xffffffff80000000
    bne x14, x7, fail
    li TESTNUM, 3
    lui x14, 0x7ffff
    li x7, 0x7ffff000
    bne x14, x7, fail
    li TESTNUM, 4
    lui x14, 0xfffff
    li x7, -4096
    bne x14, x7, fail
    li TESTNUM, 5
1:  auipc x14, 0
    la x7, 1b
    bne x14, x7, fail
    li TESTNUM, 6
2:  auipc x14, 1
    la x7, 2b
    li x8, 4096
    add x7, x7, x8
    bne x14, x7, fail
    li TESTNUM, 7
3:  auipc x14, 0xfffff
    la x7, 3b
    li x8, -4096
    add x7, x7, x8
    bne x14, x7, fail
    li TESTNUM, 8
    lui x0, 0x12345
    bnez x0, fail
    j pass
END
