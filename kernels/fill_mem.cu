// Device-resident trace fills of the memory tables (mirrors prover-gpu/src/cuda/fill_mem.rs):
// LOAD, STORE and MEMW_A, each column-major (column c at out + c * h, natural row order) from
// packed records, one thread per row, padding rows (all zero) included; the row index is the
// thread index. Each matches its Rust builder bit for bit: ks_fill_load =
// core::rv::load::build_trace, ks_fill_store = core::rv::store::build_trace, ks_fill_memw_a =
// core::rv::memw::build_trace_a.
//
// Records are uploaded as arrays of n words each (structure of arrays, so that neighbouring
// threads read neighbouring words); `meta` words hold funct3 | addr << 8.
#include "field.cuh"

// LOAD columns (core/src/rv/load.rs).
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

// STORE columns (core/src/rv/store.rs).
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

// MEMW_A columns (core/src/rv/memw.rs, one word).
#define MA_W 0
#define MA_OLD 1
#define MA_NEW 9
#define MA_OLD_TS 17
#define MA_TS 18
#define MA_IS_REAL 19
#define MA_DIFF 20
#define MA_WR 24
#define MA_RO 25
#define MA_WIDTH 26

__device__ __forceinline__ uint64_t mem_byte(uint64_t v, int i) { return (v >> (8 * i)) & 0xff; }

// Bytes of an access with this funct3: 1 << (funct3 & 3) (load::width_of).
__device__ __forceinline__ uint32_t mem_width(uint32_t funct3) { return 1u << (funct3 & 3); }

// The access crosses a word boundary (load::is_split).
__device__ __forceinline__ bool mem_split(uint32_t funct3, uint32_t addr) {
    return (addr & 7) + mem_width(funct3) > 8;
}

// The low `width` bytes set (width in 1, 2, 4, 8).
__device__ __forceinline__ uint64_t mem_mask(uint32_t width) {
    return width >= 8 ? ~0ull : (1ull << (8 * width)) - 1;
}

// Bytes off .. off + 8 of the 16-byte window (lo, hi).
__device__ __forceinline__ uint64_t mem_window_at(uint64_t lo, uint64_t hi, uint32_t off) {
    return off == 0 ? lo : (lo >> (8 * off)) | (hi << (64 - 8 * off));
}

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
        const uint64_t top = mem_byte(value, (int)width - 1);
        for (uint32_t k = 0; k < 4; k++) PUT(LD_SZ + k, k == (funct3 & 3) ? 1 : 0);
        PUT(LD_U, funct3 >= 4 ? 1 : 0);
        for (uint32_t k = 0; k < 8; k++) PUT(LD_OFF + k, k == off ? 1 : 0);
        PUT(LD_Q, (addr & 0xff) >> 3);
        for (int k = 0; k < 3; k++) PUT(LD_ADDR_HI + k, mem_byte(addr, k + 1));
        for (int k = 0; k < 8; k++) {
            PUT(LD_VALUE + k, mem_byte(value, k));
            PUT(LD_MEM + k, mem_byte(lo, k));
            PUT(LD_MEM + 8 + k, mem_byte(hi, k));
        }
        PUT(LD_TS, gl_canon(ts[i]));
        PUT(LD_SPLIT, split ? 1 : 0);
        PUT(LD_SIGN, top >> 7);
        PUT(LD_LOW7, top & 0x7f);
#undef PUT
    }
}

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
        for (int k = 0; k < 3; k++) PUT(ST_ADDR_HI + k, mem_byte(addr, k + 1));
        for (int k = 0; k < 8; k++) {
            PUT(ST_VALUE + k, mem_byte(v, k));
            PUT(ST_OLD + k, mem_byte(lo, k));
            PUT(ST_OLD + 8 + k, mem_byte(hi, k));
            PUT(ST_NEW + k, mem_byte(new_lo, k));
            PUT(ST_NEW + 8 + k, mem_byte(new_hi, k));
        }
        PUT(ST_TS, gl_canon(ts[i]));
        PUT(ST_SPLIT, split ? 1 : 0);
#undef PUT
    }
}

// MEMW_A (h rows) from n word accesses: w[n] (bits 0..32 the word index, bit 32 ro, bit 33
// wr), old[n], new[n], old_ts[n], ts[n].
extern "C" __global__ void ks_fill_memw_a(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    const uint64_t *w = rec;
    const uint64_t *old = w + n;
    const uint64_t *nw = old + n;
    const uint64_t *old_ts = nw + n;
    const uint64_t *ts = old_ts + n;
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < MA_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t ov = old[i], nv = nw[i], ots = old_ts[i], t = ts[i];
        // Wrapping, as the builder computes it.
        const uint64_t diff = t - ots - 1;
        PUT(MA_W, w[i] & 0xffffffffull);
        for (int k = 0; k < 8; k++) {
            PUT(MA_OLD + k, mem_byte(ov, k));
            PUT(MA_NEW + k, mem_byte(nv, k));
        }
        PUT(MA_OLD_TS, gl_canon(ots));
        PUT(MA_TS, gl_canon(t));
        PUT(MA_IS_REAL, 1);
        for (int k = 0; k < 4; k++) PUT(MA_DIFF + k, mem_byte(diff, k));
        PUT(MA_WR, (w[i] >> 33) & 1);
        PUT(MA_RO, (w[i] >> 32) & 1);
#undef PUT
    }
}
