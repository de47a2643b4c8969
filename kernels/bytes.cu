// Byte lookups (BITWISE's multiplicities) from a table's trace, by the interpreter: the
// tables without a generated kernel (kernels/gen/<table>.cu). See bytes.cuh.
#include "bytes.cuh"

extern "C" __global__ void ks_bytes(uint64_t *hist, uint32_t *flag, const uint4 *prog, uint32_t len,
                                    const uint64_t *consts, const uint64_t *main, const uint64_t *pre,
                                    uint32_t log_n, const uint64_t *unit, uint32_t bus) {
    ks_bytes_with<KsInterp>(hist, flag, prog, len, consts, main, pre, log_n, unit, bus);
}

// hist[idx] += count for each of the n entries idx | count << 32 (distinct indices): lookups
// counted elsewhere (REGISTER's, or every run table's, on the host) added to the device's
// counts, after every table's kernel on the stream.
extern "C" __global__ void ks_bytes_add(uint64_t *hist, const uint64_t *entries, uint64_t n) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t e = entries[i];
        hist[e & 0xffffffffull] += e >> 32;
    }
}
