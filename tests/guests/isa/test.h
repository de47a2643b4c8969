/* Self-checking ISA test macros (in the style of riscv-tests): each TEST_* sets gp to its test
 * number and jumps to `fail` on a mismatch; `fail` exits with the test number, `pass` with 0.
 * Registers: x14 holds the result, x7 the expected value, x1/x2 the operands. */
#define TESTNUM gp

#define START            \
    .section .text.start, "ax"; \
    .globl _start;       \
_start:                  \
    li TESTNUM, 0;

#define END                  \
pass:                        \
    li a0, 0;                \
    li a7, 93;               \
    ecall;                   \
fail:                        \
    mv a0, TESTNUM;          \
    li a7, 93;               \
    ecall;

#define CHECK(n, reg, val) \
    li TESTNUM, n;         \
    li x7, val;            \
    bne reg, x7, fail;

/* rd = inst rs1, rs2 */
#define TEST_RR(n, inst, result, v1, v2) \
    li x1, v1;                           \
    li x2, v2;                           \
    inst x14, x1, x2;                    \
    CHECK(n, x14, result)

/* rd = inst rs1, imm */
#define TEST_RI(n, inst, result, v1, imm) \
    li x1, v1;                            \
    inst x14, x1, imm;                    \
    CHECK(n, x14, result)

/* rd == rs1 == rs2 */
#define TEST_RR_SAME(n, inst, result, v1) \
    li x14, v1;                           \
    inst x14, x14, x14;                   \
    CHECK(n, x14, result)

/* writes to x0 are discarded */
#define TEST_RR_ZERO(n, inst, v1, v2) \
    li x1, v1;                        \
    li x2, v2;                        \
    inst x0, x1, x2;                  \
    CHECK(n, x0, 0)
