// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// PAGE: 61 instructions, 1 constraints, 3 interactions
struct KsGence810b80361626a6 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 3u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 3u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000001ull;
        const uint64_t v1 = pre.base[14ull * pre.stride + row];
        const uint64_t v2 = gl_sub(v0, v1);
        const uint64_t v3 = main.base[9ull * main.stride + row];
        const uint64_t v4 = gl_mul(v2, v3);
        on_constraint(0u, v4);
        const uint64_t v6 = pre.base[0ull * pre.stride + row];
        const uint64_t v7 = pre.base[1ull * pre.stride + row];
        const uint64_t v8 = pre.base[2ull * pre.stride + row];
        const uint64_t v9 = pre.base[3ull * pre.stride + row];
        const uint64_t v10 = pre.base[4ull * pre.stride + row];
        const uint64_t v11 = pre.base[5ull * pre.stride + row];
        const uint64_t v12 = pre.base[6ull * pre.stride + row];
        const uint64_t v13 = pre.base[7ull * pre.stride + row];
        const uint64_t v14 = pre.base[8ull * pre.stride + row];
        const uint64_t v15 = 0x0000000000000000ull;
        const uint64_t v16 = pre.base[10ull * pre.stride + row];
        const uint64_t v17 = pre.base[9ull * pre.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v6);
        acc3_mad(fa, e3_load(alpha_powers + 3), v7);
        acc3_mad(fa, e3_load(alpha_powers + 6), v8);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        acc3_mad(fa, e3_load(alpha_powers + 12), v10);
        acc3_mad(fa, e3_load(alpha_powers + 15), v11);
        acc3_mad(fa, e3_load(alpha_powers + 18), v12);
        acc3_mad(fa, e3_load(alpha_powers + 21), v13);
        acc3_mad(fa, e3_load(alpha_powers + 24), v14);
        acc3_mad(fa, e3_load(alpha_powers + 27), v15);
        acc3_mad(fa, e3_load(alpha_powers + 30), v16);
        on_interaction(0u, v17, e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
        const uint64_t v31 = main.base[0ull * main.stride + row];
        const uint64_t v32 = main.base[1ull * main.stride + row];
        const uint64_t v33 = main.base[2ull * main.stride + row];
        const uint64_t v34 = main.base[3ull * main.stride + row];
        const uint64_t v35 = main.base[4ull * main.stride + row];
        const uint64_t v36 = main.base[5ull * main.stride + row];
        const uint64_t v37 = main.base[6ull * main.stride + row];
        const uint64_t v38 = main.base[7ull * main.stride + row];
        const uint64_t v39 = main.base[8ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v6);
        acc3_mad(fa, e3_load(alpha_powers + 3), v31);
        acc3_mad(fa, e3_load(alpha_powers + 6), v32);
        acc3_mad(fa, e3_load(alpha_powers + 9), v33);
        acc3_mad(fa, e3_load(alpha_powers + 12), v34);
        acc3_mad(fa, e3_load(alpha_powers + 15), v35);
        acc3_mad(fa, e3_load(alpha_powers + 18), v36);
        acc3_mad(fa, e3_load(alpha_powers + 21), v37);
        acc3_mad(fa, e3_load(alpha_powers + 24), v38);
        acc3_mad(fa, e3_load(alpha_powers + 27), v39);
        acc3_mad(fa, e3_load(alpha_powers + 30), v16);
        on_interaction(1u, gl_neg(v17), e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
        const uint64_t v53 = pre.base[11ull * pre.stride + row];
        const uint64_t v54 = pre.base[12ull * pre.stride + row];
        const uint64_t v55 = pre.base[13ull * pre.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v53);
        acc3_mad(fa, e3_load(alpha_powers + 3), v54);
        acc3_mad(fa, e3_load(alpha_powers + 6), v55);
        on_interaction(2u, v3, e3_sub(beta, e3_add(e3(21ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_quotient_eval_gce810b80361626a6(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsGence810b80361626a6>(out, q, zero_flag);
}

// PAGE: 56 instructions, 0 constraints, 3 interactions
struct KsGence0cf241e8817c8d {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 3u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 3u; }

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
        const uint64_t v9 = 0x0000000000000000ull;
        const uint64_t v10 = pre.base[10ull * pre.stride + row];
        const uint64_t v11 = pre.base[9ull * pre.stride + row];
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
        on_interaction(0u, v11, e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
        const uint64_t v25 = main.base[0ull * main.stride + row];
        const uint64_t v26 = main.base[1ull * main.stride + row];
        const uint64_t v27 = main.base[2ull * main.stride + row];
        const uint64_t v28 = main.base[3ull * main.stride + row];
        const uint64_t v29 = main.base[4ull * main.stride + row];
        const uint64_t v30 = main.base[5ull * main.stride + row];
        const uint64_t v31 = main.base[6ull * main.stride + row];
        const uint64_t v32 = main.base[7ull * main.stride + row];
        const uint64_t v33 = main.base[8ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v25);
        acc3_mad(fa, e3_load(alpha_powers + 6), v26);
        acc3_mad(fa, e3_load(alpha_powers + 9), v27);
        acc3_mad(fa, e3_load(alpha_powers + 12), v28);
        acc3_mad(fa, e3_load(alpha_powers + 15), v29);
        acc3_mad(fa, e3_load(alpha_powers + 18), v30);
        acc3_mad(fa, e3_load(alpha_powers + 21), v31);
        acc3_mad(fa, e3_load(alpha_powers + 24), v32);
        acc3_mad(fa, e3_load(alpha_powers + 27), v33);
        acc3_mad(fa, e3_load(alpha_powers + 30), v10);
        on_interaction(1u, gl_neg(v11), e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
        const uint64_t v47 = pre.base[11ull * pre.stride + row];
        const uint64_t v48 = pre.base[12ull * pre.stride + row];
        const uint64_t v49 = pre.base[13ull * pre.stride + row];
        const uint64_t v50 = main.base[9ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v47);
        acc3_mad(fa, e3_load(alpha_powers + 3), v48);
        acc3_mad(fa, e3_load(alpha_powers + 6), v49);
        on_interaction(2u, v50, e3_sub(beta, e3_add(e3(21ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_logup_eval_gce0cf241e8817c8d(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGence0cf241e8817c8d>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}
