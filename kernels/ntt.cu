// Batched radix-2 NTTs over column-major matrices (column c of length 2^log_n at
// data + c * stride) and the coset low-degree extension built from them; mirrors
// prover-gpu/src/cuda/ntt.rs. Conventions as prover-gpu/src/cpu/ntt.rs: decimation in
// frequency, natural-order input, bit-reversed output; twiddle table t[h + j] = w_{2h}^j.
#include "field.cuh"

// t[i] for i in [1, 2^log_n): with h the largest power of two <= i and j = i - h,
// t[i] = w_{2h}^j (forward) or w_{2h}^{-j} (inverse). `root32` generates the 2^32 roots.
extern "C" __global__ void ks_ntt_twiddles(uint64_t *t, uint32_t log_n, uint64_t root32, uint32_t inverse) {
    uint64_t n = 1ull << log_n;
    for (uint64_t i = ks_tid(); i < n; i += ks_nthreads()) {
        if (i == 0) {
            t[0] = 0;
            continue;
        }
        uint32_t lh = 63 - __clzll(i);
        uint64_t h = 1ull << lh;
        uint64_t j = i - h;
        uint64_t w = root32;  // order 2^32; square down to order 2h = 2^(lh+1)
        for (uint32_t k = lh + 1; k < 32; k++) w = gl_mul(w, w);
        uint64_t e = inverse ? ((2 * h - j) & (2 * h - 1)) : j;
        t[i] = gl_pow(w, e);
    }
}

// DIF stages with half-sizes h = 2^(lo+s-1) down to 2^lo, fused in shared memory. A block
// holds 2^m_log independent sub-transforms of size 2^s; sub-transform t has elements
// q*2^(s+lo) + r*2^lo + o (q = t >> lo, o = t mod 2^lo). Requires lo >= m_log or lo == 0.
extern "C" __global__ void ks_ntt_dif_group(uint64_t *data, uint64_t stride, const uint64_t *tw,
                                            uint32_t log_n, uint32_t lo, uint32_t s, uint32_t m_log) {
    extern __shared__ uint64_t sh[];
    const uint32_t M = 1u << m_log, S = 1u << s, tile = M * S;
    uint64_t *col = data + (uint64_t)blockIdx.y * stride;
    const uint64_t h_lo = 1ull << lo;
    const uint64_t t0 = (uint64_t)blockIdx.x * M;
    const bool m_fast = lo >= m_log;
    for (uint32_t idx = threadIdx.x; idx < tile; idx += blockDim.x) {
        uint32_t m, r;
        if (m_fast) {
            m = idx & (M - 1);
            r = idx >> m_log;
        } else {
            r = idx & (S - 1);
            m = idx >> s;
        }
        uint64_t t = t0 + m;
        uint64_t g = (t >> lo) * (h_lo << s) + (uint64_t)r * h_lo + (t & (h_lo - 1));
        sh[r * M + m] = col[g];
    }
    __syncthreads();
    for (int k = (int)s - 1; k >= 0; k--) {
        const uint32_t half = 1u << k;
        const uint64_t h = h_lo << k;
        for (uint32_t b = threadIdx.x; b < tile / 2; b += blockDim.x) {
            uint32_t m = b & (M - 1);
            uint32_t p = b >> m_log;
            uint32_t r_lo = ((p >> k) << (k + 1)) | (p & (half - 1));
            uint32_t r_hi = r_lo + half;
            uint64_t o = (t0 + m) & (h_lo - 1);
            uint64_t j = (uint64_t)(r_lo & (half - 1)) * h_lo + o;
            uint64_t w = tw[h + j];
            uint64_t a = sh[r_lo * M + m], c = sh[r_hi * M + m];
            sh[r_lo * M + m] = gl_add(a, c);
            sh[r_hi * M + m] = gl_mul(gl_sub(a, c), w);
        }
        __syncthreads();
    }
    for (uint32_t idx = threadIdx.x; idx < tile; idx += blockDim.x) {
        uint32_t m, r;
        if (m_fast) {
            m = idx & (M - 1);
            r = idx >> m_log;
        } else {
            r = idx & (S - 1);
            m = idx >> s;
        }
        uint64_t t = t0 + m;
        uint64_t g = (t >> lo) * (h_lo << s) + (uint64_t)r * h_lo + (t & (h_lo - 1));
        col[g] = sh[r * M + m];
    }
}

// Row-major `rows x cols` (src) to column-major with column stride `dst_stride`:
// dst[c*dst_stride + r] = src[r*cols + c] * pw[r] (pw null: no scaling), zero for r in
// [rows, dst_rows).
extern "C" __global__ void ks_rows_to_cols(uint64_t *dst, uint64_t dst_stride, uint64_t dst_rows,
                                           const uint64_t *src, uint64_t rows, uint32_t cols,
                                           const uint64_t *pw) {
    __shared__ uint64_t tile[32][33];
    uint64_t r0 = (uint64_t)blockIdx.x * 32;
    uint32_t c0 = blockIdx.y * 32;
    // load: threads (x = column, y = row) read row-major coalesced
    for (uint32_t y = threadIdx.y; y < 32; y += blockDim.y) {
        uint64_t r = r0 + y;
        uint32_t c = c0 + threadIdx.x;
        uint64_t v = 0;
        if (r < rows && c < cols) {
            v = src[r * cols + c];
            if (pw) v = gl_mul(v, pw[r]);
        }
        tile[y][threadIdx.x] = v;
    }
    __syncthreads();
    for (uint32_t y = threadIdx.y; y < 32; y += blockDim.y) {
        uint32_t c = c0 + y;
        uint64_t r = r0 + threadIdx.x;
        if (c < cols && r < dst_rows) dst[(uint64_t)c * dst_stride + r] = tile[threadIdx.x][y];
    }
}

// Column-major (column stride `src_stride`) to row-major `rows x cols`.
extern "C" __global__ void ks_cols_to_rows(uint64_t *dst, const uint64_t *src, uint64_t src_stride,
                                           uint64_t rows, uint32_t cols) {
    __shared__ uint64_t tile[32][33];
    uint64_t r0 = (uint64_t)blockIdx.x * 32;
    uint32_t c0 = blockIdx.y * 32;
    for (uint32_t y = threadIdx.y; y < 32; y += blockDim.y) {
        uint32_t c = c0 + y;
        uint64_t r = r0 + threadIdx.x;
        tile[y][threadIdx.x] = (c < cols && r < rows) ? src[(uint64_t)c * src_stride + r] : 0;
    }
    __syncthreads();
    for (uint32_t y = threadIdx.y; y < 32; y += blockDim.y) {
        uint64_t r = r0 + y;
        uint32_t c = c0 + threadIdx.x;
        if (r < rows && c < cols) dst[r * cols + c] = tile[threadIdx.x][y];
    }
}

// out[k] = scale0 * base^k for k < n: each thread runs a chunk of 32 consecutive powers.
extern "C" __global__ void ks_powers(uint64_t *out, uint64_t n, uint64_t scale0, uint64_t base) {
    const uint64_t chunks = (n + 31) / 32;
    for (uint64_t t = ks_tid(); t < chunks; t += ks_nthreads()) {
        uint64_t k0 = t * 32;
        uint64_t v = gl_mul(scale0, gl_pow(base, k0));
        for (uint64_t k = k0; k < k0 + 32 && k < n; k++) {
            out[k] = v;
            v = gl_mul(v, base);
        }
    }
}

// Bit-reversed coefficients of length n (column stride src_stride) to natural order, times
// pw[k], zero-padded to dst_rows (column stride dst_stride).
extern "C" __global__ void ks_bitrev_scale(uint64_t *dst, uint64_t dst_stride, uint64_t dst_rows,
                                           const uint64_t *src, uint64_t src_stride, uint32_t log_n,
                                           uint32_t cols, const uint64_t *pw) {
    uint64_t n = 1ull << log_n;
    uint32_t c = blockIdx.y;
    if (c >= cols) return;
    for (uint64_t k = ks_tid(); k < dst_rows; k += ks_nthreads()) {
        uint64_t v = 0;
        if (k < n) v = gl_mul(src[(uint64_t)c * src_stride + ks_bitrev((uint32_t)k, log_n)], pw[k]);
        dst[(uint64_t)c * dst_stride + k] = v;
    }
}
