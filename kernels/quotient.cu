// Quotient evaluation for any AIR (CpuBackend::quotient): one generic kernel runs the
// table's constraint program on every LDE row, appends the LogUp constraints
// (core/src/air/logup.rs eval_logup), divides by the zerofiers and writes Q at the row's
// natural position; then the coefficients are split into chunks after an inverse NTT.
// Mirrors prover-gpu/src/cuda/quotient.rs.
#include "quotient.cuh"

extern "C" __global__ void ks_quotient_eval(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsInterp>(out, q, zero_flag);
}

// Coefficient k (natural) = a[bitrev(k)] * d_inv * g_inv^k for each of the 3 coordinate
// columns of `a` (length d = 2^log_d, bit-reversed, from the inverse DIF); those past
// chunks*n must vanish (else the flag is set); the rest go to split[row][3c + coord] with
// k = c*n + row. g_inv^k: one power per thread, then one multiplication per step.
extern "C" __global__ void ks_quotient_split(uint64_t *split, const uint64_t *a, uint32_t log_d,
                                             uint32_t log_n, uint32_t chunks, uint64_t d_inv,
                                             uint64_t g_inv, uint32_t *nonzero_flag) {
    const uint64_t d = 1ull << log_d, n = 1ull << log_n;
    uint64_t s = gl_mul(d_inv, gl_pow(g_inv, ks_tid()));
    const uint64_t step = gl_pow(g_inv, ks_nthreads());
    for (uint64_t k = ks_tid(); k < d; k += ks_nthreads(), s = gl_mul(s, step)) {
        uint32_t src = ks_bitrev((uint32_t)k, log_d);
        uint64_t c = k >> log_n, row = k & (n - 1);
        for (uint32_t coord = 0; coord < 3; coord++) {
            uint64_t v = gl_mul(a[coord * d + src], s);
            if (c < chunks) {
                split[row * (3ull * chunks) + 3 * c + coord] = v;
            } else if (v != 0) {
                atomicOr(nonzero_flag, 1u);
            }
        }
    }
}

// The split quotient's polynomial sum_k c_k x^k (k = c*n + row, c < chunks) at the points
// xs[0 .. npts), npts <= KS_QUOTIENT_SPOTS, in blocks of KS_QUOTIENT_AT_THREADS: block b
// writes its partial sums to partial[(b * npts + p) * 3 + coord] (the host adds the
// blocks'). Thread t takes k = t, t + T, ... with x^k kept by one multiplication per step.
#define KS_QUOTIENT_SPOTS 8
#define KS_QUOTIENT_AT_THREADS 256
extern "C" __global__ void __launch_bounds__(KS_QUOTIENT_AT_THREADS)
    ks_quotient_at(uint64_t *partial, const uint64_t *split, uint32_t log_n, uint32_t chunks, const uint64_t *xs,
                   uint32_t npts) {
    __shared__ uint64_t sums[KS_QUOTIENT_AT_THREADS / 32][KS_QUOTIENT_SPOTS][3];
    const uint64_t n = 1ull << log_n, total = n * chunks;
    uint64_t xp[KS_QUOTIENT_SPOTS], st[KS_QUOTIENT_SPOTS], acc[KS_QUOTIENT_SPOTS][3];
#pragma unroll
    for (int p = 0; p < KS_QUOTIENT_SPOTS; p++) {
        const uint64_t x = p < (int)npts ? xs[p] : 0;
        xp[p] = gl_pow(x, ks_tid());
        st[p] = gl_pow(x, ks_nthreads());
        acc[p][0] = acc[p][1] = acc[p][2] = 0;
    }
    for (uint64_t k = ks_tid(); k < total; k += ks_nthreads()) {
        const uint64_t *c = split + (k & (n - 1)) * (3ull * chunks) + 3 * (k >> log_n);
        const uint64_t c0 = c[0], c1 = c[1], c2 = c[2];
#pragma unroll
        for (int p = 0; p < KS_QUOTIENT_SPOTS; p++) {
            acc[p][0] = gl_add(acc[p][0], gl_mul(c0, xp[p]));
            acc[p][1] = gl_add(acc[p][1], gl_mul(c1, xp[p]));
            acc[p][2] = gl_add(acc[p][2], gl_mul(c2, xp[p]));
            xp[p] = gl_mul(xp[p], st[p]);
        }
    }
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int p = 0; p < KS_QUOTIENT_SPOTS; p++) {
        for (int c = 0; c < 3; c++) {
            uint64_t v = acc[p][c];
            for (int o = 16; o > 0; o >>= 1) v = gl_add(v, __shfl_down_sync(0xffffffffu, v, o));
            if (lane == 0) sums[warp][p][c] = v;
        }
    }
    __syncthreads();
    if (threadIdx.x < npts * 3) {
        const uint32_t p = threadIdx.x / 3, c = threadIdx.x % 3;
        uint64_t v = 0;
        for (uint32_t w = 0; w < blockDim.x / 32; w++) v = gl_add(v, sums[w][p][c]);
        partial[((uint64_t)blockIdx.x * npts + p) * 3 + c] = v;
    }
}
