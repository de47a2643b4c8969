// The ALU tables' distinct rows made on the device (core::rv::pack's ALU routing and
// core::rv::alu_ops::distinct_ops; launched by prover-gpu/src/cuda/rv/alu_ops.rs). Each step
// of class ALU or BRANCH asks for one operation (op, a, b): op its DECODE row's alu_op, a its
// rs1 value, b the immediate when use_imm, else its rs2 value (the register walk's rs1 and
// rs2); the system calls' few ALU lookups come from the host. The operations are listed
// (per chunk of steps: counts, a one-block scan, the list), sorted by (op, a, b) with a
// stable LSD radix sort of their 32-bit words (b's low and high, a's low and high, op; each
// word in 8-bit passes of the memory walk's sort kernels, a permutation as the values), and
// merged into distinct rows (op | mult << 32, a, b) in that order. The tables' op codes are
// consecutive ranges in table order (LT, EQ, SHIFT, MUL, DVRM), so each table's rows are a
// slice of them; ks_alu_bounds finds the slices.
#include "fill.cuh"

// DECODE fields (after the row's pc; core::rv::decode::DecodeFields).
#define AK_CLS_ALU 7
#define AK_CLS_BRANCH 8
#define AK_F_USE_IMM 15
#define AK_F_ALU_OP 17
#define AK_F_IMM 22
#define AK_DEC_WORDS 31
// Steps (and sorted operations) per chunk (cuda/rv/alu_ops.rs's ALU_CHUNK).
#define AK_CHUNK 256
// The ALU tables (cuda/rv/alu_ops.rs's AluTable::ALL).
#define AK_TABLES 5

// Step i's operation, if it asks for one.
__device__ __forceinline__ bool ak_op(const uint32_t *dec_row, const uint64_t *rs1,
                                      const uint64_t *rs2, const uint64_t *dec, uint64_t i,
                                      uint32_t *op, uint64_t *a, uint64_t *b) {
    const uint64_t *f = dec + (uint64_t)dec_row[i] * AK_DEC_WORDS + 1;
    if (f[AK_CLS_ALU] == 0 && f[AK_CLS_BRANCH] == 0) return false;
    *op = (uint32_t)f[AK_F_ALU_OP];
    *a = rs1[i];
    if (f[AK_F_USE_IMM] != 0) {
        uint64_t imm = 0;
        for (int k = 0; k < 8; k++) imm |= (f[AK_F_IMM + k] & 0xff) << (8 * k);
        *b = imm;
    } else {
        *b = rs2[i];
    }
    return true;
}

// Per chunk of steps, how many ask for an operation.
extern "C" __global__ void ks_alu_count(uint64_t *cnt, const uint32_t *dec_row, const uint64_t *dec,
                                        uint64_t n) {
    const uint64_t chunks = (n + AK_CHUNK - 1) / AK_CHUNK;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        const uint64_t i0 = c * AK_CHUNK, i1 = i0 + AK_CHUNK < n ? i0 + AK_CHUNK : n;
        uint64_t k = 0;
        for (uint64_t i = i0; i < i1; i++) {
            const uint64_t *f = dec + (uint64_t)dec_row[i] * AK_DEC_WORDS + 1;
            k += f[AK_CLS_ALU] != 0 || f[AK_CLS_BRANCH] != 0;
        }
        cnt[c] = k;
    }
}

// The operations in step order from each chunk's first index (cnt, scanned), then the
// system calls' x lookups (xops: op, a, b each) from *xat (the steps' operations); perm the
// identity. `m`: the operations allocated (writes beyond are dropped).
extern "C" __global__ void ks_alu_list(uint32_t *op, uint64_t *a, uint64_t *b, uint32_t *perm,
                                       const uint64_t *cnt, const uint64_t *xat,
                                       const uint32_t *dec_row,
                                       const uint64_t *rs1, const uint64_t *rs2,
                                       const uint64_t *dec, uint64_t n, const uint64_t *xops,
                                       uint64_t x, uint64_t m) {
    const uint64_t chunks = (n + AK_CHUNK - 1) / AK_CHUNK;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        const uint64_t i0 = c * AK_CHUNK, i1 = i0 + AK_CHUNK < n ? i0 + AK_CHUNK : n;
        uint64_t j = cnt[c];
        for (uint64_t i = i0; i < i1; i++) {
            uint32_t o;
            uint64_t va, vb;
            if (!ak_op(dec_row, rs1, rs2, dec, i, &o, &va, &vb)) continue;
            if (j < m) {
                op[j] = o;
                a[j] = va;
                b[j] = vb;
            }
            j++;
        }
    }
    for (uint64_t k = ks_tid(); k < x; k += ks_nthreads()) {
        const uint64_t j = *xat + k;
        if (j < m) {
            op[j] = (uint32_t)xops[3 * k];
            a[j] = xops[3 * k + 1];
            b[j] = xops[3 * k + 2];
        }
    }
    for (uint64_t i = ks_tid(); i < m; i += ks_nthreads()) perm[i] = (uint32_t)i;
}

// Word w of operation p's sort key (0, 1: b's low and high; 2, 3: a's; 4: op).
__device__ __forceinline__ uint32_t ak_word(const uint32_t *op, const uint64_t *a,
                                            const uint64_t *b, uint32_t p, uint32_t w) {
    switch (w) {
        case 0: return (uint32_t)b[p];
        case 1: return (uint32_t)(b[p] >> 32);
        case 2: return (uint32_t)a[p];
        case 3: return (uint32_t)(a[p] >> 32);
        default: return op[p];
    }
}

// The keys of the next sort round: word w of each operation in the current order.
extern "C" __global__ void ks_alu_keys(uint32_t *key, const uint32_t *perm, const uint32_t *op,
                                       const uint64_t *a, const uint64_t *b, uint64_t m,
                                       uint64_t w) {
    for (uint64_t i = ks_tid(); i < m; i += ks_nthreads())
        key[i] = ak_word(op, a, b, perm[i], (uint32_t)w);
}

// Whether sorted position i starts a distinct (op, a, b).
__device__ __forceinline__ bool ak_head(const uint32_t *perm, const uint32_t *op,
                                        const uint64_t *a, const uint64_t *b, uint64_t i) {
    if (i == 0) return true;
    const uint32_t p = perm[i], q = perm[i - 1];
    return op[p] != op[q] || a[p] != a[q] || b[p] != b[q];
}

// Per chunk of sorted positions, how many start a distinct operation.
extern "C" __global__ void ks_alu_heads_count(uint64_t *cnt, const uint32_t *perm,
                                              const uint32_t *op, const uint64_t *a,
                                              const uint64_t *b, uint64_t m) {
    const uint64_t chunks = (m + AK_CHUNK - 1) / AK_CHUNK;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        const uint64_t i0 = c * AK_CHUNK, i1 = i0 + AK_CHUNK < m ? i0 + AK_CHUNK : m;
        uint64_t k = 0;
        for (uint64_t i = i0; i < i1; i++) k += ak_head(perm, op, a, b, i);
        cnt[c] = k;
    }
}

// Each distinct operation's first sorted position, from each chunk's first index (cnt,
// scanned).
extern "C" __global__ void ks_alu_heads(uint32_t *pos, const uint64_t *cnt, const uint32_t *perm,
                                        const uint32_t *op, const uint64_t *a, const uint64_t *b,
                                        uint64_t m) {
    const uint64_t chunks = (m + AK_CHUNK - 1) / AK_CHUNK;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        const uint64_t i0 = c * AK_CHUNK, i1 = i0 + AK_CHUNK < m ? i0 + AK_CHUNK : m;
        uint64_t j = cnt[c];
        for (uint64_t i = i0; i < i1; i++)
            if (ak_head(perm, op, a, b, i)) pos[j++] = (uint32_t)i;
    }
}

// The distinct rows (op | mult << 32, a, b), u = *total of them (at most m).
extern "C" __global__ void ks_alu_rows(uint64_t *rec, const uint32_t *pos, const uint32_t *perm,
                                       const uint32_t *op, const uint64_t *a, const uint64_t *b,
                                       const uint64_t *total, uint64_t m) {
    const uint64_t u = *total < m ? *total : m;
    for (uint64_t r = ks_tid(); r < u; r += ks_nthreads()) {
        const uint64_t i = pos[r], end = r + 1 < u ? pos[r + 1] : m;
        const uint32_t p = perm[i];
        rec[3 * r] = (uint64_t)op[p] | (end - i) << 32;
        rec[3 * r + 1] = a[p];
        rec[3 * r + 2] = b[p];
    }
}

// Each table's first row: first[k] the rows with op below lo[k] (table k's least op, byte k
// of lo8; first[AK_TABLES]: those with op at most hi, the last table's greatest), found by
// binary search of the sorted rows.
extern "C" __global__ void ks_alu_bounds(uint64_t *first, const uint64_t *rec,
                                         const uint64_t *total, uint64_t m, uint64_t lo8,
                                         uint64_t hi) {
    const uint64_t u = *total < m ? *total : m;
    for (uint64_t k = ks_tid(); k <= AK_TABLES; k += ks_nthreads()) {
        const uint32_t below = k < AK_TABLES ? (uint32_t)((lo8 >> (8 * k)) & 0xff) : (uint32_t)hi + 1;
        uint64_t l = 0, h = u;
        while (l < h) {
            const uint64_t mid = l + (h - l) / 2;
            if ((uint32_t)rec[3 * mid] < below) l = mid + 1;
            else h = mid;
        }
        first[k] = l;
    }
}
