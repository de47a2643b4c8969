/* Kestrel guest start-up: align the stack, call main, exit with its return value.
 * The stack pointer is whatever the loader provides (Kestrel: STACK_TOP; qemu-riscv64: its own
 * stack holding argv); guests must not depend on its value. The bss is zeroed by the loader. */
    .section .text.start, "ax"
    .globl _start
_start:
    andi sp, sp, -16
    call main
    li a7, 93          /* exit(a0) */
    ecall
1:  j 1b
