// The MEMW_R fill (mirrors prover-gpu/src/cuda/rv/memw_r.rs): ks_fill_memw_r =
// core::rv::memw_r::fill_host.
#include "fill.cuh"

// MEMW_R columns (core/src/rv/memw_r/mod.rs).
#define MW_REG 0
#define MW_OLD 1
#define MW_OLD_TS 9
#define MW_NEW 10
#define MW_TS 18
#define MW_IS_WRITE 19
#define MW_IS_REAL 20
#define MW_DIFF 21
#define MW_WIDTH 26

// MEMW_R (h rows) from n accesses in the CPU's order (n = 3 * steps): access r has timestamp
// 4*(clk0 + r/3) + r%3 + 1 (clk0: the clock of the records' first step) and writes iff
// r%3 == 2; then x whole extra rows (the system calls' accesses). Per row: `meta`
// (reg | old_ts << 8) and `old`; per step: `nw`, the value its write stores; per extra row:
// `xnew` (its value if it writes) and `xts` (ts | is_write << 63). Uploaded as they are
// (cuda/rv/memw_r.rs) or made by the register walk below.
//
// `out` (h rows) gets accesses row0 .. row0 + h: MEMW_R's from row0 = 0, MEMW_R2's from MEMW_R's
// height (core::rv::memw_r::split).
extern "C" __global__ void ks_fill_memw_r(uint64_t *out, uint64_t h, uint64_t row0, const uint64_t *meta,
                                          const uint64_t *old, const uint64_t *nw,
                                          const uint64_t *xnew, const uint64_t *xts, uint64_t n,
                                          uint64_t x, uint64_t clk0) {
    for (uint64_t r = ks_tid(); r < h; r += ks_nthreads()) {
        uint64_t *o = out + r;
        const uint64_t i = row0 + r;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        if (i >= n + x) {
            for (int c = 0; c < MW_WIDTH; c++) PUT(c, 0);
            continue;
        }
        uint64_t ts, nv;
        bool w;
        const uint64_t m = meta[i];
        const uint64_t old_ts = m >> 8;
        const uint64_t ov = old[i];
        if (i < n) {
            const uint64_t step = i / 3, k = i % 3;
            ts = 4 * (clk0 + step) + k + 1;
            w = k == 2;
            nv = w ? nw[step] : ov;
        } else {
            const uint64_t e = i - n;
            ts = xts[e] & ~(1ull << 63);
            w = (xts[e] >> 63) != 0;
            nv = w ? xnew[e] : ov;
        }
        // Wrapping, as the host fill computes it; five bytes (timestamps below 2^39).
        const uint64_t diff = ts - old_ts - 1;
        PUT(MW_REG, m & 0xff);
        PUT(MW_OLD_TS, gl_canon(old_ts));
        PUT(MW_TS, gl_canon(ts));
        PUT(MW_IS_WRITE, w ? 1 : 0);
        PUT(MW_IS_REAL, 1);
        for (int j = 0; j < 8; j++) {
            PUT(MW_OLD + j, byte_of(ov, j));
            PUT(MW_NEW + j, byte_of(nv, j));
        }
        for (int j = 0; j < 5; j++) PUT(MW_DIFF + j, byte_of(diff, j));
#undef PUT
    }
}

// ---------------------------------------------------------------------------------------
// The register walk (core::rv::pack's register replay, memw_r::RegFile): from what only the
// execution knows (each step's DECODE row and result, the system calls' own accesses, the
// register file at the first step), every access's register, previous value and previous
// timestamp, i.e. MEMW_R's `meta` and `old` and the CPU's `rs1`, `rs2`. Steps are cut into
// chunks of RW_CHUNK: ks_regwalk_summary walks each chunk from an untouched file and keeps
// each register's last timestamp and written value; ks_regwalk_scan carries the file from
// chunk to chunk (a block per register); ks_regwalk walks each chunk again from its
// carried file and writes the records. The order of a step's accesses is the host's: rs1,
// rs2, the system call's own accesses (clock ts / 4 = the step's), rd.

// What the walk receives per step: its DECODE row (16 bits when the program has at most 2^16
// code slots, else 32) and its result where the device cannot derive it (32 bits when it is
// the sign or zero extension of its low half, else 64, and a 2-bit class): not for JAL and
// JALR (pc + 4), STORE (0) and BRANCH (the compare of rs1 and rs2, set after the walk by
// ks_regwalk_branches). ks_regwalk_expand makes the per-step arrays first.

// DECODE fields the walk reads (after the row's pc), and the register file's size.
#define RW_CLS_BRANCH 8
#define RW_CLS_JAL 9
#define RW_CLS_JALR 10
#define RW_CLS_STORE 13
#define RW_F_ALU_OP 17
#define RW_ALU_SLT 1
#define RW_ALU_SLTU 2
#define RW_ALU_EQ 3
#define RW_F_WR 16
#define RW_F_RD 18
#define RW_F_RS1 19
#define RW_F_RS2 20
#define RW_DEC_WORDS 31
#define RW_NUM_REGS 36
// Steps per chunk: cuda/rv/memw_r.rs's REGWALK_CHUNK.
#define RW_CHUNK 256

// A timestamp without its write flag.
constexpr uint64_t RW_TS_MASK = ~(1ull << 63);

// The walk's inputs.
struct RwIn {
    const uint32_t *dec_row;  // per step
    const uint64_t *res;      // per step: the result (written iff RW_F_WR)
    const uint64_t *dec;      // DECODE rows, RW_DEC_WORDS words each
    const uint64_t *xreg;     // per extra access: its register
    const uint64_t *xnew;     // its value if it writes
    const uint64_t *xts;      // ts | is_write << 63, ts non-decreasing
    uint64_t n, x, clk0;
};

// The walk's outputs (ks_regwalk only).
struct RwOut {
    uint64_t *meta, *old;  // 3n + x each: the CPU's accesses, then the extra ones
    uint64_t *rs1, *rs2, *nw;  // n each
};

// The first extra access at clock clk or later (extras are sorted by ts; ts / 4 is the call's
// clock).
__device__ uint64_t rw_first_extra(const uint64_t *xts, uint64_t x, uint64_t clk) {
    uint64_t lo = 0, hi = x;
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (((xts[mid] & RW_TS_MASK) >> 2) < clk) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// Walks chunk c from the file (val, ts); `wrote` marks the registers written. With OUT, writes
// each access's record (RegFile::access: the register's value and timestamp before it).
template <bool OUT>
__device__ void rw_walk(const RwIn &in, const RwOut &out, uint64_t c, uint64_t *val, uint64_t *ts,
                        uint64_t &wrote) {
    const uint64_t i0 = c * RW_CHUNK;
    const uint64_t i1 = i0 + RW_CHUNK < in.n ? i0 + RW_CHUNK : in.n;
    uint64_t e = rw_first_extra(in.xts, in.x, in.clk0 + i0);
    auto access = [&](uint64_t slot, uint64_t reg, uint64_t t, bool w, uint64_t v) -> uint64_t {
        const uint32_t r = (uint32_t)(reg % RW_NUM_REGS);
        const uint64_t o = val[r];
        if (OUT) {
            out.meta[slot] = reg | ts[r] << 8;
            out.old[slot] = o;
        }
        if (w) {
            val[r] = v;
            wrote |= 1ull << r;
        }
        ts[r] = t;
        return o;
    };
    for (uint64_t i = i0; i < i1; i++) {
        const uint64_t *f = in.dec + (uint64_t)in.dec_row[i] * RW_DEC_WORDS + 1;
        const uint64_t clk = in.clk0 + i;
        const uint64_t t = 4 * clk;
        const uint64_t a = access(3 * i, f[RW_F_RS1], t + 1, false, 0);
        const uint64_t b = access(3 * i + 1, f[RW_F_RS2], t + 2, false, 0);
        for (; e < in.x && ((in.xts[e] & RW_TS_MASK) >> 2) == clk; e++) {
            const bool w = (in.xts[e] >> 63) != 0;
            access(3 * in.n + e, in.xreg[e], in.xts[e] & RW_TS_MASK, w, in.xnew[e]);
        }
        const uint64_t v = f[RW_F_WR] ? in.res[i] : 0;
        access(3 * i + 2, f[RW_F_RD], t + 3, true, v);
        if (OUT) {
            out.rs1[i] = a;
            out.rs2[i] = b;
            out.nw[i] = v;
        }
    }
}

// Per chunk and register (index c * RW_NUM_REGS + r): the last timestamp of an access in the
// chunk (0: none) | 1 << 63 if one wrote, and the last value written.
extern "C" __global__ void ks_regwalk_summary(uint64_t *sum_ts, uint64_t *sum_val,
                                              const uint32_t *dec_row, const uint64_t *res,
                                              const uint64_t *dec, const uint64_t *xreg,
                                              const uint64_t *xnew, const uint64_t *xts,
                                              uint64_t n, uint64_t x, uint64_t clk0) {
    const RwIn in{dec_row, res, dec, xreg, xnew, xts, n, x, clk0};
    const uint64_t chunks = (n + RW_CHUNK - 1) / RW_CHUNK;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        uint64_t val[RW_NUM_REGS], ts[RW_NUM_REGS], wrote = 0;
        for (int r = 0; r < RW_NUM_REGS; r++) val[r] = ts[r] = 0;
        rw_walk<false>(in, RwOut{}, c, val, ts, wrote);
        for (int r = 0; r < RW_NUM_REGS; r++) {
            sum_ts[c * RW_NUM_REGS + r] = ts[r] | ((wrote >> r) & 1) << 63;
            sum_val[c * RW_NUM_REGS + r] = val[r];
        }
    }
}

// The file at each chunk's first step (in_val, in_ts, same indexing), from the file at the
// first step (start: RW_NUM_REGS values, then RW_NUM_REGS timestamps) and the summaries. One
// block of RW_SCAN_THREADS per register: each thread composes a run of chunks (a later
// access's timestamp and a later write's value win), thread 0 scans the runs, and each
// thread writes its run's carries.
#define RW_SCAN_THREADS 256
extern "C" __global__ void ks_regwalk_scan(uint64_t *in_val, uint64_t *in_ts,
                                           const uint64_t *sum_ts, const uint64_t *sum_val,
                                           const uint64_t *start, uint64_t chunks) {
    __shared__ uint64_t run_ts[RW_SCAN_THREADS], run_val[RW_SCAN_THREADS];
    const uint64_t r = blockIdx.x;
    const uint32_t tid = threadIdx.x;
    if (r >= RW_NUM_REGS) return;
    const uint64_t per = (chunks + RW_SCAN_THREADS - 1) / RW_SCAN_THREADS;
    const uint64_t c0 = tid * per < chunks ? tid * per : chunks;
    const uint64_t c1 = c0 + per < chunks ? c0 + per : chunks;
    // The run's composition: its last timestamp (0: none) | 1 << 63 if it wrote, and value.
    uint64_t t = 0, v = 0;
    for (uint64_t c = c0; c < c1; c++) {
        const uint64_t k = c * RW_NUM_REGS + r;
        const uint64_t s = sum_ts[k];
        if ((s & RW_TS_MASK) != 0) t = (t & ~RW_TS_MASK) | (s & RW_TS_MASK);
        if (s >> 63) {
            t |= 1ull << 63;
            v = sum_val[k];
        }
    }
    run_ts[tid] = t;
    run_val[tid] = v;
    __syncthreads();
    if (tid == 0) {
        uint64_t ct = start[RW_NUM_REGS + r], cv = start[r];
        for (int i = 0; i < RW_SCAN_THREADS; i++) {
            const uint64_t rt = run_ts[i], rv = run_val[i];
            run_ts[i] = ct;
            run_val[i] = cv;
            if ((rt & RW_TS_MASK) != 0) ct = rt & RW_TS_MASK;
            if (rt >> 63) cv = rv;
        }
    }
    __syncthreads();
    t = run_ts[tid];
    v = run_val[tid];
    for (uint64_t c = c0; c < c1; c++) {
        const uint64_t k = c * RW_NUM_REGS + r;
        const uint64_t s = sum_ts[k];
        in_val[k] = v;
        in_ts[k] = t;
        if ((s & RW_TS_MASK) != 0) t = s & RW_TS_MASK;
        if (s >> 63) v = sum_val[k];
    }
}

// Every access's record, and the CPU's rs1, rs2 and each step's written value.
extern "C" __global__ void ks_regwalk(uint64_t *meta, uint64_t *old, uint64_t *rs1,
                                      uint64_t *rs2, uint64_t *nw, const uint64_t *in_val,
                                      const uint64_t *in_ts, const uint32_t *dec_row,
                                      const uint64_t *res, const uint64_t *dec,
                                      const uint64_t *xreg, const uint64_t *xnew,
                                      const uint64_t *xts, uint64_t n, uint64_t x,
                                      uint64_t clk0) {
    const RwIn in{dec_row, res, dec, xreg, xnew, xts, n, x, clk0};
    const RwOut out{meta, old, rs1, rs2, nw};
    const uint64_t chunks = (n + RW_CHUNK - 1) / RW_CHUNK;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        uint64_t val[RW_NUM_REGS], ts[RW_NUM_REGS], wrote = 0;
        for (int r = 0; r < RW_NUM_REGS; r++) {
            val[r] = in_val[c * RW_NUM_REGS + r];
            ts[r] = in_ts[c * RW_NUM_REGS + r];
        }
        rw_walk<true>(in, out, c, val, ts, wrote);
    }
}

// Per chunk: the steps' DECODE rows as u32 (`dec_row`) from the upload (`rows`: u16 if dec16,
// else u32) and their results (`res`) from the sent ones (memw_r.rs's encode_results: chunk
// c's first is result first[c], at 32-bit word first_word[c]; a 2-bit class per result in
// `tags`: 0 the sign extension of one word, 1 its zero extension, 2 two words, low first):
// JAL's and JALR's pc + 4, STORE's 0, BRANCH's 0 until ks_regwalk_branches.
extern "C" __global__ void ks_regwalk_expand(uint32_t *dec_row, uint64_t *res, const void *rows,
                                             uint64_t dec16, const uint64_t *first,
                                             const uint64_t *first_word, const uint64_t *tags,
                                             const uint32_t *words, const uint64_t *dec,
                                             uint64_t n) {
    const uint64_t chunks = (n + RW_CHUNK - 1) / RW_CHUNK;
    for (uint64_t c = ks_tid(); c < chunks; c += ks_nthreads()) {
        const uint64_t i0 = c * RW_CHUNK;
        const uint64_t i1 = i0 + RW_CHUNK < n ? i0 + RW_CHUNK : n;
        uint64_t j = first[c], k = first_word[c];
        for (uint64_t i = i0; i < i1; i++) {
            const uint32_t r = dec16 ? ((const uint16_t *)rows)[i] : ((const uint32_t *)rows)[i];
            dec_row[i] = r;
            const uint64_t *d = dec + (uint64_t)r * RW_DEC_WORDS;
            const uint64_t *f = d + 1;
            uint64_t v;
            if (f[RW_CLS_JAL] || f[RW_CLS_JALR]) v = d[0] + 4;
            else if (f[RW_CLS_STORE] || f[RW_CLS_BRANCH]) v = 0;
            else {
                const uint64_t t = (tags[j / 32] >> (2 * (j % 32))) & 3;
                const uint32_t lo = words[k++];
                if (t == 0) v = (uint64_t)(int64_t)(int32_t)lo;
                else if (t == 1) v = lo;
                else v = lo | (uint64_t)words[k++] << 32;
                j++;
            }
            res[i] = v;
        }
    }
}

// After the walk: each branch's result, its compare (core::rv::alu_eval of EQ, SLT or SLTU)
// of rs1 and rs2.
extern "C" __global__ void ks_regwalk_branches(uint64_t *res, const uint32_t *dec_row,
                                               const uint64_t *rs1, const uint64_t *rs2,
                                               const uint64_t *dec, uint64_t n) {
    for (uint64_t i = ks_tid(); i < n; i += ks_nthreads()) {
        const uint64_t *f = dec + (uint64_t)dec_row[i] * RW_DEC_WORDS + 1;
        if (!f[RW_CLS_BRANCH]) continue;
        const uint64_t a = rs1[i], b = rs2[i];
        const uint64_t op = f[RW_F_ALU_OP];
        res[i] = op == RW_ALU_EQ     ? (a == b)
                 : op == RW_ALU_SLT  ? ((int64_t)a < (int64_t)b)
                 : op == RW_ALU_SLTU ? (a < b)
                                     : 0;
    }
}
