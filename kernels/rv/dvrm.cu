// The DVRM fill (mirrors prover-gpu/src/cuda/rv/dvrm.rs): one row per distinct operation. Row r
// comes from record r, three words each: op | mult << 32, a, b (core::rv::Distinct, sorted on
// the host); rows at or past n are all-zero padding. ks_fill_dvrm = core::rv::dvrm::fill_distinct:
// the dividend x and divisor y are a and b or their 32-bit extensions (sign for DIVW/REMW, zero
// for DIVUW/REMUW); the witness (q, r, z, ovf) is core::rv::dvrm::divide's (x / 0: q = 2^64 - 1,
// r = x; INT64_MIN / -1 for DIV/REM: q = x, r = 0; else C's truncating division, signed or
// not); the result c is result_of's (q or r, sign-extended from 32 bits for the W forms); the
// identity's group carries, |r|, |y|, d = |y| - |r| - 1 and their carries as on the host.
// Every value written is below 2^32, hence a canonical field element.
#include "fill.cuh"

// ALU op codes (core/src/rv/alu_ops.rs), in DVRM's selector order (dvrm::OPS).
#define OP_DIV 15
#define OP_DIVU 16
#define OP_REM 17
#define OP_REMU 18
#define OP_DIVW 19
#define OP_DIVUW 20
#define OP_REMW 21
#define OP_REMUW 22

// DVRM columns (core/src/rv/dvrm/mod.rs).
#define DVRM_M 0
#define DVRM_SEL 1
#define DVRM_A 9
#define DVRM_B 17
#define DVRM_C 25
#define DVRM_YH 33
#define DVRM_Q 37
#define DVRM_R 45
#define DVRM_BITS 53
#define DVRM_NX 67
#define DVRM_NY 68
#define DVRM_NQ 69
#define DVRM_NR 70
#define DVRM_Z 71
#define DVRM_OVF 72
#define DVRM_CARRY 73
#define DVRM_ABS_R 81
#define DVRM_KR 89
#define DVRM_ABS_Y 90
#define DVRM_KY 98
#define DVRM_D 99
#define DVRM_KD 107
#define DVRM_WIDTH 108

// Byte i of a value extended to 16 limbs with 255 * n (n its sign in the op's interpretation).
__device__ __forceinline__ uint64_t dvrm_ext(uint64_t v, uint64_t n, int i) {
    return i < 8 ? byte_of(v, i) : 255 * n;
}

// DVRM (h rows) from n records.
extern "C" __global__ void ks_fill_dvrm(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < DVRM_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t w0 = rec[3 * i], a = rec[3 * i + 1], b = rec[3 * i + 2];
        const uint32_t op = (uint32_t)w0;
        // Selector index (an op outside DIV..REMUW fills as DIV's; the launcher refuses them).
        const int sel = (op >= OP_DIV && op <= OP_REMUW) ? (int)(op - OP_DIV) : 0;
        const bool is_w = op >= OP_DIVW && op <= OP_REMUW;
        const bool is_signed = op == OP_DIV || op == OP_REM || op == OP_DIVW || op == OP_REMW;
        // dvrm::operands.
        uint64_t x = a, y = b;
        if (is_w && is_signed) {
            x = (uint64_t)(int64_t)(int32_t)(uint32_t)a;
            y = (uint64_t)(int64_t)(int32_t)(uint32_t)b;
        } else if (is_w) {
            x = (uint64_t)(uint32_t)a;
            y = (uint64_t)(uint32_t)b;
        }
        // dvrm::divide (the signed quotient never overflows here: INT64_MIN / -1 is ovf, and
        // the W forms' operands are 32-bit).
        const bool z = y == 0;
        const bool ovf = (op == OP_DIV || op == OP_REM) && x == 0x8000000000000000ull && y == ~0ull;
        uint64_t q, r;
        if (z) {
            q = ~0ull;
            r = x;
        } else if (ovf) {
            q = x;
            r = 0;
        } else if (is_signed) {
            q = (uint64_t)((int64_t)x / (int64_t)y);
            r = (uint64_t)((int64_t)x % (int64_t)y);
        } else {
            q = x / y;
            r = x % y;
        }
        // dvrm::result_of.
        const bool is_q = op == OP_DIV || op == OP_DIVU || op == OP_DIVW || op == OP_DIVUW;
        uint64_t c = is_q ? q : r;
        if (is_w) c = (uint64_t)(int64_t)(int32_t)(uint32_t)c;

        PUT(DVRM_M, w0 >> 32);
        for (int k = 0; k < 8; k++) PUT(DVRM_SEL + k, k == sel ? 1 : 0);
        for (int j = 0; j < 8; j++) {
            PUT(DVRM_A + j, byte_of(a, j));
            PUT(DVRM_B + j, byte_of(b, j));
            PUT(DVRM_C + j, byte_of(c, j));
            PUT(DVRM_Q + j, byte_of(q, j));
            PUT(DVRM_R + j, byte_of(r, j));
        }
        for (int j = 0; j < 4; j++) PUT(DVRM_YH + j, byte_of(y, 4 + j));
        // Sign decompositions 128 s + t of a[3], a[7], b[3], b[7], q[7], r[7], c[3].
        const uint64_t dec[7] = {byte_of(a, 3), byte_of(a, 7), byte_of(b, 3), byte_of(b, 7),
                                 byte_of(q, 7), byte_of(r, 7), byte_of(c, 3)};
        for (int k = 0; k < 7; k++) {
            PUT(DVRM_BITS + 2 * k, dec[k] >> 7);
            PUT(DVRM_BITS + 2 * k + 1, dec[k] & 0x7f);
        }
        const uint64_t sgn = is_signed ? 1 : 0;
        const uint64_t nx = sgn * (x >> 63), ny = sgn * (y >> 63), nq = sgn * (q >> 63),
                       nr = sgn * (r >> 63);
        PUT(DVRM_NX, nx);
        PUT(DVRM_NY, ny);
        PUT(DVRM_NQ, nq);
        PUT(DVRM_NR, nr);
        PUT(DVRM_Z, z ? 1 : 0);
        PUT(DVRM_OVF, ovf ? 1 : 0);
        // Carries of q' * y' + r' = x' (mod 2^128), four limbs per group: a limb of the left
        // side is below 17 * 255^2 < 2^21, so a group's sides stay below 2^46 and the
        // difference fits a signed 64-bit word (the host's i128; >> is arithmetic, its floor).
        int64_t carry = 0;
        for (int g = 0; g < 4; g++) {
            int64_t lhs = carry, rhs = 0;
            for (int j = 0; j < 4; j++) {
                const int l = 4 * g + j;
                uint64_t conv = dvrm_ext(r, nr, l);
                for (int k = 0; k <= l; k++) {
                    if (k >= 8 && l - k >= 8) continue;
                    conv += dvrm_ext(q, nq, k) * dvrm_ext(y, ny, l - k);
                }
                lhs += (int64_t)(conv << (8 * j));
                rhs += (int64_t)(dvrm_ext(x, nx, l) << (8 * j));
            }
            carry = (ovf && g >= 2) ? 0 : (lhs - rhs) >> 32;
            PUT(DVRM_CARRY + 2 * g, (uint64_t)(carry & 0xff));
            PUT(DVRM_CARRY + 2 * g + 1, (uint64_t)((carry >> 8) & 0xff));
        }
        // |r|, |y|, d = |y| - |r| - 1 (0 when y = 0) and the low groups' carries.
        const uint64_t abs_r = nr ? 0 - r : r, abs_y = ny ? 0 - y : y;
        const uint64_t d = z ? 0 : abs_y - abs_r - 1;
        for (int j = 0; j < 8; j++) {
            PUT(DVRM_ABS_R + j, byte_of(abs_r, j));
            PUT(DVRM_ABS_Y + j, byte_of(abs_y, j));
            PUT(DVRM_D + j, byte_of(d, j));
        }
        const uint64_t lo = 0xffffffffull;
        PUT(DVRM_KR, (nr == 1 && (r & lo) + (abs_r & lo) >= (1ull << 32)) ? 1 : 0);
        PUT(DVRM_KY, (ny == 1 && (y & lo) + (abs_y & lo) >= (1ull << 32)) ? 1 : 0);
        PUT(DVRM_KD, (!z && (abs_r & lo) + (d & lo) + 1 >= (1ull << 32)) ? 1 : 0);
#undef PUT
    }
}
