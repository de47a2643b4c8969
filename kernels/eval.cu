// Evaluations of columns at an extension point: barycentric weights on H_n (traces),
// powers of the point (coefficients), and the weighted column sums. Mirrors
// prover-gpu/src/cuda/eval.rs.
//
// The sums read each column once: a block stages its tile of weights in shared memory and
// walks every column over it. Evaluating a trace at zeta and at zeta*omega needs one set of
// weights, because w'_i = omega^i / (zeta*omega - omega^i) = w_{i-1}: the tile holds one
// weight more, below its first row.
#include "field.cuh"

// Rows of weights one thread computes with one inversion (Montgomery's trick).
#define KS_EVAL_CHUNK 16

// w_i = omega^i / (z - omega^i) (barycentric) when `powers_only` is 0, else w_i = z^i.
// Thread t computes rows [t * KS_EVAL_CHUNK, ...): one power, then successive products;
// the barycentric denominators are inverted together (prefix products stored in w, one
// inversion, then back down with omega^-1). A zero denominator sets `zero_flag`.
extern "C" __global__ void ks_eval_weights(uint64_t *w, uint64_t n, uint64_t omega, uint64_t omega_inv,
                                           uint64_t z0, uint64_t z1, uint64_t z2, uint32_t powers_only,
                                           uint32_t *zero_flag) {
    const ext3 z{z0, z1, z2};
    const uint64_t chunks = (n + KS_EVAL_CHUNK - 1) / KS_EVAL_CHUNK;
    for (uint64_t t = ks_tid(); t < chunks; t += ks_nthreads()) {
        const uint64_t lo = t * KS_EVAL_CHUNK;
        const uint64_t hi = lo + KS_EVAL_CHUNK < n ? lo + KS_EVAL_CHUNK : n;
        if (powers_only) {
            ext3 p = e3_pow(z, lo);
            for (uint64_t i = lo; i < hi; i++) {
                e3_store(w + 3 * i, p);
                p = e3_mul(p, z);
            }
            continue;
        }
        uint64_t o = gl_pow(omega, lo);
        ext3 prefix = e3(1);
        for (uint64_t i = lo; i < hi; i++) {
            prefix = e3_mul(prefix, e3_sub(z, e3(o)));
            e3_store(w + 3 * i, prefix);
            o = gl_mul(o, omega);
        }
        if (e3_is_zero(prefix)) {
            atomicOr(zero_flag, 1u);
            continue;
        }
        ext3 inv = e3_inv(prefix);  // 1 / (d_lo ... d_{hi-1})
        for (uint64_t i = hi; i-- > lo;) {
            o = gl_mul(o, omega_inv);  // omega^i
            const ext3 d = e3_sub(z, e3(o));
            const ext3 below = i > lo ? e3_load(w + 3 * (i - 1)) : e3(1);
            e3_store(w + 3 * i, e3_mul_base(e3_mul(inv, below), o));
            inv = e3_mul(inv, d);
        }
    }
}

__device__ __forceinline__ uint64_t ks_shfl_down(uint64_t v, uint32_t d) {
    return __shfl_down_sync(0xffffffffu, v, d);
}

__device__ __forceinline__ ext3 e3_warp_sum(ext3 a) {
    for (uint32_t d = 16; d > 0; d >>= 1)
        a = e3_add(a, ext3{ks_shfl_down(a.c0, d), ks_shfl_down(a.c1, d), ks_shfl_down(a.c2, d)});
    return a;
}

// Block b sums rows [b*T, (b+1)*T) of every column (column-major, stride n) against the
// weights: partial[3 * (c * gridDim.x + b)] = sum_r w_r * col_c[r], and when `two` is set
// also partial[3 * ((cols + c) * gridDim.x + b)] = sum_r w_{r-1 mod n} * col_c[r].
// T = blockDim.x * rows_per_thread; dynamic shared memory holds T + 1 weights and one
// partial per warp (blockDim.x a multiple of 32, at most 1024). Rows at or past n add 0.
extern "C" __global__ void ks_weighted_col_sums(uint64_t *partial, const uint64_t *m, uint64_t n,
                                                uint32_t cols, const uint64_t *w, uint32_t rows_per_thread,
                                                uint32_t two) {
    extern __shared__ uint64_t sh[];
    const uint32_t T = blockDim.x * rows_per_thread;
    const uint64_t base = (uint64_t)blockIdx.x * T;
    uint64_t *sw = sh;                 // sw[j] = w[(base + j - 1) mod n], j <= T
    uint64_t *red = sh + 3 * (T + 1);  // per warp: z sum, zw sum
    for (uint32_t j = threadIdx.x; j <= T; j += blockDim.x) {
        const uint64_t r = (base + j + n - 1) % n;
        e3_store(sw + 3 * j, e3_load(w + 3 * r));
    }
    __syncthreads();
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    for (uint32_t c = 0; c < cols; c++) {
        const uint64_t *col = m + (uint64_t)c * n + base;
        acc3 sz = acc3_zero(), szw = acc3_zero();
        for (uint32_t k = 0; k < rows_per_thread; k++) {
            const uint32_t j = k * blockDim.x + threadIdx.x;
            const uint64_t v = base + j < n ? col[j] : 0;  // a tile may pass a tiny table's end
            acc3_mad(sz, e3_load(sw + 3 * (j + 1)), v);
            if (two) acc3_mad(szw, e3_load(sw + 3 * j), v);
        }
        ext3 az = e3_warp_sum(acc3_reduce(sz)), azw = acc3_reduce(szw);
        if (two) azw = e3_warp_sum(azw);
        if (lane == 0) {
            e3_store(red + 6 * warp, az);
            e3_store(red + 6 * warp + 3, azw);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            ext3 sz = e3_zero(), szw = e3_zero();
            for (uint32_t i = 0; i < warps; i++) {
                sz = e3_add(sz, e3_load(red + 6 * i));
                szw = e3_add(szw, e3_load(red + 6 * i + 3));
            }
            e3_store(partial + 3 * ((uint64_t)c * gridDim.x + blockIdx.x), sz);
            if (two) e3_store(partial + 3 * ((uint64_t)(cols + c) * gridDim.x + blockIdx.x), szw);
        }
        __syncthreads();
    }
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
