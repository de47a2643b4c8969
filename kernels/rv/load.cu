// The LOAD fill (mirrors prover-gpu/src/cuda/rv/load.rs): ks_fill_load =
// core::rv::load::build_trace. Records are uploaded as arrays of n words each (structure of
// arrays, so that neighbouring threads read neighbouring words); `meta` words hold
// funct3 | addr << 8.
#include "access.cuh"

// LOAD columns (core/src/rv/load/mod.rs).
#define LD_SZ 0
#define LD_U 4
#define LD_OFF 5
#define LD_Q 13
#define LD_ADDR_HI 14
#define LD_VALUE 17
#define LD_MEM 25
#define LD_TS 41
#define LD_SPLIT 42
#define LD_SIGN 43
#define LD_LOW7 44
#define LD_WIDTH 45

// LOAD (h rows) from n loads: ts[n], meta[n], word0[n], word1[n].
extern "C" __global__ void ks_fill_load(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    const uint64_t *ts = rec;
    const uint64_t *meta = ts + n;
    const uint64_t *word0 = meta + n;
    const uint64_t *word1 = word0 + n;
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < LD_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t m = meta[i];
        const uint32_t funct3 = (uint32_t)(m & 0xff);
        const uint32_t addr = (uint32_t)(m >> 8);
        const uint32_t width = mem_width(funct3);
        const uint32_t off = addr & 7;
        const bool split = mem_split(funct3, addr);
        const uint64_t lo = word0[i];
        const uint64_t hi = split ? word1[i] : 0;
        uint64_t value = mem_window_at(lo, hi, off) & mem_mask(width);
        if (funct3 < 4 && width < 8) {
            const uint32_t sh = 64 - 8 * width;
            value = (uint64_t)(((int64_t)(value << sh)) >> sh);
        }
        const uint64_t top = byte_of(value, (int)width - 1);
        for (uint32_t k = 0; k < 4; k++) PUT(LD_SZ + k, k == (funct3 & 3) ? 1 : 0);
        PUT(LD_U, funct3 >= 4 ? 1 : 0);
        for (uint32_t k = 0; k < 8; k++) PUT(LD_OFF + k, k == off ? 1 : 0);
        PUT(LD_Q, (addr & 0xff) >> 3);
        for (int k = 0; k < 3; k++) PUT(LD_ADDR_HI + k, byte_of(addr, k + 1));
        for (int k = 0; k < 8; k++) {
            PUT(LD_VALUE + k, byte_of(value, k));
            PUT(LD_MEM + k, byte_of(lo, k));
            PUT(LD_MEM + 8 + k, byte_of(hi, k));
        }
        PUT(LD_TS, gl_canon(ts[i]));
        PUT(LD_SPLIT, split ? 1 : 0);
        PUT(LD_SIGN, top >> 7);
        PUT(LD_LOW7, top & 0x7f);
#undef PUT
    }
}
