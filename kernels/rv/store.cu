// The STORE fill (mirrors prover-gpu/src/cuda/rv/store.rs): ks_fill_store =
// core::rv::store::build_trace. Records are uploaded as arrays of n words each; `meta` words
// hold funct3 | addr << 8.
#include "access.cuh"

// STORE columns (core/src/rv/store/mod.rs).
#define ST_SZ 0
#define ST_OFF 4
#define ST_Q 12
#define ST_ADDR_HI 13
#define ST_VALUE 16
#define ST_OLD 24
#define ST_NEW 40
#define ST_TS 56
#define ST_SPLIT 57
#define ST_WIDTH 58

// STORE (h rows) from n stores: ts[n], meta[n], value[n], old0[n], old1[n].
extern "C" __global__ void ks_fill_store(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    const uint64_t *ts = rec;
    const uint64_t *meta = ts + n;
    const uint64_t *val = meta + n;
    const uint64_t *old0 = val + n;
    const uint64_t *old1 = old0 + n;
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < ST_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t m = meta[i];
        const uint32_t funct3 = (uint32_t)(m & 0xff);
        const uint32_t addr = (uint32_t)(m >> 8);
        const uint32_t width = mem_width(funct3);
        const uint32_t off = addr & 7;
        const bool split = mem_split(funct3, addr);
        const uint64_t v = val[i];
        const uint64_t lo = old0[i];
        const uint64_t hi = split ? old1[i] : 0;
        // The window with bytes off .. off + width replaced by the value's low bytes
        // (store::store_words); the high word changes only when split.
        const uint64_t mask = mem_mask(width);
        const uint64_t vm = v & mask;
        const uint64_t new_lo = (lo & ~(mask << (8 * off))) | (vm << (8 * off));
        const uint64_t new_hi =
            off == 0 ? hi : (hi & ~(mask >> (64 - 8 * off))) | (vm >> (64 - 8 * off));
        for (uint32_t k = 0; k < 4; k++) PUT(ST_SZ + k, funct3 < 4 && k == funct3 ? 1 : 0);
        for (uint32_t k = 0; k < 8; k++) PUT(ST_OFF + k, k == off ? 1 : 0);
        PUT(ST_Q, (addr & 0xff) >> 3);
        for (int k = 0; k < 3; k++) PUT(ST_ADDR_HI + k, byte_of(addr, k + 1));
        for (int k = 0; k < 8; k++) {
            PUT(ST_VALUE + k, byte_of(v, k));
            PUT(ST_OLD + k, byte_of(lo, k));
            PUT(ST_OLD + 8 + k, byte_of(hi, k));
            PUT(ST_NEW + k, byte_of(new_lo, k));
            PUT(ST_NEW + 8 + k, byte_of(new_hi, k));
        }
        PUT(ST_TS, gl_canon(ts[i]));
        PUT(ST_SPLIT, split ? 1 : 0);
#undef PUT
    }
}
