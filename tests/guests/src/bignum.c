/* bignum: reads N (decimal, default 100) and prints 3^N in hex (no leading zeros), computed by
 * square-and-multiply with schoolbook multiplication of 64-bit limbs (MUL/MULHU). */
#include "kestrel.h"

#define MAXL 1024 /* limbs: enough for 3^N with N < 40000 */

typedef struct {
    size_t n;
    uint64_t l[MAXL];
} big;

static big acc, base, tmp;

static void mul(big *out, const big *x, const big *y) {
    size_t n = x->n + y->n;
    if (n > MAXL) ks_exit(5);
    for (size_t i = 0; i < n; i++) tmp.l[i] = 0;
    for (size_t i = 0; i < x->n; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; j < y->n; j++) {
            unsigned __int128 p = (unsigned __int128)x->l[i] * y->l[j] + tmp.l[i + j] + carry;
            tmp.l[i + j] = (uint64_t)p;
            carry = (uint64_t)(p >> 64);
        }
        tmp.l[i + y->n] = carry;
    }
    while (n > 1 && tmp.l[n - 1] == 0) n--;
    for (size_t i = 0; i < n; i++) out->l[i] = tmp.l[i];
    out->n = n;
}

int main(void) {
    uint64_t e = ks_read_u64(100);
    if (e >= 40000) return 4;
    acc.n = 1;
    acc.l[0] = 1;
    base.n = 1;
    base.l[0] = 3;
    while (e) {
        if (e & 1) mul(&acc, &acc, &base);
        e >>= 1;
        if (e) mul(&base, &base, &base);
    }
    static const char digits[] = "0123456789abcdef";
    int started = 0;
    for (size_t i = acc.n; i-- > 0;) {
        for (int s = 60; s >= 0; s -= 4) {
            int d = (int)(acc.l[i] >> s) & 15;
            if (d || started || (i == 0 && s == 0)) {
                started = 1;
                ks_commit(&digits[d], 1);
            }
        }
    }
    ks_write_str(1, "\n");
    return 0;
}
