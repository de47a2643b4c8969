// The run tables' fills (mirrors prover-gpu/src/cuda/rv/run.rs): DECODE's multiplicities
// counted from the steps' DECODE rows, and REGISTER, PAGE and PAGE0 from their records
// (core::rv::machine::RunRecords, whose host fill `RunRecords::fill_host` each matches).
#include "fill.cuh"

// DECODE (core/src/rv/decode/mod.rs): one main column, the multiplicity.
#define DEC_M 0
#define DEC_WIDTH 1
// The most code slots counted in shared memory (32 KiB of counters per block).
#define DEC_SHARED_SLOTS 8192

// REGISTER (core/src/rv/register/mod.rs).
#define RG_FINAL 0
#define RG_FINAL_TS 8
#define RG_IN 9
#define RG_WIDTH 13

// PAGE (core/src/rv/page/mod.rs).
#define PG_FIN 0
#define PG_FIN_TS 8
#define PG_ZMULT 9
#define PG_WIDTH 10

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

// DECODE's multiplicity column (`out`, h ≥ rows words, zeroed by the caller): per step
// i < n, one more execution of row dec_row[i]. Counted per block in shared memory when
// the program has at most DEC_SHARED_SLOTS rows, then added once per row and block; the
// sums are integers, so the order of the atomic adds does not change them. A row outside
// `rows` (never: the launcher checks the records) is not counted.
extern "C" __global__ void ks_fill_decode_mult(uint64_t *out, const uint32_t *dec_row, uint64_t n,
                                               uint32_t rows) {
    __shared__ uint32_t counts[DEC_SHARED_SLOTS];
    const bool shared = rows <= DEC_SHARED_SLOTS;
    if (shared) {
        for (uint32_t r = threadIdx.x; r < rows; r += blockDim.x) counts[r] = 0;
        __syncthreads();
    }
    for (uint64_t i = ks_tid(); i < n; i += ks_nthreads()) {
        const uint32_t r = dec_row[i];
        if (r >= rows) continue;
        if (shared) {
            atomicAdd(&counts[r], 1u);
        } else {
            atomicAdd((unsigned long long *)(out + r), 1ull);
        }
    }
    if (shared) {
        __syncthreads();
        for (uint32_t r = threadIdx.x; r < rows; r += blockDim.x) {
            const uint32_t c = counts[r];
            if (c != 0) atomicAdd((unsigned long long *)(out + r), (unsigned long long)c);
        }
    }
}

// REGISTER (h rows) from its n ≤ h records: value[n], ts[n], input[n] (the input length on
// REG_INPUT's row, 0 elsewhere); rows past n are zero.
extern "C" __global__ void ks_fill_register(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    const uint64_t *value = rec;
    const uint64_t *ts = value + n;
    const uint64_t *input = ts + n;
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        const bool real = i < n;
        const uint64_t v = real ? value[i] : 0;
        const uint64_t len = real ? input[i] : 0;
        for (int k = 0; k < 8; k++) PUT(RG_FINAL + k, byte_of(v, k));
        PUT(RG_FINAL_TS, real ? ts[i] : 0);
        for (int k = 0; k < 4; k++) PUT(RG_IN + k, byte_of(len, k));
#undef PUT
    }
}

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
