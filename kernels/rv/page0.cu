// The PAGE0 fill (mirrors prover-gpu/src/cuda/rv/page0.rs): PAGE0's trace from its run
// records (core::rv::machine::RunRecords), equal to `RunRecords::fill_host`.
#include "fill.cuh"

// PAGE0 (core/src/rv/page0/mod.rs).
#define P0_REAL 0
#define P0_W 1
#define P0_D 2
#define P0_E 6
#define P0_F 10
#define P0_LO 14
#define P0_HI 15
#define P0_RO 16
#define P0_FIN 17
#define P0_FIN_TS 25
#define P0_WIDTH 26

// PAGE0 (h rows) from n ≤ h touched zero words by increasing index: wr[n] = w | ro << 32,
// range[n] = lo | hi << 32, fin[n], fin_ts[n]. D = w − w_prev − 1 (0 on row 0), E = w − lo,
// F = hi − 1 − w, each as four bytes (u32 arithmetic, wrapping as the host's); padding
// rows are zero.
extern "C" __global__ void ks_fill_page0(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    const uint64_t *wr = rec;
    const uint64_t *range = wr + n;
    const uint64_t *fin = range + n;
    const uint64_t *fin_ts = fin + n;
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < P0_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint32_t w = (uint32_t)wr[i];
        const uint64_t ro = wr[i] >> 32;
        const uint32_t lo = (uint32_t)range[i];
        const uint32_t hi = (uint32_t)(range[i] >> 32);
        const uint32_t d = i == 0 ? 0u : w - (uint32_t)wr[i - 1] - 1u;
        const uint32_t e = w - lo;
        const uint32_t f = hi - 1u - w;
        PUT(P0_REAL, 1);
        PUT(P0_W, w);
        for (int k = 0; k < 4; k++) {
            PUT(P0_D + k, byte_of(d, k));
            PUT(P0_E + k, byte_of(e, k));
            PUT(P0_F + k, byte_of(f, k));
        }
        PUT(P0_LO, lo);
        PUT(P0_HI, hi);
        PUT(P0_RO, ro);
        const uint64_t v = fin[i];
        for (int k = 0; k < 8; k++) PUT(P0_FIN + k, byte_of(v, k));
        PUT(P0_FIN_TS, fin_ts[i]);
#undef PUT
    }
}
