// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// LT: 198 instructions, 12 constraints, 6 interactions
struct KsGenbdffe94aadaed668 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 6u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 6u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = main.base[0ull * main.stride + row];
        const uint64_t v1 = 0x0000000000000001ull;
        const uint64_t v2 = gl_sub(v0, v1);
        const uint64_t v3 = gl_mul(v0, v2);
        on_constraint(0u, v3);
        const uint64_t v5 = main.base[1ull * main.stride + row];
        const uint64_t v6 = gl_sub(v5, v1);
        const uint64_t v7 = gl_mul(v5, v6);
        on_constraint(0u, v7);
        const uint64_t v9 = gl_add(v0, v5);
        const uint64_t v10 = gl_sub(v9, v1);
        const uint64_t v11 = gl_mul(v9, v10);
        on_constraint(0u, v11);
        const uint64_t v13 = main.base[32ull * main.stride + row];
        const uint64_t v14 = gl_sub(v1, v9);
        const uint64_t v15 = gl_mul(v13, v14);
        on_constraint(0u, v15);
        const uint64_t v17 = main.base[28ull * main.stride + row];
        const uint64_t v18 = gl_sub(v17, v1);
        const uint64_t v19 = gl_mul(v17, v18);
        on_constraint(0u, v19);
        const uint64_t v21 = main.base[30ull * main.stride + row];
        const uint64_t v22 = gl_sub(v21, v1);
        const uint64_t v23 = gl_mul(v21, v22);
        on_constraint(0u, v23);
        const uint64_t v25 = main.base[9ull * main.stride + row];
        const uint64_t v26 = 0x0000000000000080ull;
        const uint64_t v27 = gl_mul(v17, v26);
        const uint64_t v28 = gl_sub(v25, v27);
        const uint64_t v29 = main.base[29ull * main.stride + row];
        const uint64_t v30 = gl_sub(v28, v29);
        on_constraint(0u, v30);
        const uint64_t v32 = main.base[17ull * main.stride + row];
        const uint64_t v33 = gl_mul(v21, v26);
        const uint64_t v34 = gl_sub(v32, v33);
        const uint64_t v35 = main.base[31ull * main.stride + row];
        const uint64_t v36 = gl_sub(v34, v35);
        on_constraint(0u, v36);
        const uint64_t v38 = main.base[26ull * main.stride + row];
        const uint64_t v39 = gl_sub(v38, v1);
        const uint64_t v40 = gl_mul(v38, v39);
        on_constraint(0u, v40);
        const uint64_t v42 = main.base[27ull * main.stride + row];
        const uint64_t v43 = gl_sub(v42, v1);
        const uint64_t v44 = gl_mul(v42, v43);
        on_constraint(0u, v44);
        const uint64_t v46 = 0x0000000100000000ull;
        const uint64_t v47 = gl_mul(v38, v46);
        const uint64_t v48 = main.base[2ull * main.stride + row];
        const uint64_t v49 = gl_mul(v48, v1);
        const uint64_t v50 = main.base[10ull * main.stride + row];
        const uint64_t v51 = gl_mul(v50, v1);
        const uint64_t v52 = gl_sub(v49, v51);
        const uint64_t v53 = main.base[18ull * main.stride + row];
        const uint64_t v54 = gl_mul(v53, v1);
        const uint64_t v55 = gl_sub(v52, v54);
        const uint64_t v56 = gl_add(v47, v55);
        const uint64_t v57 = main.base[3ull * main.stride + row];
        const uint64_t v58 = 0x0000000000000100ull;
        const uint64_t v59 = gl_mul(v57, v58);
        const uint64_t v60 = main.base[11ull * main.stride + row];
        const uint64_t v61 = gl_mul(v60, v58);
        const uint64_t v62 = gl_sub(v59, v61);
        const uint64_t v63 = main.base[19ull * main.stride + row];
        const uint64_t v64 = gl_mul(v63, v58);
        const uint64_t v65 = gl_sub(v62, v64);
        const uint64_t v66 = gl_add(v56, v65);
        const uint64_t v67 = main.base[4ull * main.stride + row];
        const uint64_t v68 = 0x0000000000010000ull;
        const uint64_t v69 = gl_mul(v67, v68);
        const uint64_t v70 = main.base[12ull * main.stride + row];
        const uint64_t v71 = gl_mul(v70, v68);
        const uint64_t v72 = gl_sub(v69, v71);
        const uint64_t v73 = main.base[20ull * main.stride + row];
        const uint64_t v74 = gl_mul(v73, v68);
        const uint64_t v75 = gl_sub(v72, v74);
        const uint64_t v76 = gl_add(v66, v75);
        const uint64_t v77 = main.base[5ull * main.stride + row];
        const uint64_t v78 = 0x0000000001000000ull;
        const uint64_t v79 = gl_mul(v77, v78);
        const uint64_t v80 = main.base[13ull * main.stride + row];
        const uint64_t v81 = gl_mul(v80, v78);
        const uint64_t v82 = gl_sub(v79, v81);
        const uint64_t v83 = main.base[21ull * main.stride + row];
        const uint64_t v84 = gl_mul(v83, v78);
        const uint64_t v85 = gl_sub(v82, v84);
        const uint64_t v86 = gl_add(v76, v85);
        on_constraint(0u, v86);
        const uint64_t v88 = gl_mul(v42, v46);
        const uint64_t v89 = gl_sub(v88, v38);
        const uint64_t v90 = main.base[6ull * main.stride + row];
        const uint64_t v91 = gl_mul(v90, v1);
        const uint64_t v92 = main.base[14ull * main.stride + row];
        const uint64_t v93 = gl_mul(v92, v1);
        const uint64_t v94 = gl_sub(v91, v93);
        const uint64_t v95 = main.base[22ull * main.stride + row];
        const uint64_t v96 = gl_mul(v95, v1);
        const uint64_t v97 = gl_sub(v94, v96);
        const uint64_t v98 = gl_add(v89, v97);
        const uint64_t v99 = main.base[7ull * main.stride + row];
        const uint64_t v100 = gl_mul(v99, v58);
        const uint64_t v101 = main.base[15ull * main.stride + row];
        const uint64_t v102 = gl_mul(v101, v58);
        const uint64_t v103 = gl_sub(v100, v102);
        const uint64_t v104 = main.base[23ull * main.stride + row];
        const uint64_t v105 = gl_mul(v104, v58);
        const uint64_t v106 = gl_sub(v103, v105);
        const uint64_t v107 = gl_add(v98, v106);
        const uint64_t v108 = main.base[8ull * main.stride + row];
        const uint64_t v109 = gl_mul(v108, v68);
        const uint64_t v110 = main.base[16ull * main.stride + row];
        const uint64_t v111 = gl_mul(v110, v68);
        const uint64_t v112 = gl_sub(v109, v111);
        const uint64_t v113 = main.base[24ull * main.stride + row];
        const uint64_t v114 = gl_mul(v113, v68);
        const uint64_t v115 = gl_sub(v112, v114);
        const uint64_t v116 = gl_add(v107, v115);
        const uint64_t v117 = gl_mul(v25, v78);
        const uint64_t v118 = gl_mul(v32, v78);
        const uint64_t v119 = gl_sub(v117, v118);
        const uint64_t v120 = main.base[25ull * main.stride + row];
        const uint64_t v121 = gl_mul(v120, v78);
        const uint64_t v122 = gl_sub(v119, v121);
        const uint64_t v123 = gl_add(v116, v122);
        const uint64_t v124 = gl_mul(v17, v58);
        const uint64_t v125 = gl_sub(v26, v124);
        const uint64_t v126 = gl_mul(v0, v125);
        const uint64_t v127 = gl_mul(v21, v58);
        const uint64_t v128 = gl_sub(v26, v127);
        const uint64_t v129 = gl_mul(v0, v128);
        const uint64_t v130 = gl_sub(v126, v129);
        const uint64_t v131 = gl_mul(v130, v78);
        const uint64_t v132 = gl_add(v123, v131);
        on_constraint(0u, v132);
        const uint64_t v134 = 0x0000000000000000ull;
        const uint64_t v135 = 0x0000000000000002ull;
        const uint64_t v136 = gl_mul(v29, v135);
        const uint64_t v137 = gl_mul(v35, v135);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v134);
        acc3_mad(fa, e3_load(alpha_powers + 3), v136);
        acc3_mad(fa, e3_load(alpha_powers + 6), v137);
        acc3_mad(fa, e3_load(alpha_powers + 9), v134);
        on_interaction(0u, v1, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v134);
        acc3_mad(fa, e3_load(alpha_powers + 3), v53);
        acc3_mad(fa, e3_load(alpha_powers + 6), v63);
        acc3_mad(fa, e3_load(alpha_powers + 9), v134);
        on_interaction(1u, v1, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v134);
        acc3_mad(fa, e3_load(alpha_powers + 3), v73);
        acc3_mad(fa, e3_load(alpha_powers + 6), v83);
        acc3_mad(fa, e3_load(alpha_powers + 9), v134);
        on_interaction(2u, v1, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v134);
        acc3_mad(fa, e3_load(alpha_powers + 3), v95);
        acc3_mad(fa, e3_load(alpha_powers + 6), v104);
        acc3_mad(fa, e3_load(alpha_powers + 9), v134);
        on_interaction(3u, v1, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v134);
        acc3_mad(fa, e3_load(alpha_powers + 3), v113);
        acc3_mad(fa, e3_load(alpha_powers + 6), v120);
        acc3_mad(fa, e3_load(alpha_powers + 9), v134);
        on_interaction(4u, v1, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v168 = gl_mul(v0, v1);
        const uint64_t v169 = gl_mul(v5, v135);
        const uint64_t v170 = gl_add(v168, v169);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v170);
        acc3_mad(fa, e3_load(alpha_powers + 3), v48);
        acc3_mad(fa, e3_load(alpha_powers + 6), v57);
        acc3_mad(fa, e3_load(alpha_powers + 9), v67);
        acc3_mad(fa, e3_load(alpha_powers + 12), v77);
        acc3_mad(fa, e3_load(alpha_powers + 15), v90);
        acc3_mad(fa, e3_load(alpha_powers + 18), v99);
        acc3_mad(fa, e3_load(alpha_powers + 21), v108);
        acc3_mad(fa, e3_load(alpha_powers + 24), v25);
        acc3_mad(fa, e3_load(alpha_powers + 27), v50);
        acc3_mad(fa, e3_load(alpha_powers + 30), v60);
        acc3_mad(fa, e3_load(alpha_powers + 33), v70);
        acc3_mad(fa, e3_load(alpha_powers + 36), v80);
        acc3_mad(fa, e3_load(alpha_powers + 39), v92);
        acc3_mad(fa, e3_load(alpha_powers + 42), v101);
        acc3_mad(fa, e3_load(alpha_powers + 45), v110);
        acc3_mad(fa, e3_load(alpha_powers + 48), v32);
        acc3_mad(fa, e3_load(alpha_powers + 51), v42);
        acc3_mad(fa, e3_load(alpha_powers + 54), v134);
        acc3_mad(fa, e3_load(alpha_powers + 57), v134);
        acc3_mad(fa, e3_load(alpha_powers + 60), v134);
        acc3_mad(fa, e3_load(alpha_powers + 63), v134);
        acc3_mad(fa, e3_load(alpha_powers + 66), v134);
        acc3_mad(fa, e3_load(alpha_powers + 69), v134);
        acc3_mad(fa, e3_load(alpha_powers + 72), v134);
        on_interaction(5u, gl_neg(v13), e3_sub(beta, e3_add(e3(15ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_quotient_eval_gbdffe94aadaed668(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsGenbdffe94aadaed668>(out, q, zero_flag);
}

// LT: 95 instructions, 0 constraints, 6 interactions
struct KsGen9e3d5243cd5fa74d {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 6u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 6u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000000ull;
        const uint64_t v1 = main.base[29ull * main.stride + row];
        const uint64_t v2 = 0x0000000000000002ull;
        const uint64_t v3 = gl_mul(v1, v2);
        const uint64_t v4 = main.base[31ull * main.stride + row];
        const uint64_t v5 = gl_mul(v4, v2);
        const uint64_t v6 = 0x0000000000000001ull;
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v3);
        acc3_mad(fa, e3_load(alpha_powers + 6), v5);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(0u, v6, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v13 = main.base[18ull * main.stride + row];
        const uint64_t v14 = main.base[19ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v13);
        acc3_mad(fa, e3_load(alpha_powers + 6), v14);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(1u, v6, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v21 = main.base[20ull * main.stride + row];
        const uint64_t v22 = main.base[21ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v21);
        acc3_mad(fa, e3_load(alpha_powers + 6), v22);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(2u, v6, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v29 = main.base[22ull * main.stride + row];
        const uint64_t v30 = main.base[23ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v29);
        acc3_mad(fa, e3_load(alpha_powers + 6), v30);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(3u, v6, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v37 = main.base[24ull * main.stride + row];
        const uint64_t v38 = main.base[25ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v37);
        acc3_mad(fa, e3_load(alpha_powers + 6), v38);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(4u, v6, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v45 = main.base[0ull * main.stride + row];
        const uint64_t v46 = gl_mul(v45, v6);
        const uint64_t v47 = main.base[1ull * main.stride + row];
        const uint64_t v48 = gl_mul(v47, v2);
        const uint64_t v49 = gl_add(v46, v48);
        const uint64_t v50 = main.base[2ull * main.stride + row];
        const uint64_t v51 = main.base[3ull * main.stride + row];
        const uint64_t v52 = main.base[4ull * main.stride + row];
        const uint64_t v53 = main.base[5ull * main.stride + row];
        const uint64_t v54 = main.base[6ull * main.stride + row];
        const uint64_t v55 = main.base[7ull * main.stride + row];
        const uint64_t v56 = main.base[8ull * main.stride + row];
        const uint64_t v57 = main.base[9ull * main.stride + row];
        const uint64_t v58 = main.base[10ull * main.stride + row];
        const uint64_t v59 = main.base[11ull * main.stride + row];
        const uint64_t v60 = main.base[12ull * main.stride + row];
        const uint64_t v61 = main.base[13ull * main.stride + row];
        const uint64_t v62 = main.base[14ull * main.stride + row];
        const uint64_t v63 = main.base[15ull * main.stride + row];
        const uint64_t v64 = main.base[16ull * main.stride + row];
        const uint64_t v65 = main.base[17ull * main.stride + row];
        const uint64_t v66 = main.base[27ull * main.stride + row];
        const uint64_t v67 = main.base[32ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v49);
        acc3_mad(fa, e3_load(alpha_powers + 3), v50);
        acc3_mad(fa, e3_load(alpha_powers + 6), v51);
        acc3_mad(fa, e3_load(alpha_powers + 9), v52);
        acc3_mad(fa, e3_load(alpha_powers + 12), v53);
        acc3_mad(fa, e3_load(alpha_powers + 15), v54);
        acc3_mad(fa, e3_load(alpha_powers + 18), v55);
        acc3_mad(fa, e3_load(alpha_powers + 21), v56);
        acc3_mad(fa, e3_load(alpha_powers + 24), v57);
        acc3_mad(fa, e3_load(alpha_powers + 27), v58);
        acc3_mad(fa, e3_load(alpha_powers + 30), v59);
        acc3_mad(fa, e3_load(alpha_powers + 33), v60);
        acc3_mad(fa, e3_load(alpha_powers + 36), v61);
        acc3_mad(fa, e3_load(alpha_powers + 39), v62);
        acc3_mad(fa, e3_load(alpha_powers + 42), v63);
        acc3_mad(fa, e3_load(alpha_powers + 45), v64);
        acc3_mad(fa, e3_load(alpha_powers + 48), v65);
        acc3_mad(fa, e3_load(alpha_powers + 51), v66);
        acc3_mad(fa, e3_load(alpha_powers + 54), v0);
        acc3_mad(fa, e3_load(alpha_powers + 57), v0);
        acc3_mad(fa, e3_load(alpha_powers + 60), v0);
        acc3_mad(fa, e3_load(alpha_powers + 63), v0);
        acc3_mad(fa, e3_load(alpha_powers + 66), v0);
        acc3_mad(fa, e3_load(alpha_powers + 69), v0);
        acc3_mad(fa, e3_load(alpha_powers + 72), v0);
        on_interaction(5u, gl_neg(v67), e3_sub(beta, e3_add(e3(15ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_logup_eval_g9e3d5243cd5fa74d(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGen9e3d5243cd5fa74d>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}

// LT byte lookups: 45 instructions, 5 sends
struct KsGen5bda5ab302d866e6 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 5u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 5u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000000ull;
        const uint64_t v1 = main.base[29ull * main.stride + row];
        const uint64_t v2 = 0x0000000000000002ull;
        const uint64_t v3 = gl_mul(v1, v2);
        const uint64_t v4 = main.base[31ull * main.stride + row];
        const uint64_t v5 = gl_mul(v4, v2);
        const uint64_t v6 = 0x0000000000000001ull;
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v3);
        acc3_mad(fa, e3_load(alpha_powers + 6), v5);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(0u, v6, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v13 = main.base[18ull * main.stride + row];
        const uint64_t v14 = main.base[19ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v13);
        acc3_mad(fa, e3_load(alpha_powers + 6), v14);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(1u, v6, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v21 = main.base[20ull * main.stride + row];
        const uint64_t v22 = main.base[21ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v21);
        acc3_mad(fa, e3_load(alpha_powers + 6), v22);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(2u, v6, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v29 = main.base[22ull * main.stride + row];
        const uint64_t v30 = main.base[23ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v29);
        acc3_mad(fa, e3_load(alpha_powers + 6), v30);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(3u, v6, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v37 = main.base[24ull * main.stride + row];
        const uint64_t v38 = main.base[25ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v37);
        acc3_mad(fa, e3_load(alpha_powers + 6), v38);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(4u, v6, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_bytes_g5bda5ab302d866e6(uint64_t *hist, uint32_t *flag, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, const uint64_t *unit, uint32_t bus) {
    ks_bytes_with<KsGen5bda5ab302d866e6>(hist, flag, prog, len, consts, main, pre, log_n, unit, bus);
}
