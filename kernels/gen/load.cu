// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// LOAD: 170 instructions, 0 constraints, 4 interactions
struct KsGene1cc4a3024af0ea8 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 4u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 4u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000020ull;
        const uint64_t v1 = main.base[1ull * main.stride + row];
        const uint64_t v2 = main.base[2ull * main.stride + row];
        const uint64_t v3 = 0x0000000000000002ull;
        const uint64_t v4 = gl_mul(v2, v3);
        const uint64_t v5 = gl_add(v1, v4);
        const uint64_t v6 = main.base[3ull * main.stride + row];
        const uint64_t v7 = 0x0000000000000003ull;
        const uint64_t v8 = gl_mul(v6, v7);
        const uint64_t v9 = gl_add(v5, v8);
        const uint64_t v10 = main.base[4ull * main.stride + row];
        const uint64_t v11 = 0x0000000000000004ull;
        const uint64_t v12 = gl_mul(v10, v11);
        const uint64_t v13 = gl_add(v9, v12);
        const uint64_t v14 = gl_add(v0, v13);
        const uint64_t v15 = main.base[13ull * main.stride + row];
        const uint64_t v16 = 0x0000000000000008ull;
        const uint64_t v17 = gl_mul(v15, v16);
        const uint64_t v18 = 0x0000000000000000ull;
        const uint64_t v19 = main.base[6ull * main.stride + row];
        const uint64_t v20 = 0x0000000000000001ull;
        const uint64_t v21 = gl_mul(v19, v20);
        const uint64_t v22 = gl_add(v18, v21);
        const uint64_t v23 = main.base[7ull * main.stride + row];
        const uint64_t v24 = gl_mul(v23, v3);
        const uint64_t v25 = gl_add(v22, v24);
        const uint64_t v26 = main.base[8ull * main.stride + row];
        const uint64_t v27 = gl_mul(v26, v7);
        const uint64_t v28 = gl_add(v25, v27);
        const uint64_t v29 = main.base[9ull * main.stride + row];
        const uint64_t v30 = gl_mul(v29, v11);
        const uint64_t v31 = gl_add(v28, v30);
        const uint64_t v32 = main.base[10ull * main.stride + row];
        const uint64_t v33 = 0x0000000000000005ull;
        const uint64_t v34 = gl_mul(v32, v33);
        const uint64_t v35 = gl_add(v31, v34);
        const uint64_t v36 = main.base[11ull * main.stride + row];
        const uint64_t v37 = 0x0000000000000006ull;
        const uint64_t v38 = gl_mul(v36, v37);
        const uint64_t v39 = gl_add(v35, v38);
        const uint64_t v40 = main.base[12ull * main.stride + row];
        const uint64_t v41 = 0x0000000000000007ull;
        const uint64_t v42 = gl_mul(v40, v41);
        const uint64_t v43 = gl_add(v39, v42);
        const uint64_t v44 = gl_add(v17, v43);
        const uint64_t v45 = main.base[14ull * main.stride + row];
        const uint64_t v46 = main.base[15ull * main.stride + row];
        const uint64_t v47 = main.base[16ull * main.stride + row];
        const uint64_t v48 = main.base[17ull * main.stride + row];
        const uint64_t v49 = main.base[18ull * main.stride + row];
        const uint64_t v50 = main.base[19ull * main.stride + row];
        const uint64_t v51 = main.base[20ull * main.stride + row];
        const uint64_t v52 = main.base[21ull * main.stride + row];
        const uint64_t v53 = main.base[22ull * main.stride + row];
        const uint64_t v54 = main.base[23ull * main.stride + row];
        const uint64_t v55 = main.base[24ull * main.stride + row];
        const uint64_t v56 = main.base[41ull * main.stride + row];
        const uint64_t v57 = main.base[0ull * main.stride + row];
        const uint64_t v58 = gl_add(v18, v57);
        const uint64_t v59 = gl_add(v58, v1);
        const uint64_t v60 = gl_add(v59, v2);
        const uint64_t v61 = gl_add(v60, v6);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v14);
        acc3_mad(fa, e3_load(alpha_powers + 3), v44);
        acc3_mad(fa, e3_load(alpha_powers + 6), v45);
        acc3_mad(fa, e3_load(alpha_powers + 9), v46);
        acc3_mad(fa, e3_load(alpha_powers + 12), v47);
        acc3_mad(fa, e3_load(alpha_powers + 15), v48);
        acc3_mad(fa, e3_load(alpha_powers + 18), v49);
        acc3_mad(fa, e3_load(alpha_powers + 21), v50);
        acc3_mad(fa, e3_load(alpha_powers + 24), v51);
        acc3_mad(fa, e3_load(alpha_powers + 27), v52);
        acc3_mad(fa, e3_load(alpha_powers + 30), v53);
        acc3_mad(fa, e3_load(alpha_powers + 33), v54);
        acc3_mad(fa, e3_load(alpha_powers + 36), v55);
        acc3_mad(fa, e3_load(alpha_powers + 39), v56);
        on_interaction(0u, gl_neg(v61), e3_sub(beta, e3_add(e3(17ull), acc3_reduce(fa))));
        const uint64_t v78 = gl_mul(v45, v0);
        const uint64_t v79 = gl_add(v15, v78);
        const uint64_t v80 = 0x0000000000002000ull;
        const uint64_t v81 = gl_mul(v46, v80);
        const uint64_t v82 = gl_add(v79, v81);
        const uint64_t v83 = 0x0000000000200000ull;
        const uint64_t v84 = gl_mul(v47, v83);
        const uint64_t v85 = gl_add(v82, v84);
        const uint64_t v86 = main.base[25ull * main.stride + row];
        const uint64_t v87 = main.base[26ull * main.stride + row];
        const uint64_t v88 = main.base[27ull * main.stride + row];
        const uint64_t v89 = main.base[28ull * main.stride + row];
        const uint64_t v90 = main.base[29ull * main.stride + row];
        const uint64_t v91 = main.base[30ull * main.stride + row];
        const uint64_t v92 = main.base[31ull * main.stride + row];
        const uint64_t v93 = main.base[32ull * main.stride + row];
        const uint64_t v94 = main.base[42ull * main.stride + row];
        const uint64_t v95 = gl_sub(v61, v94);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v85);
        acc3_mad(fa, e3_load(alpha_powers + 3), v86);
        acc3_mad(fa, e3_load(alpha_powers + 6), v87);
        acc3_mad(fa, e3_load(alpha_powers + 9), v88);
        acc3_mad(fa, e3_load(alpha_powers + 12), v89);
        acc3_mad(fa, e3_load(alpha_powers + 15), v90);
        acc3_mad(fa, e3_load(alpha_powers + 18), v91);
        acc3_mad(fa, e3_load(alpha_powers + 21), v92);
        acc3_mad(fa, e3_load(alpha_powers + 24), v93);
        acc3_mad(fa, e3_load(alpha_powers + 27), v86);
        acc3_mad(fa, e3_load(alpha_powers + 30), v87);
        acc3_mad(fa, e3_load(alpha_powers + 33), v88);
        acc3_mad(fa, e3_load(alpha_powers + 36), v89);
        acc3_mad(fa, e3_load(alpha_powers + 39), v90);
        acc3_mad(fa, e3_load(alpha_powers + 42), v91);
        acc3_mad(fa, e3_load(alpha_powers + 45), v92);
        acc3_mad(fa, e3_load(alpha_powers + 48), v93);
        acc3_mad(fa, e3_load(alpha_powers + 51), v56);
        acc3_mad(fa, e3_load(alpha_powers + 54), v18);
        on_interaction(1u, v95, e3_sub(beta, e3_add(e3(18ull), acc3_reduce(fa))));
        const uint64_t v117 = main.base[33ull * main.stride + row];
        const uint64_t v118 = main.base[34ull * main.stride + row];
        const uint64_t v119 = main.base[35ull * main.stride + row];
        const uint64_t v120 = main.base[36ull * main.stride + row];
        const uint64_t v121 = main.base[37ull * main.stride + row];
        const uint64_t v122 = main.base[38ull * main.stride + row];
        const uint64_t v123 = main.base[39ull * main.stride + row];
        const uint64_t v124 = main.base[40ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v85);
        acc3_mad(fa, e3_load(alpha_powers + 3), v86);
        acc3_mad(fa, e3_load(alpha_powers + 6), v87);
        acc3_mad(fa, e3_load(alpha_powers + 9), v88);
        acc3_mad(fa, e3_load(alpha_powers + 12), v89);
        acc3_mad(fa, e3_load(alpha_powers + 15), v90);
        acc3_mad(fa, e3_load(alpha_powers + 18), v91);
        acc3_mad(fa, e3_load(alpha_powers + 21), v92);
        acc3_mad(fa, e3_load(alpha_powers + 24), v93);
        acc3_mad(fa, e3_load(alpha_powers + 27), v117);
        acc3_mad(fa, e3_load(alpha_powers + 30), v118);
        acc3_mad(fa, e3_load(alpha_powers + 33), v119);
        acc3_mad(fa, e3_load(alpha_powers + 36), v120);
        acc3_mad(fa, e3_load(alpha_powers + 39), v121);
        acc3_mad(fa, e3_load(alpha_powers + 42), v122);
        acc3_mad(fa, e3_load(alpha_powers + 45), v123);
        acc3_mad(fa, e3_load(alpha_powers + 48), v124);
        acc3_mad(fa, e3_load(alpha_powers + 51), v86);
        acc3_mad(fa, e3_load(alpha_powers + 54), v87);
        acc3_mad(fa, e3_load(alpha_powers + 57), v88);
        acc3_mad(fa, e3_load(alpha_powers + 60), v89);
        acc3_mad(fa, e3_load(alpha_powers + 63), v90);
        acc3_mad(fa, e3_load(alpha_powers + 66), v91);
        acc3_mad(fa, e3_load(alpha_powers + 69), v92);
        acc3_mad(fa, e3_load(alpha_powers + 72), v93);
        acc3_mad(fa, e3_load(alpha_powers + 75), v117);
        acc3_mad(fa, e3_load(alpha_powers + 78), v118);
        acc3_mad(fa, e3_load(alpha_powers + 81), v119);
        acc3_mad(fa, e3_load(alpha_powers + 84), v120);
        acc3_mad(fa, e3_load(alpha_powers + 87), v121);
        acc3_mad(fa, e3_load(alpha_powers + 90), v122);
        acc3_mad(fa, e3_load(alpha_powers + 93), v123);
        acc3_mad(fa, e3_load(alpha_powers + 96), v124);
        acc3_mad(fa, e3_load(alpha_powers + 99), v56);
        acc3_mad(fa, e3_load(alpha_powers + 102), v18);
        on_interaction(2u, v94, e3_sub(beta, e3_add(e3(19ull), acc3_reduce(fa))));
        const uint64_t v162 = main.base[44ull * main.stride + row];
        const uint64_t v163 = gl_mul(v162, v3);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v18);
        acc3_mad(fa, e3_load(alpha_powers + 3), v15);
        acc3_mad(fa, e3_load(alpha_powers + 6), v163);
        acc3_mad(fa, e3_load(alpha_powers + 9), v18);
        on_interaction(3u, v61, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_logup_eval_ge1cc4a3024af0ea8(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGene1cc4a3024af0ea8>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}

// LOAD byte lookups: 19 instructions, 1 sends
struct KsGen1b2052ab35168e3b {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 1u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 1u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000000ull;
        const uint64_t v1 = main.base[13ull * main.stride + row];
        const uint64_t v2 = main.base[44ull * main.stride + row];
        const uint64_t v3 = 0x0000000000000002ull;
        const uint64_t v4 = gl_mul(v2, v3);
        const uint64_t v5 = main.base[0ull * main.stride + row];
        const uint64_t v6 = gl_add(v0, v5);
        const uint64_t v7 = main.base[1ull * main.stride + row];
        const uint64_t v8 = gl_add(v6, v7);
        const uint64_t v9 = main.base[2ull * main.stride + row];
        const uint64_t v10 = gl_add(v8, v9);
        const uint64_t v11 = main.base[3ull * main.stride + row];
        const uint64_t v12 = gl_add(v10, v11);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v4);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(0u, v12, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_bytes_g1b2052ab35168e3b(uint64_t *hist, uint32_t *flag, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, const uint64_t *unit, uint32_t bus) {
    ks_bytes_with<KsGen1b2052ab35168e3b>(hist, flag, prog, len, consts, main, pre, log_n, unit, bus);
}
