// The generic quotient kernel's body (kernels/quotient.cu instantiates it with the
// interpreter, kernels/gen/<table>.cu with each generated program): the table's
// constraint program on every LDE row, the LogUp constraints (core/src/air/logup.rs
// eval_logup), the division by the zerofiers; Q written at the row's natural position.
#pragma once
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
    const uint64_t *rows;          // null: the domain's rows; else these LDE rows
    uint32_t len;
    uint32_t log_lde;
    uint32_t log_blowup;
    uint32_t num_interactions;
    uint32_t log_domain;           // the domain: the LDE's first 2^log_domain rows
    uint32_t num_rows;             // with `rows`, how many
};

__device__ __forceinline__ ext3 aux_at(const QuotientParams &q, uint64_t big, uint32_t j, uint64_t row) {
    const uint64_t *p = q.aux + (uint64_t)3 * j * big + row;
    return ext3{p[0], p[big], p[2 * big]};
}

// out: 3 column-major coordinate columns, of length 2^log_domain in natural order over the
// domain g*H_(2^log_domain) (the LDE's first rows, bit-reversed), or with `rows` of length
// num_rows in the order of `rows`. `Prog` runs the table's constraint program (KsInterp or
// a generated functor).
template <typename Prog>
__device__ __forceinline__ void ks_quotient_eval_with(uint64_t *out, const QuotientParams &q, uint32_t *zero_flag) {
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
    const uint32_t k_int = Prog::interactions(q.num_interactions);
    const uint32_t pairs = (k_int + 1) / 2;
    const uint64_t count = q.rows ? q.num_rows : 1ull << q.log_domain;
    const uint32_t shift = q.log_lde - q.log_domain;
    for (uint64_t t = ks_tid(); t < count; t += ks_nthreads()) {
        const uint64_t i = q.rows ? q.rows[t] : t;
        uint32_t bi = ks_bitrev((uint32_t)i, q.log_lde);
        uint64_t j = ks_bitrev((bi + (uint32_t)blowup) & (uint32_t)(big - 1), q.log_lde);
        ext3 acc[4] = {e3_zero(), e3_zero(), e3_zero(), e3_zero()};
        uint32_t gk = 0;
        ext3 h_sum = e3_zero(), h_next_sum = e3_zero();
        // One LogUp pair constraint: h * fa * fb - (ma * fb + mb * fa), or for a lone last
        // interaction h * f - m; times the next gamma power, into acc[0].
        auto pair = [&](uint32_t pj, uint64_t ma, ext3 fa, bool two, uint64_t mb, ext3 fb) {
            const ext3 h = aux_at(q, big, pj, i);
            h_sum = e3_add(h_sum, h);
            h_next_sum = e3_add(h_next_sum, aux_at(q, big, pj, j));
            const ext3 c = two ? e3_sub(e3_mul(e3_mul(h, fa), fb), e3_add(e3_mul_base(fb, ma), e3_mul_base(fa, mb)))
                               : e3_sub(e3_mul(h, fa), e3(ma));
            acc[0] = e3_add(acc[0], e3_mul(e3_load(q.gamma + 3 * gk), c));
            gk++;
        };
        if constexpr (Prog::kStraightLine) {
            // Generated code: the constraint classes are constants, so their sums stay
            // unreduced in registers; the interactions are stored and their pair constraints
            // run in one loop after the program (one copy of that code instead of one per
            // pair; MEMW_R's quotient 86 → 54 ms on the H200).
            acc3 ca[4] = {acc3_zero(), acc3_zero(), acc3_zero(), acc3_zero()};
            uint64_t ms[Prog::kInteractions + 1];
            ext3 fs[Prog::kInteractions + 1];
            Prog::run(
                q.prog, q.len, q.consts, KsCols{q.main, big}, KsCols{q.pre, big}, i, j, q.alpha_powers, beta,
                [&](uint32_t cls, uint64_t v) {
                    acc3_mad(ca[cls], e3_load(q.gamma + 3 * gk), v);
                    gk++;
                },
                [&](uint32_t t, uint64_t m, ext3 f) {
                    ms[t] = m;
                    fs[t] = f;
                });
            for (int c = 0; c < 4; c++) acc[c] = e3_add(acc[c], acc3_reduce(ca[c]));
#pragma unroll 1
            for (uint32_t pj = 0; pj < pairs; pj++) {
                const uint32_t t = 2 * pj;
                const bool two = t + 1 < k_int;
                pair(pj, ms[t], fs[t], two, two ? ms[t + 1] : 0, two ? fs[t + 1] : e3_zero());
            }
        } else {
            // The interpreter: each constraint reduced as it comes (four unreduced sums cost
            // it 20 registers, 108 → 128, and MEMW_R 79 → 91 ms), each pair's constraint at
            // its second interaction.
            uint64_t pm = 0;  // pending first interaction of a pair: multiplicity, fingerprint
            ext3 pf = e3_zero();
            Prog::run(
                q.prog, q.len, q.consts, KsCols{q.main, big}, KsCols{q.pre, big}, i, j, q.alpha_powers, beta,
                [&](uint32_t cls, uint64_t v) {
                    acc[cls] = e3_add(acc[cls], e3_mul_base(e3_load(q.gamma + 3 * gk), v));
                    gk++;
                },
                [&](uint32_t t, uint64_t m, ext3 f) {
                    if ((t & 1) == 0 && t + 1 < k_int) {
                        pm = m;
                        pf = f;
                        return;
                    }
                    if (t & 1)
                        pair(t / 2, pm, pf, true, m, f);
                    else
                        pair(t / 2, m, f, false, 0, e3_zero());
                });
        }
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
        // Row i < 2^log_domain is the point g*w_D^(bi >> shift) of the domain.
        const uint64_t at = q.rows ? t : bi >> shift;
        out[at] = r.c0;
        out[count + at] = r.c1;
        out[2 * count + at] = r.c2;
    }
}
