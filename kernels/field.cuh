// Goldilocks (p = 2^64 - 2^32 + 1) and its cubic extension F_p[X]/(X^3 - 7), mirroring
// core/src/field. Every function takes and returns canonical values (< p), so results are
// bit-identical to the CPU backend's.
#pragma once
#include <cstdint>

#define KS_P 0xFFFFFFFF00000001ull
#define KS_EPS 0xFFFFFFFFull

__device__ __forceinline__ uint64_t gl_canon(uint64_t x) { return x >= KS_P ? x - KS_P : x; }

__device__ __forceinline__ uint64_t gl_add(uint64_t a, uint64_t b) {
    uint64_t s = a + b;
    if (s < a) return s + KS_EPS;  // wrapped: s + 2^64 = s + eps (mod p), stays < p
    return gl_canon(s);
}

__device__ __forceinline__ uint64_t gl_sub(uint64_t a, uint64_t b) {
    uint64_t d = a - b;
    if (a < b) d -= KS_EPS;  // d - 2^64 + p
    return d;
}

__device__ __forceinline__ uint64_t gl_neg(uint64_t a) { return a == 0 ? 0 : KS_P - a; }

__device__ __forceinline__ uint64_t gl_reduce128(uint64_t lo, uint64_t hi) {
    uint64_t hi_hi = hi >> 32;
    uint64_t hi_lo = hi & KS_EPS;
    uint64_t t0 = lo - hi_hi;
    if (lo < hi_hi) t0 -= KS_EPS;
    uint64_t t1 = hi_lo * KS_EPS;
    uint64_t t2 = t0 + t1;
    if (t2 < t1) t2 += KS_EPS;
    return gl_canon(t2);
}

__device__ __forceinline__ uint64_t gl_mul(uint64_t a, uint64_t b) {
    return gl_reduce128(a * b, __umul64hi(a, b));
}

__device__ __forceinline__ uint64_t gl_pow(uint64_t base, uint64_t e) {
    uint64_t acc = 1;
    while (e) {
        if (e & 1) acc = gl_mul(acc, base);
        base = gl_mul(base, base);
        e >>= 1;
    }
    return acc;
}

// x^(2^k) by k squarings.
__device__ __forceinline__ uint64_t gl_sqn(uint64_t x, uint32_t k) {
    for (uint32_t i = 0; i < k; i++) x = gl_mul(x, x);
    return x;
}

// Inverse by Fermat, a^(p-2) with p - 2 = 2^64 - 2^32 - 1, by an addition chain of 64
// squarings and 9 multiplications (t_k = a^(2^k - 1)): a^(p-2) = t_31^(2^33) * t_32.
// 0 maps to 0 (callers flag it).
__device__ __forceinline__ uint64_t gl_inv(uint64_t a) {
    const uint64_t t1 = a;
    const uint64_t t2 = gl_mul(gl_sqn(t1, 1), t1);
    const uint64_t t3 = gl_mul(gl_sqn(t2, 1), t1);
    const uint64_t t6 = gl_mul(gl_sqn(t3, 3), t3);
    const uint64_t t12 = gl_mul(gl_sqn(t6, 6), t6);
    const uint64_t t24 = gl_mul(gl_sqn(t12, 12), t12);
    const uint64_t t30 = gl_mul(gl_sqn(t24, 6), t6);
    const uint64_t t31 = gl_mul(gl_sqn(t30, 1), t1);
    const uint64_t t32 = gl_mul(gl_sqn(t31, 1), t1);
    return gl_mul(gl_sqn(t31, 33), t32);
}

__device__ __forceinline__ uint32_t ks_bitrev(uint32_t i, uint32_t bits) {
    return bits == 0 ? 0 : (__brev(i) >> (32 - bits));
}

// A sum of up to 2^32 products of canonical values, unreduced: top * 2^128 + hi * 2^64 + lo.
// Dot products accumulate here and reduce once (`acc_reduce`), equal to summing reduced
// products (the field's arithmetic is exact).
struct acc192 {
    uint64_t lo, hi;
    uint32_t top;
};

__device__ __forceinline__ acc192 acc_zero() { return acc192{0, 0, 0}; }

// s += a * b.
__device__ __forceinline__ void acc_mad(acc192 &s, uint64_t a, uint64_t b) {
    const uint64_t lo = a * b, hi = __umul64hi(a, b);  // hi <= 2^64 - 2: hi + carry fits
    asm("add.cc.u64 %0, %0, %3;\n\t"
        "addc.cc.u64 %1, %1, %4;\n\t"
        "addc.u32 %2, %2, 0;"
        : "+l"(s.lo), "+l"(s.hi), "+r"(s.top)
        : "l"(lo), "l"(hi));
}

// The canonical value of s: 2^128 = -2^32 (mod p), and top < 2^32 so top * 2^32 < p.
__device__ __forceinline__ uint64_t acc_reduce(acc192 s) {
    return gl_sub(gl_reduce128(s.lo, s.hi), (uint64_t)s.top << 32);
}

struct ext3 {
    uint64_t c0, c1, c2;
};

__device__ __forceinline__ ext3 e3(uint64_t a) { return ext3{a, 0, 0}; }
__device__ __forceinline__ ext3 e3_zero() { return ext3{0, 0, 0}; }

__device__ __forceinline__ ext3 e3_add(ext3 a, ext3 b) {
    return ext3{gl_add(a.c0, b.c0), gl_add(a.c1, b.c1), gl_add(a.c2, b.c2)};
}
__device__ __forceinline__ ext3 e3_sub(ext3 a, ext3 b) {
    return ext3{gl_sub(a.c0, b.c0), gl_sub(a.c1, b.c1), gl_sub(a.c2, b.c2)};
}
__device__ __forceinline__ ext3 e3_mul_base(ext3 a, uint64_t b) {
    return ext3{gl_mul(a.c0, b), gl_mul(a.c1, b), gl_mul(a.c2, b)};
}
__device__ __forceinline__ uint64_t gl_mul7(uint64_t a) { return gl_mul(a, 7); }

// (a0 + a1 X + a2 X^2)(b0 + b1 X + b2 X^2) with X^3 = 7: each coordinate a sum of three
// products (7 folded into b1, b2 first) accumulated unreduced and reduced once; the same
// values as reducing every product.
__device__ __forceinline__ ext3 e3_mul(ext3 a, ext3 b) {
    const uint64_t b1_7 = gl_mul7(b.c1), b2_7 = gl_mul7(b.c2);
    acc192 s0 = acc_zero(), s1 = acc_zero(), s2 = acc_zero();
    acc_mad(s0, a.c0, b.c0);
    acc_mad(s0, a.c1, b2_7);
    acc_mad(s0, a.c2, b1_7);
    acc_mad(s1, a.c0, b.c1);
    acc_mad(s1, a.c1, b.c0);
    acc_mad(s1, a.c2, b2_7);
    acc_mad(s2, a.c0, b.c2);
    acc_mad(s2, a.c1, b.c1);
    acc_mad(s2, a.c2, b.c0);
    return ext3{acc_reduce(s0), acc_reduce(s1), acc_reduce(s2)};
}

__device__ __forceinline__ bool e3_is_zero(ext3 a) { return (a.c0 | a.c1 | a.c2) == 0; }

// Adjugate over the norm, as Ext3::inverse; 0 maps to 0 (callers flag it).
__device__ __forceinline__ ext3 e3_inv(ext3 a) {
    uint64_t c0 = gl_sub(gl_mul(a.c0, a.c0), gl_mul7(gl_mul(a.c1, a.c2)));
    uint64_t c1 = gl_sub(gl_mul7(gl_mul(a.c2, a.c2)), gl_mul(a.c0, a.c1));
    uint64_t c2 = gl_sub(gl_mul(a.c1, a.c1), gl_mul(a.c0, a.c2));
    uint64_t norm = gl_add(gl_mul(a.c0, c0), gl_mul7(gl_add(gl_mul(a.c2, c1), gl_mul(a.c1, c2))));
    uint64_t inv = gl_inv(norm);
    return ext3{gl_mul(c0, inv), gl_mul(c1, inv), gl_mul(c2, inv)};
}

__device__ __forceinline__ ext3 e3_pow(ext3 base, uint64_t e) {
    ext3 acc = e3(1);
    while (e) {
        if (e & 1) acc = e3_mul(acc, base);
        base = e3_mul(base, base);
        e >>= 1;
    }
    return acc;
}

__device__ __forceinline__ ext3 e3_load(const uint64_t *p) { return ext3{p[0], p[1], p[2]}; }
__device__ __forceinline__ void e3_store(uint64_t *p, ext3 v) {
    p[0] = v.c0;
    p[1] = v.c1;
    p[2] = v.c2;
}

// Grid-stride helper: global thread index and total threads, 64-bit.
__device__ __forceinline__ uint64_t ks_tid() {
    return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ uint64_t ks_nthreads() { return (uint64_t)gridDim.x * blockDim.x; }

// An extension element's three coordinates as unreduced sums.
struct acc3 {
    acc192 c0, c1, c2;
};

__device__ __forceinline__ acc3 acc3_zero() { return acc3{acc_zero(), acc_zero(), acc_zero()}; }

// s += w * v for an extension w and a base v.
__device__ __forceinline__ void acc3_mad(acc3 &s, ext3 w, uint64_t v) {
    acc_mad(s.c0, w.c0, v);
    acc_mad(s.c1, w.c1, v);
    acc_mad(s.c2, w.c2, v);
}

__device__ __forceinline__ ext3 acc3_reduce(acc3 s) {
    return ext3{acc_reduce(s.c0), acc_reduce(s.c1), acc_reduce(s.c2)};
}
