// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// DECODE: 72 instructions, 0 constraints, 2 interactions
struct KsGene68642944f5c3861 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 2u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 2u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = pre.base[0ull * pre.stride + row];
        const uint64_t v1 = pre.base[1ull * pre.stride + row];
        const uint64_t v2 = pre.base[2ull * pre.stride + row];
        const uint64_t v3 = pre.base[3ull * pre.stride + row];
        const uint64_t v4 = pre.base[4ull * pre.stride + row];
        const uint64_t v5 = pre.base[5ull * pre.stride + row];
        const uint64_t v6 = pre.base[6ull * pre.stride + row];
        const uint64_t v7 = pre.base[7ull * pre.stride + row];
        const uint64_t v8 = pre.base[8ull * pre.stride + row];
        const uint64_t v9 = pre.base[9ull * pre.stride + row];
        const uint64_t v10 = pre.base[10ull * pre.stride + row];
        const uint64_t v11 = pre.base[11ull * pre.stride + row];
        const uint64_t v12 = pre.base[12ull * pre.stride + row];
        const uint64_t v13 = pre.base[13ull * pre.stride + row];
        const uint64_t v14 = pre.base[14ull * pre.stride + row];
        const uint64_t v15 = pre.base[15ull * pre.stride + row];
        const uint64_t v16 = pre.base[16ull * pre.stride + row];
        const uint64_t v17 = pre.base[17ull * pre.stride + row];
        const uint64_t v18 = pre.base[18ull * pre.stride + row];
        const uint64_t v19 = pre.base[19ull * pre.stride + row];
        const uint64_t v20 = pre.base[20ull * pre.stride + row];
        const uint64_t v21 = pre.base[21ull * pre.stride + row];
        const uint64_t v22 = pre.base[22ull * pre.stride + row];
        const uint64_t v23 = pre.base[23ull * pre.stride + row];
        const uint64_t v24 = pre.base[24ull * pre.stride + row];
        const uint64_t v25 = pre.base[25ull * pre.stride + row];
        const uint64_t v26 = pre.base[26ull * pre.stride + row];
        const uint64_t v27 = pre.base[27ull * pre.stride + row];
        const uint64_t v28 = pre.base[28ull * pre.stride + row];
        const uint64_t v29 = pre.base[29ull * pre.stride + row];
        const uint64_t v30 = pre.base[30ull * pre.stride + row];
        const uint64_t v31 = main.base[0ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v3);
        acc3_mad(fa, e3_load(alpha_powers + 12), v4);
        acc3_mad(fa, e3_load(alpha_powers + 15), v5);
        acc3_mad(fa, e3_load(alpha_powers + 18), v6);
        acc3_mad(fa, e3_load(alpha_powers + 21), v7);
        acc3_mad(fa, e3_load(alpha_powers + 24), v8);
        acc3_mad(fa, e3_load(alpha_powers + 27), v9);
        acc3_mad(fa, e3_load(alpha_powers + 30), v10);
        acc3_mad(fa, e3_load(alpha_powers + 33), v11);
        acc3_mad(fa, e3_load(alpha_powers + 36), v12);
        acc3_mad(fa, e3_load(alpha_powers + 39), v13);
        acc3_mad(fa, e3_load(alpha_powers + 42), v14);
        acc3_mad(fa, e3_load(alpha_powers + 45), v15);
        acc3_mad(fa, e3_load(alpha_powers + 48), v16);
        acc3_mad(fa, e3_load(alpha_powers + 51), v17);
        acc3_mad(fa, e3_load(alpha_powers + 54), v18);
        acc3_mad(fa, e3_load(alpha_powers + 57), v19);
        acc3_mad(fa, e3_load(alpha_powers + 60), v20);
        acc3_mad(fa, e3_load(alpha_powers + 63), v21);
        acc3_mad(fa, e3_load(alpha_powers + 66), v22);
        acc3_mad(fa, e3_load(alpha_powers + 69), v23);
        acc3_mad(fa, e3_load(alpha_powers + 72), v24);
        acc3_mad(fa, e3_load(alpha_powers + 75), v25);
        acc3_mad(fa, e3_load(alpha_powers + 78), v26);
        acc3_mad(fa, e3_load(alpha_powers + 81), v27);
        acc3_mad(fa, e3_load(alpha_powers + 84), v28);
        acc3_mad(fa, e3_load(alpha_powers + 87), v29);
        acc3_mad(fa, e3_load(alpha_powers + 90), v30);
        on_interaction(0u, gl_neg(v31), e3_sub(beta, e3_add(e3(10ull), acc3_reduce(fa))));
        const uint64_t v65 = 0x0000000000000000ull;
        const uint64_t v66 = pre.base[31ull * pre.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v65);
        acc3_mad(fa, e3_load(alpha_powers + 3), v0);
        acc3_mad(fa, e3_load(alpha_powers + 6), v65);
        on_interaction(1u, gl_neg(v66), e3_sub(beta, e3_add(e3(11ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_quotient_eval_ge68642944f5c3861(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsGene68642944f5c3861>(out, q, zero_flag);
}
extern "C" __global__ void ks_logup_eval_ge68642944f5c3861(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGene68642944f5c3861>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}
