// Quotient evaluation for any AIR (CpuBackend::quotient): one generic kernel runs the
// table's constraint program on every LDE row, appends the LogUp constraints
// (core/src/air/logup.rs eval_logup), divides by the zerofiers and writes Q at the row's
// natural position; then the coefficients are split into chunks after an inverse NTT.
// Mirrors prover-gpu/src/cuda/quotient.rs.
#include "quotient.cuh"

extern "C" __global__ void ks_quotient_eval(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsInterp>(out, q, zero_flag);
}

// Coefficient k (natural) = a[bitrev(k)] * big_inv * g_inv^k for each of the 3 coordinate
// columns of `a` (bit-reversed, from the inverse DIF); those past chunks*n must vanish
// (else the flag is set); the rest go to split[row][3c + coord] with k = c*n + row.
extern "C" __global__ void ks_quotient_split(uint64_t *split, const uint64_t *a, uint32_t log_lde,
                                             uint32_t log_n, uint32_t chunks, uint64_t big_inv,
                                             uint64_t g_inv, uint32_t *nonzero_flag) {
    const uint64_t big = 1ull << log_lde, n = 1ull << log_n;
    for (uint64_t k = ks_tid(); k < big; k += ks_nthreads()) {
        uint64_t s = gl_mul(big_inv, gl_pow(g_inv, k));
        uint32_t src = ks_bitrev((uint32_t)k, log_lde);
        uint64_t c = k >> log_n, row = k & (n - 1);
        for (uint32_t coord = 0; coord < 3; coord++) {
            uint64_t v = gl_mul(a[coord * big + src], s);
            if (c < chunks) {
                split[row * (3ull * chunks) + 3 * c + coord] = v;
            } else if (v != 0) {
                atomicOr(nonzero_flag, 1u);
            }
        }
    }
}
