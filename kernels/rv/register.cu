// The REGISTER fill (mirrors prover-gpu/src/cuda/rv/register.rs): REGISTER's trace from its run
// records (core::rv::machine::RunRecords), equal to `RunRecords::fill_host`.
#include "fill.cuh"

// REGISTER (core/src/rv/register/mod.rs).
#define RG_FINAL 0
#define RG_FINAL_TS 8
#define RG_IN 9
#define RG_WIDTH 13

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
