// The constraint program: a table's symbolic expression DAG (core/src/air/symbolic.rs)
// compiled by prover-gpu/src/program.rs to straight-line register code, evaluated per row
// by the generic LogUp and quotient kernels (interpreted here, or generated as CUDA code in
// kernels/gen/<table>.cu for the RV64IM tables), so a new table needs no new kernel.
// Instructions are 4 x u32: op, dst, a, b.
#pragma once
#include "field.cuh"

#define KS_OP_CONST 0      // r[dst] = consts[a]
#define KS_OP_MAIN 1       // r[dst] = main[a] of this row (b = 0) or the next row (b = 1)
#define KS_OP_PRE 2        // the same for the preprocessed columns
#define KS_OP_ADD 3        // r[dst] = r[a] + r[b]
#define KS_OP_SUB 4
#define KS_OP_MUL 5
#define KS_OP_NEG 6        // r[dst] = -r[a]
#define KS_OP_CONSTRAIN 7  // acc[dst] += gamma^k * r[a], k counting constraints
#define KS_OP_INT_BEGIN 8  // fingerprint = bus a
#define KS_OP_INT_VAL 9    // fingerprint += alpha^(v++) * r[a]
#define KS_OP_INT_END 10   // interaction with multiplicity r[a], negated when b = 1

#define KS_MAX_REGS 256

// Column access for one row pair: value c of row `row` at base[c * stride + row].
struct KsCols {
    const uint64_t *base;
    uint64_t stride;
};

// The interpreter: runs the program `prog` (`len` instructions) for one row;
// `on_constraint(class, value)` and `on_interaction(index, signed_multiplicity, fingerprint)`
// receive the results. Generated programs (kernels/gen/<table>.cu) are functors with the
// same `run`, their code in place of `prog`.
struct KsInterp {
    // Whether the program is straight-line code (its calls' arguments known at compile time).
    static constexpr bool kStraightLine = false;
    static constexpr uint32_t kInteractions = 0;  // unknown: the launch's count

    // The number of interactions: the launch's (a generated program knows its own).
    static __device__ __forceinline__ uint32_t interactions(uint32_t launched) { return launched; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *prog, uint32_t len, const uint64_t *consts,
                                               KsCols main, KsCols pre, uint64_t row, uint64_t next,
                                               const uint64_t *alpha_powers, ext3 beta, C on_constraint,
                                               I on_interaction) {
        uint64_t r[KS_MAX_REGS];
        acc3 fa = acc3_zero();  // a fingerprint's sum of alpha^i * v_i, reduced at its end
        uint64_t bus = 0;
        uint32_t vi = 0, ii = 0;
        for (uint32_t pc = 0; pc < len; pc++) {
            uint4 in = prog[pc];
            switch (in.x) {
                case KS_OP_CONST: r[in.y] = consts[in.z]; break;
                case KS_OP_MAIN: r[in.y] = main.base[(uint64_t)in.z * main.stride + (in.w ? next : row)]; break;
                case KS_OP_PRE: r[in.y] = pre.base[(uint64_t)in.z * pre.stride + (in.w ? next : row)]; break;
                case KS_OP_ADD: r[in.y] = gl_add(r[in.z], r[in.w]); break;
                case KS_OP_SUB: r[in.y] = gl_sub(r[in.z], r[in.w]); break;
                case KS_OP_MUL: r[in.y] = gl_mul(r[in.z], r[in.w]); break;
                case KS_OP_NEG: r[in.y] = gl_neg(r[in.z]); break;
                case KS_OP_CONSTRAIN: on_constraint(in.y, r[in.z]); break;
                case KS_OP_INT_BEGIN:
                    fa = acc3_zero();
                    bus = in.z;
                    vi = 0;
                    break;
                case KS_OP_INT_VAL:
                    acc3_mad(fa, e3_load(alpha_powers + 3 * vi), r[in.z]);
                    vi++;
                    break;
                case KS_OP_INT_END: {
                    uint64_t m = in.w ? gl_neg(r[in.z]) : r[in.z];
                    on_interaction(ii, m, e3_sub(beta, e3_add(e3(bus), acc3_reduce(fa))));
                    ii++;
                    break;
                }
                default: break;
            }
        }
    }
};
