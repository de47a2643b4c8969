/* Kestrel guest SDK helpers. */
#include "kestrel.h"

size_t ks_read_all(void *buf, size_t cap) {
    size_t got = 0;
    while (got < cap) {
        long n = ks_read((char *)buf + got, cap - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    return got;
}

static int ks_peek = -2; /* -2: nothing buffered; -1: end of input */

static int ks_getc(void) {
    if (ks_peek != -2) {
        int c = ks_peek;
        ks_peek = -2;
        return c;
    }
    unsigned char c;
    return ks_read(&c, 1) == 1 ? c : -1;
}

uint64_t ks_read_u64(uint64_t dflt) {
    int c = ks_getc();
    while (c == ' ' || c == '\n' || c == '\t' || c == '\r') c = ks_getc();
    if (c < '0' || c > '9') {
        ks_peek = c;
        return dflt;
    }
    uint64_t v = 0;
    while (c >= '0' && c <= '9') {
        v = v * 10 + (uint64_t)(c - '0');
        c = ks_getc();
    }
    ks_peek = c;
    return v;
}

static void ks_write_fd(int fd, const void *buf, size_t len) {
    const char *p = buf;
    while (len > 0) {
        long n = ks_syscall3(KS_SYS_WRITE, fd, (long)p, (long)len);
        if (n <= 0) ks_exit(121);
        p += n;
        len -= (size_t)n;
    }
}

void ks_commit(const void *buf, size_t len) { ks_write_fd(1, buf, len); }

void ks_debug(const char *s) { ks_write_fd(2, s, strlen(s)); }

void ks_write_str(int fd, const char *s) { ks_write_fd(fd, s, strlen(s)); }

void ks_write_u64(int fd, uint64_t v) {
    char buf[24];
    int i = 24;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    ks_write_fd(fd, buf + i, (size_t)(24 - i));
}

void ks_write_i64(int fd, int64_t v) {
    if (v < 0) {
        ks_write_fd(fd, "-", 1);
        ks_write_u64(fd, (uint64_t)0 - (uint64_t)v);
    } else {
        ks_write_u64(fd, (uint64_t)v);
    }
}

void ks_write_hex(int fd, const void *bytes, size_t n) {
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = bytes;
    char buf[64];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        buf[k++] = digits[b[i] >> 4];
        buf[k++] = digits[b[i] & 15];
        if (k == sizeof buf) {
            ks_write_fd(fd, buf, k);
            k = 0;
        }
    }
    ks_write_fd(fd, buf, k);
}

static uintptr_t ks_heap_next, ks_heap_end;

void *ks_alloc(size_t n) {
    if (ks_heap_end == 0) {
        ks_heap_next = ks_heap_end = (uintptr_t)ks_syscall3(KS_SYS_BRK, 0, 0, 0);
    }
    uintptr_t p = (ks_heap_next + 15) & ~(uintptr_t)15;
    if (p + n < p) ks_exit(120);
    uintptr_t end = p + n;
    if (end > ks_heap_end) {
        uintptr_t want = (end + 0xffff) & ~(uintptr_t)0xffff;
        if ((uintptr_t)ks_syscall3(KS_SYS_BRK, (long)want, 0, 0) != want) ks_exit(120);
        ks_heap_end = want;
    }
    ks_heap_next = end;
    return (void *)p;
}
