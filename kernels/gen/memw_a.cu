// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// MEMW_A: 119 instructions, 3 constraints, 6 interactions
struct KsGenead83731e31dd729 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 6u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 6u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = main.base[19ull * main.stride + row];
        const uint64_t v1 = 0x0000000000000001ull;
        const uint64_t v2 = gl_sub(v0, v1);
        const uint64_t v3 = gl_mul(v0, v2);
        on_constraint(0u, v3);
        const uint64_t v5 = 0x0000000000000000ull;
        const uint64_t v6 = main.base[20ull * main.stride + row];
        const uint64_t v7 = gl_mul(v6, v1);
        const uint64_t v8 = gl_add(v5, v7);
        const uint64_t v9 = main.base[21ull * main.stride + row];
        const uint64_t v10 = 0x0000000000000100ull;
        const uint64_t v11 = gl_mul(v9, v10);
        const uint64_t v12 = gl_add(v8, v11);
        const uint64_t v13 = main.base[22ull * main.stride + row];
        const uint64_t v14 = 0x0000000000010000ull;
        const uint64_t v15 = gl_mul(v13, v14);
        const uint64_t v16 = gl_add(v12, v15);
        const uint64_t v17 = main.base[23ull * main.stride + row];
        const uint64_t v18 = 0x0000000001000000ull;
        const uint64_t v19 = gl_mul(v17, v18);
        const uint64_t v20 = gl_add(v16, v19);
        const uint64_t v21 = main.base[24ull * main.stride + row];
        const uint64_t v22 = 0x0000000100000000ull;
        const uint64_t v23 = gl_mul(v21, v22);
        const uint64_t v24 = gl_add(v20, v23);
        const uint64_t v25 = main.base[18ull * main.stride + row];
        const uint64_t v26 = main.base[17ull * main.stride + row];
        const uint64_t v27 = gl_sub(v25, v26);
        const uint64_t v28 = gl_sub(v27, v1);
        const uint64_t v29 = gl_sub(v24, v28);
        const uint64_t v30 = gl_mul(v0, v29);
        on_constraint(0u, v30);
        const uint64_t v32 = main.base[25ull * main.stride + row];
        const uint64_t v33 = main.base[26ull * main.stride + row];
        const uint64_t v34 = gl_mul(v32, v33);
        on_constraint(0u, v34);
        const uint64_t v36 = main.base[0ull * main.stride + row];
        const uint64_t v37 = main.base[1ull * main.stride + row];
        const uint64_t v38 = main.base[2ull * main.stride + row];
        const uint64_t v39 = main.base[3ull * main.stride + row];
        const uint64_t v40 = main.base[4ull * main.stride + row];
        const uint64_t v41 = main.base[5ull * main.stride + row];
        const uint64_t v42 = main.base[6ull * main.stride + row];
        const uint64_t v43 = main.base[7ull * main.stride + row];
        const uint64_t v44 = main.base[8ull * main.stride + row];
        const uint64_t v45 = main.base[9ull * main.stride + row];
        const uint64_t v46 = main.base[10ull * main.stride + row];
        const uint64_t v47 = main.base[11ull * main.stride + row];
        const uint64_t v48 = main.base[12ull * main.stride + row];
        const uint64_t v49 = main.base[13ull * main.stride + row];
        const uint64_t v50 = main.base[14ull * main.stride + row];
        const uint64_t v51 = main.base[15ull * main.stride + row];
        const uint64_t v52 = main.base[16ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v36);
        acc3_mad(fa, e3_load(alpha_powers + 3), v37);
        acc3_mad(fa, e3_load(alpha_powers + 6), v38);
        acc3_mad(fa, e3_load(alpha_powers + 9), v39);
        acc3_mad(fa, e3_load(alpha_powers + 12), v40);
        acc3_mad(fa, e3_load(alpha_powers + 15), v41);
        acc3_mad(fa, e3_load(alpha_powers + 18), v42);
        acc3_mad(fa, e3_load(alpha_powers + 21), v43);
        acc3_mad(fa, e3_load(alpha_powers + 24), v44);
        acc3_mad(fa, e3_load(alpha_powers + 27), v45);
        acc3_mad(fa, e3_load(alpha_powers + 30), v46);
        acc3_mad(fa, e3_load(alpha_powers + 33), v47);
        acc3_mad(fa, e3_load(alpha_powers + 36), v48);
        acc3_mad(fa, e3_load(alpha_powers + 39), v49);
        acc3_mad(fa, e3_load(alpha_powers + 42), v50);
        acc3_mad(fa, e3_load(alpha_powers + 45), v51);
        acc3_mad(fa, e3_load(alpha_powers + 48), v52);
        acc3_mad(fa, e3_load(alpha_powers + 51), v25);
        acc3_mad(fa, e3_load(alpha_powers + 54), v32);
        on_interaction(0u, gl_neg(v0), e3_sub(beta, e3_add(e3(18ull), acc3_reduce(fa))));
        const uint64_t v74 = gl_add(v36, v5);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v74);
        acc3_mad(fa, e3_load(alpha_powers + 3), v37);
        acc3_mad(fa, e3_load(alpha_powers + 6), v38);
        acc3_mad(fa, e3_load(alpha_powers + 9), v39);
        acc3_mad(fa, e3_load(alpha_powers + 12), v40);
        acc3_mad(fa, e3_load(alpha_powers + 15), v41);
        acc3_mad(fa, e3_load(alpha_powers + 18), v42);
        acc3_mad(fa, e3_load(alpha_powers + 21), v43);
        acc3_mad(fa, e3_load(alpha_powers + 24), v44);
        acc3_mad(fa, e3_load(alpha_powers + 27), v26);
        acc3_mad(fa, e3_load(alpha_powers + 30), v33);
        on_interaction(1u, gl_neg(v0), e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v74);
        acc3_mad(fa, e3_load(alpha_powers + 3), v45);
        acc3_mad(fa, e3_load(alpha_powers + 6), v46);
        acc3_mad(fa, e3_load(alpha_powers + 9), v47);
        acc3_mad(fa, e3_load(alpha_powers + 12), v48);
        acc3_mad(fa, e3_load(alpha_powers + 15), v49);
        acc3_mad(fa, e3_load(alpha_powers + 18), v50);
        acc3_mad(fa, e3_load(alpha_powers + 21), v51);
        acc3_mad(fa, e3_load(alpha_powers + 24), v52);
        acc3_mad(fa, e3_load(alpha_powers + 27), v25);
        acc3_mad(fa, e3_load(alpha_powers + 30), v33);
        on_interaction(2u, v0, e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v5);
        acc3_mad(fa, e3_load(alpha_powers + 3), v6);
        acc3_mad(fa, e3_load(alpha_powers + 6), v9);
        acc3_mad(fa, e3_load(alpha_powers + 9), v5);
        on_interaction(3u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v5);
        acc3_mad(fa, e3_load(alpha_powers + 3), v13);
        acc3_mad(fa, e3_load(alpha_powers + 6), v17);
        acc3_mad(fa, e3_load(alpha_powers + 9), v5);
        on_interaction(4u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v5);
        acc3_mad(fa, e3_load(alpha_powers + 3), v21);
        acc3_mad(fa, e3_load(alpha_powers + 6), v5);
        acc3_mad(fa, e3_load(alpha_powers + 9), v5);
        on_interaction(5u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_quotient_eval_gead83731e31dd729(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsGenead83731e31dd729>(out, q, zero_flag);
}

// MEMW_A: 94 instructions, 0 constraints, 6 interactions
struct KsGen8860838be1fd2453 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 6u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 6u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = main.base[0ull * main.stride + row];
        const uint64_t v1 = main.base[1ull * main.stride + row];
        const uint64_t v2 = main.base[2ull * main.stride + row];
        const uint64_t v3 = main.base[3ull * main.stride + row];
        const uint64_t v4 = main.base[4ull * main.stride + row];
        const uint64_t v5 = main.base[5ull * main.stride + row];
        const uint64_t v6 = main.base[6ull * main.stride + row];
        const uint64_t v7 = main.base[7ull * main.stride + row];
        const uint64_t v8 = main.base[8ull * main.stride + row];
        const uint64_t v9 = main.base[9ull * main.stride + row];
        const uint64_t v10 = main.base[10ull * main.stride + row];
        const uint64_t v11 = main.base[11ull * main.stride + row];
        const uint64_t v12 = main.base[12ull * main.stride + row];
        const uint64_t v13 = main.base[13ull * main.stride + row];
        const uint64_t v14 = main.base[14ull * main.stride + row];
        const uint64_t v15 = main.base[15ull * main.stride + row];
        const uint64_t v16 = main.base[16ull * main.stride + row];
        const uint64_t v17 = main.base[18ull * main.stride + row];
        const uint64_t v18 = main.base[25ull * main.stride + row];
        const uint64_t v19 = main.base[19ull * main.stride + row];
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
        on_interaction(0u, gl_neg(v19), e3_sub(beta, e3_add(e3(18ull), acc3_reduce(fa))));
        const uint64_t v41 = 0x0000000000000000ull;
        const uint64_t v42 = gl_add(v0, v41);
        const uint64_t v43 = main.base[17ull * main.stride + row];
        const uint64_t v44 = main.base[26ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v42);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v3);
        acc3_mad(fa, e3_load(alpha_powers + 12), v4);
        acc3_mad(fa, e3_load(alpha_powers + 15), v5);
        acc3_mad(fa, e3_load(alpha_powers + 18), v6);
        acc3_mad(fa, e3_load(alpha_powers + 21), v7);
        acc3_mad(fa, e3_load(alpha_powers + 24), v8);
        acc3_mad(fa, e3_load(alpha_powers + 27), v43);
        acc3_mad(fa, e3_load(alpha_powers + 30), v44);
        on_interaction(1u, gl_neg(v19), e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v42);
        acc3_mad(fa, e3_load(alpha_powers + 3), v9);
        acc3_mad(fa, e3_load(alpha_powers + 6), v10);
        acc3_mad(fa, e3_load(alpha_powers + 9), v11);
        acc3_mad(fa, e3_load(alpha_powers + 12), v12);
        acc3_mad(fa, e3_load(alpha_powers + 15), v13);
        acc3_mad(fa, e3_load(alpha_powers + 18), v14);
        acc3_mad(fa, e3_load(alpha_powers + 21), v15);
        acc3_mad(fa, e3_load(alpha_powers + 24), v16);
        acc3_mad(fa, e3_load(alpha_powers + 27), v17);
        acc3_mad(fa, e3_load(alpha_powers + 30), v44);
        on_interaction(2u, v19, e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
        const uint64_t v71 = main.base[20ull * main.stride + row];
        const uint64_t v72 = main.base[21ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v41);
        acc3_mad(fa, e3_load(alpha_powers + 3), v71);
        acc3_mad(fa, e3_load(alpha_powers + 6), v72);
        acc3_mad(fa, e3_load(alpha_powers + 9), v41);
        on_interaction(3u, v19, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v79 = main.base[22ull * main.stride + row];
        const uint64_t v80 = main.base[23ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v41);
        acc3_mad(fa, e3_load(alpha_powers + 3), v79);
        acc3_mad(fa, e3_load(alpha_powers + 6), v80);
        acc3_mad(fa, e3_load(alpha_powers + 9), v41);
        on_interaction(4u, v19, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v87 = main.base[24ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v41);
        acc3_mad(fa, e3_load(alpha_powers + 3), v87);
        acc3_mad(fa, e3_load(alpha_powers + 6), v41);
        acc3_mad(fa, e3_load(alpha_powers + 9), v41);
        on_interaction(5u, v19, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_logup_eval_g8860838be1fd2453(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGen8860838be1fd2453>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}

// MEMW_A byte lookups: 25 instructions, 3 sends
struct KsGen97526fc42bbe395d {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 3u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 3u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000000ull;
        const uint64_t v1 = main.base[20ull * main.stride + row];
        const uint64_t v2 = main.base[21ull * main.stride + row];
        const uint64_t v3 = main.base[19ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(0u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v10 = main.base[22ull * main.stride + row];
        const uint64_t v11 = main.base[23ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v10);
        acc3_mad(fa, e3_load(alpha_powers + 6), v11);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(1u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v18 = main.base[24ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v18);
        acc3_mad(fa, e3_load(alpha_powers + 6), v0);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(2u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_bytes_g97526fc42bbe395d(uint64_t *hist, uint32_t *flag, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, const uint64_t *unit, uint32_t bus) {
    ks_bytes_with<KsGen97526fc42bbe395d>(hist, flag, prog, len, consts, main, pre, log_n, unit, bus);
}
