// Shared by the LOAD and STORE fills (kernels/rv/load.cu, kernels/rv/store.cu), as STORE's
// room uses LOAD's access helpers in core/src/rv/load/.
#pragma once
#include "fill.cuh"

// Bytes of an access with this funct3: 1 << (funct3 & 3) (load::width_of).
__device__ __forceinline__ uint32_t mem_width(uint32_t funct3) { return 1u << (funct3 & 3); }

// The access crosses a word boundary (load::is_split).
__device__ __forceinline__ bool mem_split(uint32_t funct3, uint32_t addr) {
    return (addr & 7) + mem_width(funct3) > 8;
}

// The low `width` bytes set (width in 1, 2, 4, 8).
__device__ __forceinline__ uint64_t mem_mask(uint32_t width) {
    return width >= 8 ? ~0ull : (1ull << (8 * width)) - 1;
}

// Bytes off .. off + 8 of the 16-byte window (lo, hi).
__device__ __forceinline__ uint64_t mem_window_at(uint64_t lo, uint64_t hi, uint32_t off) {
    return off == 0 ? lo : (lo >> (8 * off)) | (hi << (64 - 8 * off));
}
