// The MEMW_R fill (mirrors prover-gpu/src/cuda/rv/memw_r.rs): ks_fill_memw_r =
// core::rv::memw_r::fill_host.
#include "fill.cuh"

// MEMW_R columns (core/src/rv/memw_r/mod.rs).
#define MW_REG 0
#define MW_OLD 1
#define MW_OLD_TS 9
#define MW_NEW 10
#define MW_TS 18
#define MW_IS_WRITE 19
#define MW_IS_REAL 20
#define MW_DIFF 21
#define MW_WIDTH 26

// MEMW_R (h rows) from n accesses in the CPU's order (n = 3 * steps): access r has timestamp
// 4*(clk0 + r/3) + r%3 + 1 (clk0: the clock of the records' first step) and writes iff
// r%3 == 2; then x whole extra rows (the system calls' accesses). `rec` holds meta[n + x] (reg | old_ts << 8), old[n + x], new[n/3] (the value
// each step's write stores), then per extra row its new value and ts | is_write << 63.
extern "C" __global__ void ks_fill_memw_r(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n,
                                          uint64_t x, uint64_t clk0) {
    const uint64_t *meta = rec;
    const uint64_t *old = rec + n + x;
    const uint64_t *nw = old + n + x;
    const uint64_t *xnew = nw + n / 3;
    const uint64_t *xts = xnew + x;
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n + x) {
            for (int c = 0; c < MW_WIDTH; c++) PUT(c, 0);
            continue;
        }
        uint64_t ts, nv;
        bool w;
        const uint64_t m = meta[i];
        const uint64_t old_ts = m >> 8;
        const uint64_t ov = old[i];
        if (i < n) {
            const uint64_t step = i / 3, k = i % 3;
            ts = 4 * (clk0 + step) + k + 1;
            w = k == 2;
            nv = w ? nw[step] : ov;
        } else {
            const uint64_t e = i - n;
            ts = xts[e] & ~(1ull << 63);
            w = (xts[e] >> 63) != 0;
            nv = w ? xnew[e] : ov;
        }
        // Wrapping, as the host fill computes it; five bytes (timestamps below 2^39).
        const uint64_t diff = ts - old_ts - 1;
        PUT(MW_REG, m & 0xff);
        PUT(MW_OLD_TS, gl_canon(old_ts));
        PUT(MW_TS, gl_canon(ts));
        PUT(MW_IS_WRITE, w ? 1 : 0);
        PUT(MW_IS_REAL, 1);
        for (int j = 0; j < 8; j++) {
            PUT(MW_OLD + j, byte_of(ov, j));
            PUT(MW_NEW + j, byte_of(nv, j));
        }
        for (int j = 0; j < 5; j++) PUT(MW_DIFF + j, byte_of(diff, j));
#undef PUT
    }
}
