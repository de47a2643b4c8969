// The EQ fill (mirrors prover-gpu/src/cuda/rv/eq.rs): one row per distinct operation. Row r
// comes from record r, three words each: op | mult << 32, a, b (core::rv::Distinct, sorted on
// the host); rows at or past n are all-zero padding. ks_fill_eq = core::rv::eq::fill_distinct
// (core::rv::eq::fill_rows, then the padding rows). The host inverts the non-zero sums in one
// batch; here each row inverts its own (the inverse is unique, so the values are the same),
// and a zero sum (a = b) has inverse 0. Every value written is a canonical field element:
// bytes, s < 8 * 255^2, the multiplicity (below 2^32) and gl_inv's result.
#include "fill.cuh"

// EQ columns (core/src/rv/eq/mod.rs).
#define EQ_A 0
#define EQ_B 8
#define EQ_S 16
#define EQ_NEQ 17
#define EQ_INV 18
#define EQ_M 19
#define EQ_WIDTH 20

// EQ (h rows) from n records.
extern "C" __global__ void ks_fill_eq(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < EQ_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t w0 = rec[3 * i], a = rec[3 * i + 1], b = rec[3 * i + 2];
        // s = sum of (a_j - b_j)^2 over the bytes: an integer below 8 * 255^2, zero exactly
        // when a = b.
        uint64_t s = 0;
        for (int j = 0; j < 8; j++) {
            const uint64_t aj = byte_of(a, j), bj = byte_of(b, j);
            PUT(EQ_A + j, aj);
            PUT(EQ_B + j, bj);
            const uint64_t d = aj > bj ? aj - bj : bj - aj;
            s += d * d;
        }
        PUT(EQ_S, s);
        PUT(EQ_NEQ, a != b ? 1 : 0);
        PUT(EQ_INV, s == 0 ? 0 : gl_inv(s));
        PUT(EQ_M, w0 >> 32);
#undef PUT
    }
}
