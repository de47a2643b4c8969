/* matmul: reads N (decimal, default 16, at most 64), builds N x N matrices
 * A[i][j] = (i * 7 + j * 3) % 17 - 8 and B[i][j] = (i * 5 + j * 11) % 13 - 6 (int64), computes
 * C = A * B, and prints the trace of C and sum of (i * N + j + 1) * C[i][j] (both signed decimal). */
#include "kestrel.h"

#define MAXN 64
static int64_t A[MAXN][MAXN], B[MAXN][MAXN], C[MAXN][MAXN];

int main(void) {
    uint64_t n = ks_read_u64(16);
    if (n == 0 || n > MAXN) return 4;
    for (uint64_t i = 0; i < n; i++)
        for (uint64_t j = 0; j < n; j++) {
            A[i][j] = (int64_t)((i * 7 + j * 3) % 17) - 8;
            B[i][j] = (int64_t)((i * 5 + j * 11) % 13) - 6;
        }
    for (uint64_t i = 0; i < n; i++)
        for (uint64_t j = 0; j < n; j++) {
            int64_t s = 0;
            for (uint64_t k = 0; k < n; k++) s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
    int64_t trace = 0, weighted = 0;
    for (uint64_t i = 0; i < n; i++) {
        trace += C[i][i];
        for (uint64_t j = 0; j < n; j++) weighted += (int64_t)(i * n + j + 1) * C[i][j];
    }
    ks_write_i64(1, trace);
    ks_write_str(1, " ");
    ks_write_i64(1, weighted);
    ks_write_str(1, "\n");
    return 0;
}
