// Quotient evaluation for any AIR (CpuBackend::quotient): one generic kernel runs the
// table's constraint program on every LDE row, appends the LogUp constraints
// (core/src/air/logup.rs eval_logup), divides by the zerofiers and writes Q at the row's
// natural position; then the coefficients are split into chunks after an inverse NTT.
// Mirrors prover-gpu/src/cuda/quotient.rs.
#include "program.cuh"

struct QuotientParams {
    const uint4 *prog;
    const uint64_t *consts;
    const uint64_t *gamma;         // Ext3 gamma^k
    const uint64_t *alpha_powers;  // Ext3 alpha^1, alpha^2, ...
    const uint64_t *inv_zh;        // blowup base values: 1/(x^n - 1) by bitrev(i) mod blowup
    const uint64_t *main;
    const uint64_t *pre;
    const uint64_t *aux;           // 3 * (pairs + 1) base columns
    uint64_t beta[3];
    uint64_t total[3];
    uint64_t omega;                // generator of the LDE domain
    uint64_t omega_last;           // w_n^(n-1)
    uint32_t len;
    uint32_t log_lde;
    uint32_t log_blowup;
    uint32_t num_interactions;
};

__device__ __forceinline__ ext3 aux_at(const QuotientParams &q, uint64_t big, uint32_t j, uint64_t row) {
    const uint64_t *p = q.aux + (uint64_t)3 * j * big + row;
    return ext3{p[0], p[big], p[2 * big]};
}

// out: 3 column-major coordinate columns of length 2^log_lde, natural order.
extern "C" __global__ void ks_quotient_eval(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    __shared__ uint64_t opow[32];  // omega^(2^k): x = 7 * omega^bitrev(i) by its set bits
    if (threadIdx.x == 0) {
        uint64_t o = q.omega;
        for (uint32_t k = 0; k < q.log_lde; k++) {
            opow[k] = o;
            o = gl_mul(o, o);
        }
    }
    __syncthreads();
    const uint64_t big = 1ull << q.log_lde;
    const uint64_t blowup = 1ull << q.log_blowup;
    const ext3 beta{q.beta[0], q.beta[1], q.beta[2]};
    const uint32_t k_int = q.num_interactions;
    const uint32_t pairs = (k_int + 1) / 2;
    for (uint64_t i = ks_tid(); i < big; i += ks_nthreads()) {
        uint32_t bi = ks_bitrev((uint32_t)i, q.log_lde);
        uint64_t j = ks_bitrev((bi + (uint32_t)blowup) & (uint32_t)(big - 1), q.log_lde);
        ext3 acc[4] = {e3_zero(), e3_zero(), e3_zero(), e3_zero()};
        uint32_t gk = 0;
        ext3 pm = e3_zero(), pf = e3_zero();  // pending first interaction of a pair
        ext3 h_sum = e3_zero(), h_next_sum = e3_zero();
        ks_run_program(
            q.prog, q.len, q.consts, KsCols{q.main, big}, KsCols{q.pre, big}, i, j, q.alpha_powers, beta,
            [&](uint32_t cls, uint64_t v) {
                acc[cls] = e3_add(acc[cls], e3_mul_base(e3_load(q.gamma + 3 * gk), v));
                gk++;
            },
            [&](uint32_t t, uint64_t m, ext3 f) {
                if ((t & 1) == 0 && t + 1 < k_int) {
                    pm = e3(m);
                    pf = f;
                    return;
                }
                uint32_t pj = t / 2;
                ext3 h = aux_at(q, big, pj, i);
                h_sum = e3_add(h_sum, h);
                h_next_sum = e3_add(h_next_sum, aux_at(q, big, pj, j));
                ext3 c;
                if (t & 1) {  // h * fa * fb - (ma * fb + mb * fa)
                    c = e3_sub(e3_mul(e3_mul(h, pf), f), e3_add(e3_mul(pm, f), e3_mul_base(pf, m)));
                } else {  // a lone last interaction: h * f - m
                    c = e3_sub(e3_mul(h, f), e3(m));
                }
                acc[0] = e3_add(acc[0], e3_mul(e3_load(q.gamma + 3 * gk), c));
                gk++;
            });
        if (k_int > 0) {
            ext3 s = aux_at(q, big, pairs, i), s_next = aux_at(q, big, pairs, j);
            ext3 total{q.total[0], q.total[1], q.total[2]};
            acc[2] = e3_add(acc[2], e3_mul(e3_load(q.gamma + 3 * gk), e3_sub(s, h_sum)));
            gk++;
            acc[1] = e3_add(acc[1], e3_mul(e3_load(q.gamma + 3 * gk), e3_sub(e3_sub(s_next, s), h_next_sum)));
            gk++;
            acc[3] = e3_add(acc[3], e3_mul(e3_load(q.gamma + 3 * gk), e3_sub(s, total)));
            gk++;
        }
        uint64_t x = 7;
        for (uint32_t k = 0; k < q.log_lde; k++)
            if ((bi >> k) & 1) x = gl_mul(x, opow[k]);
        uint64_t x_minus_one = gl_sub(x, 1), x_minus_last = gl_sub(x, q.omega_last);
        if (x_minus_one == 0 || x_minus_last == 0) atomicOr(zero_flag, 1u);
        // One inversion for both: 1/(x-1) = (x-last)/((x-1)(x-last)) and the other way.
        const uint64_t inv_both = gl_inv(gl_mul(x_minus_one, x_minus_last));
        uint64_t inv_zh = q.inv_zh[bi & (blowup - 1)];
        ext3 r = e3_mul_base(e3_add(acc[0], e3_mul_base(acc[1], x_minus_last)), inv_zh);
        r = e3_add(r, e3_mul_base(acc[2], gl_mul(x_minus_last, inv_both)));
        r = e3_add(r, e3_mul_base(acc[3], gl_mul(x_minus_one, inv_both)));
        out[bi] = r.c0;
        out[big + bi] = r.c1;
        out[2 * big + bi] = r.c2;
    }
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
