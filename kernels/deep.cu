// DEEP combination of a table's committed matrices. Mirrors prover-gpu/src/cuda/deep.rs;
// equal to CpuBackend::deep, which combines the LDEs directly.
//
// The combination is linear, so it is taken on the matrices' sources (n rows: evaluations
// on H_n, or the quotient's coefficients) rather than on their LDEs (n * blowup rows):
//   A = sum_k wz[k] f_k,  B = sum_{k < n_next} wzw[k] f_k,
// then the LDEs of A and B (a few columns instead of every column), and per LDE point
//   out(x) = (A(x) - sum_z) / (x - zeta) + (B(x) - sum_zw) / (x - zeta_next).
#include "field.cuh"

struct DeepMats {
    const uint64_t *ptr[4];
    uint32_t width[4];
};

// Row r of the combinations over the sources (column-major, n rows each): `evals` gets
// A's and B's evaluation parts as 6 columns of n (A0 A1 A2 B0 B1 B2), `coeffs` the
// coefficient part of A as n rows of 3 (interleaved). Matrices with bit m of
// `coeff_mask` set hold coefficients; their columns are past n_next (no ζω weight).
extern "C" __global__ void ks_deep_combine(uint64_t *evals, uint64_t *coeffs, DeepMats mats, uint32_t nmats,
                                           uint32_t coeff_mask, const uint64_t *wz, const uint64_t *wzw,
                                           uint32_t n_next, uint64_t n) {
    for (uint64_t r = ks_tid(); r < n; r += ks_nthreads()) {
        acc3 sa = acc3_zero(), sb = acc3_zero(), sq = acc3_zero();
        uint32_t k = 0;
        for (uint32_t m = 0; m < nmats; m++) {
            const uint64_t *p = mats.ptr[m];
            const bool coeff = (coeff_mask >> m) & 1;
            for (uint32_t c = 0; c < mats.width[m]; c++, k++) {
                const uint64_t v = p[(uint64_t)c * n + r];
                if (coeff) {
                    acc3_mad(sq, e3_load(wz + 3 * k), v);
                } else {
                    acc3_mad(sa, e3_load(wz + 3 * k), v);
                    if (k < n_next) acc3_mad(sb, e3_load(wzw + 3 * k), v);
                }
            }
        }
        const ext3 a = acc3_reduce(sa), b = acc3_reduce(sb), q = acc3_reduce(sq);
        evals[r] = a.c0;
        evals[n + r] = a.c1;
        evals[2 * n + r] = a.c2;
        evals[3 * n + r] = b.c0;
        evals[4 * n + r] = b.c1;
        evals[5 * n + r] = b.c2;
        e3_store(coeffs + 3 * r, q);
    }
}

// Points each thread of ks_deep_finish takes (inverted together, Montgomery's trick).
#define KS_DEEP_BATCH 8

// out[i] = (A(x_i) - sum_z) / (x_i - zeta) + (B(x_i) - sum_zw) / (x_i - zeta_next) with
// x_i = 7 * w^bitrev(i), where A(x_i) = lde_e[0..3][i] + lde_q[0..3][i] and B(x_i) =
// lde_e[3..6][i] (column-major, `big` rows, bit-reversed); `consts` = [sum_z, sum_zw,
// zeta, zeta_next] (12 words). `lde_q` is null for a table with no coefficient part.
// A block's tile is KS_DEEP_BATCH * blockDim.x points; thread t takes points t, t + blockDim.x,
// ... of it and inverts their (x - zeta)(x - zeta_next) with one inversion.
extern "C" __global__ void ks_deep_finish(uint64_t *out, const uint64_t *lde_e, const uint64_t *lde_q,
                                          const uint64_t *consts, uint32_t log_lde, uint64_t omega,
                                          uint32_t *zero_flag) {
    __shared__ uint64_t opow[32];  // omega^(2^k)
    if (threadIdx.x == 0) {
        uint64_t o = omega;
        for (uint32_t k = 0; k < log_lde; k++) {
            opow[k] = o;
            o = gl_mul(o, o);
        }
    }
    __syncthreads();
    const uint64_t big = 1ull << log_lde;
    const ext3 sum_z = e3_load(consts), sum_zw = e3_load(consts + 3);
    const ext3 zeta = e3_load(consts + 6), zeta_next = e3_load(consts + 9);
    const uint64_t tile = (uint64_t)KS_DEEP_BATCH * blockDim.x;
    for (uint64_t base = (uint64_t)blockIdx.x * tile; base < big; base += (uint64_t)gridDim.x * tile) {
        uint64_t xs[KS_DEEP_BATCH];
        ext3 prefix[KS_DEEP_BATCH];
        ext3 acc = e3(1);
        for (uint32_t j = 0; j < KS_DEEP_BATCH; j++) {
            const uint64_t i = base + (uint64_t)j * blockDim.x + threadIdx.x;
            uint64_t x = 7;
            if (i < big) {
                const uint32_t e = ks_bitrev((uint32_t)i, log_lde);
                for (uint32_t k = 0; k < log_lde; k++)
                    if ((e >> k) & 1) x = gl_mul(x, opow[k]);
                const ext3 d = e3_mul(e3_sub(e3(x), zeta), e3_sub(e3(x), zeta_next));
                if (e3_is_zero(d)) {
                    atomicOr(zero_flag, 1u);
                } else {
                    acc = e3_mul(acc, d);
                }
            }
            xs[j] = x;
            prefix[j] = acc;
        }
        ext3 inv = e3_inv(acc);  // 1 / the product of every nonzero d
        for (uint32_t j = KS_DEEP_BATCH; j-- > 0;) {
            const uint64_t i = base + (uint64_t)j * blockDim.x + threadIdx.x;
            if (i >= big) continue;
            const ext3 dz = e3_sub(e3(xs[j]), zeta), dzw = e3_sub(e3(xs[j]), zeta_next);
            const ext3 d = e3_mul(dz, dzw);
            if (e3_is_zero(d)) continue;  // flagged: the proof stops
            const ext3 below = j > 0 ? prefix[j - 1] : e3(1);
            const ext3 inv_d = e3_mul(inv, below);  // 1 / (dz dzw)
            inv = e3_mul(inv, d);
            ext3 a{lde_e[i], lde_e[big + i], lde_e[2 * big + i]};
            if (lde_q) a = e3_add(a, ext3{lde_q[i], lde_q[big + i], lde_q[2 * big + i]});
            const ext3 b{lde_e[3 * big + i], lde_e[4 * big + i], lde_e[5 * big + i]};
            // 1/dz = dzw / (dz dzw), 1/dzw = dz / (dz dzw).
            const ext3 r = e3_add(e3_mul(e3_sub(a, sum_z), dzw), e3_mul(e3_sub(b, sum_zw), dz));
            e3_store(out + 3 * i, e3_mul(r, inv_d));
        }
    }
}
