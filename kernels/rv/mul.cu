// The MUL fill (mirrors prover-gpu/src/cuda/rv/mul.rs): one row per distinct operation. Row r
// comes from record r, three words each: op | mult << 32, a, b (core::rv::Distinct, sorted on
// the host); rows at or past n are all-zero padding. ks_fill_mul = core::rv::mul::fill_distinct:
// the result c is core::rv::alu_eval's, from the 64 x 64 -> 128-bit product (__umul64hi, less
// the corrections of MULH's and MULHSU's signed operands); the product bytes p and the group
// carries come from the byte convolution of the extended operands, as on the host. Every value
// written is below 2^32, hence a canonical field element.
#include "fill.cuh"

// ALU op codes (core/src/rv/alu_ops.rs).
#define OP_MUL 10
#define OP_MULH 11
#define OP_MULHSU 12
#define OP_MULHU 13
#define OP_MULW 14

// MUL columns (core/src/rv/mul/mod.rs).
#define MUL_M 0
#define MUL_SEL 1
#define MUL_A 6
#define MUL_B 14
#define MUL_C 22
#define MUL_P 30
#define MUL_CARRY 46
#define MUL_SA 54
#define MUL_RA 55
#define MUL_SB 56
#define MUL_RB 57
#define MUL_SA_EXT 58
#define MUL_SB_EXT 59
#define MUL_SW 60
#define MUL_RW 61
#define MUL_WIDTH 62

// core::rv::alu_eval for the multiplication ops (0 for any other op). With a = A - 2^64·sa
// as a signed value (sa its sign bit), a·b's high word is umulhi(a, b) - sa·b (mod 2^64),
// likewise for b: the low word a·b needs no correction.
__device__ __forceinline__ uint64_t mul_eval(uint32_t op, uint64_t a, uint64_t b) {
    const uint64_t hi = __umul64hi(a, b);
    const uint64_t a_neg = (a >> 63) ? b : 0, b_neg = (b >> 63) ? a : 0;
    switch (op) {
        case OP_MUL: return a * b;
        case OP_MULH: return hi - a_neg - b_neg;
        case OP_MULHSU: return hi - a_neg;
        case OP_MULHU: return hi;
        case OP_MULW: return (uint64_t)(int64_t)(int32_t)(uint32_t)(a * b);
        default: return 0;
    }
}

// MUL (h rows) from n records.
extern "C" __global__ void ks_fill_mul(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < MUL_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t w0 = rec[3 * i], a = rec[3 * i + 1], b = rec[3 * i + 2];
        const uint32_t op = (uint32_t)w0;
        // Selector index (an op outside MUL..MULW fills as MUL's; the launcher refuses them).
        const int sel = (op >= OP_MUL && op <= OP_MULW) ? (int)(op - OP_MUL) : 0;
        const uint64_t c = mul_eval(op, a, b);
        const uint64_t a7 = byte_of(a, 7), b7 = byte_of(b, 7);
        const uint64_t sa_ext = (op == OP_MULH || op == OP_MULHSU) ? a7 >> 7 : 0;
        const uint64_t sb_ext = op == OP_MULH ? b7 >> 7 : 0;
        PUT(MUL_M, w0 >> 32);
        for (int k = 0; k < 5; k++) PUT(MUL_SEL + k, k == sel ? 1 : 0);
        for (int j = 0; j < 8; j++) {
            PUT(MUL_A + j, byte_of(a, j));
            PUT(MUL_B + j, byte_of(b, j));
            PUT(MUL_C + j, byte_of(c, j));
        }
        // p = a' · b' mod 2^128 by the byte convolution of the operands extended to 16 limbs
        // (limbs 8..16 of a' are 255·sa_ext, of b' 255·sb_ext), four limbs per carry: a limb is
        // below 16·255^2 < 2^20, so a group's sum stays below 2^49.
        uint64_t carry = 0, p3 = 0;
        for (int g = 0; g < 4; g++) {
            uint64_t lhs = carry;
            for (int j = 0; j < 4; j++) {
                const int l = 4 * g + j;
                uint64_t conv = 0;
                for (int k = 0; k <= l; k++) {
                    if (k >= 8 && l - k >= 8) continue;
                    const uint64_t x = k < 8 ? byte_of(a, k) : 255 * sa_ext;
                    const uint64_t y = l - k < 8 ? byte_of(b, l - k) : 255 * sb_ext;
                    conv += x * y;
                }
                lhs += conv << (8 * j);
            }
            for (int j = 0; j < 4; j++) PUT(MUL_P + 4 * g + j, byte_of(lhs, j));
            if (g == 0) p3 = byte_of(lhs, 3);
            carry = lhs >> 32;
            PUT(MUL_CARRY + 2 * g, carry & 0xff);
            PUT(MUL_CARRY + 2 * g + 1, carry >> 8);
        }
        PUT(MUL_SA, a7 >> 7);
        PUT(MUL_RA, a7 & 0x7f);
        PUT(MUL_SB, b7 >> 7);
        PUT(MUL_RB, b7 & 0x7f);
        PUT(MUL_SA_EXT, sa_ext);
        PUT(MUL_SB_EXT, sb_ext);
        PUT(MUL_SW, p3 >> 7);
        PUT(MUL_RW, p3 & 0x7f);
#undef PUT
    }
}
