// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,
// `cuda_source`); do not edit. Regenerate with
// KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs
// Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the
// program's straight-line code in place of the interpreter; the backend picks it when
// the program it compiles at run time has the same fingerprint.
#include "bytes.cuh"
#include "logup.cuh"
#include "quotient.cuh"

// REGISTER: 78 instructions, 4 constraints, 4 interactions
struct KsGen41076e8002a20e7d {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 4u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 4u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000001ull;
        const uint64_t v1 = pre.base[10ull * pre.stride + row];
        const uint64_t v2 = gl_sub(v0, v1);
        const uint64_t v3 = main.base[9ull * main.stride + row];
        const uint64_t v4 = gl_mul(v2, v3);
        on_constraint(0u, v4);
        const uint64_t v6 = gl_sub(v0, v1);
        const uint64_t v7 = main.base[10ull * main.stride + row];
        const uint64_t v8 = gl_mul(v6, v7);
        on_constraint(0u, v8);
        const uint64_t v10 = gl_sub(v0, v1);
        const uint64_t v11 = main.base[11ull * main.stride + row];
        const uint64_t v12 = gl_mul(v10, v11);
        on_constraint(0u, v12);
        const uint64_t v14 = gl_sub(v0, v1);
        const uint64_t v15 = main.base[12ull * main.stride + row];
        const uint64_t v16 = gl_mul(v14, v15);
        on_constraint(0u, v16);
        const uint64_t v18 = 0x0000000000000000ull;
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v18);
        acc3_mad(fa, e3_load(alpha_powers + 3), v3);
        acc3_mad(fa, e3_load(alpha_powers + 6), v7);
        acc3_mad(fa, e3_load(alpha_powers + 9), v18);
        on_interaction(0u, v1, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v18);
        acc3_mad(fa, e3_load(alpha_powers + 3), v11);
        acc3_mad(fa, e3_load(alpha_powers + 6), v15);
        acc3_mad(fa, e3_load(alpha_powers + 9), v18);
        on_interaction(1u, v1, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v31 = pre.base[0ull * pre.stride + row];
        const uint64_t v32 = pre.base[1ull * pre.stride + row];
        const uint64_t v33 = gl_add(v32, v3);
        const uint64_t v34 = pre.base[2ull * pre.stride + row];
        const uint64_t v35 = gl_add(v34, v7);
        const uint64_t v36 = pre.base[3ull * pre.stride + row];
        const uint64_t v37 = gl_add(v36, v11);
        const uint64_t v38 = pre.base[4ull * pre.stride + row];
        const uint64_t v39 = gl_add(v38, v15);
        const uint64_t v40 = pre.base[5ull * pre.stride + row];
        const uint64_t v41 = pre.base[6ull * pre.stride + row];
        const uint64_t v42 = pre.base[7ull * pre.stride + row];
        const uint64_t v43 = pre.base[8ull * pre.stride + row];
        const uint64_t v44 = pre.base[9ull * pre.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v31);
        acc3_mad(fa, e3_load(alpha_powers + 3), v33);
        acc3_mad(fa, e3_load(alpha_powers + 6), v35);
        acc3_mad(fa, e3_load(alpha_powers + 9), v37);
        acc3_mad(fa, e3_load(alpha_powers + 12), v39);
        acc3_mad(fa, e3_load(alpha_powers + 15), v40);
        acc3_mad(fa, e3_load(alpha_powers + 18), v41);
        acc3_mad(fa, e3_load(alpha_powers + 21), v42);
        acc3_mad(fa, e3_load(alpha_powers + 24), v43);
        acc3_mad(fa, e3_load(alpha_powers + 27), v18);
        on_interaction(2u, v44, e3_sub(beta, e3_add(e3(13ull), acc3_reduce(fa))));
        const uint64_t v57 = main.base[0ull * main.stride + row];
        const uint64_t v58 = main.base[1ull * main.stride + row];
        const uint64_t v59 = main.base[2ull * main.stride + row];
        const uint64_t v60 = main.base[3ull * main.stride + row];
        const uint64_t v61 = main.base[4ull * main.stride + row];
        const uint64_t v62 = main.base[5ull * main.stride + row];
        const uint64_t v63 = main.base[6ull * main.stride + row];
        const uint64_t v64 = main.base[7ull * main.stride + row];
        const uint64_t v65 = main.base[8ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v31);
        acc3_mad(fa, e3_load(alpha_powers + 3), v57);
        acc3_mad(fa, e3_load(alpha_powers + 6), v58);
        acc3_mad(fa, e3_load(alpha_powers + 9), v59);
        acc3_mad(fa, e3_load(alpha_powers + 12), v60);
        acc3_mad(fa, e3_load(alpha_powers + 15), v61);
        acc3_mad(fa, e3_load(alpha_powers + 18), v62);
        acc3_mad(fa, e3_load(alpha_powers + 21), v63);
        acc3_mad(fa, e3_load(alpha_powers + 24), v64);
        acc3_mad(fa, e3_load(alpha_powers + 27), v65);
        on_interaction(3u, gl_neg(v44), e3_sub(beta, e3_add(e3(13ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_quotient_eval_g41076e8002a20e7d(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {
    ks_quotient_eval_with<KsGen41076e8002a20e7d>(out, q, zero_flag);
}

// REGISTER: 65 instructions, 0 constraints, 4 interactions
struct KsGen07f5e1c567551f77 {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 4u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 4u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000000ull;
        const uint64_t v1 = main.base[9ull * main.stride + row];
        const uint64_t v2 = main.base[10ull * main.stride + row];
        const uint64_t v3 = pre.base[10ull * pre.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(0u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v10 = main.base[11ull * main.stride + row];
        const uint64_t v11 = main.base[12ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v10);
        acc3_mad(fa, e3_load(alpha_powers + 6), v11);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(1u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v18 = pre.base[0ull * pre.stride + row];
        const uint64_t v19 = pre.base[1ull * pre.stride + row];
        const uint64_t v20 = gl_add(v19, v1);
        const uint64_t v21 = pre.base[2ull * pre.stride + row];
        const uint64_t v22 = gl_add(v21, v2);
        const uint64_t v23 = pre.base[3ull * pre.stride + row];
        const uint64_t v24 = gl_add(v23, v10);
        const uint64_t v25 = pre.base[4ull * pre.stride + row];
        const uint64_t v26 = gl_add(v25, v11);
        const uint64_t v27 = pre.base[5ull * pre.stride + row];
        const uint64_t v28 = pre.base[6ull * pre.stride + row];
        const uint64_t v29 = pre.base[7ull * pre.stride + row];
        const uint64_t v30 = pre.base[8ull * pre.stride + row];
        const uint64_t v31 = pre.base[9ull * pre.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v18);
        acc3_mad(fa, e3_load(alpha_powers + 3), v20);
        acc3_mad(fa, e3_load(alpha_powers + 6), v22);
        acc3_mad(fa, e3_load(alpha_powers + 9), v24);
        acc3_mad(fa, e3_load(alpha_powers + 12), v26);
        acc3_mad(fa, e3_load(alpha_powers + 15), v27);
        acc3_mad(fa, e3_load(alpha_powers + 18), v28);
        acc3_mad(fa, e3_load(alpha_powers + 21), v29);
        acc3_mad(fa, e3_load(alpha_powers + 24), v30);
        acc3_mad(fa, e3_load(alpha_powers + 27), v0);
        on_interaction(2u, v31, e3_sub(beta, e3_add(e3(13ull), acc3_reduce(fa))));
        const uint64_t v44 = main.base[0ull * main.stride + row];
        const uint64_t v45 = main.base[1ull * main.stride + row];
        const uint64_t v46 = main.base[2ull * main.stride + row];
        const uint64_t v47 = main.base[3ull * main.stride + row];
        const uint64_t v48 = main.base[4ull * main.stride + row];
        const uint64_t v49 = main.base[5ull * main.stride + row];
        const uint64_t v50 = main.base[6ull * main.stride + row];
        const uint64_t v51 = main.base[7ull * main.stride + row];
        const uint64_t v52 = main.base[8ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v18);
        acc3_mad(fa, e3_load(alpha_powers + 3), v44);
        acc3_mad(fa, e3_load(alpha_powers + 6), v45);
        acc3_mad(fa, e3_load(alpha_powers + 9), v46);
        acc3_mad(fa, e3_load(alpha_powers + 12), v47);
        acc3_mad(fa, e3_load(alpha_powers + 15), v48);
        acc3_mad(fa, e3_load(alpha_powers + 18), v49);
        acc3_mad(fa, e3_load(alpha_powers + 21), v50);
        acc3_mad(fa, e3_load(alpha_powers + 24), v51);
        acc3_mad(fa, e3_load(alpha_powers + 27), v52);
        on_interaction(3u, gl_neg(v31), e3_sub(beta, e3_add(e3(13ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_logup_eval_g07f5e1c567551f77(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsGen07f5e1c567551f77>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}

// REGISTER byte lookups: 18 instructions, 2 sends
struct KsGen0a31dd254e5b3a4f {
    static constexpr bool kStraightLine = true;
    static constexpr uint32_t kInteractions = 2u;
    static __device__ __forceinline__ uint32_t interactions(uint32_t) { return 2u; }

    template <typename C, typename I>
    static __device__ __forceinline__ void run(const uint4 *, uint32_t, const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {
        acc3 fa = acc3_zero();
        (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;
        const uint64_t v0 = 0x0000000000000000ull;
        const uint64_t v1 = main.base[9ull * main.stride + row];
        const uint64_t v2 = main.base[10ull * main.stride + row];
        const uint64_t v3 = pre.base[10ull * pre.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v1);
        acc3_mad(fa, e3_load(alpha_powers + 6), v2);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(0u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
        const uint64_t v10 = main.base[11ull * main.stride + row];
        const uint64_t v11 = main.base[12ull * main.stride + row];
        fa = acc3_zero();
        acc3_mad(fa, e3_load(alpha_powers + 0), v0);
        acc3_mad(fa, e3_load(alpha_powers + 3), v10);
        acc3_mad(fa, e3_load(alpha_powers + 6), v11);
        acc3_mad(fa, e3_load(alpha_powers + 9), v0);
        on_interaction(1u, v3, e3_sub(beta, e3_add(e3(14ull), acc3_reduce(fa))));
    }
};
extern "C" __global__ void ks_bytes_g0a31dd254e5b3a4f(uint64_t *hist, uint32_t *flag, const uint4 *prog, uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, uint32_t log_n, const uint64_t *unit, uint32_t bus) {
    ks_bytes_with<KsGen0a31dd254e5b3a4f>(hist, flag, prog, len, consts, main, pre, log_n, unit, bus);
}
