/* Register-only Fibonacci for proving benchmarks: about 2^LOG_CYCLES instructions, no memory
 * access, exits with F(n) mod 2^64 in a0 (the process exit status is its low 8 bits). */
#ifndef LOG_CYCLES
#define LOG_CYCLES 16
#endif
    .section .text.start, "ax"
    .globl _start
_start:
    li t0, ((1 << LOG_CYCLES) - 16) / 5
    li a0, 0
    li a1, 1
1:  add t2, a0, a1
    mv a0, a1
    mv a1, t2
    addi t0, t0, -1
    bnez t0, 1b
    li a7, 93
    ecall
