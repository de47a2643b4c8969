// The SHIFT fill (mirrors prover-gpu/src/cuda/rv/shift.rs): one row per distinct operation.
// Row r comes from record r, three words each: op | mult << 32, a, b (core::rv::Distinct,
// sorted on the host); rows at or past n are all-zero padding. ks_fill_shift =
// core::rv::shift::fill_distinct. Every value written is below 2^32, hence a canonical field
// element.
#include "fill.cuh"

// ALU op codes (core/src/rv/alu_ops.rs).
#define OP_SLL 4
#define OP_SRL 5
#define OP_SRA 6
#define OP_SLLW 7
#define OP_SRLW 8
#define OP_SRAW 9

// SHIFT columns (core/src/rv/shift/mod.rs).
#define SH_SEL 0
#define SH_A 6
#define SH_B 14
#define SH_C 22
#define SH_H5 30
#define SH_H6 31
#define SH_H7 32
#define SH_S0 33
#define SH_S1 34
#define SH_S2 35
#define SH_POW 36
#define SH_J 37
#define SH_LO 46
#define SH_HI 54
#define SH_T8 62
#define SH_SIGMA 63
#define SH_SA7 64
#define SH_RA7 65
#define SH_SA3 66
#define SH_RA3 67
#define SH_SC 68
#define SH_RC 69
#define SH_M 70
#define SH_WIDTH 71

// core::rv::alu_eval for the shift ops (0 for any other op).
__device__ __forceinline__ uint64_t shift_eval(uint32_t op, uint64_t a, uint64_t b) {
    const uint32_t k64 = (uint32_t)(b & 63), k32 = (uint32_t)(b & 31);
    switch (op) {
        case OP_SLL: return a << k64;
        case OP_SRL: return a >> k64;
        case OP_SRA: return (uint64_t)((int64_t)a >> k64);
        case OP_SLLW: return (uint64_t)(int64_t)(int32_t)((uint32_t)a << k32);
        case OP_SRLW: return (uint64_t)(int64_t)(int32_t)((uint32_t)a >> k32);
        case OP_SRAW: return (uint64_t)(int64_t)((int32_t)(uint32_t)a >> k32);
        default: return 0;
    }
}

// SHIFT (h rows) from n records.
extern "C" __global__ void ks_fill_shift(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < SH_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t w0 = rec[3 * i], a = rec[3 * i + 1], b = rec[3 * i + 2];
        const uint32_t op = (uint32_t)w0;
        // Selector index (an op outside SLL..SRAW fills as SLL's, as the host does).
        const int sel = (op >= OP_SLL && op <= OP_SRAW) ? (int)(op - OP_SLL) : 0;
        const bool word = sel >= 3;
        const bool left = op == OP_SLL || op == OP_SLLW;
        const uint64_t c = shift_eval(op, a, b);
        const uint64_t b0 = b & 0xff;
        const uint64_t amount = word ? b0 & 31 : b0 & 63;
        const uint64_t e = left ? amount : 64 - amount;
        const uint64_t s = e % 8;
        const uint64_t a3 = byte_of(a, 3), a7 = byte_of(a, 7), c3 = byte_of(c, 3);
        const uint64_t fill_w = op == OP_SRAW ? 255 * (a3 >> 7) : 0;
        for (int k = 0; k < 6; k++) PUT(SH_SEL + k, k == sel ? 1 : 0);
        uint64_t hi7 = 0;
        for (int j = 0; j < 8; j++) {
            PUT(SH_A + j, byte_of(a, j));
            PUT(SH_B + j, byte_of(b, j));
            PUT(SH_C + j, byte_of(c, j));
            const uint64_t x = (j >= 4 && word) ? fill_w : byte_of(a, j);
            const uint64_t v = x << s;
            PUT(SH_LO + j, v & 0xff);
            PUT(SH_HI + j, v >> 8);
            hi7 = v >> 8;
        }
        PUT(SH_H5, (b0 >> 5) & 1);
        PUT(SH_H6, (b0 >> 6) & 1);
        PUT(SH_H7, b0 >> 7);
        PUT(SH_S0, s & 1);
        PUT(SH_S1, (s >> 1) & 1);
        PUT(SH_S2, s >> 2);
        PUT(SH_POW, (1ull << s) - 1);
        for (uint64_t k = 0; k < 9; k++) PUT(SH_J + k, k == e / 8 ? 1 : 0);
        const uint64_t sigma = op == OP_SRA ? a7 >> 7 : op == OP_SRAW ? a3 >> 7 : 0;
        PUT(SH_SIGMA, sigma);
        PUT(SH_T8, hi7 + sigma * (256 - (1ull << s)));
        PUT(SH_SA7, a7 >> 7);
        PUT(SH_RA7, a7 & 0x7f);
        PUT(SH_SA3, a3 >> 7);
        PUT(SH_RA3, a3 & 0x7f);
        PUT(SH_SC, c3 >> 7);
        PUT(SH_RC, c3 & 0x7f);
        PUT(SH_M, w0 >> 32);
#undef PUT
    }
}
