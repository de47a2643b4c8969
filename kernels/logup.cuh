// The generic LogUp evaluation kernel's body (kernels/logup.cu instantiates it with the
// interpreter, kernels/gen/<table>.cu with each generated program).
#pragma once
#include "program.cuh"

// Per row: mults[row*k + j] (base) and fps[row*k + j] (Ext3) for the k interactions.
// `Prog` runs the table's interaction program (KsInterp or a generated functor).
template <typename Prog>
__device__ __forceinline__ void ks_logup_eval_with(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len,
                                                   const uint64_t *consts, const uint64_t *main,
                                                   const uint64_t *pre, uint32_t log_n, uint32_t k,
                                                   const uint64_t *alpha_powers, uint64_t b0, uint64_t b1,
                                                   uint64_t b2) {
    const uint64_t n = 1ull << log_n;
    const ext3 beta{b0, b1, b2};
    for (uint64_t row = ks_tid(); row < n; row += ks_nthreads()) {
        uint64_t next = (row + 1) & (n - 1);
        Prog::run(
            prog, len, consts, KsCols{main, n}, KsCols{pre, n}, row, next, alpha_powers, beta,
            [&](uint32_t, uint64_t) {},
            [&](uint32_t j, uint64_t m, ext3 f) {
                if (j < k) {
                    mults[row * k + j] = m;
                    e3_store(fps + 3 * (row * k + j), f);
                }
            });
    }
}
