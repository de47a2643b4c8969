#include "test.h"
START
    TEST_RR(1, divw, 3, 20, 6)
    TEST_RR(2, divw, -3, -20, 6)
    TEST_RR(3, divw, -1, 5, 0)
    TEST_RR(4, divw, 0xffffffff80000000, 0x80000000, -1)         /* overflow: INT32_MIN */
    TEST_RR(5, divw, 3, 0xffffffff00000014, 0x1200000006)        /* upper bits ignored */
    TEST_RR(6, divuw, 3, 20, 6)
    TEST_RR(7, divuw, 0x2aaaaaa7, -20, 6)
    TEST_RR(8, divuw, -1, 5, 0)                                   /* all ones, sign-extended */
    TEST_RR(9, divuw, 0xffffffff80000000, 0x80000000, 1)          /* result sign-extended */
    TEST_RR(10, divuw, 1, 0xffffffff, 0xffffffff)
    TEST_RR(11, remw, 2, 20, 6)
    TEST_RR(12, remw, -2, -20, 6)
    TEST_RR(13, remw, 5, 5, 0)
    TEST_RR(14, remw, 0xffffffff80000000, 0x80000000, 0)          /* dividend, sign-extended */
    TEST_RR(15, remw, 0, 0x80000000, -1)
    TEST_RR(16, remw, -1, 0x12ffffffff, 0x100000000)              /* rs2 low word 0 */
    TEST_RR(17, remuw, 2, 20, 6)
    TEST_RR(18, remuw, 2, -20, 6)
    TEST_RR(19, remuw, -20, -20, 0)
    TEST_RR(20, remuw, 0xffffffff80000001, 0x80000001, 0x80000002)
    TEST_RR_SAME(21, divw, 1, 0x7fffffff)
    TEST_RR_ZERO(22, remuw, 9, 0)
    j pass
END
