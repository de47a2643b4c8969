// Byte lookups counted on the device (prover-gpu/src/cuda/bytes.rs): BITWISE's
// multiplicities from the traces of the tables that send on the byte bus, by running each
// table's program of byte sends (prover-gpu/src/program.rs, `compile_sends`) over its rows.
// The host reference is `program::byte_sends_host`.
//
// The program computes fingerprints `beta - (bus + sum_i alpha_i * v_i)`; run with beta = 0
// and alpha_0..2 the unit vectors of the extension ((1,0,0), (0,1,0), (0,0,1)) and alpha_3 = 0,
// a send of (op, x, y, z) gives the coordinates (-(bus + op), -x, -y): its values exactly,
// in the field. A send with multiplicity 0 counts nothing; any other must have op a BITWISE
// column (< KS_BYTE_OPS), x and y bytes and a multiplicity below KS_BYTE_MAX_MULT, or the
// flag is set and it counts nothing (the host sees an error, never a wrong trace).
//
// The histogram is BITWISE's main trace column-major: hist[op << 16 | x | y << 8]. Equal
// lookups of a warp are summed first (__match_any_sync, __reduce_add_sync), and one lane
// adds them (64-bit atomics: integer sums, so the counts do not depend on the order).
#pragma once
#include "program.cuh"

#define KS_BYTE_OPS 4u
#define KS_BYTE_MAX_MULT 67108864ull  // 2^26

template <typename Prog>
__device__ __forceinline__ void ks_bytes_with(uint64_t *hist, uint32_t *flag, const uint4 *prog, uint32_t len,
                                              const uint64_t *consts, const uint64_t *main, const uint64_t *pre,
                                              uint32_t log_n, const uint64_t *unit, uint32_t bus) {
    const uint64_t n = 1ull << log_n;
    const uint32_t lane = threadIdx.x & 31u;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    // Warp-uniform loop: every lane of a warp takes part in each sum (rows past n count
    // nothing but still run the program, on the last row).
    for (uint64_t base = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x - lane; base < n; base += stride) {
        const uint64_t r = base + lane;
        const bool live = r < n;
        const uint64_t row = live ? r : n - 1;
        const uint64_t next = (row + 1) & (n - 1);
        Prog::run(prog, len, consts, KsCols{main, n}, KsCols{pre, n}, row, next, unit, e3(0),
                  [&](uint32_t, uint64_t) {},
                  [&](uint32_t, uint64_t m, ext3 f) {
                      uint32_t key = 0xffffffffu;
                      uint32_t count = 0;
                      if (live && m != 0) {
                          const uint64_t op = gl_sub(gl_neg(f.c0), (uint64_t)bus);
                          const uint64_t x = gl_neg(f.c1), y = gl_neg(f.c2);
                          if (op < KS_BYTE_OPS && x < 256 && y < 256 && m < KS_BYTE_MAX_MULT) {
                              key = (uint32_t)(op << 16 | x | y << 8);
                              count = (uint32_t)m;
                          } else {
                              atomicOr(flag, 1u);
                          }
                      }
                      const uint32_t peers = __match_any_sync(0xffffffffu, key);
                      const uint32_t sum = __reduce_add_sync(peers, count);
                      if (key != 0xffffffffu && lane == (uint32_t)(__ffs(peers) - 1) && sum != 0)
                          atomicAdd((unsigned long long *)(hist + key), (unsigned long long)sum);
                  });
    }
}
