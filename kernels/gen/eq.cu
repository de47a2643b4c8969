// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// EQ: 87 instructions, 4 constraints, 1 interactions
struct KsGenac904853c9827544 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 1u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 1u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = main.base[16ull * main.stride + row];
        const uint64_t v1 = 0x0000000000000000ull;
        const uint64_t v2 = main.base[0ull * main.stride + row];
        const uint64_t v3 = main.base[8ull * main.stride + row];
        const uint64_t v4 = gl_sub(v2, v3);
        const uint64_t v5 = gl_mul(v4, v4);
        const uint64_t v6 = gl_add(v1, v5);
        const uint64_t v7 = main.base[1ull * main.stride + row];
        const uint64_t v8 = main.base[9ull * main.stride + row];
        const uint64_t v9 = gl_sub(v7, v8);
        const uint64_t v10 = gl_mul(v9, v9);
        const uint64_t v11 = gl_add(v6, v10);
        const uint64_t v12 = main.base[2ull * main.stride + row];
        const uint64_t v13 = main.base[10ull * main.stride + row];
        const uint64_t v14 = gl_sub(v12, v13);
        const uint64_t v15 = gl_mul(v14, v14);
        const uint64_t v16 = gl_add(v11, v15);
        const uint64_t v17 = main.base[3ull * main.stride + row];
        const uint64_t v18 = main.base[11ull * main.stride + row];
        const uint64_t v19 = gl_sub(v17, v18);
        const uint64_t v20 = gl_mul(v19, v19);
        const uint64_t v21 = gl_add(v16, v20);
        const uint64_t v22 = main.base[4ull * main.stride + row];
        const uint64_t v23 = main.base[12ull * main.stride + row];
        const uint64_t v24 = gl_sub(v22, v23);
        const uint64_t v25 = gl_mul(v24, v24);
        const uint64_t v26 = gl_add(v21, v25);
        const uint64_t v27 = main.base[5ull * main.stride + row];
        const uint64_t v28 = main.base[13ull * main.stride + row];
        const uint64_t v29 = gl_sub(v27, v28);
        const uint64_t v30 = gl_mul(v29, v29);
        const uint64_t v31 = gl_add(v26, v30);
        const uint64_t v32 = main.base[6ull * main.stride + row];
        const uint64_t v33 = main.base[14ull * main.stride + row];
        const uint64_t v34 = gl_sub(v32, v33);
        const uint64_t v35 = gl_mul(v34, v34);
        const uint64_t v36 = gl_add(v31, v35);
        const uint64_t v37 = main.base[7ull * main.stride + row];
        const uint64_t v38 = main.base[15ull * main.stride + row];
        const uint64_t v39 = gl_sub(v37, v38);
        const uint64_t v40 = gl_mul(v39, v39);
        const uint64_t v41 = gl_add(v36, v40);
        const uint64_t v42 = gl_sub(v0, v41);
        on_constraint(0u, v42);
        const uint64_t v44 = 0x0000000000000001ull;
        const uint64_t v45 = main.base[17ull * main.stride + row];
        const uint64_t v46 = gl_sub(v44, v45);
        const uint64_t v47 = gl_mul(v46, v0);
        on_constraint(0u, v47);
        const uint64_t v49 = main.base[18ull * main.stride + row];
        const uint64_t v50 = gl_mul(v0, v49);
        const uint64_t v51 = gl_sub(v50, v44);
        const uint64_t v52 = gl_mul(v45, v51);
        on_constraint(0u, v52);
        const uint64_t v54 = gl_sub(v44, v45);
        const uint64_t v55 = gl_mul(v54, v49);
        on_constraint(0u, v55);
        const uint64_t v57 = 0x0000000000000003ull;
        const uint64_t v58 = gl_sub(v44, v45);
        const uint64_t v59 = main.base[19ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v57);
        acc3_mad(fa, e3_load(alpha_powers + 3), v2);
        acc3_mad(fa, e3_load(alpha_powers + 6), v7);
        acc3_mad(fa, e3_load(alpha_powers + 9), v12);
        acc3_mad(fa, e3_load(alpha_powers + 12), v17);
        acc3_mad(fa, e3_load(alpha_powers + 15), v22);
        acc3_mad(fa, e3_load(alpha_powers + 18), v27);
        acc3_mad(fa, e3_load(alpha_powers + 21), v32);
        acc3_mad(fa, e3_load(alpha_powers + 24), v37);
        acc3_mad(fa, e3_load(alpha_powers + 27), v3);
        acc3_mad(fa, e3_load(alpha_powers + 30), v8);
        acc3_mad(fa, e3_load(alpha_powers + 33), v13);
        acc3_mad(fa, e3_load(alpha_powers + 36), v18);
        acc3_mad(fa, e3_load(alpha_powers + 39), v23);
        acc3_mad(fa, e3_load(alpha_powers + 42), v28);
        acc3_mad(fa, e3_load(alpha_powers + 45), v33);
        acc3_mad(fa, e3_load(alpha_powers + 48), v38);
        acc3_mad(fa, e3_load(alpha_powers + 51), v58);
        acc3_mad(fa, e3_load(alpha_powers + 54), v1);
        acc3_mad(fa, e3_load(alpha_powers + 57), v1);
        acc3_mad(fa, e3_load(alpha_powers + 60), v1);
        acc3_mad(fa, e3_load(alpha_powers + 63), v1);
        acc3_mad(fa, e3_load(alpha_powers + 66), v1);
        acc3_mad(fa, e3_load(alpha_powers + 69), v1);
        acc3_mad(fa, e3_load(alpha_powers + 72), v1);
        on_interaction(0u, gl_neg(v59), e3_sub(beta, e3_add(e3(15ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_quotient_eval_gac904853c9827544(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsGenac904853c9827544>(out, q, zero_flag);
}

// EQ: 49 instructions, 0 constraints, 1 interactions
struct KsGenb6146f1717277e80 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 1u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 1u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000003ull;
        const uint64_t v1 = main.base[0ull * main.stride + row];
        const uint64_t v2 = main.base[1ull * main.stride + row];
        const uint64_t v3 = main.base[2ull * main.stride + row];
        const uint64_t v4 = main.base[3ull * main.stride + row];
        const uint64_t v5 = main.base[4ull * main.stride + row];
        const uint64_t v6 = main.base[5ull * main.stride + row];
        const uint64_t v7 = main.base[6ull * main.stride + row];
        const uint64_t v8 = main.base[7ull * main.stride + row];
        const uint64_t v9 = main.base[8ull * main.stride + row];
        const uint64_t v10 = main.base[9ull * main.stride + row];
        const uint64_t v11 = main.base[10ull * main.stride + row];
        const uint64_t v12 = main.base[11ull * main.stride + row];
        const uint64_t v13 = main.base[12ull * main.stride + row];
        const uint64_t v14 = main.base[13ull * main.stride + row];
        const uint64_t v15 = main.base[14ull * main.stride + row];
        const uint64_t v16 = main.base[15ull * main.stride + row];
        const uint64_t v17 = 0x0000000000000001ull;
        const uint64_t v18 = main.base[17ull * main.stride + row];
        const uint64_t v19 = gl_sub(v17, v18);
        const uint64_t v20 = 0x0000000000000000ull;
        const uint64_t v21 = main.base[19ull * main.stride + row];
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
        acc3_mad(fa, e3_load(alpha_powers + 51), v19);
        acc3_mad(fa, e3_load(alpha_powers + 54), v20);
        acc3_mad(fa, e3_load(alpha_powers + 57), v20);
        acc3_mad(fa, e3_load(alpha_powers + 60), v20);
        acc3_mad(fa, e3_load(alpha_powers + 63), v20);
        acc3_mad(fa, e3_load(alpha_powers + 66), v20);
        acc3_mad(fa, e3_load(alpha_powers + 69), v20);
        acc3_mad(fa, e3_load(alpha_powers + 72), v20);
        on_interaction(0u, gl_neg(v21), e3_sub(beta, e3_add(e3(15ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_logup_eval_gb6146f1717277e80(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGenb6146f1717277e80>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}
