// The LT fill (mirrors prover-gpu/src/cuda/rv/lt.rs): one row per distinct operation. Row r
// comes from record r, three words each: op | mult << 32, a, b (core::rv::Distinct, sorted on
// the host); rows at or past n are all-zero padding. ks_fill_lt = core::rv::lt::fill_distinct.
// Every value written is below 2^32, hence a canonical field element.
#include "fill.cuh"

// ALU op codes (core/src/rv/alu_ops.rs).
#define OP_SLT 1

// LT columns (core/src/rv/lt/mod.rs).
#define LT_SEL_SLT 0
#define LT_SEL_SLTU 1
#define LT_A 2
#define LT_B 10
#define LT_D 18
#define LT_BORROW 26
#define LT_LT 27
#define LT_SA 28
#define LT_RA 29
#define LT_SB 30
#define LT_RB 31
#define LT_M 32
#define LT_WIDTH 33

// LT (h rows) from n records.
extern "C" __global__ void ks_fill_lt(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < LT_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t w0 = rec[3 * i], a = rec[3 * i + 1], b = rec[3 * i + 2];
        const bool sgn = (uint32_t)w0 == OP_SLT;
        const uint64_t flip = sgn ? 1ull << 63 : 0;
        const uint64_t a2 = a ^ flip, b2 = b ^ flip;
        const uint64_t d = a2 - b2;
        PUT(LT_SEL_SLT, sgn ? 1 : 0);
        PUT(LT_SEL_SLTU, sgn ? 0 : 1);
        for (int j = 0; j < 8; j++) {
            PUT(LT_A + j, byte_of(a, j));
            PUT(LT_B + j, byte_of(b, j));
            PUT(LT_D + j, byte_of(d, j));
        }
        PUT(LT_BORROW, (uint32_t)a2 < (uint32_t)b2 ? 1 : 0);
        PUT(LT_LT, a2 < b2 ? 1 : 0);
        const uint64_t a7 = a >> 56, b7 = b >> 56;
        PUT(LT_SA, a7 >> 7);
        PUT(LT_RA, a7 & 0x7f);
        PUT(LT_SB, b7 >> 7);
        PUT(LT_RB, b7 & 0x7f);
        PUT(LT_M, w0 >> 32);
#undef PUT
    }
}
