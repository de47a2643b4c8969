// The PAGE fill (mirrors prover-gpu/src/cuda/rv/page.rs): PAGE's trace from its run
// records (core::rv::machine::RunRecords), equal to `RunRecords::fill_host`.
#include "fill.cuh"

// PAGE (core/src/rv/page/mod.rs).
#define PG_FIN 0
#define PG_FIN_TS 8
#define PG_ZMULT 9
#define PG_WIDTH 10

// PAGE (h rows) from n ≤ h records: fin[n], fin_ts[n], zmult[n] (row r: image word r's
// final value and timestamp, zero range r's touched words; 0 where the row has none).
extern "C" __global__ void ks_fill_page(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    const uint64_t *fin = rec;
    const uint64_t *fin_ts = fin + n;
    const uint64_t *zmult = fin_ts + n;
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        const bool real = i < n;
        const uint64_t v = real ? fin[i] : 0;
        for (int k = 0; k < 8; k++) PUT(PG_FIN + k, byte_of(v, k));
        PUT(PG_FIN_TS, real ? fin_ts[i] : 0);
        PUT(PG_ZMULT, real ? zmult[i] : 0);
#undef PUT
    }
}
