// DEEP combination over a table's committed LDEs (column-major, bit-reversed rows).
// Mirrors prover-gpu/src/cuda/deep.rs and CpuBackend::deep.
#include "field.cuh"

struct DeepMats {
    const uint64_t *ptr[4];
    uint32_t width[4];
};

// out[i] = (sum_k wz[k] v_k - sum_z) / (x_i - zeta) + (sum_{k<n_next} wzw[k] v_k - sum_zw) / (x_i - zeta_next)
// with x_i = 7 * w^bitrev(i); `consts` = [sum_z, sum_zw, zeta, zeta_next] (12 words).
extern "C" __global__ void ks_deep(uint64_t *out, DeepMats mats, uint32_t nmats, const uint64_t *wz,
                                   const uint64_t *wzw, uint32_t n_next, const uint64_t *consts,
                                   uint32_t log_lde, uint64_t omega, uint32_t *zero_flag) {
    const uint64_t big = 1ull << log_lde;
    const ext3 sum_z = e3_load(consts), sum_zw = e3_load(consts + 3);
    const ext3 zeta = e3_load(consts + 6), zeta_next = e3_load(consts + 9);
    for (uint64_t i = ks_tid(); i < big; i += ks_nthreads()) {
        ext3 a = e3_zero(), b = e3_zero();
        uint32_t k = 0;
        for (uint32_t m = 0; m < nmats; m++) {
            const uint64_t *p = mats.ptr[m];
            for (uint32_t c = 0; c < mats.width[m]; c++, k++) {
                uint64_t v = p[(uint64_t)c * big + i];
                a = e3_add(a, e3_mul_base(e3_load(wz + 3 * k), v));
                if (k < n_next) b = e3_add(b, e3_mul_base(e3_load(wzw + 3 * k), v));
            }
        }
        uint64_t x = gl_mul(7, gl_pow(omega, ks_bitrev((uint32_t)i, log_lde)));
        ext3 dz = e3_sub(e3(x), zeta), dzw = e3_sub(e3(x), zeta_next);
        if (e3_is_zero(dz) || e3_is_zero(dzw)) atomicOr(zero_flag, 1u);
        ext3 r = e3_add(e3_mul(e3_sub(a, sum_z), e3_inv(dz)), e3_mul(e3_sub(b, sum_zw), e3_inv(dzw)));
        e3_store(out + 3 * i, r);
    }
}
