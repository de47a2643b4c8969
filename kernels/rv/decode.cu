// The DECODE fill (mirrors prover-gpu/src/cuda/rv/decode.rs): DECODE's multiplicities
// counted from the steps' DECODE rows the register walk holds; equal to
// core::rv::decode::build_trace of the counts.
#include "fill.cuh"

// DECODE (core/src/rv/decode/mod.rs): one main column, the multiplicity.
#define DEC_M 0
#define DEC_WIDTH 1
// The most code slots counted in shared memory (32 KiB of counters per block).
#define DEC_SHARED_SLOTS 8192

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
