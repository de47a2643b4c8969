// The IO fill (mirrors prover-gpu/src/cuda/rv/io.rs): ks_fill_io = core::rv::io::fill.
// Records are uploaded as arrays of n words each (structure of arrays): tsk[n] = ts | kind
// << 55 | lo << 57 | (cnt − 1) << 60, wp[n] = w | pos << 29, old[n], new[n] (ts < 2^55,
// kind ≤ 2, 1 ≤ cnt, lo + cnt ≤ 8, w < 2^29, pos < 2^35: the launcher refuses other records).
#include "fill.cuh"

// IO columns (core/src/rv/io/mod.rs).
#define IOW_REAL 0
#define IOW_KIND 1
#define IOW_TS 2
#define IOW_POS 3
#define IOW_WB 4
#define IOW_LO 8
#define IOW_M 9
#define IOW_OLD 17
#define IOW_NEW 25
#define IOW_OM 33
#define IOW_ZERO 41
#define IOW_WIDTH 42

// The chain kinds (core::rv::IO_*).
#define IO_IN 0
#define IO_OUT 1
#define IO_ZERO 2

// IO (h rows) from n transferred words: tsk[n], wp[n], old[n], new[n].
extern "C" __global__ void ks_fill_io(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    const uint64_t *tsk = rec;
    const uint64_t *wp = tsk + n;
    const uint64_t *old = wp + n;
    const uint64_t *nw = old + n;
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < IOW_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t t = tsk[i];
        const uint64_t ts = t & ((1ull << 55) - 1);
        const uint32_t kind = (uint32_t)((t >> 55) & 3);
        const uint32_t lo = (uint32_t)((t >> 57) & 7);
        const uint32_t cnt = (uint32_t)((t >> 60) & 7) + 1;
        const uint64_t x = wp[i];
        const uint64_t w = x & ((1ull << 29) - 1);
        const uint64_t pos = x >> 29;
        const uint64_t vold = old[i];
        const uint64_t vnew = nw[i];
        const bool is_out = kind == IO_OUT;
        PUT(IOW_REAL, 1);
        PUT(IOW_KIND, is_out ? 1 : 0);
        PUT(IOW_ZERO, kind == IO_ZERO ? 1 : 0);
        PUT(IOW_TS, gl_canon(ts));
        PUT(IOW_POS, gl_canon(pos));
        for (int k = 0; k < 4; k++) PUT(IOW_WB + k, byte_of(w, k));
        PUT(IOW_LO, lo);
        for (uint32_t j = 0; j < 8; j++) {
            const bool covered = j >= lo && j < lo + cnt;
            PUT(IOW_M + j, covered ? 1 : 0);
            PUT(IOW_OM + j, (covered && is_out) ? 1 : 0);
            PUT(IOW_OLD + j, byte_of(vold, (int)j));
            PUT(IOW_NEW + j, byte_of(vnew, (int)j));
        }
#undef PUT
    }
}
