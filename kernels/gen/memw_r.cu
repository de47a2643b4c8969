// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// MEMW_R: 140 instructions, 11 constraints, 6 interactions
struct KsGen01ef2afd58522d71 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 6u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 6u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = main.base[20ull * main.stride + row];
        const uint64_t v1 = 0x0000000000000001ull;
        const uint64_t v2 = gl_sub(v0, v1);
        const uint64_t v3 = gl_mul(v0, v2);
        on_constraint(0u, v3);
        const uint64_t v5 = main.base[19ull * main.stride + row];
        const uint64_t v6 = gl_sub(v5, v1);
        const uint64_t v7 = gl_mul(v5, v6);
        on_constraint(0u, v7);
        const uint64_t v9 = gl_sub(v1, v5);
        const uint64_t v10 = main.base[10ull * main.stride + row];
        const uint64_t v11 = main.base[1ull * main.stride + row];
        const uint64_t v12 = gl_sub(v10, v11);
        const uint64_t v13 = gl_mul(v9, v12);
        on_constraint(0u, v13);
        const uint64_t v15 = gl_sub(v1, v5);
        const uint64_t v16 = main.base[11ull * main.stride + row];
        const uint64_t v17 = main.base[2ull * main.stride + row];
        const uint64_t v18 = gl_sub(v16, v17);
        const uint64_t v19 = gl_mul(v15, v18);
        on_constraint(0u, v19);
        const uint64_t v21 = gl_sub(v1, v5);
        const uint64_t v22 = main.base[12ull * main.stride + row];
        const uint64_t v23 = main.base[3ull * main.stride + row];
        const uint64_t v24 = gl_sub(v22, v23);
        const uint64_t v25 = gl_mul(v21, v24);
        on_constraint(0u, v25);
        const uint64_t v27 = gl_sub(v1, v5);
        const uint64_t v28 = main.base[13ull * main.stride + row];
        const uint64_t v29 = main.base[4ull * main.stride + row];
        const uint64_t v30 = gl_sub(v28, v29);
        const uint64_t v31 = gl_mul(v27, v30);
        on_constraint(0u, v31);
        const uint64_t v33 = gl_sub(v1, v5);
        const uint64_t v34 = main.base[14ull * main.stride + row];
        const uint64_t v35 = main.base[5ull * main.stride + row];
        const uint64_t v36 = gl_sub(v34, v35);
        const uint64_t v37 = gl_mul(v33, v36);
        on_constraint(0u, v37);
        const uint64_t v39 = gl_sub(v1, v5);
        const uint64_t v40 = main.base[15ull * main.stride + row];
        const uint64_t v41 = main.base[6ull * main.stride + row];
        const uint64_t v42 = gl_sub(v40, v41);
        const uint64_t v43 = gl_mul(v39, v42);
        on_constraint(0u, v43);
        const uint64_t v45 = gl_sub(v1, v5);
        const uint64_t v46 = main.base[16ull * main.stride + row];
        const uint64_t v47 = main.base[7ull * main.stride + row];
        const uint64_t v48 = gl_sub(v46, v47);
        const uint64_t v49 = gl_mul(v45, v48);
        on_constraint(0u, v49);
        const uint64_t v51 = gl_sub(v1, v5);
        const uint64_t v52 = main.base[17ull * main.stride + row];
        const uint64_t v53 = main.base[8ull * main.stride + row];
        const uint64_t v54 = gl_sub(v52, v53);
        const uint64_t v55 = gl_mul(v51, v54);
        on_constraint(0u, v55);
        const uint64_t v57 = 0x0000000000000000ull;
        const uint64_t v58 = main.base[21ull * main.stride + row];
        const uint64_t v59 = gl_mul(v58, v1);
        const uint64_t v60 = gl_add(v57, v59);
        const uint64_t v61 = main.base[22ull * main.stride + row];
        const uint64_t v62 = 0x0000000000000100ull;
        const uint64_t v63 = gl_mul(v61, v62);
        const uint64_t v64 = gl_add(v60, v63);
        const uint64_t v65 = main.base[23ull * main.stride + row];
        const uint64_t v66 = 0x0000000000010000ull;
        const uint64_t v67 = gl_mul(v65, v66);
        const uint64_t v68 = gl_add(v64, v67);
        const uint64_t v69 = main.base[24ull * main.stride + row];
        const uint64_t v70 = 0x0000000001000000ull;
        const uint64_t v71 = gl_mul(v69, v70);
        const uint64_t v72 = gl_add(v68, v71);
        const uint64_t v73 = main.base[25ull * main.stride + row];
        const uint64_t v74 = 0x0000000100000000ull;
        const uint64_t v75 = gl_mul(v73, v74);
        const uint64_t v76 = gl_add(v72, v75);
        const uint64_t v77 = main.base[18ull * main.stride + row];
        const uint64_t v78 = main.base[9ull * main.stride + row];
        const uint64_t v79 = gl_sub(v77, v78);
        const uint64_t v80 = gl_sub(v79, v1);
        const uint64_t v81 = gl_sub(v76, v80);
        const uint64_t v82 = gl_mul(v0, v81);
        on_constraint(0u, v82);
        const uint64_t v84 = main.base[0ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v84);
        acc3_mad(fa, e3_load(alpha_powers + 3), v10);
        acc3_mad(fa, e3_load(alpha_powers + 6), v16);
        acc3_mad(fa, e3_load(alpha_powers + 9), v22);
        acc3_mad(fa, e3_load(alpha_powers + 12), v28);
        acc3_mad(fa, e3_load(alpha_powers + 15), v34);
        acc3_mad(fa, e3_load(alpha_powers + 18), v40);
        acc3_mad(fa, e3_load(alpha_powers + 21), v46);
        acc3_mad(fa, e3_load(alpha_powers + 24), v52);
        acc3_mad(fa, e3_load(alpha_powers + 27), v77);
        acc3_mad(fa, e3_load(alpha_powers + 30), v5);
        on_interaction(0u, gl_neg(v0), e3_sub(beta, e3_add(e3(12ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v84);
        acc3_mad(fa, e3_load(alpha_powers + 3), v11);
        acc3_mad(fa, e3_load(alpha_powers + 6), v17);
        acc3_mad(fa, e3_load(alpha_powers + 9), v23);
        acc3_mad(fa, e3_load(alpha_powers + 12), v29);
        acc3_mad(fa, e3_load(alpha_powers + 15), v35);
        acc3_mad(fa, e3_load(alpha_powers + 18), v41);
        acc3_mad(fa, e3_load(alpha_powers + 21), v47);
        acc3_mad(fa, e3_load(alpha_powers + 24), v53);
        acc3_mad(fa, e3_load(alpha_powers + 27), v78);
        on_interaction(1u, gl_neg(v0), e3_sub(beta, e3_add(e3(13ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v84);
        acc3_mad(fa, e3_load(alpha_powers + 3), v10);
        acc3_mad(fa, e3_load(alpha_powers + 6), v16);
        acc3_mad(fa, e3_load(alpha_powers + 9), v22);
        acc3_mad(fa, e3_load(alpha_powers + 12), v28);
        acc3_mad(fa, e3_load(alpha_powers + 15), v34);
        acc3_mad(fa, e3_load(alpha_powers + 18), v40);
        acc3_mad(fa, e3_load(alpha_powers + 21), v46);
        acc3_mad(fa, e3_load(alpha_powers + 24), v52);
        acc3_mad(fa, e3_load(alpha_powers + 27), v77);
        on_interaction(2u, v0, e3_sub(beta, e3_add(e3(13ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v57);
        acc3_mad(fa, e3_load(alpha_powers + 3), v58);
        acc3_mad(fa, e3_load(alpha_powers + 6), v61);
        acc3_mad(fa, e3_load(alpha_powers + 9), v57);
        on_interaction(3u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v57);
        acc3_mad(fa, e3_load(alpha_powers + 3), v65);
        acc3_mad(fa, e3_load(alpha_powers + 6), v69);
        acc3_mad(fa, e3_load(alpha_powers + 9), v57);
        on_interaction(4u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v57);
        acc3_mad(fa, e3_load(alpha_powers + 3), v73);
        acc3_mad(fa, e3_load(alpha_powers + 6), v57);
        acc3_mad(fa, e3_load(alpha_powers + 9), v57);
        on_interaction(5u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_quotient_eval_g01ef2afd58522d71(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsGen01ef2afd58522d71>(out, q, zero_flag);
}

// MEMW_R: 82 instructions, 0 constraints, 6 interactions
struct KsGenf3bca29e927f4e14 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 6u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 6u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = main.base[0ull * main.stride + row];
        const uint64_t v1 = main.base[10ull * main.stride + row];
        const uint64_t v2 = main.base[11ull * main.stride + row];
        const uint64_t v3 = main.base[12ull * main.stride + row];
        const uint64_t v4 = main.base[13ull * main.stride + row];
        const uint64_t v5 = main.base[14ull * main.stride + row];
        const uint64_t v6 = main.base[15ull * main.stride + row];
        const uint64_t v7 = main.base[16ull * main.stride + row];
        const uint64_t v8 = main.base[17ull * main.stride + row];
        const uint64_t v9 = main.base[18ull * main.stride + row];
        const uint64_t v10 = main.base[19ull * main.stride + row];
        const uint64_t v11 = main.base[20ull * main.stride + row];
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
        on_interaction(0u, gl_neg(v11), e3_sub(beta, e3_add(e3(12ull), acc3_reduce(fa))));
        const uint64_t v25 = main.base[1ull * main.stride + row];
        const uint64_t v26 = main.base[2ull * main.stride + row];
        const uint64_t v27 = main.base[3ull * main.stride + row];
        const uint64_t v28 = main.base[4ull * main.stride + row];
        const uint64_t v29 = main.base[5ull * main.stride + row];
        const uint64_t v30 = main.base[6ull * main.stride + row];
        const uint64_t v31 = main.base[7ull * main.stride + row];
        const uint64_t v32 = main.base[8ull * main.stride + row];
        const uint64_t v33 = main.base[9ull * main.stride + row];
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
        on_interaction(1u, gl_neg(v11), e3_sub(beta, e3_add(e3(13ull), acc3_reduce(fa))));
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
        on_interaction(2u, v11, e3_sub(beta, e3_add(e3(13ull), acc3_reduce(fa))));
        const uint64_t v58 = 0x0000000000000000ull;
        const uint64_t v59 = main.base[21ull * main.stride + row];
        const uint64_t v60 = main.base[22ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v58);
        acc3_mad(fa, e3_load(alpha_powers + 3), v59);
        acc3_mad(fa, e3_load(alpha_powers + 6), v60);
        acc3_mad(fa, e3_load(alpha_powers + 9), v58);
        on_interaction(3u, v11, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v67 = main.base[23ull * main.stride + row];
        const uint64_t v68 = main.base[24ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v58);
        acc3_mad(fa, e3_load(alpha_powers + 3), v67);
        acc3_mad(fa, e3_load(alpha_powers + 6), v68);
        acc3_mad(fa, e3_load(alpha_powers + 9), v58);
        on_interaction(4u, v11, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v75 = main.base[25ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v58);
        acc3_mad(fa, e3_load(alpha_powers + 3), v75);
        acc3_mad(fa, e3_load(alpha_powers + 6), v58);
        acc3_mad(fa, e3_load(alpha_powers + 9), v58);
        on_interaction(5u, v11, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_logup_eval_gf3bca29e927f4e14(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGenf3bca29e927f4e14>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}

// MEMW_R byte lookups: 25 instructions, 3 sends
struct KsGencfd4f8a8c7ccdab7 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 3u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 3u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000000ull;
        const uint64_t v1 = main.base[21ull * main.stride + row];
        const uint64_t v2 = main.base[22ull * main.stride + row];
        const uint64_t v3 = main.base[20ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(0u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v10 = main.base[23ull * main.stride + row];
        const uint64_t v11 = main.base[24ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v10);
        acc3_mad(fa, e3_load(alpha_powers + 6), v11);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(1u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v18 = main.base[25ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v18);
        acc3_mad(fa, e3_load(alpha_powers + 6), v0);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(2u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_bytes_gcfd4f8a8c7ccdab7(uint64_t *hist, uint32_t *flag, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, const uint64_t *unit, uint32_t bus) {
    ks_bytes_with<KsGencfd4f8a8c7ccdab7>(hist, flag, prog, len, consts, main, pre, log_n, unit, bus);
}
