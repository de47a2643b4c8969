// Evaluations of columns at an extension point: barycentric weights on H_n (traces),
// powers of the point (coefficients), and the weighted column sums. Mirrors
// prover-gpu/src/cuda/eval.rs.
#include "field.cuh"

// w_i = omega^i / (z - omega^i) (barycentric) when `powers_only` is 0, else w_i = z^i.
extern "C" __global__ void ks_eval_weights(uint64_t *w, uint64_t n, uint64_t omega, uint64_t z0, uint64_t z1,
                                           uint64_t z2, uint32_t powers_only, uint32_t *zero_flag) {
    const ext3 z{z0, z1, z2};
    for (uint64_t i = ks_tid(); i < n; i += ks_nthreads()) {
        ext3 r;
        if (powers_only) {
            r = e3_pow(z, i);
        } else {
            uint64_t o = gl_pow(omega, i);
            ext3 d = e3_sub(z, e3(o));
            if (e3_is_zero(d)) atomicOr(zero_flag, 1u);
            r = e3_mul_base(e3_inv(d), o);
        }
        e3_store(w + 3 * i, r);
    }
}

// partial[c * gridDim.x + block] = sum over this block's rows of w_r * col_c[r]
// (column-major matrix with column stride n).
extern "C" __global__ void ks_weighted_col_sums(uint64_t *partial, const uint64_t *m, uint64_t n,
                                                const uint64_t *w) {
    __shared__ uint64_t red[3 * 256];
    const uint32_t c = blockIdx.y;
    ext3 acc = e3_zero();
    for (uint64_t r = ks_tid(); r < n; r += ks_nthreads())
        acc = e3_add(acc, e3_mul_base(e3_load(w + 3 * r), m[(uint64_t)c * n + r]));
    e3_store(red + 3 * threadIdx.x, acc);
    __syncthreads();
    for (uint32_t s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            e3_store(red + 3 * threadIdx.x, e3_add(e3_load(red + 3 * threadIdx.x), e3_load(red + 3 * (threadIdx.x + s))));
        __syncthreads();
    }
    if (threadIdx.x == 0) e3_store(partial + 3 * ((uint64_t)c * gridDim.x + blockIdx.x), e3_load(red));
}

// out[c] = scale * sum_{b < parts} partial[c * parts + b]; one block per column.
extern "C" __global__ void ks_sum_partials(uint64_t *out, const uint64_t *partial, uint32_t parts,
                                           uint64_t s0, uint64_t s1, uint64_t s2) {
    __shared__ uint64_t red[3 * 256];
    const uint32_t c = blockIdx.x;
    ext3 acc = e3_zero();
    for (uint32_t b = threadIdx.x; b < parts; b += blockDim.x)
        acc = e3_add(acc, e3_load(partial + 3 * ((uint64_t)c * parts + b)));
    e3_store(red + 3 * threadIdx.x, acc);
    __syncthreads();
    for (uint32_t s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            e3_store(red + 3 * threadIdx.x, e3_add(e3_load(red + 3 * threadIdx.x), e3_load(red + 3 * (threadIdx.x + s))));
        __syncthreads();
    }
    if (threadIdx.x == 0) e3_store(out + 3 * c, e3_mul(e3_load(red), ext3{s0, s1, s2}));
}
