// The MEMW_A fill (mirrors prover-gpu/src/cuda/rv/memw.rs): ks_fill_memw_a =
// core::rv::memw::build_trace_a. Records are uploaded as arrays of n words each.
#include "access.cuh"

// MEMW_A columns (core/src/rv/memw/mod.rs, one word).
#define MA_W 0
#define MA_OLD 1
#define MA_NEW 9
#define MA_OLD_TS 17
#define MA_TS 18
#define MA_IS_REAL 19
#define MA_DIFF 20
#define MA_WR 25
#define MA_RO 26
#define MA_WIDTH 27

// MEMW_A (h rows) from n word accesses: w[n] (bits 0..32 the word index, bit 32 ro, bit 33
// wr), old[n], new[n], old_ts[n], ts[n].
extern "C" __global__ void ks_fill_memw_a(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    const uint64_t *w = rec;
    const uint64_t *old = w + n;
    const uint64_t *nw = old + n;
    const uint64_t *old_ts = nw + n;
    const uint64_t *ts = old_ts + n;
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < MA_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t ov = old[i], nv = nw[i], ots = old_ts[i], t = ts[i];
        // Wrapping, as the builder computes it; five bytes (timestamps below 2^39).
        const uint64_t diff = t - ots - 1;
        PUT(MA_W, w[i] & 0xffffffffull);
        for (int k = 0; k < 8; k++) {
            PUT(MA_OLD + k, byte_of(ov, k));
            PUT(MA_NEW + k, byte_of(nv, k));
        }
        PUT(MA_OLD_TS, gl_canon(ots));
        PUT(MA_TS, gl_canon(t));
        PUT(MA_IS_REAL, 1);
        for (int k = 0; k < 5; k++) PUT(MA_DIFF + k, byte_of(diff, k));
        PUT(MA_WR, (w[i] >> 33) & 1);
        PUT(MA_RO, (w[i] >> 32) & 1);
#undef PUT
    }
}

// MEMW columns (core/src/rv/memw/mod.rs, two words: word j's bytes at old/new + 8j).
#define MS_W 0
#define MS_OLD0 1
#define MS_OLD1 9
#define MS_NEW0 17
#define MS_NEW1 25
#define MS_OLD_TS0 33
#define MS_OLD_TS1 34
#define MS_TS 35
#define MS_IS_REAL 36
#define MS_DIFF0 37
#define MS_DIFF1 42
#define MS_WR 47
#define MS_RO0 48
#define MS_RO1 49
#define MS_WIDTH 50

// MEMW (h rows) from n split accesses (words w and w + 1 at one timestamp): w[n] (bits 0..32
// the first word's index, bit 32 its ro, bit 33 wr, bit 34 the second word's ro), old0[n],
// old1[n], new0[n], new1[n], old_ts0[n], old_ts1[n], ts[n] (memw::build_trace_s).
extern "C" __global__ void ks_fill_memw_s(uint64_t *out, uint64_t h, const uint64_t *rec, uint64_t n) {
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n) {
            for (int c = 0; c < MS_WIDTH; c++) PUT(c, 0);
            continue;
        }
        const uint64_t w = rec[i], t = rec[7 * n + i];
        const int old_c[2] = {MS_OLD0, MS_OLD1}, new_c[2] = {MS_NEW0, MS_NEW1};
        const int ots_c[2] = {MS_OLD_TS0, MS_OLD_TS1}, diff_c[2] = {MS_DIFF0, MS_DIFF1};
        const int ro_c[2] = {MS_RO0, MS_RO1};
        PUT(MS_W, w & 0xffffffffull);
        for (int j = 0; j < 2; j++) {
            const uint64_t ov = rec[(1 + j) * n + i], nv = rec[(3 + j) * n + i];
            const uint64_t ots = rec[(5 + j) * n + i];
            // Wrapping, as the builder computes it; five bytes (timestamps below 2^39).
            const uint64_t diff = t - ots - 1;
            for (int k = 0; k < 8; k++) {
                PUT(old_c[j] + k, byte_of(ov, k));
                PUT(new_c[j] + k, byte_of(nv, k));
            }
            PUT(ots_c[j], gl_canon(ots));
            for (int k = 0; k < 5; k++) PUT(diff_c[j] + k, byte_of(diff, k));
            PUT(ro_c[j], (w >> (j ? 34 : 32)) & 1);
        }
        PUT(MS_TS, gl_canon(t));
        PUT(MS_IS_REAL, 1);
        PUT(MS_WR, (w >> 33) & 1);
#undef PUT
    }
}

// ---------------------------------------------------------------------------------------
// The memory walk (core::rv::pack's memory replay): LOAD's, STORE's and MEMW_A's records
// from what the register walk made (each step's DECODE row, rs1 and rs2) and what only the
// execution knows: the system calls' transfers (their word accesses: word, written flag,
// value after, timestamp) and each touched word as it was before the segment's first access
// to it (value, timestamp, read-only flag; sorted by word). A load or store accesses word
// (rs1 + imm) / 8, and the next one when split, at memory timestamp clk + 1. The accesses
// are listed in the host's order (steps in order; a split access's two words; a system
// call's transfers), sorted by word (a stable radix sort: each word's accesses stay in time
// order), each word's values replayed (a masked write per access, composed over the
// words' runs), and the records written in the host's order. MEMW (split accesses) stays
// on the host.

// DECODE fields the memory walk reads (after the row's pc; RW_* in memw_r.cu likewise).
#define MK_CLS_ECALL 11
#define MK_CLS_LOAD 12
#define MK_CLS_STORE 13
#define MK_F_ALU_OP 17
#define MK_F_IMM 22
#define MK_DEC_WORDS 31
#define MK_MEMOP_LOAD 32
#define MK_MEMOP_STORE 40
// Steps per chunk (cuda/rv/memw.rs's MEMWALK_CHUNK), sorted accesses per tile of the value
// pass (MEMWALK_TILE), keys per tile of the radix sort (MEMWALK_SORT_TILE), threads of the
// scans (MEMWALK_SCAN_THREADS).
#define MK_CHUNK 256
#define MK_TILE 256
#define MK_SORT_TILE 1024
#define MK_SCAN_THREADS 1024
// Per chunk: loads, stores, accesses, MEMW_A rows, MEMW rows (split accesses).
#define MK_COUNTS 5

// The walk's inputs.
struct MkIn {
    const uint32_t *dec_row;  // per step
    const uint64_t *rs1, *rs2;  // per step (the register walk's)
    const uint64_t *dec;  // DECODE rows, MK_DEC_WORDS words each
    const uint64_t *io_w;  // per transfer word: w | wr << 32
    const uint64_t *io_new;  // its value after
    const uint64_t *io_ts;  // its timestamp (non-decreasing)
    uint64_t n, x, clk0;
};

// A step's memory access, if it has one.
struct MkStep {
    bool load, store, ecall, split;
    uint32_t funct3, addr;
};

__device__ __forceinline__ MkStep mk_step(const MkIn &in, uint64_t i) {
    const uint64_t *f = in.dec + (uint64_t)in.dec_row[i] * MK_DEC_WORDS + 1;
    MkStep s;
    s.load = f[MK_CLS_LOAD] != 0;
    s.store = f[MK_CLS_STORE] != 0;
    s.ecall = f[MK_CLS_ECALL] != 0;
    s.funct3 = s.addr = 0;
    s.split = false;
    if (s.load || s.store) {
        uint64_t imm = 0;
        for (int k = 0; k < 8; k++) imm |= (f[MK_F_IMM + k] & 0xff) << (8 * k);
        s.funct3 = (uint32_t)(f[MK_F_ALU_OP] - (s.load ? MK_MEMOP_LOAD : MK_MEMOP_STORE)) & 7;
        s.addr = (uint32_t)(in.rs1[i] + imm);
        s.split = mem_split(s.funct3, s.addr);
    }
    return s;
}

// The first transfer word at timestamp ts or later.
__device__ uint64_t mk_first_io(const MkIn &in, uint64_t ts) {
    uint64_t lo = 0, hi = in.x;
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (in.io_ts[mid] < ts) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// A masked write: the bytes of `mask` take `data`'s (a load: mask 0).
struct MkOp {
    uint64_t mask, data;
};
__device__ __forceinline__ uint64_t mk_apply(MkOp o, uint64_t v) {
    return (v & ~o.mask) | (o.data & o.mask);
}
// a, then b.
__device__ __forceinline__ MkOp mk_then(MkOp a, MkOp b) {
    return MkOp{a.mask | b.mask, (a.data & ~b.mask) | (b.data & b.mask)};
}

// Per chunk of steps: its loads, stores, accesses, MEMW_A rows and MEMW rows (cnt[c *
// MK_COUNTS + k]).
extern "C" __global__ void ks_memwalk_count(uint64_t *cnt, const uint32_t *dec_row,
                                            const uint64_t *rs1, const uint64_t *dec,
                                            const uint64_t *io_ts, uint64_t n, uint64_t x,
                                            uint64_t clk0) {
    const MkIn in{dec_row, rs1, nullptr, dec, nullptr, nullptr, io_ts, n, x, clk0};
    const uint64_t chunks = (n + MK_CHUNK - 1) / MK_CHUNK;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        const uint64_t i0 = c * MK_CHUNK, i1 = i0 + MK_CHUNK < n ? i0 + MK_CHUNK : n;
        uint64_t loads = 0, stores = 0, acc = 0, rows = 0, splits = 0;
        for (uint64_t i = i0; i < i1; i++) {
            const MkStep s = mk_step(in, i);
            if (s.load || s.store) {
                loads += s.load;
                stores += s.store;
                acc += 1 + s.split;
                rows += !s.split;
                splits += s.split;
            } else if (s.ecall) {
                const uint64_t ts = clk0 + i + 1;
                const uint64_t k = mk_first_io(in, ts + 1) - mk_first_io(in, ts);
                acc += k;
                rows += k;
            }
        }
        uint64_t *o = cnt + c * MK_COUNTS;
        o[0] = loads;
        o[1] = stores;
        o[2] = acc;
        o[3] = rows;
        o[4] = splits;
    }
}

// Exclusive prefix sums of `len` values in place (`stride` apart from `v`), and their total
// in *total. One block of MK_SCAN_THREADS: each thread sums a run, thread 0 scans the runs.
__device__ void mk_block_scan(uint64_t *v, uint64_t stride, uint64_t len, uint64_t *total) {
    __shared__ uint64_t run[MK_SCAN_THREADS];
    const uint32_t t = threadIdx.x;
    const uint64_t per = (len + MK_SCAN_THREADS - 1) / MK_SCAN_THREADS;
    const uint64_t a = t * per < len ? t * per : len, b = a + per < len ? a + per : len;
    uint64_t s = 0;
    for (uint64_t i = a; i < b; i++) s += v[i * stride];
    run[t] = s;
    __syncthreads();
    if (t == 0) {
        uint64_t acc = 0;
        for (int k = 0; k < MK_SCAN_THREADS; k++) {
            const uint64_t r = run[k];
            run[k] = acc;
            acc += r;
        }
        *total = acc;
    }
    __syncthreads();
    s = run[t];
    for (uint64_t i = a; i < b; i++) {
        const uint64_t r = v[i * stride];
        v[i * stride] = s;
        s += r;
    }
    __syncthreads();
}

// The chunks' counts into their first indices; totals[k] the counts' totals.
extern "C" __global__ void ks_memwalk_offsets(uint64_t *cnt, uint64_t *totals, uint64_t chunks) {
    for (int k = 0; k < MK_COUNTS; k++) mk_block_scan(cnt + k, MK_COUNTS, chunks, totals + k);
}

// Per access, in the host's order: its word (key) and index (val), its timestamp | written
// << 63, and its masked write. `m`: the accesses allocated (writes beyond are dropped).
extern "C" __global__ void ks_memwalk_list(uint32_t *key, uint32_t *val, uint64_t *ts,
                                           uint64_t *mask, uint64_t *data, const uint64_t *cnt,
                                           const uint32_t *dec_row, const uint64_t *rs1,
                                           const uint64_t *rs2, const uint64_t *dec,
                                           const uint64_t *io_w, const uint64_t *io_new,
                                           const uint64_t *io_ts, uint64_t n, uint64_t x,
                                           uint64_t clk0, uint64_t m) {
    const MkIn in{dec_row, rs1, rs2, dec, io_w, io_new, io_ts, n, x, clk0};
    const uint64_t chunks = (n + MK_CHUNK - 1) / MK_CHUNK;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        const uint64_t i0 = c * MK_CHUNK, i1 = i0 + MK_CHUNK < n ? i0 + MK_CHUNK : n;
        uint64_t k = cnt[c * MK_COUNTS + 2];
        auto put = [&](uint32_t w, uint64_t t, bool wr, MkOp o) {
            if (k < m) {
                key[k] = w;
                val[k] = (uint32_t)k;
                ts[k] = t | (uint64_t)wr << 63;
                mask[k] = o.mask;
                data[k] = o.data;
            }
            k++;
        };
        for (uint64_t i = i0; i < i1; i++) {
            const MkStep s = mk_step(in, i);
            const uint64_t t = clk0 + i + 1;
            if (s.load || s.store) {
                const uint32_t w = s.addr >> 3, off = s.addr & 7;
                const uint64_t bytes = mem_mask(mem_width(s.funct3));
                const uint64_t v = s.store ? rs2[i] : 0;
                const uint64_t m0 = s.store ? bytes << (8 * off) : 0;
                put(w, t, s.store, MkOp{m0, v << (8 * off)});
                if (s.split) {
                    // off > 0 here: the bytes past the word's end.
                    const uint64_t m1 = s.store ? bytes >> (8 * (8 - off)) : 0;
                    put(w + 1, t, s.store, MkOp{m1, v >> (8 * (8 - off))});
                }
            } else if (s.ecall) {
                for (uint64_t e = mk_first_io(in, t); e < x && io_ts[e] == t; e++) {
                    const bool wr = (io_w[e] >> 32) & 1;
                    put((uint32_t)io_w[e], t, wr, MkOp{wr ? ~0ull : 0, io_new[e]});
                }
            }
        }
    }
}

// The radix sort of (key, val) by key, stable, 8 bits per pass. Per tile of MK_SORT_TILE keys
// and digit d: the tile's keys with digit d (hist[d * tiles + tile]).
extern "C" __global__ void ks_memwalk_sort_hist(uint64_t *hist, const uint32_t *key, uint64_t m,
                                                uint64_t shift) {
    __shared__ uint32_t h[256];
    const uint64_t tiles = (m + MK_SORT_TILE - 1) / MK_SORT_TILE;
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        for (uint32_t d = threadIdx.x; d < 256; d += blockDim.x) h[d] = 0;
        __syncthreads();
        const uint64_t a = tile * MK_SORT_TILE;
        for (uint64_t i = a + threadIdx.x; i < a + MK_SORT_TILE && i < m; i += blockDim.x)
            atomicAdd(&h[(key[i] >> shift) & 0xff], 1u);
        __syncthreads();
        for (uint32_t d = threadIdx.x; d < 256; d += blockDim.x) hist[d * tiles + tile] = h[d];
        __syncthreads();
    }
}

// The histogram into each (digit, tile)'s first output index. One block.
extern "C" __global__ void ks_memwalk_sort_scan(uint64_t *hist, uint64_t len, uint64_t *total) {
    mk_block_scan(hist, 1, len, total);
}

// Scans of long arrays (the sort's histograms) in three launches: each block sums its part
// of `per` words (ks_memwalk_scan_reduce), one block scans the parts' sums
// (ks_memwalk_sort_scan), and each block scans its part from its sum's prefix
// (ks_memwalk_scan_apply). Blocks of a multiple of 32 threads, at most 1024.
extern "C" __global__ void ks_memwalk_scan_reduce(uint64_t *part, const uint64_t *v, uint64_t len,
                                                  uint64_t per) {
    __shared__ uint64_t red[32];
    const uint64_t a = blockIdx.x * per, b = a + per < len ? a + per : len;
    uint64_t s = 0;
    for (uint64_t i = a + threadIdx.x; i < b; i += blockDim.x) s += v[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < blockDim.x / 32 ? red[threadIdx.x] : 0;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (threadIdx.x == 0) part[blockIdx.x] = s;
    }
}

extern "C" __global__ void ks_memwalk_scan_apply(uint64_t *v, const uint64_t *part, uint64_t len,
                                                 uint64_t per) {
    __shared__ uint64_t sums[32];
    __shared__ uint64_t carry;
    const uint64_t a = blockIdx.x * per, b = a + per < len ? a + per : len;
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    if (threadIdx.x == 0) carry = part[blockIdx.x];
    __syncthreads();
    for (uint64_t t0 = a; t0 < b; t0 += blockDim.x) {
        const uint64_t i = t0 + threadIdx.x;
        const uint64_t x = i < b ? v[i] : 0;
        // Inclusive sums within the warp, then of the warps' totals.
        uint64_t s = x;
        for (int o = 1; o < 32; o <<= 1) {
            const uint64_t y = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= (uint32_t)o) s += y;
        }
        if (lane == 31) sums[w] = s;
        __syncthreads();
        if (w == 0) {
            uint64_t t = lane < nw ? sums[lane] : 0;
            for (int o = 1; o < 32; o <<= 1) {
                const uint64_t y = __shfl_up_sync(0xffffffffu, t, o);
                if (lane >= (uint32_t)o) t += y;
            }
            if (lane < nw) sums[lane] = t;
        }
        __syncthreads();
        const uint64_t c = carry;
        if (i < b) v[i] = c + (w > 0 ? sums[w - 1] : 0) + s - x;
        __syncthreads();
        if (threadIdx.x == 0) carry = c + sums[nw - 1];
        __syncthreads();
    }
}

// Scatters each tile's keys to their places, in order (one warp per tile: equal digits of a
// round of 32 keys ranked by lane).
extern "C" __global__ void ks_memwalk_sort_scatter(uint32_t *key_out, uint32_t *val_out,
                                                   const uint32_t *key, const uint32_t *val,
                                                   const uint64_t *hist, uint64_t m,
                                                   uint64_t shift) {
    __shared__ uint64_t base[256];
    const uint64_t tiles = (m + MK_SORT_TILE - 1) / MK_SORT_TILE;
    const uint32_t lane = threadIdx.x;
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        for (uint32_t d = lane; d < 256; d += 32) base[d] = hist[d * tiles + tile];
        __syncwarp();
        const uint64_t a = tile * MK_SORT_TILE;
        for (uint64_t r = a; r < a + MK_SORT_TILE && r < m; r += 32) {
            const uint64_t i = r + lane;
            const bool ok = i < m;
            const uint32_t k = ok ? key[i] : 0;
            const uint32_t d = ok ? (k >> shift) & 0xff : 256;
            const uint32_t peers = __match_any_sync(0xffffffffu, d);
            const uint32_t rank = __popc(peers & ((1u << lane) - 1));
            if (ok) {
                const uint64_t at = base[d] + rank;
                key_out[at] = k;
                val_out[at] = val[i];
            }
            __syncwarp();
            if (ok && lane == (uint32_t)(__ffs(peers) - 1)) base[d] += __popc(peers);
            __syncwarp();
        }
        __syncwarp();
    }
}

// Word w as the segment found it: (value, ts | ro << 63) from the sorted start table.
__device__ __forceinline__ void mk_start(const uint64_t *sw, const uint64_t *sv, const uint64_t *sts,
                                         uint64_t d, uint32_t w, uint64_t &v, uint64_t &t) {
    uint64_t lo = 0, hi = d;
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (sw[mid] < w) lo = mid + 1; else hi = mid;
    }
    if (lo < d && sw[lo] == w) {
        v = sv[lo];
        t = sts[lo];
    } else {
        v = 0;
        t = 0;
    }
}

// Per tile of MK_TILE sorted accesses, its last run's part (the run of accesses to the word
// of the tile's last access): as a masked write on the value before the tile (`op`), or, when
// the run starts in the tile, the constant value it leaves (mask ~0).
extern "C" __global__ void ks_memwalk_tiles(uint64_t *op_mask, uint64_t *op_data,
                                            const uint32_t *skey, const uint32_t *sval,
                                            const uint64_t *mask, const uint64_t *data,
                                            const uint64_t *sw, const uint64_t *sv,
                                            const uint64_t *sts, uint64_t d, uint64_t m) {
    const uint64_t tiles = (m + MK_TILE - 1) / MK_TILE;
    for (uint64_t t = ks_tid(); t < tiles; t += ks_nthreads()) {
        const uint64_t a = t * MK_TILE, b = a + MK_TILE < m ? a + MK_TILE : m;
        uint64_t s = b - 1;
        while (s > a && skey[s - 1] == skey[s]) s--;
        MkOp o{0, 0};
        if (s == 0 || skey[s - 1] != skey[s]) {
            uint64_t v, ts;
            mk_start(sw, sv, sts, d, skey[s], v, ts);
            o = MkOp{~0ull, v};
        }
        for (uint64_t j = s; j < b; j++) {
            const uint32_t k = sval[j];
            o = mk_then(o, MkOp{mask[k], data[k]});
        }
        op_mask[t] = o.mask;
        op_data[t] = o.data;
    }
}

// The value entering each tile (the word of its first access, left by the tiles before; only
// read when that word's run started before the tile): an exclusive scan of the tiles' ops
// (a tile whose first word differs from the previous tile's last resets nothing: its entry
// is unused). One block.
extern "C" __global__ void ks_memwalk_carry(uint64_t *op_mask, uint64_t *op_data, uint64_t tiles) {
    __shared__ uint64_t rm[MK_SCAN_THREADS], rd[MK_SCAN_THREADS];
    const uint32_t t = threadIdx.x;
    const uint64_t per = (tiles + MK_SCAN_THREADS - 1) / MK_SCAN_THREADS;
    const uint64_t a = t * per < tiles ? t * per : tiles, b = a + per < tiles ? a + per : tiles;
    MkOp o{0, 0};
    for (uint64_t i = a; i < b; i++) o = mk_then(o, MkOp{op_mask[i], op_data[i]});
    rm[t] = o.mask;
    rd[t] = o.data;
    __syncthreads();
    if (t == 0) {
        MkOp acc{0, 0};
        for (int k = 0; k < MK_SCAN_THREADS; k++) {
            const MkOp r{rm[k], rd[k]};
            rm[k] = acc.mask;
            rd[k] = acc.data;
            acc = mk_then(acc, r);
        }
    }
    __syncthreads();
    o = MkOp{rm[t], rd[t]};
    for (uint64_t i = a; i < b; i++) {
        const MkOp r{op_mask[i], op_data[i]};
        op_mask[i] = o.mask;
        op_data[i] = o.data;
        o = mk_then(o, r);
    }
}

// Each access's value before and after, and its previous timestamp | ro << 63 (by access
// index). `cin`: the carried ops (their data is the value entering each tile).
extern "C" __global__ void ks_memwalk_values(uint64_t *old, uint64_t *nw, uint64_t *old_ts,
                                             const uint64_t *cin, const uint32_t *skey,
                                             const uint32_t *sval, const uint64_t *ts,
                                             const uint64_t *mask, const uint64_t *data,
                                             const uint64_t *sw, const uint64_t *sv,
                                             const uint64_t *sts, uint64_t d, uint64_t m) {
    const uint64_t tiles = (m + MK_TILE - 1) / MK_TILE;
    const uint64_t TS = ~(1ull << 63);
    for (uint64_t t = ks_tid(); t < tiles; t += ks_nthreads()) {
        const uint64_t a = t * MK_TILE, b = a + MK_TILE < m ? a + MK_TILE : m;
        uint64_t cur = 0, prev = 0, ro = 0;
        for (uint64_t j = a; j < b; j++) {
            const uint32_t w = skey[j];
            const bool starts = j == 0 || skey[j - 1] != w;
            if (starts || j == a) {
                uint64_t v, st;
                mk_start(sw, sv, sts, d, w, v, st);
                ro = st & ~TS;
                if (starts) {
                    cur = v;
                    prev = st & TS;
                } else {
                    cur = cin[t];
                    prev = ts[sval[j - 1]] & TS;
                }
            }
            const uint32_t k = sval[j];
            const uint64_t after = mk_apply(MkOp{mask[k], data[k]}, cur);
            old[k] = cur;
            nw[k] = after;
            old_ts[k] = prev | ro;
            cur = after;
            prev = ts[k] & TS;
        }
    }
}

// LOAD's, STORE's, MEMW_A's and MEMW's records in the host's order, as their fills read them
// (arrays of nl, ns, na, np words: LOAD ts, meta, word0, word1; STORE ts, meta, value, old0,
// old1; MEMW_A w | ro << 32 | wr << 33, old, new, old_ts, ts; MEMW as ks_fill_memw_s reads
// them). Writes beyond are dropped.
extern "C" __global__ void ks_memwalk_records(uint64_t *lrec, uint64_t *srec, uint64_t *arec,
                                              uint64_t *prec,
                                              const uint64_t *cnt, const uint64_t *old,
                                              const uint64_t *nw, const uint64_t *old_ts,
                                              const uint64_t *ts, const uint32_t *dec_row,
                                              const uint64_t *rs1, const uint64_t *rs2,
                                              const uint64_t *dec, const uint64_t *io_w,
                                              const uint64_t *io_ts, uint64_t n, uint64_t x,
                                              uint64_t clk0, uint64_t nl, uint64_t ns,
                                              uint64_t na, uint64_t np, uint64_t m) {
    const MkIn in{dec_row, rs1, rs2, dec, io_w, nullptr, io_ts, n, x, clk0};
    const uint64_t chunks = (n + MK_CHUNK - 1) / MK_CHUNK;
    const uint64_t TS = ~(1ull << 63);
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        const uint64_t i0 = c * MK_CHUNK, i1 = i0 + MK_CHUNK < n ? i0 + MK_CHUNK : n;
        const uint64_t *o = cnt + c * MK_COUNTS;
        uint64_t l = o[0], s = o[1], k = o[2], r = o[3], q = o[4];
        auto row = [&](uint64_t acc, uint32_t w) {
            if (r < na && acc < m) {
                const uint64_t ot = old_ts[acc];
                arec[r] = w | (ot >> 63) << 32 | (ts[acc] >> 63) << 33;
                arec[na + r] = old[acc];
                arec[2 * na + r] = nw[acc];
                arec[3 * na + r] = ot & TS;
                arec[4 * na + r] = ts[acc] & TS;
            }
            r++;
        };
        for (uint64_t i = i0; i < i1; i++) {
            const MkStep st = mk_step(in, i);
            const uint64_t t = clk0 + i + 1;
            if (st.load || st.store) {
                const uint64_t meta = st.funct3 | (uint64_t)st.addr << 8;
                const uint64_t w0 = k < m ? old[k] : 0;
                const uint64_t w1 = st.split && k + 1 < m ? old[k + 1] : 0;
                if (st.load && l < nl) {
                    lrec[l] = t;
                    lrec[nl + l] = meta;
                    lrec[2 * nl + l] = w0;
                    lrec[3 * nl + l] = w1;
                }
                if (st.store && s < ns) {
                    srec[s] = t;
                    srec[ns + s] = meta;
                    srec[2 * ns + s] = rs2[i];
                    srec[3 * ns + s] = w0;
                    srec[4 * ns + s] = w1;
                }
                l += st.load;
                s += st.store;
                if (!st.split) row(k, st.addr >> 3);
                else if (q < np && k + 1 < m) {
                    const uint64_t o0 = old_ts[k], o1 = old_ts[k + 1];
                    prec[q] = (st.addr >> 3) | (o0 >> 63) << 32 | (ts[k] >> 63) << 33 |
                              (o1 >> 63) << 34;
                    prec[np + q] = old[k];
                    prec[2 * np + q] = old[k + 1];
                    prec[3 * np + q] = nw[k];
                    prec[4 * np + q] = nw[k + 1];
                    prec[5 * np + q] = o0 & TS;
                    prec[6 * np + q] = o1 & TS;
                    prec[7 * np + q] = ts[k] & TS;
                }
                q += st.split;
                k += 1 + st.split;
            } else if (st.ecall) {
                for (uint64_t e = mk_first_io(in, t); e < x && io_ts[e] == t; e++) row(k++, (uint32_t)io_w[e]);
            }
        }
    }
}
