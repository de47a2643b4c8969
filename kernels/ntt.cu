// Batched radix-2 NTTs over column-major matrices (column c of length 2^log_n at
// data + c * stride) and the coset low-degree extension built from them; mirrors
// prover-gpu/src/cuda/ntt.rs. Conventions as prover-gpu/src/cpu/ntt.rs: decimation in
// frequency, natural-order input, bit-reversed output; twiddle table t[h + j] = w_{2h}^j.
#include "field.cuh"

// t[i] for i in [1, 2^log_n): with h the largest power of two <= i and j = i - h,
// t[i] = w_{2h}^j (forward) or w_{2h}^{-j} (inverse). `root32` generates the 2^32 roots.
// Each thread fills a chunk of 32 consecutive entries: one power where the chunk starts (or
// enters a new h), then one multiplication per entry (the same field values as a power per
// entry, at a thirtieth of the multiplications).
extern "C" __global__ void ks_ntt_twiddles(uint64_t *t, uint32_t log_n, uint64_t root32, uint32_t inverse) {
    const uint64_t n = 1ull << log_n;
    const uint64_t chunks = (n + 31) / 32;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        uint64_t i = c * 32;
        const uint64_t end = i + 32 < n ? i + 32 : n;
        if (i == 0) {
            t[0] = 0;
            i = 1;
        }
        uint64_t v = 0, step = 0, h_cur = 0;
        for (; i < end; i++) {
            const uint32_t lh = 63 - __clzll(i);
            const uint64_t h = 1ull << lh;
            if (h != h_cur) {
                uint64_t w = root32;  // order 2^32; square down to order 2h = 2^(lh+1)
                for (uint32_t k = lh + 1; k < 32; k++) w = gl_mul(w, w);
                step = inverse ? gl_pow(w, 2 * h - 1) : w;  // w^(2h-1) = w^-1
                v = gl_pow(step, i - h);
                h_cur = h;
            } else {
                v = gl_mul(v, step);
            }
            t[i] = v;
        }
    }
}

// DIF stages with half-sizes h = 2^(lo+s-1) down to 2^lo, fused in one pass over global
// memory. A block holds M = 2^m_log independent sub-transforms of size S = 2^s; sub-transform
// t = t0 + m has elements g = q*2^(s+lo) + r*2^lo + o (q = t >> lo, o = t mod 2^lo),
// r in [0, S). Requires lo >= m_log (m_log = 0 when lo = 0).
//
// Exact rewrite of the radix-2 stages: the stage twiddle w_{2h}^{(r mod 2^k)*2^lo + o}
// (h = 2^(lo+k)) is w_{2^(k+1)}^{r mod 2^k} * w_{2h}^o. The first factor is the twiddle of
// a plain size-S DIF (table prefix t[2^k + j]); the o-factors along every butterfly path
// into output position r multiply to w_{2^(lo+s)}^{o * bitrev_s(r)}, applied once at the
// end. Each thread holds 2^EL elements in registers and runs up to EL stages per round
// (radix 2^EL); shared memory (padded against bank conflicts) is only the exchange.
//
// With `src` non-null the pass is the first of a coset LDE (lo + s = log_n, so q = 0): the
// input element g is src[bitrev_{log_src}(g)] * pw[g] for g < 2^log_src and 0 above, read
// straight from the bit-reversed coefficients (no separate scatter/pad pass; with
// `natural`, from coefficients in natural order: src[g]). With log_b > 0 the columns are the
// 2^log_b blocks of each source column's LDE (column y reads source column y >> log_b and
// scale table pw + (y mod 2^log_b) * 2^log_src).
#define KS_NTT_MAX_EL 4

// Exact Goldilocks add/sub/mul for the butterflies: canonical in and out, the same values as
// field.cuh's gl_add/gl_sub/gl_mul, with explicit 32-bit carry chains instead of 64-bit
// compares (a butterfly is about 38 SASS instructions instead of about 50).
__device__ __forceinline__ uint64_t ks_nt_pack(uint32_t lo, uint32_t hi) {
    return ((uint64_t)hi << 32) | lo;
}

// a + b for a, b < p: s = a + b (65 bits) is < 2p, and s >= p exactly when s + eps >= 2^64,
// i.e. when a + b or (a + b mod 2^64) + eps carries (never both); then the result is
// s - p = (a + b + eps) mod 2^64.
__device__ __forceinline__ uint64_t ks_nt_add(uint64_t a, uint64_t b) {
    uint32_t r0, r1;
    asm("{\n\t.reg .u32 s0, s1, w0, w1, c, z;\n\t.reg .pred p;\n\t"
        "mov.u32 z, 0;\n\t"
        "add.cc.u32 s0, %2, %4;\n\t"
        "addc.cc.u32 s1, %3, %5;\n\t"
        "addc.u32 c, z, z;\n\t"
        "add.cc.u32 w0, s0, 0xffffffff;\n\t"
        "addc.cc.u32 w1, s1, z;\n\t"
        "addc.u32 c, c, z;\n\t"
        "setp.ne.u32 p, c, 0;\n\t"
        "selp.b32 %0, w0, s0, p;\n\t"
        "selp.b32 %1, w1, s1, p;\n\t}"
        : "=r"(r0), "=r"(r1)
        : "r"((uint32_t)a), "r"((uint32_t)(a >> 32)), "r"((uint32_t)b), "r"((uint32_t)(b >> 32)));
    return ks_nt_pack(r0, r1);
}

// a - b for a, b < p: on a borrow, a - b + 2^64 - eps = a - b + p (no second borrow).
__device__ __forceinline__ uint64_t ks_nt_sub(uint64_t a, uint64_t b) {
    uint32_t r0, r1;
    asm("{\n\t.reg .u32 d0, d1, m, z;\n\t"
        "mov.u32 z, 0;\n\t"
        "sub.cc.u32 d0, %2, %4;\n\t"
        "subc.cc.u32 d1, %3, %5;\n\t"
        "subc.u32 m, z, z;\n\t"
        "sub.cc.u32 %0, d0, m;\n\t"
        "subc.u32 %1, d1, z;\n\t}"
        : "=r"(r0), "=r"(r1)
        : "r"((uint32_t)a), "r"((uint32_t)(a >> 32)), "r"((uint32_t)b), "r"((uint32_t)(b >> 32)));
    return ks_nt_pack(r0, r1);
}

// a * b = lo + 2^64 (h0 + 2^32 h1) = lo + h0 eps - h1 (mod p). t = lo - h1 (+ p on a
// borrow) < 2^64; e = h0 eps = 2^32 h0 - h0 <= 2^64 - 2^33 + 1; V = t + e <= 2p - 2, so one
// conditional subtraction of p (V >= p exactly when V + eps carries out of 65 bits).
__device__ __forceinline__ uint64_t ks_nt_mul(uint64_t a, uint64_t b) {
    const uint64_t lo = a * b, hi = __umul64hi(a, b);
    uint32_t r0, r1;
    asm("{\n\t.reg .u32 t0, t1, m, e0, e1, u0, u1, w0, w1, c, z;\n\t.reg .pred p;\n\t"
        "mov.u32 z, 0;\n\t"
        "sub.cc.u32 t0, %2, %5;\n\t"
        "subc.cc.u32 t1, %3, z;\n\t"
        "subc.u32 m, z, z;\n\t"
        "sub.cc.u32 t0, t0, m;\n\t"
        "subc.u32 t1, t1, z;\n\t"
        "sub.cc.u32 e0, z, %4;\n\t"
        "subc.u32 e1, %4, z;\n\t"
        "add.cc.u32 u0, t0, e0;\n\t"
        "addc.cc.u32 u1, t1, e1;\n\t"
        "addc.u32 c, z, z;\n\t"
        "add.cc.u32 w0, u0, 0xffffffff;\n\t"
        "addc.cc.u32 w1, u1, z;\n\t"
        "addc.u32 c, c, z;\n\t"
        "setp.ne.u32 p, c, 0;\n\t"
        "selp.b32 %0, w0, u0, p;\n\t"
        "selp.b32 %1, w1, u1, p;\n\t}"
        : "=r"(r0), "=r"(r1)
        : "r"((uint32_t)lo), "r"((uint32_t)(lo >> 32)), "r"((uint32_t)hi), "r"((uint32_t)(hi >> 32)));
    return ks_nt_pack(r0, r1);
}


__device__ __forceinline__ uint32_t ks_sh_pad(uint32_t idx) { return idx + (idx >> 4); }

// One round: bits [kl, kl + C) of r, i.e. local stages k = kl + C - 1 down to kl, on the
// groups of 2^C elements that differ only in those bits. Thread x takes groups x + i*T.
template <int EL, int C>
__device__ __forceinline__ void ks_ntt_round(uint64_t *sh, const uint64_t *tw, uint32_t m_log,
                                             uint32_t kl, const uint64_t *src, const uint64_t *pw,
                                             uint32_t log_src, uint32_t lo, uint32_t o0, bool natural) {
    constexpr int E = 1 << EL, NG = 1 << (EL - C), G = 1 << C;
    const uint32_t T = blockDim.x, M = 1u << m_log;
    uint64_t v[E];
    uint32_t base[NG], rl[NG];
#pragma unroll
    for (int i = 0; i < NG; i++) {
        const uint32_t g = threadIdx.x + i * T;
        const uint32_t m = g & (M - 1), rest = g >> m_log;
        const uint32_t r_other = (rest & ((1u << kl) - 1)) | ((rest >> kl) << (kl + C));
        rl[i] = r_other & ((1u << kl) - 1);
        base[i] = r_other * M + m;  // shared index of element jj: base + (jj << kl) * M
        if (src) {
            // First round of an LDE's first pass: gather the scaled coefficients.
            const uint64_t n_src = 1ull << log_src;
#pragma unroll
            for (int jj = 0; jj < G; jj++) {
                const uint64_t gc = ((uint64_t)(r_other | ((uint32_t)jj << kl)) << lo) + o0 + m;
                uint64_t x = 0;
                if (gc < n_src) x = ks_nt_mul(src[natural ? gc : ks_bitrev((uint32_t)gc, log_src)], pw[gc]);
                v[i * G + jj] = x;
            }
        } else {
#pragma unroll
            for (int jj = 0; jj < G; jj++) v[i * G + jj] = sh[ks_sh_pad(base[i] + (((uint32_t)jj << kl) << m_log))];
        }
    }
#pragma unroll
    for (int b = C - 1; b >= 0; b--) {
        const uint32_t k = kl + b;
#pragma unroll
        for (int i = 0; i < NG; i++) {
            const uint64_t *twk = tw + (1u << k) + rl[i];
#pragma unroll
            for (int jj = 0; jj < G; jj++) {
                if (jj & (1 << b)) continue;
                const int lo_i = i * G + jj, hi_i = lo_i + (1 << b);
                const uint64_t a = v[lo_i], d = v[hi_i];
                v[lo_i] = ks_nt_add(a, d);
                const uint64_t diff = ks_nt_sub(a, d);
                if (b == 0 && kl == 0) {
                    v[hi_i] = diff;  // local stage 0: twiddle w_2^0 = 1
                } else {
                    v[hi_i] = ks_nt_mul(diff, __ldg(twk + (((uint32_t)jj & ((1u << b) - 1)) << kl)));
                }
            }
        }
    }
#pragma unroll
    for (int i = 0; i < NG; i++) {
#pragma unroll
        for (int jj = 0; jj < G; jj++) sh[ks_sh_pad(base[i] + (((uint32_t)jj << kl) << m_log))] = v[i * G + jj];
    }
}

template <int EL, int C>
__device__ __forceinline__ void ks_ntt_round_c(uint32_t c, uint64_t *sh, const uint64_t *tw,
                                               uint32_t m_log, uint32_t kl, const uint64_t *src,
                                               const uint64_t *pw, uint32_t log_src, uint32_t lo,
                                               uint32_t o0, bool natural) {
    if constexpr (C >= 1) {
        if (c == C) {
            ks_ntt_round<EL, C>(sh, tw, m_log, kl, src, pw, log_src, lo, o0, natural);
        } else {
            ks_ntt_round_c<EL, C - 1>(c, sh, tw, m_log, kl, src, pw, log_src, lo, o0, natural);
        }
    }
}

template <int EL>
__device__ __forceinline__ void ks_ntt_pass(uint64_t *col, const uint64_t *tw, uint32_t lo,
                                            uint32_t s, uint32_t m_log, const uint64_t *src,
                                            const uint64_t *pw, uint32_t log_src, bool natural) {
    extern __shared__ uint64_t sh[];
    const uint32_t M = 1u << m_log, T = blockDim.x;
    const uint64_t h_lo = 1ull << lo;
    const uint64_t t0 = (uint64_t)blockIdx.x * M;
    const uint64_t q = t0 >> lo;                    // same for the whole block (M <= 2^lo)
    const uint32_t o0 = (uint32_t)(t0 & (h_lo - 1));  // o of sub-transform m is o0 + m
    uint64_t *base = col + q * (h_lo << s) + o0;     // element (m, r) at base[r * h_lo + m]
    if (!src) {
        // tile = T * 2^EL: a fixed count per thread, so every load is in flight at once.
#pragma unroll
        for (uint32_t j = 0; j < (1u << EL); j++) {
            const uint32_t idx = threadIdx.x + j * T;
            const uint32_t m = idx & (M - 1), r = idx >> m_log;
            sh[ks_sh_pad(idx)] = base[(uint64_t)r * h_lo + m];
        }
        __syncthreads();
    }
    // Rounds of balanced sizes (e.g. 13 stages at EL = 4: 4 + 3 + 3 + 3), top bits first.
    const uint32_t rounds = (s + EL - 1) / EL;
    uint32_t kh = s;
    for (uint32_t rd = 0; rd < rounds; rd++) {
        const uint32_t c = s / rounds + (rd < s % rounds ? 1 : 0);
        const uint32_t kl = kh - c;
        kh = kl;
        ks_ntt_round_c<EL, EL>(c, sh, tw, m_log, kl, rd == 0 ? src : nullptr, pw, log_src, lo, o0, natural);
        __syncthreads();
    }
    if (lo == 0) {
#pragma unroll
        for (uint32_t j = 0; j < (1u << EL); j++) {
            const uint32_t idx = threadIdx.x + j * T;
            base[idx] = sh[ks_sh_pad(idx)];
        }
    } else {
        // Output r of sub-transform m times w_{2^(lo+s)}^{(o0+m) * bitrev_s(r)}.
        const uint64_t half = 1ull << (lo + s - 1);
#pragma unroll
        for (uint32_t j = 0; j < (1u << EL); j++) {
            const uint32_t idx = threadIdx.x + j * T;
            const uint32_t m = idx & (M - 1), r = idx >> m_log;
            const uint64_t e = (uint64_t)(o0 + m) * ks_bitrev(r, s);
            uint64_t x = sh[ks_sh_pad(idx)];
            if (e != 0) {
                const uint64_t w = e < half ? __ldg(tw + half + e) : gl_neg(__ldg(tw + e));
                x = ks_nt_mul(x, w);
            }
            base[(uint64_t)r * h_lo + m] = x;
        }
    }
}

// Launch: grid (2^log_n / tile, columns), block tile / 2^EL threads with
// EL = min(KS_NTT_MAX_EL, s + m_log), dynamic shared memory ks_sh_pad(tile - 1) + 1 words.
extern "C" __global__ void __launch_bounds__(512, 2)
    ks_ntt_dif_group(uint64_t *data, uint64_t stride, const uint64_t *tw, uint32_t lo, uint32_t s,
                     uint32_t m_log, const uint64_t *src, uint64_t src_stride, const uint64_t *pw,
                     uint32_t log_src, uint32_t log_b, uint32_t natural) {
    uint64_t *col = data + (uint64_t)blockIdx.y * stride;
    const uint64_t *scol = src ? src + (uint64_t)(blockIdx.y >> log_b) * src_stride : nullptr;
    if (src) pw += (uint64_t)(blockIdx.y & ((1u << log_b) - 1)) << log_src;
    const uint32_t tl = s + m_log;
    const uint32_t el = tl < KS_NTT_MAX_EL ? tl : KS_NTT_MAX_EL;
    switch (el) {
        case 4: ks_ntt_pass<4>(col, tw, lo, s, m_log, scol, pw, log_src, natural != 0); break;
        case 3: ks_ntt_pass<3>(col, tw, lo, s, m_log, scol, pw, log_src, natural != 0); break;
        case 2: ks_ntt_pass<2>(col, tw, lo, s, m_log, scol, pw, log_src, natural != 0); break;
        default: ks_ntt_pass<1>(col, tw, lo, s, m_log, scol, pw, log_src, natural != 0); break;
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

// The 2^log_b tables out[t * 2^log_n + k] = scale * s_t^k, s_t = shift * root^bitrev_{log_b}(t)
// (root: the LDE domain's generator): each thread runs a chunk of 32 consecutive entries,
// one power where the chunk starts or enters a new table, then one multiplication each.
extern "C" __global__ void ks_block_powers(uint64_t *out, uint32_t log_n, uint32_t log_b,
                                           uint64_t scale, uint64_t shift, uint64_t root) {
    const uint64_t total = 1ull << (log_n + log_b), n_mask = (1ull << log_n) - 1;
    const uint64_t chunks = (total + 31) / 32;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        const uint64_t k0 = c * 32, end = k0 + 32 < total ? k0 + 32 : total;
        uint64_t v = 0, s_t = 0;
        for (uint64_t k = k0; k < end; k++) {
            const uint64_t j = k & n_mask;
            if (k == k0 || j == 0) {
                const uint32_t t = (uint32_t)(k >> log_n);
                const uint32_t rt = ks_bitrev(t, log_b);
                s_t = gl_mul(shift, gl_pow(root, rt));
                v = gl_mul(scale, gl_pow(s_t, j));
            } else {
                v = gl_mul(v, s_t);
            }
            out[k] = v;
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
