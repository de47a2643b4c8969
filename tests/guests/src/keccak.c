/* keccak: prints the SHA3-256 (FIPS 202, Keccak-f[1600] sponge, rate 136, domain 0x06) of the
 * whole private input in hex. First checks Keccak-f[1600] on the all-zero state against the
 * reference test vector (exit 2 on mismatch). */
#include "kestrel.h"

static const uint64_t RC[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};
static const int ROT[25] = {0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43,
                            25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14};

static inline uint64_t rol(uint64_t x, int n) { return n ? (x << n) | (x >> (64 - n)) : x; }

static void keccak_f(uint64_t a[25]) {
    for (int round = 0; round < 24; round++) {
        uint64_t c[5], d[5], b[25];
        for (int x = 0; x < 5; x++) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (int x = 0; x < 5; x++) d[x] = c[(x + 4) % 5] ^ rol(c[(x + 1) % 5], 1);
        for (int i = 0; i < 25; i++) a[i] ^= d[i % 5];
        /* rho and pi: b[y, 2x+3y] = rol(a[x, y], r[x, y]) */
        for (int x = 0; x < 5; x++)
            for (int y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rol(a[x + 5 * y], ROT[x + 5 * y]);
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 5; x++) a[x + 5 * y] = b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
        a[0] ^= RC[round];
    }
}

/* Keccak-f[1600] of the zero state: first and last lanes (Keccak team's KeccakF-1600 vector). */
#define ZERO_LANE0 0xF1258F7940E1DDE7ULL
#define ZERO_LANE24 0xEAF1FF7B5CECA249ULL

static uint8_t chunk[4096];

int main(void) {
    uint64_t s[25];
    memset(s, 0, sizeof s);
    keccak_f(s);
    if (s[0] != ZERO_LANE0 || s[24] != ZERO_LANE24) {
        ks_debug("keccak: self-check failed\n");
        return 2;
    }
    memset(s, 0, sizeof s);
    uint8_t block[136];
    size_t fill = 0;
    for (;;) {
        size_t n = ks_read_all(chunk, sizeof chunk);
        for (size_t i = 0; i < n; i++) {
            block[fill++] = chunk[i];
            if (fill == 136) {
                for (int k = 0; k < 17; k++) {
                    uint64_t lane = 0;
                    for (int j = 0; j < 8; j++) lane |= (uint64_t)block[8 * k + j] << (8 * j);
                    s[k] ^= lane;
                }
                keccak_f(s);
                fill = 0;
            }
        }
        if (n < sizeof chunk) break;
    }
    memset(block + fill, 0, 136 - fill);
    block[fill] ^= 0x06;
    block[135] ^= 0x80;
    for (int k = 0; k < 17; k++) {
        uint64_t lane = 0;
        for (int j = 0; j < 8; j++) lane |= (uint64_t)block[8 * k + j] << (8 * j);
        s[k] ^= lane;
    }
    keccak_f(s);
    uint8_t out[32];
    for (int i = 0; i < 32; i++) out[i] = (uint8_t)(s[i / 8] >> (8 * (i % 8)));
    ks_write_hex(1, out, 32);
    ks_write_str(1, "\n");
    return 0;
}
