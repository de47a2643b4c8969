// Proof-of-work search (core/src/transcript.rs check_pow): the smallest nonce in
// [start, start + count) whose H(challenge || nonce_le) (keccak.cuh) has >= bits leading zero
// bits; atomicMin keeps the smallest. Mirrors prover-gpu/src/cuda/grind.rs.
#include "field.cuh"
#include "keccak.cuh"

extern "C" __global__ void ks_grind(unsigned long long *best, uint64_t c0, uint64_t c1, uint64_t c2,
                                    uint64_t c3, uint32_t bits, uint64_t start, uint64_t count) {
    for (uint64_t i = ks_tid(); i < count; i += ks_nthreads()) {
        uint64_t nonce = start + i;
        if (nonce < start) break;  // wrapped past 2^64
        KeccakSponge k;
        k.init();
        k.lane(c0);
        k.lane(c1);
        k.lane(c2);
        k.lane(c3);
        k.lane(nonce);
        k.finish(0, 0);
        uint32_t lz = 0;
        for (int l = 0; l < 4; l++) {
            uint64_t x = k.s[l];
            // bytes in order, most significant bit first: byte-swap, then count.
            uint64_t be = ((uint64_t)__byte_perm((uint32_t)x, 0, 0x0123) << 32) |
                          __byte_perm((uint32_t)(x >> 32), 0, 0x0123);
            if (be == 0) {
                lz += 64;
                continue;
            }
            lz += __clzll(be);
            break;
        }
        if (lz >= bits) atomicMin(best, (unsigned long long)nonce);
    }
}
