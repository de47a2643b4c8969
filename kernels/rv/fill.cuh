// Shared device code of the table fills under kernels/rv/ (one .cu per table, mirroring
// core/src/rv/<table>/ and prover-gpu/src/cuda/rv/<table>.rs). Each fill kernel builds one
// table's main trace column-major (column c at out + c * h, natural row order) from packed
// records, one thread per row, padding rows included; the row index is the thread index.
// Each matches its Rust builder bit for bit (the room's fill.rs).
#pragma once
#include "field.cuh"

// Byte i of v.
__device__ __forceinline__ uint64_t byte_of(uint64_t v, int i) { return (v >> (8 * i)) & 0xff; }
