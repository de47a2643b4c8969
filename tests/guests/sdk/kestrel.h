/* Kestrel guest SDK: system calls (Linux RISC-V numbers, so guests also run under qemu-riscv64)
 * and a few helpers. Link with crt0.S, kestrel.c and runtime.c (see build.sh). */
#ifndef KESTREL_H
#define KESTREL_H

#include <stddef.h>
#include <stdint.h>

#define KS_SYS_READ 63
#define KS_SYS_WRITE 64
#define KS_SYS_EXIT 93
#define KS_SYS_BRK 214

static inline long ks_syscall3(long n, long x0, long x1, long x2) {
    register long a0 __asm__("a0") = x0;
    register long a1 __asm__("a1") = x1;
    register long a2 __asm__("a2") = x2;
    register long a7 __asm__("a7") = n;
    __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
    return a0;
}

/* Ends the program; the exit code is public (bound by the proof). */
static inline __attribute__((noreturn)) void ks_exit(long code) {
    ks_syscall3(KS_SYS_EXIT, code, 0, 0);
    __builtin_unreachable();
}

/* One read(0, buf, len) of the private input: bytes read, 0 at the end. */
static inline long ks_read(void *buf, size_t len) {
    return ks_syscall3(KS_SYS_READ, 0, (long)buf, (long)len);
}

/* Reads until the input ends or `cap` bytes: the number of bytes read. */
size_t ks_read_all(void *buf, size_t cap);
/* Parses an unsigned decimal number from the input (leading blanks skipped); `dflt` if none. */
uint64_t ks_read_u64(uint64_t dflt);

/* Appends bytes to the public output (fd 1, bound by the proof). */
void ks_commit(const void *buf, size_t len);
/* Writes debug text to fd 2 (not proven). */
void ks_debug(const char *s);

/* Text helpers writing to fd 1 or 2. */
void ks_write_str(int fd, const char *s);
void ks_write_u64(int fd, uint64_t v);
void ks_write_i64(int fd, int64_t v);
void ks_write_hex(int fd, const void *bytes, size_t n);

/* Heap (bump allocator over brk), 16-byte aligned; exits with code 120 when out of memory. */
void *ks_alloc(size_t n);

/* Freestanding runtime (runtime.c). */
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);

#endif
