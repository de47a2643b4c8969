// TurboSHAKE128 with domain byte 0x1F and 32-byte output (core/src/hash.rs: Keccak-p[1600, 12],
// rate 168 bytes) over messages made of a one-byte prefix followed by little-endian u64 words,
// which is every hash Kestrel takes:
// Merkle leaves (0x00 || row), inner nodes (0x01 || left || right), and grinding
// (challenge || nonce, no prefix).
#pragma once
#include <cstdint>

__constant__ uint64_t KS_KECCAK_RC[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808Aull, 0x8000000080008000ull,
    0x000000000000808Bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008Aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000Aull,
    0x000000008000808Bull, 0x800000000000008Bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800Aull, 0x800000008000000Aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull};

__device__ __forceinline__ uint64_t ks_rotl(uint64_t x, int n) {
    return (x << n) | (x >> (64 - n));
}

// Keccak-p[1600, 12]: rounds 12 to 23 of Keccak-f[1600].
__device__ __forceinline__ void keccak_p12(uint64_t s[25]) {
#pragma unroll 1
    for (int round = 12; round < 24; round++) {
        uint64_t c0 = s[0] ^ s[5] ^ s[10] ^ s[15] ^ s[20];
        uint64_t c1 = s[1] ^ s[6] ^ s[11] ^ s[16] ^ s[21];
        uint64_t c2 = s[2] ^ s[7] ^ s[12] ^ s[17] ^ s[22];
        uint64_t c3 = s[3] ^ s[8] ^ s[13] ^ s[18] ^ s[23];
        uint64_t c4 = s[4] ^ s[9] ^ s[14] ^ s[19] ^ s[24];
        uint64_t d0 = c4 ^ ks_rotl(c1, 1);
        uint64_t d1 = c0 ^ ks_rotl(c2, 1);
        uint64_t d2 = c1 ^ ks_rotl(c3, 1);
        uint64_t d3 = c2 ^ ks_rotl(c4, 1);
        uint64_t d4 = c3 ^ ks_rotl(c0, 1);
        // theta + rho + pi: b[y][2x+3y] = rot(a[x][y] ^ d[x], r[x][y])
        uint64_t b0 = s[0] ^ d0;
        uint64_t b10 = ks_rotl(s[1] ^ d1, 1);
        uint64_t b20 = ks_rotl(s[2] ^ d2, 62);
        uint64_t b5 = ks_rotl(s[3] ^ d3, 28);
        uint64_t b15 = ks_rotl(s[4] ^ d4, 27);
        uint64_t b16 = ks_rotl(s[5] ^ d0, 36);
        uint64_t b1 = ks_rotl(s[6] ^ d1, 44);
        uint64_t b11 = ks_rotl(s[7] ^ d2, 6);
        uint64_t b21 = ks_rotl(s[8] ^ d3, 55);
        uint64_t b6 = ks_rotl(s[9] ^ d4, 20);
        uint64_t b7 = ks_rotl(s[10] ^ d0, 3);
        uint64_t b17 = ks_rotl(s[11] ^ d1, 10);
        uint64_t b2 = ks_rotl(s[12] ^ d2, 43);
        uint64_t b12 = ks_rotl(s[13] ^ d3, 25);
        uint64_t b22 = ks_rotl(s[14] ^ d4, 39);
        uint64_t b23 = ks_rotl(s[15] ^ d0, 41);
        uint64_t b8 = ks_rotl(s[16] ^ d1, 45);
        uint64_t b18 = ks_rotl(s[17] ^ d2, 15);
        uint64_t b3 = ks_rotl(s[18] ^ d3, 21);
        uint64_t b13 = ks_rotl(s[19] ^ d4, 8);
        uint64_t b14 = ks_rotl(s[20] ^ d0, 18);
        uint64_t b24 = ks_rotl(s[21] ^ d1, 2);
        uint64_t b9 = ks_rotl(s[22] ^ d2, 61);
        uint64_t b19 = ks_rotl(s[23] ^ d3, 56);
        uint64_t b4 = ks_rotl(s[24] ^ d4, 14);
        // chi
        s[0] = b0 ^ (~b1 & b2);
        s[1] = b1 ^ (~b2 & b3);
        s[2] = b2 ^ (~b3 & b4);
        s[3] = b3 ^ (~b4 & b0);
        s[4] = b4 ^ (~b0 & b1);
        s[5] = b5 ^ (~b6 & b7);
        s[6] = b6 ^ (~b7 & b8);
        s[7] = b7 ^ (~b8 & b9);
        s[8] = b8 ^ (~b9 & b5);
        s[9] = b9 ^ (~b5 & b6);
        s[10] = b10 ^ (~b11 & b12);
        s[11] = b11 ^ (~b12 & b13);
        s[12] = b12 ^ (~b13 & b14);
        s[13] = b13 ^ (~b14 & b10);
        s[14] = b14 ^ (~b10 & b11);
        s[15] = b15 ^ (~b16 & b17);
        s[16] = b16 ^ (~b17 & b18);
        s[17] = b17 ^ (~b18 & b19);
        s[18] = b18 ^ (~b19 & b15);
        s[19] = b19 ^ (~b15 & b16);
        s[20] = b20 ^ (~b21 & b22);
        s[21] = b21 ^ (~b22 & b23);
        s[22] = b22 ^ (~b23 & b24);
        s[23] = b23 ^ (~b24 & b20);
        s[24] = b24 ^ (~b20 & b21);
        // iota
        s[0] ^= KS_KECCAK_RC[round];
    }
}

// Absorbs lanes into a 168-byte-rate sponge (21 lanes), one 8-byte lane at a time.
struct KeccakSponge {
    uint64_t s[25];
    int pos;
    __device__ __forceinline__ void init() {
#pragma unroll
        for (int i = 0; i < 25; i++) s[i] = 0;
        pos = 0;
    }
    __device__ __forceinline__ void lane(uint64_t v) {
        s[pos] ^= v;
        if (++pos == 21) {
            keccak_p12(s);
            pos = 0;
        }
    }
    // Last lane: holds `nbytes` (0..7) message bytes; then the domain byte 0x1F, pad10*1's
    // final bit and the final permutation.
    __device__ __forceinline__ void finish(uint64_t last, int nbytes) {
        s[pos] ^= last | (0x1Full << (8 * nbytes));
        s[20] ^= 0x8000000000000000ull;
        keccak_p12(s);
    }
};

// H(prefix || w[0]_le || ... || w[n-1]_le); `word(i)` yields w[i]. Writes 4 lanes. Lane k of
// the message is the prefix byte (or the previous word's top byte) and word k's low seven
// bytes; the last lane holds the last top byte and the domain byte. Absorbed a block of 21
// lanes at a time with every state index a compile-time constant, so the state stays in
// registers (a lane index known only at run time would put it in local memory, about a
// third of the permutation rate).
template <typename F>
__device__ __forceinline__ void keccak_prefixed_words(uint8_t prefix, uint32_t n, F word, uint64_t out[4]) {
    uint64_t s[25];
#pragma unroll
    for (int j = 0; j < 25; j++) s[j] = 0;
    uint64_t carry = prefix;  // the byte that spills into the next lane
    uint32_t i = 0;
    for (; i + 21 <= n; i += 21) {
#pragma unroll
        for (int j = 0; j < 21; j++) {
            const uint64_t v = word(i + j);
            s[j] ^= carry | (v << 8);
            carry = v >> 56;
        }
        keccak_p12(s);
    }
    // The last block: r < 21 word lanes, then the final lane, then pad10*1's last bit.
    const uint32_t r = n - i;
#pragma unroll
    for (int j = 0; j < 21; j++) {
        if ((uint32_t)j < r) {
            const uint64_t v = word(i + j);
            s[j] ^= carry | (v << 8);
            carry = v >> 56;
        } else if ((uint32_t)j == r) {
            s[j] ^= carry | (0x1Full << 8);
        }
    }
    s[20] ^= 0x8000000000000000ull;
    keccak_p12(s);
    out[0] = s[0];
    out[1] = s[1];
    out[2] = s[2];
    out[3] = s[3];
}
