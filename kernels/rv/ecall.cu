// The ECALL fill (mirrors prover-gpu/src/cuda/rv/ecall.rs): ks_fill_ecall =
// core::rv::ecall::fill. Records are uploaded as arrays of n words each (structure of
// arrays): meta[n] = clk | outpos << 40 | kind << 61 (kind: ecall::call_kind, 0 for a call no
// selector covers: an all-zero row, with every word of its record 0), then p0..p3[n], whose
// meaning depends on the kind:
//
//   exit            res, a0
//   write(1), (2)   res, a1, a2
//   read            res, a1, a2, remaining & 0xffffffff
//   brk             res, a0, brk_old, limit | heap_start << 32
//
// (unused words 0). a7 is the call's number and a0 a write's or read's fd: both follow from
// the kind.
#include "fill.cuh"

// ECALL columns (core/src/rv/ecall/mod.rs).
#define EC_SEL_EXIT 0
#define EC_SEL_WOUT 1
#define EC_SEL_WDBG 2
#define EC_SEL_READ 3
#define EC_SEL_BRK 4
#define EC_CLK 5
#define EC_A7 6
#define EC_A0 14
#define EC_RES 22
#define EC_OUTPOS 30
#define EC_OUTN 31
#define EC_A1 32
#define EC_A2 40
#define EC_BRK_OLD 48
#define EC_LIMIT 56
#define EC_HSTART 64
#define EC_LT_LO 72
#define EC_LT_HI 73
#define EC_OUT 74
#define EC_SHRINK 75
#define EC_REM 76
#define EC_REM_NEW 80
#define EC_SHORT 84
#define EC_WIDTH 85

// The call kinds (core::rv::ecall::CALL_*): 1 + the selector's index.
#define EC_CALL_EXIT 1
#define EC_CALL_WOUT 2
#define EC_CALL_WDBG 3
#define EC_CALL_READ 4
#define EC_CALL_BRK 5

// The call numbers (a7; core::rv::SYS_*).
#define SYS_READ 63
#define SYS_WRITE 64
#define SYS_EXIT 93
#define SYS_BRK 214

// ECALL (h rows) from n system calls: meta[n], p0[n], p1[n], p2[n], p3[n].
extern "C" __global__ void ks_fill_ecall(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    const uint64_t *meta = rec;
    const uint64_t *p0 = meta + n;
    const uint64_t *p1 = p0 + n;
    const uint64_t *p2 = p1 + n;
    const uint64_t *p3 = p2 + n;
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        const uint64_t m = i < n ? meta[i] : 0;
        const uint32_t kind = (uint32_t)(m >> 61);
        if (kind < EC_CALL_EXIT || kind > EC_CALL_BRK) {
            // Padding, or a call no selector covers: all zero.
            for (int c = 0; c < EC_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t clk = m & ((1ull << 40) - 1);
        const uint64_t outpos = (m >> 40) & ((1ull << 21) - 1);
        const uint64_t res = p0[i];
        const uint64_t x1 = p1[i];
        const uint64_t x2 = p2[i];
        const uint64_t x3 = p3[i];
        const bool exit = kind == EC_CALL_EXIT;
        const bool wout = kind == EC_CALL_WOUT;
        const bool wdbg = kind == EC_CALL_WDBG;
        const bool read = kind == EC_CALL_READ;
        const bool brk = kind == EC_CALL_BRK;
        const bool rw = wout || wdbg || read;
        for (uint32_t k = 0; k < 5; k++) PUT(EC_SEL_EXIT + k, k + 1 == kind ? 1 : 0);
        PUT(EC_CLK, gl_canon(clk));
        const uint64_t a7 = exit ? SYS_EXIT : (wout || wdbg) ? SYS_WRITE : read ? SYS_READ : SYS_BRK;
        // a0: the exit code or brk's address, else the fd.
        const uint64_t a0 = (exit || brk) ? x1 : wout ? 1 : wdbg ? 2 : 0;
        // a1, a2 (zero unless a transfer); brk's registers (zero unless brk).
        const uint64_t a1 = rw ? x1 : 0;
        const uint64_t a2 = rw ? x2 : 0;
        const uint64_t brk_old = brk ? x2 : 0;
        const uint64_t limit = brk ? (x3 & 0xffffffffull) : 0;
        const uint64_t hstart = brk ? (x3 >> 32) : 0;
        for (int k = 0; k < 8; k++) {
            PUT(EC_A7 + k, byte_of(a7, k));
            PUT(EC_A0 + k, byte_of(a0, k));
            PUT(EC_RES + k, byte_of(res, k));
            PUT(EC_A1 + k, byte_of(a1, k));
            PUT(EC_A2 + k, byte_of(a2, k));
            PUT(EC_BRK_OLD + k, byte_of(brk_old, k));
            PUT(EC_LIMIT + k, byte_of(limit, k));
            PUT(EC_HSTART + k, byte_of(hstart, k));
        }
        PUT(EC_OUTPOS, gl_canon(outpos));
        // outn = len (as a field element) for write(1, …).
        PUT(EC_OUTN, wout ? gl_canon(x2) : 0);
        const bool lt_lo = brk && a0 < hstart;
        const bool lt_hi = brk && limit < a0;
        PUT(EC_LT_LO, lt_lo ? 1 : 0);
        PUT(EC_LT_HI, lt_hi ? 1 : 0);
        PUT(EC_OUT, (lt_lo || lt_hi) ? 1 : 0);
        PUT(EC_SHRINK, (brk && res < brk_old) ? 1 : 0);
        // REG_INPUT's four low bytes before and after a read (rem − res, wrapping).
        const uint32_t rem = read ? (uint32_t)x3 : 0;
        const uint32_t rem_new = read ? rem - (uint32_t)res : 0;
        for (int k = 0; k < 4; k++) {
            PUT(EC_REM + k, byte_of(rem, k));
            PUT(EC_REM_NEW + k, byte_of(rem_new, k));
        }
        PUT(EC_SHORT, (read && res < a2) ? 1 : 0);
#undef PUT
    }
}
