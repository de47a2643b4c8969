// Roofline reference for the benchmarks: a plain device-to-device copy.
#include "field.cuh"

extern "C" __global__ void ks_copy(uint64_t *dst, const uint64_t *src, uint64_t n) {
    for (uint64_t i = ks_tid(); i < n; i += ks_nthreads()) dst[i] = src[i];
}
