// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// PAGE0: 157 instructions, 6 constraints, 9 interactions
struct KsGen1c68fc515a2d5609 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 9u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 9u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = main.base[0ull * main.stride + row];
        const uint64_t v1 = 0x0000000000000001ull;
        const uint64_t v2 = gl_sub(v0, v1);
        const uint64_t v3 = gl_mul(v0, v2);
        on_constraint(0u, v3);
        const uint64_t v5 = gl_sub(v1, v0);
        const uint64_t v6 = main.base[0ull * main.stride + next];
        const uint64_t v7 = gl_mul(v5, v6);
        on_constraint(1u, v7);
        const uint64_t v9 = 0x0000000000000000ull;
        const uint64_t v10 = main.base[2ull * main.stride + row];
        const uint64_t v11 = gl_mul(v10, v1);
        const uint64_t v12 = gl_add(v9, v11);
        const uint64_t v13 = main.base[3ull * main.stride + row];
        const uint64_t v14 = 0x0000000000000100ull;
        const uint64_t v15 = gl_mul(v13, v14);
        const uint64_t v16 = gl_add(v12, v15);
        const uint64_t v17 = main.base[4ull * main.stride + row];
        const uint64_t v18 = 0x0000000000010000ull;
        const uint64_t v19 = gl_mul(v17, v18);
        const uint64_t v20 = gl_add(v16, v19);
        const uint64_t v21 = main.base[5ull * main.stride + row];
        const uint64_t v22 = 0x0000000001000000ull;
        const uint64_t v23 = gl_mul(v21, v22);
        const uint64_t v24 = gl_add(v20, v23);
        on_constraint(2u, v24);
        const uint64_t v26 = main.base[1ull * main.stride + next];
        const uint64_t v27 = main.base[1ull * main.stride + row];
        const uint64_t v28 = gl_sub(v26, v27);
        const uint64_t v29 = gl_sub(v28, v1);
        const uint64_t v30 = main.base[2ull * main.stride + next];
        const uint64_t v31 = gl_mul(v30, v1);
        const uint64_t v32 = gl_add(v9, v31);
        const uint64_t v33 = main.base[3ull * main.stride + next];
        const uint64_t v34 = gl_mul(v33, v14);
        const uint64_t v35 = gl_add(v32, v34);
        const uint64_t v36 = main.base[4ull * main.stride + next];
        const uint64_t v37 = gl_mul(v36, v18);
        const uint64_t v38 = gl_add(v35, v37);
        const uint64_t v39 = main.base[5ull * main.stride + next];
        const uint64_t v40 = gl_mul(v39, v22);
        const uint64_t v41 = gl_add(v38, v40);
        const uint64_t v42 = gl_sub(v29, v41);
        const uint64_t v43 = gl_mul(v6, v42);
        on_constraint(1u, v43);
        const uint64_t v45 = main.base[14ull * main.stride + row];
        const uint64_t v46 = gl_sub(v27, v45);
        const uint64_t v47 = main.base[6ull * main.stride + row];
        const uint64_t v48 = gl_mul(v47, v1);
        const uint64_t v49 = gl_add(v9, v48);
        const uint64_t v50 = main.base[7ull * main.stride + row];
        const uint64_t v51 = gl_mul(v50, v14);
        const uint64_t v52 = gl_add(v49, v51);
        const uint64_t v53 = main.base[8ull * main.stride + row];
        const uint64_t v54 = gl_mul(v53, v18);
        const uint64_t v55 = gl_add(v52, v54);
        const uint64_t v56 = main.base[9ull * main.stride + row];
        const uint64_t v57 = gl_mul(v56, v22);
        const uint64_t v58 = gl_add(v55, v57);
        const uint64_t v59 = gl_sub(v46, v58);
        const uint64_t v60 = gl_mul(v0, v59);
        on_constraint(0u, v60);
        const uint64_t v62 = main.base[15ull * main.stride + row];
        const uint64_t v63 = gl_sub(v62, v1);
        const uint64_t v64 = gl_sub(v63, v27);
        const uint64_t v65 = main.base[10ull * main.stride + row];
        const uint64_t v66 = gl_mul(v65, v1);
        const uint64_t v67 = gl_add(v9, v66);
        const uint64_t v68 = main.base[11ull * main.stride + row];
        const uint64_t v69 = gl_mul(v68, v14);
        const uint64_t v70 = gl_add(v67, v69);
        const uint64_t v71 = main.base[12ull * main.stride + row];
        const uint64_t v72 = gl_mul(v71, v18);
        const uint64_t v73 = gl_add(v70, v72);
        const uint64_t v74 = main.base[13ull * main.stride + row];
        const uint64_t v75 = gl_mul(v74, v22);
        const uint64_t v76 = gl_add(v73, v75);
        const uint64_t v77 = gl_sub(v64, v76);
        const uint64_t v78 = gl_mul(v0, v77);
        on_constraint(0u, v78);
        const uint64_t v80 = main.base[16ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v45);
        acc3_mad(fa, e3_load(alpha_powers + 3), v62);
        acc3_mad(fa, e3_load(alpha_powers + 6), v80);
        on_interaction(0u, gl_neg(v0), e3_sub(beta, e3_add(e3(21ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v10);
        acc3_mad(fa, e3_load(alpha_powers + 6), v13);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(1u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v17);
        acc3_mad(fa, e3_load(alpha_powers + 6), v21);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(2u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v47);
        acc3_mad(fa, e3_load(alpha_powers + 6), v50);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(3u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v53);
        acc3_mad(fa, e3_load(alpha_powers + 6), v56);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(4u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v65);
        acc3_mad(fa, e3_load(alpha_powers + 6), v68);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(5u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v71);
        acc3_mad(fa, e3_load(alpha_powers + 6), v74);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(6u, v0, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v27);
        acc3_mad(fa, e3_load(alpha_powers + 3), v9);
        acc3_mad(fa, e3_load(alpha_powers + 6), v9);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        acc3_mad(fa, e3_load(alpha_powers + 12), v9);
        acc3_mad(fa, e3_load(alpha_powers + 15), v9);
        acc3_mad(fa, e3_load(alpha_powers + 18), v9);
        acc3_mad(fa, e3_load(alpha_powers + 21), v9);
        acc3_mad(fa, e3_load(alpha_powers + 24), v9);
        acc3_mad(fa, e3_load(alpha_powers + 27), v9);
        acc3_mad(fa, e3_load(alpha_powers + 30), v80);
        on_interaction(7u, v0, e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
        const uint64_t v135 = main.base[17ull * main.stride + row];
        const uint64_t v136 = main.base[18ull * main.stride + row];
        const uint64_t v137 = main.base[19ull * main.stride + row];
        const uint64_t v138 = main.base[20ull * main.stride + row];
        const uint64_t v139 = main.base[21ull * main.stride + row];
        const uint64_t v140 = main.base[22ull * main.stride + row];
        const uint64_t v141 = main.base[23ull * main.stride + row];
        const uint64_t v142 = main.base[24ull * main.stride + row];
        const uint64_t v143 = main.base[25ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v27);
        acc3_mad(fa, e3_load(alpha_powers + 3), v135);
        acc3_mad(fa, e3_load(alpha_powers + 6), v136);
        acc3_mad(fa, e3_load(alpha_powers + 9), v137);
        acc3_mad(fa, e3_load(alpha_powers + 12), v138);
        acc3_mad(fa, e3_load(alpha_powers + 15), v139);
        acc3_mad(fa, e3_load(alpha_powers + 18), v140);
        acc3_mad(fa, e3_load(alpha_powers + 21), v141);
        acc3_mad(fa, e3_load(alpha_powers + 24), v142);
        acc3_mad(fa, e3_load(alpha_powers + 27), v143);
        acc3_mad(fa, e3_load(alpha_powers + 30), v80);
        on_interaction(8u, gl_neg(v0), e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_quotient_eval_g1c68fc515a2d5609(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsGen1c68fc515a2d5609>(out, q, zero_flag);
}

// PAGE0: 94 instructions, 0 constraints, 9 interactions
struct KsGenc4a1d4e5c113bf20 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 9u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 9u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = main.base[14ull * main.stride + row];
        const uint64_t v1 = main.base[15ull * main.stride + row];
        const uint64_t v2 = main.base[16ull * main.stride + row];
        const uint64_t v3 = main.base[0ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        on_interaction(0u, gl_neg(v3), e3_sub(beta, e3_add(e3(21ull), acc3_reduce(fa))));
        const uint64_t v9 = 0x0000000000000000ull;
        const uint64_t v10 = main.base[2ull * main.stride + row];
        const uint64_t v11 = main.base[3ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v10);
        acc3_mad(fa, e3_load(alpha_powers + 6), v11);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(1u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v18 = main.base[4ull * main.stride + row];
        const uint64_t v19 = main.base[5ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v18);
        acc3_mad(fa, e3_load(alpha_powers + 6), v19);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(2u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v26 = main.base[6ull * main.stride + row];
        const uint64_t v27 = main.base[7ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v26);
        acc3_mad(fa, e3_load(alpha_powers + 6), v27);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(3u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v34 = main.base[8ull * main.stride + row];
        const uint64_t v35 = main.base[9ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v34);
        acc3_mad(fa, e3_load(alpha_powers + 6), v35);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(4u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v42 = main.base[10ull * main.stride + row];
        const uint64_t v43 = main.base[11ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v42);
        acc3_mad(fa, e3_load(alpha_powers + 6), v43);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(5u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v50 = main.base[12ull * main.stride + row];
        const uint64_t v51 = main.base[13ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v9);
        acc3_mad(fa, e3_load(alpha_powers + 3), v50);
        acc3_mad(fa, e3_load(alpha_powers + 6), v51);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        on_interaction(6u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v58 = main.base[1ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v58);
        acc3_mad(fa, e3_load(alpha_powers + 3), v9);
        acc3_mad(fa, e3_load(alpha_powers + 6), v9);
        acc3_mad(fa, e3_load(alpha_powers + 9), v9);
        acc3_mad(fa, e3_load(alpha_powers + 12), v9);
        acc3_mad(fa, e3_load(alpha_powers + 15), v9);
        acc3_mad(fa, e3_load(alpha_powers + 18), v9);
        acc3_mad(fa, e3_load(alpha_powers + 21), v9);
        acc3_mad(fa, e3_load(alpha_powers + 24), v9);
        acc3_mad(fa, e3_load(alpha_powers + 27), v9);
        acc3_mad(fa, e3_load(alpha_powers + 30), v2);
        on_interaction(7u, v3, e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
        const uint64_t v72 = main.base[17ull * main.stride + row];
        const uint64_t v73 = main.base[18ull * main.stride + row];
        const uint64_t v74 = main.base[19ull * main.stride + row];
        const uint64_t v75 = main.base[20ull * main.stride + row];
        const uint64_t v76 = main.base[21ull * main.stride + row];
        const uint64_t v77 = main.base[22ull * main.stride + row];
        const uint64_t v78 = main.base[23ull * main.stride + row];
        const uint64_t v79 = main.base[24ull * main.stride + row];
        const uint64_t v80 = main.base[25ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v58);
        acc3_mad(fa, e3_load(alpha_powers + 3), v72);
        acc3_mad(fa, e3_load(alpha_powers + 6), v73);
        acc3_mad(fa, e3_load(alpha_powers + 9), v74);
        acc3_mad(fa, e3_load(alpha_powers + 12), v75);
        acc3_mad(fa, e3_load(alpha_powers + 15), v76);
        acc3_mad(fa, e3_load(alpha_powers + 18), v77);
        acc3_mad(fa, e3_load(alpha_powers + 21), v78);
        acc3_mad(fa, e3_load(alpha_powers + 24), v79);
        acc3_mad(fa, e3_load(alpha_powers + 27), v80);
        acc3_mad(fa, e3_load(alpha_powers + 30), v2);
        on_interaction(8u, gl_neg(v3), e3_sub(beta, e3_add(e3(20ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_logup_eval_gc4a1d4e5c113bf20(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGenc4a1d4e5c113bf20>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}

// PAGE0 byte lookups: 50 instructions, 6 sends
struct KsGenc5bc14fea260dd86 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 6u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 6u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000000ull;
        const uint64_t v1 = main.base[2ull * main.stride + row];
        const uint64_t v2 = main.base[3ull * main.stride + row];
        const uint64_t v3 = main.base[0ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(0u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v10 = main.base[4ull * main.stride + row];
        const uint64_t v11 = main.base[5ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v10);
        acc3_mad(fa, e3_load(alpha_powers + 6), v11);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(1u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v18 = main.base[6ull * main.stride + row];
        const uint64_t v19 = main.base[7ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v18);
        acc3_mad(fa, e3_load(alpha_powers + 6), v19);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(2u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v26 = main.base[8ull * main.stride + row];
        const uint64_t v27 = main.base[9ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v26);
        acc3_mad(fa, e3_load(alpha_powers + 6), v27);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(3u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v34 = main.base[10ull * main.stride + row];
        const uint64_t v35 = main.base[11ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v34);
        acc3_mad(fa, e3_load(alpha_powers + 6), v35);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(4u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v42 = main.base[12ull * main.stride + row];
        const uint64_t v43 = main.base[13ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v42);
        acc3_mad(fa, e3_load(alpha_powers + 6), v43);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(5u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_bytes_gc5bc14fea260dd86(uint64_t *hist, uint32_t *flag, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, const uint64_t *unit, uint32_t bus) {
    ks_bytes_with<KsGenc5bc14fea260dd86>(hist, flag, prog, len, consts, main, pre, log_n, unit, bus);
}
