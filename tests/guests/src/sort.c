/* sort: reads N (decimal, default 1000), fills an array with N values of the xorshift64
 * generator seeded with 88172645463325252, sorts it (merge sort on the heap), checks the order
 * (exit 3 if wrong), and prints "min max checksum" where checksum = sum of (i+1)*a[i] mod 2^64. */
#include "kestrel.h"

static uint64_t xorshift(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void merge_sort(uint64_t *a, uint64_t *tmp, size_t n) {
    if (n < 2) return;
    size_t h = n / 2;
    merge_sort(a, tmp, h);
    merge_sort(a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

int main(void) {
    uint64_t n = ks_read_u64(1000);
    if (n == 0 || n > (1u << 22)) return 4;
    uint64_t *a = ks_alloc(n * sizeof *a);
    uint64_t *tmp = ks_alloc(n * sizeof *a);
    uint64_t seed = 88172645463325252ULL;
    for (uint64_t i = 0; i < n; i++) a[i] = xorshift(&seed);
    merge_sort(a, tmp, n);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (i > 0 && a[i - 1] > a[i]) return 3;
        sum += (i + 1) * a[i];
    }
    ks_write_u64(1, a[0]);
    ks_write_str(1, " ");
    ks_write_u64(1, a[n - 1]);
    ks_write_str(1, " ");
    ks_write_u64(1, sum);
    ks_write_str(1, "\n");
    return 0;
}
