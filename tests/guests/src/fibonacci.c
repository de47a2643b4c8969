/* fibonacci: reads N (decimal text, default 10) and prints fib(N) mod 2^64 in decimal.
 * fib(0) = 0, fib(1) = 1. */
#include "kestrel.h"

int main(void) {
    uint64_t n = ks_read_u64(10);
    uint64_t a = 0, b = 1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t t = a + b;
        a = b;
        b = t;
    }
    ks_write_u64(1, a);
    ks_write_str(1, "\n");
    return 0;
}
