// Merkle trees (core/src/merkle.rs, hash in keccak.cuh): leaf = H(0x00 || row), node =
// H(0x01 || left || right), injection = H(0x02 || acc || d); digests are 4
// little-endian u64 lanes. Mirrors prover-gpu/src/cuda/merkle.rs.
#include "field.cuh"
#include "keccak.cuh"

// Leaf i over row i of a column-major matrix (value c of row i at data[c*stride + i]).
extern "C" __global__ void ks_merkle_leaves_cols(uint64_t *out, const uint64_t *data, uint64_t stride,
                                                 uint64_t rows, uint32_t cols) {
    for (uint64_t i = ks_tid(); i < rows; i += ks_nthreads()) {
        uint64_t d[4];
        keccak_prefixed_words(0x00, cols, [&](uint32_t c) { return data[(uint64_t)c * stride + i]; }, d);
        uint64_t *o = out + 4 * i;
        o[0] = d[0];
        o[1] = d[1];
        o[2] = d[2];
        o[3] = d[3];
    }
}

// Leaf i over `width` consecutive words of a row-major buffer.
extern "C" __global__ void ks_merkle_leaves_rows(uint64_t *out, const uint64_t *data, uint64_t rows,
                                                 uint32_t width) {
    for (uint64_t i = ks_tid(); i < rows; i += ks_nthreads()) {
        const uint64_t *row = data + i * width;
        uint64_t d[4];
        keccak_prefixed_words(0x00, width, [&](uint32_t c) { return row[c]; }, d);
        uint64_t *o = out + 4 * i;
        o[0] = d[0];
        o[1] = d[1];
        o[2] = d[2];
        o[3] = d[3];
    }
}

// One level up: out[i] = node(in[2i], in[2i+1]).
extern "C" __global__ void ks_merkle_level(uint64_t *out, const uint64_t *in, uint64_t count) {
    for (uint64_t i = ks_tid(); i < count; i += ks_nthreads()) {
        const uint64_t *pair = in + 8 * i;
        uint64_t d[4];
        keccak_prefixed_words(0x01, 8, [&](uint32_t c) { return pair[c]; }, d);
        uint64_t *o = out + 4 * i;
        o[0] = d[0];
        o[1] = d[1];
        o[2] = d[2];
        o[3] = d[3];
    }
}

// A round tree's injection of a matrix's row digests into one level (core/src/merkle.rs,
// the mixed-matrix tree): nodes[i] = inject(nodes[i], digests[i]) for i < count, or, with
// `assign`, nodes[i] = digests[i] (the first matrix of the leaf level).
extern "C" __global__ void ks_merkle_inject(uint64_t *nodes, const uint64_t *digests, uint64_t count,
                                            uint32_t assign) {
    for (uint64_t i = ks_tid(); i < count; i += ks_nthreads()) {
        uint64_t *n = nodes + 4 * i;
        const uint64_t *e = digests + 4 * i;
        if (assign) {
            n[0] = e[0];
            n[1] = e[1];
            n[2] = e[2];
            n[3] = e[3];
            continue;
        }
        uint64_t in[8] = {n[0], n[1], n[2], n[3], e[0], e[1], e[2], e[3]};
        uint64_t d[4];
        keccak_prefixed_words(0x02, 8, [&](uint32_t c) { return in[c]; }, d);
        n[0] = d[0];
        n[1] = d[1];
        n[2] = d[2];
        n[3] = d[3];
    }
}

// A batch of openings, one block each: for opening b, `count` values
// data[rows[b]*row_stride + k*col_stride], then the first `depth` siblings of the Merkle path
// of leaf leaves[b] (depth <= log_leaves: a path stops below the tree's cap); opening b is
// written at out + b * (count + 4 * depth). `idx` = rows (q words) then leaves (q words).
extern "C" __global__ void ks_open_gather_batch(uint64_t *out, const uint64_t *data, const uint64_t *idx,
                                                uint32_t q, uint64_t row_stride, uint64_t col_stride,
                                                uint32_t count, const uint64_t *tree, uint32_t log_leaves,
                                                uint32_t depth) {
    for (uint32_t b = blockIdx.x; b < q; b += gridDim.x) {
        const uint64_t row = idx[b], leaf = idx[q + b];
        uint64_t *o = out + (uint64_t)b * (count + 4ull * depth);
        for (uint32_t k = threadIdx.x; k < count; k += blockDim.x)
            o[k] = data[row * row_stride + (uint64_t)k * col_stride];
        uint64_t *path = o + count;
        for (uint32_t l = threadIdx.x; l < depth; l += blockDim.x) {
            uint64_t offset = ((1ull << (log_leaves + 1)) - (1ull << (log_leaves + 1 - l)));
            const uint64_t *d = tree + 4 * (offset + ((leaf >> l) ^ 1));
            path[4 * l + 0] = d[0];
            path[4 * l + 1] = d[1];
            path[4 * l + 2] = d[2];
            path[4 * l + 3] = d[3];
        }
    }
}
