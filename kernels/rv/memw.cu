// The MEMW_A fill (mirrors prover-gpu/src/cuda/rv/memw.rs): ks_fill_memw_a =
// core::rv::memw::build_trace_a. Records are uploaded as arrays of n words each.
#include "fill.cuh"

// MEMW_A columns (core/src/rv/memw/mod.rs, one word).
#define MA_W 0
#define MA_OLD 1
#define MA_NEW 9
#define MA_OLD_TS 17
#define MA_TS 18
#define MA_IS_REAL 19
#define MA_DIFF 20
#define MA_WR 25
#define MA_RO 26
#define MA_WIDTH 27

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
        // Wrapping, as the builder computes it; five bytes (timestamps below 2^39).
        const uint64_t diff = t - ots - 1;
        PUT(MA_W, w[i] & 0xffffffffull);
        for (int k = 0; k < 8; k++) {
            PUT(MA_OLD + k, byte_of(ov, k));
            PUT(MA_NEW + k, byte_of(nv, k));
        }
        PUT(MA_OLD_TS, gl_canon(ots));
        PUT(MA_TS, gl_canon(t));
        PUT(MA_IS_REAL, 1);
        for (int k = 0; k < 5; k++) PUT(MA_DIFF + k, byte_of(diff, k));
        PUT(MA_WR, (w[i] >> 33) & 1);
        PUT(MA_RO, (w[i] >> 32) & 1);
#undef PUT
    }
}
