// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// BITWISE: 37 instructions, 0 constraints, 4 interactions
struct KsGen316013ebac282ab0 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 4u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 4u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000000ull;
        const uint64_t v1 = pre.base[0ull * pre.stride + row];
        const uint64_t v2 = pre.base[1ull * pre.stride + row];
        const uint64_t v3 = main.base[0ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(0u, gl_neg(v3), e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v10 = 0x0000000000000001ull;
        const uint64_t v11 = pre.base[2ull * pre.stride + row];
        const uint64_t v12 = main.base[1ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v10);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v11);
        on_interaction(1u, gl_neg(v12), e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v19 = 0x0000000000000002ull;
        const uint64_t v20 = pre.base[3ull * pre.stride + row];
        const uint64_t v21 = main.base[2ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v19);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v20);
        on_interaction(2u, gl_neg(v21), e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v28 = 0x0000000000000003ull;
        const uint64_t v29 = pre.base[4ull * pre.stride + row];
        const uint64_t v30 = main.base[3ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v28);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v29);
        on_interaction(3u, gl_neg(v30), e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_quotient_eval_g316013ebac282ab0(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsGen316013ebac282ab0>(out, q, zero_flag);
}
extern "C" __global__ void ks_logup_eval_g316013ebac282ab0(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGen316013ebac282ab0>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}
