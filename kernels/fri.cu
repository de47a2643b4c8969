// FRI folding (core/src/stark.rs fold_pair) over an interleaved Ext3 codeword on a
// bit-reversed coset. Mirrors prover-gpu/src/cuda/fri.rs.
#include "field.cuh"

// out[j] = (lo + hi)/2 + beta * (lo - hi) * inv_two_x_j, with lo = cw[2j], hi = cw[2j+1] and
// inv_two_x_j = two_shift_inv * w_inv^bitrev(j, log_half).
extern "C" __global__ void ks_fri_fold(uint64_t *out, const uint64_t *cw, uint32_t log_half, uint64_t b0,
                                       uint64_t b1, uint64_t b2, uint64_t w_inv, uint64_t two_shift_inv) {
    const uint64_t half_n = 1ull << log_half;
    const uint64_t inv2 = 0x7FFFFFFF80000001ull;  // (p + 1) / 2
    const ext3 beta{b0, b1, b2};
    for (uint64_t j = ks_tid(); j < half_n; j += ks_nthreads()) {
        ext3 lo = e3_load(cw + 6 * j), hi = e3_load(cw + 6 * j + 3);
        uint64_t inv_two_x = gl_mul(two_shift_inv, gl_pow(w_inv, ks_bitrev((uint32_t)j, log_half)));
        ext3 r = e3_add(e3_mul_base(e3_add(lo, hi), inv2), e3_mul_base(e3_mul(beta, e3_sub(lo, hi)), inv_two_x));
        e3_store(out + 3 * j, r);
    }
}

// acc[i] += s * other[i] for n interleaved Ext3 values (FRI's join of a shorter table).
extern "C" __global__ void ks_ext_axpy(uint64_t *acc, const uint64_t *other, uint64_t n, uint64_t s0, uint64_t s1,
                                       uint64_t s2) {
    const ext3 s{s0, s1, s2};
    for (uint64_t i = ks_tid(); i < n; i += ks_nthreads())
        e3_store(acc + 3 * i, e3_add(e3_load(acc + 3 * i), e3_mul(s, e3_load(other + 3 * i))));
}
