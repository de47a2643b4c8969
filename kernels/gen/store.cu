// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// STORE: 183 instructions, 0 constraints, 4 interactions
struct KsGene27fa6d624b548a4 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 4u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 4u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000028ull;
        const uint64_t v1 = main.base[1ull * main.stride + row];
        const uint64_t v2 = main.base[2ull * main.stride + row];
        const uint64_t v3 = 0x0000000000000002ull;
        const uint64_t v4 = gl_mul(v2, v3);
        const uint64_t v5 = gl_add(v1, v4);
        const uint64_t v6 = main.base[3ull * main.stride + row];
        const uint64_t v7 = 0x0000000000000003ull;
        const uint64_t v8 = gl_mul(v6, v7);
        const uint64_t v9 = gl_add(v5, v8);
        const uint64_t v10 = gl_add(v0, v9);
        const uint64_t v11 = main.base[12ull * main.stride + row];
        const uint64_t v12 = 0x0000000000000008ull;
        const uint64_t v13 = gl_mul(v11, v12);
        const uint64_t v14 = 0x0000000000000000ull;
        const uint64_t v15 = main.base[5ull * main.stride + row];
        const uint64_t v16 = 0x0000000000000001ull;
        const uint64_t v17 = gl_mul(v15, v16);
        const uint64_t v18 = gl_add(v14, v17);
        const uint64_t v19 = main.base[6ull * main.stride + row];
        const uint64_t v20 = gl_mul(v19, v3);
        const uint64_t v21 = gl_add(v18, v20);
        const uint64_t v22 = main.base[7ull * main.stride + row];
        const uint64_t v23 = gl_mul(v22, v7);
        const uint64_t v24 = gl_add(v21, v23);
        const uint64_t v25 = main.base[8ull * main.stride + row];
        const uint64_t v26 = 0x0000000000000004ull;
        const uint64_t v27 = gl_mul(v25, v26);
        const uint64_t v28 = gl_add(v24, v27);
        const uint64_t v29 = main.base[9ull * main.stride + row];
        const uint64_t v30 = 0x0000000000000005ull;
        const uint64_t v31 = gl_mul(v29, v30);
        const uint64_t v32 = gl_add(v28, v31);
        const uint64_t v33 = main.base[10ull * main.stride + row];
        const uint64_t v34 = 0x0000000000000006ull;
        const uint64_t v35 = gl_mul(v33, v34);
        const uint64_t v36 = gl_add(v32, v35);
        const uint64_t v37 = main.base[11ull * main.stride + row];
        const uint64_t v38 = 0x0000000000000007ull;
        const uint64_t v39 = gl_mul(v37, v38);
        const uint64_t v40 = gl_add(v36, v39);
        const uint64_t v41 = gl_add(v13, v40);
        const uint64_t v42 = main.base[13ull * main.stride + row];
        const uint64_t v43 = main.base[14ull * main.stride + row];
        const uint64_t v44 = main.base[15ull * main.stride + row];
        const uint64_t v45 = main.base[16ull * main.stride + row];
        const uint64_t v46 = main.base[17ull * main.stride + row];
        const uint64_t v47 = main.base[18ull * main.stride + row];
        const uint64_t v48 = main.base[19ull * main.stride + row];
        const uint64_t v49 = main.base[20ull * main.stride + row];
        const uint64_t v50 = main.base[21ull * main.stride + row];
        const uint64_t v51 = main.base[22ull * main.stride + row];
        const uint64_t v52 = main.base[23ull * main.stride + row];
        const uint64_t v53 = main.base[56ull * main.stride + row];
        const uint64_t v54 = main.base[0ull * main.stride + row];
        const uint64_t v55 = gl_add(v14, v54);
        const uint64_t v56 = gl_add(v55, v1);
        const uint64_t v57 = gl_add(v56, v2);
        const uint64_t v58 = gl_add(v57, v6);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v10);
        acc3_mad(fa, e3_load(alpha_powers + 3), v41);
        acc3_mad(fa, e3_load(alpha_powers + 6), v42);
        acc3_mad(fa, e3_load(alpha_powers + 9), v43);
        acc3_mad(fa, e3_load(alpha_powers + 12), v44);
        acc3_mad(fa, e3_load(alpha_powers + 15), v45);
        acc3_mad(fa, e3_load(alpha_powers + 18), v46);
        acc3_mad(fa, e3_load(alpha_powers + 21), v47);
        acc3_mad(fa, e3_load(alpha_powers + 24), v48);
        acc3_mad(fa, e3_load(alpha_powers + 27), v49);
        acc3_mad(fa, e3_load(alpha_powers + 30), v50);
        acc3_mad(fa, e3_load(alpha_powers + 33), v51);
        acc3_mad(fa, e3_load(alpha_powers + 36), v52);
        acc3_mad(fa, e3_load(alpha_powers + 39), v53);
        on_interaction(0u, gl_neg(v58), e3_sub(beta, e3_add(e3(17ull), acc3_reduce(fa))));
        const uint64_t v75 = 0x0000000000000020ull;
        const uint64_t v76 = gl_mul(v42, v75);
        const uint64_t v77 = gl_add(v11, v76);
        const uint64_t v78 = 0x0000000000002000ull;
        const uint64_t v79 = gl_mul(v43, v78);
        const uint64_t v80 = gl_add(v77, v79);
        const uint64_t v81 = 0x0000000000200000ull;
        const uint64_t v82 = gl_mul(v44, v81);
        const uint64_t v83 = gl_add(v80, v82);
        const uint64_t v84 = main.base[24ull * main.stride + row];
        const uint64_t v85 = main.base[25ull * main.stride + row];
        const uint64_t v86 = main.base[26ull * main.stride + row];
        const uint64_t v87 = main.base[27ull * main.stride + row];
        const uint64_t v88 = main.base[28ull * main.stride + row];
        const uint64_t v89 = main.base[29ull * main.stride + row];
        const uint64_t v90 = main.base[30ull * main.stride + row];
        const uint64_t v91 = main.base[31ull * main.stride + row];
        const uint64_t v92 = main.base[40ull * main.stride + row];
        const uint64_t v93 = main.base[41ull * main.stride + row];
        const uint64_t v94 = main.base[42ull * main.stride + row];
        const uint64_t v95 = main.base[43ull * main.stride + row];
        const uint64_t v96 = main.base[44ull * main.stride + row];
        const uint64_t v97 = main.base[45ull * main.stride + row];
        const uint64_t v98 = main.base[46ull * main.stride + row];
        const uint64_t v99 = main.base[47ull * main.stride + row];
        const uint64_t v100 = main.base[57ull * main.stride + row];
        const uint64_t v101 = gl_sub(v58, v100);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v83);
        acc3_mad(fa, e3_load(alpha_powers + 3), v84);
        acc3_mad(fa, e3_load(alpha_powers + 6), v85);
        acc3_mad(fa, e3_load(alpha_powers + 9), v86);
        acc3_mad(fa, e3_load(alpha_powers + 12), v87);
        acc3_mad(fa, e3_load(alpha_powers + 15), v88);
        acc3_mad(fa, e3_load(alpha_powers + 18), v89);
        acc3_mad(fa, e3_load(alpha_powers + 21), v90);
        acc3_mad(fa, e3_load(alpha_powers + 24), v91);
        acc3_mad(fa, e3_load(alpha_powers + 27), v92);
        acc3_mad(fa, e3_load(alpha_powers + 30), v93);
        acc3_mad(fa, e3_load(alpha_powers + 33), v94);
        acc3_mad(fa, e3_load(alpha_powers + 36), v95);
        acc3_mad(fa, e3_load(alpha_powers + 39), v96);
        acc3_mad(fa, e3_load(alpha_powers + 42), v97);
        acc3_mad(fa, e3_load(alpha_powers + 45), v98);
        acc3_mad(fa, e3_load(alpha_powers + 48), v99);
        acc3_mad(fa, e3_load(alpha_powers + 51), v53);
        acc3_mad(fa, e3_load(alpha_powers + 54), v16);
        on_interaction(1u, v101, e3_sub(beta, e3_add(e3(18ull), acc3_reduce(fa))));
        const uint64_t v123 = main.base[32ull * main.stride + row];
        const uint64_t v124 = main.base[33ull * main.stride + row];
        const uint64_t v125 = main.base[34ull * main.stride + row];
        const uint64_t v126 = main.base[35ull * main.stride + row];
        const uint64_t v127 = main.base[36ull * main.stride + row];
        const uint64_t v128 = main.base[37ull * main.stride + row];
        const uint64_t v129 = main.base[38ull * main.stride + row];
        const uint64_t v130 = main.base[39ull * main.stride + row];
        const uint64_t v131 = main.base[48ull * main.stride + row];
        const uint64_t v132 = main.base[49ull * main.stride + row];
        const uint64_t v133 = main.base[50ull * main.stride + row];
        const uint64_t v134 = main.base[51ull * main.stride + row];
        const uint64_t v135 = main.base[52ull * main.stride + row];
        const uint64_t v136 = main.base[53ull * main.stride + row];
        const uint64_t v137 = main.base[54ull * main.stride + row];
        const uint64_t v138 = main.base[55ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v83);
        acc3_mad(fa, e3_load(alpha_powers + 3), v84);
        acc3_mad(fa, e3_load(alpha_powers + 6), v85);
        acc3_mad(fa, e3_load(alpha_powers + 9), v86);
        acc3_mad(fa, e3_load(alpha_powers + 12), v87);
        acc3_mad(fa, e3_load(alpha_powers + 15), v88);
        acc3_mad(fa, e3_load(alpha_powers + 18), v89);
        acc3_mad(fa, e3_load(alpha_powers + 21), v90);
        acc3_mad(fa, e3_load(alpha_powers + 24), v91);
        acc3_mad(fa, e3_load(alpha_powers + 27), v123);
        acc3_mad(fa, e3_load(alpha_powers + 30), v124);
        acc3_mad(fa, e3_load(alpha_powers + 33), v125);
        acc3_mad(fa, e3_load(alpha_powers + 36), v126);
        acc3_mad(fa, e3_load(alpha_powers + 39), v127);
        acc3_mad(fa, e3_load(alpha_powers + 42), v128);
        acc3_mad(fa, e3_load(alpha_powers + 45), v129);
        acc3_mad(fa, e3_load(alpha_powers + 48), v130);
        acc3_mad(fa, e3_load(alpha_powers + 51), v92);
        acc3_mad(fa, e3_load(alpha_powers + 54), v93);
        acc3_mad(fa, e3_load(alpha_powers + 57), v94);
        acc3_mad(fa, e3_load(alpha_powers + 60), v95);
        acc3_mad(fa, e3_load(alpha_powers + 63), v96);
        acc3_mad(fa, e3_load(alpha_powers + 66), v97);
        acc3_mad(fa, e3_load(alpha_powers + 69), v98);
        acc3_mad(fa, e3_load(alpha_powers + 72), v99);
        acc3_mad(fa, e3_load(alpha_powers + 75), v131);
        acc3_mad(fa, e3_load(alpha_powers + 78), v132);
        acc3_mad(fa, e3_load(alpha_powers + 81), v133);
        acc3_mad(fa, e3_load(alpha_powers + 84), v134);
        acc3_mad(fa, e3_load(alpha_powers + 87), v135);
        acc3_mad(fa, e3_load(alpha_powers + 90), v136);
        acc3_mad(fa, e3_load(alpha_powers + 93), v137);
        acc3_mad(fa, e3_load(alpha_powers + 96), v138);
        acc3_mad(fa, e3_load(alpha_powers + 99), v53);
        acc3_mad(fa, e3_load(alpha_powers + 102), v16);
        on_interaction(2u, v100, e3_sub(beta, e3_add(e3(19ull), acc3_reduce(fa))));
        const uint64_t v176 = gl_mul(v11, v12);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v14);
        acc3_mad(fa, e3_load(alpha_powers + 3), v11);
        acc3_mad(fa, e3_load(alpha_powers + 6), v176);
        acc3_mad(fa, e3_load(alpha_powers + 9), v14);
        on_interaction(3u, v58, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_logup_eval_ge27fa6d624b548a4(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGene27fa6d624b548a4>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}

// STORE byte lookups: 18 instructions, 1 sends
struct KsGen2e0882a111c7b10d {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 1u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 1u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000000ull;
        const uint64_t v1 = main.base[12ull * main.stride + row];
        const uint64_t v2 = 0x0000000000000008ull;
        const uint64_t v3 = gl_mul(v1, v2);
        const uint64_t v4 = main.base[0ull * main.stride + row];
        const uint64_t v5 = gl_add(v0, v4);
        const uint64_t v6 = main.base[1ull * main.stride + row];
        const uint64_t v7 = gl_add(v5, v6);
        const uint64_t v8 = main.base[2ull * main.stride + row];
        const uint64_t v9 = gl_add(v7, v8);
        const uint64_t v10 = main.base[3ull * main.stride + row];
        const uint64_t v11 = gl_add(v9, v10);
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v3);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(0u, v11, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_bytes_g2e0882a111c7b10d(uint64_t *hist, uint32_t *flag, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, const uint64_t *unit, uint32_t bus) {
    ks_bytes_with<KsGen2e0882a111c7b10d>(hist, flag, prog, len, consts, main, pre, log_n, unit, bus);
}
