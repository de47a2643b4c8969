// LogUp auxiliary trace (CpuBackend::logup_aux): signed multiplicities and fingerprints per
// row from the interaction program, batch inversion, the per-pair columns h_j, and the
// running sum by a parallel prefix scan. Mirrors prover-gpu/src/cuda/logup.rs.
#include "logup.cuh"

extern "C" __global__ void ks_logup_eval(uint64_t *mults, uint64_t *fps, const uint4 *prog, uint32_t len,
                                         const uint64_t *consts, const uint64_t *main, const uint64_t *pre,
                                         uint32_t log_n, uint32_t k, const uint64_t *alpha_powers,
                                         uint64_t b0, uint64_t b1, uint64_t b2) {
    ks_logup_eval_with<KsInterp>(mults, fps, prog, len, consts, main, pre, log_n, k, alpha_powers, b0, b1, b2);
}

// Values each thread of ks_ext_inverse inverts together (Montgomery's trick).
#define KS_INV_BATCH 8

// In-place inverse of `count` Ext3 values; a zero sets the flag (and stays 0). A block's
// tile is KS_INV_BATCH * blockDim.x values; thread t takes values t, t + blockDim.x, ... of
// it (coalesced) and inverts them with one inversion.
extern "C" __global__ void ks_ext_inverse(uint64_t *v, uint64_t count, uint32_t *zero_flag) {
    const uint64_t tile = (uint64_t)KS_INV_BATCH * blockDim.x;
    for (uint64_t base = (uint64_t)blockIdx.x * tile; base < count; base += (uint64_t)gridDim.x * tile) {
        ext3 prefix[KS_INV_BATCH];
        ext3 acc = e3(1);
        for (uint32_t j = 0; j < KS_INV_BATCH; j++) {
            const uint64_t i = base + (uint64_t)j * blockDim.x + threadIdx.x;
            if (i < count) {
                const ext3 x = e3_load(v + 3 * i);
                if (e3_is_zero(x))
                    atomicOr(zero_flag, 1u);
                else
                    acc = e3_mul(acc, x);
            }
            prefix[j] = acc;
        }
        ext3 inv = e3_inv(acc);  // 1 / the product of every nonzero value
        for (uint32_t j = KS_INV_BATCH; j-- > 0;) {
            const uint64_t i = base + (uint64_t)j * blockDim.x + threadIdx.x;
            if (i >= count) continue;
            const ext3 x = e3_load(v + 3 * i);
            if (e3_is_zero(x)) continue;
            const ext3 below = j > 0 ? prefix[j - 1] : e3(1);
            e3_store(v + 3 * i, e3_mul(inv, below));
            inv = e3_mul(inv, x);
        }
    }
}

// aux row (3 * (pairs + 1) words, row-major): h_j = sum over pair j of m * (1/f); the
// running-sum slot is filled by ks_scan_*; sums[row] = sum_j h_j.
extern "C" __global__ void ks_logup_rows(uint64_t *aux, uint64_t *sums, const uint64_t *mults,
                                         const uint64_t *inv, uint64_t n, uint32_t k) {
    const uint32_t pairs = (k + 1) / 2, w = 3 * (pairs + 1);
    for (uint64_t row = ks_tid(); row < n; row += ks_nthreads()) {
        ext3 total = e3_zero();
        for (uint32_t j = 0; j < pairs; j++) {
            ext3 h = e3_zero();
            for (uint32_t t = 2 * j; t < 2 * j + 2 && t < k; t++)
                h = e3_add(h, e3_mul_base(e3_load(inv + 3 * (row * k + t)), mults[row * k + t]));
            e3_store(aux + row * w + 3 * j, h);
            total = e3_add(total, h);
        }
        e3_store(sums + 3 * row, total);
    }
}

// Inclusive scan of Ext3 values within blocks of blockDim.x (a power of two <= 1024);
// block totals go to `totals` (may be null).
extern "C" __global__ void ks_scan_block(uint64_t *v, uint64_t n, uint64_t *totals) {
    extern __shared__ uint64_t sh[];
    uint64_t i = ks_tid();
    ext3 x = i < n ? e3_load(v + 3 * i) : e3_zero();
    e3_store(sh + 3 * threadIdx.x, x);
    __syncthreads();
    for (uint32_t off = 1; off < blockDim.x; off <<= 1) {
        ext3 add = threadIdx.x >= off ? e3_load(sh + 3 * (threadIdx.x - off)) : e3_zero();
        __syncthreads();
        x = e3_add(x, add);
        e3_store(sh + 3 * threadIdx.x, x);
        __syncthreads();
    }
    if (i < n) e3_store(v + 3 * i, x);
    if (totals && threadIdx.x == blockDim.x - 1) e3_store(totals + 3 * blockIdx.x, x);
}

// v[i] += scanned_totals[block - 1] for blocks after the first.
extern "C" __global__ void ks_scan_add(uint64_t *v, uint64_t n, const uint64_t *scanned_totals) {
    uint64_t i = ks_tid();
    if (i < n && blockIdx.x > 0) e3_store(v + 3 * i, e3_add(e3_load(v + 3 * i), e3_load(scanned_totals + 3 * (blockIdx.x - 1))));
}

// Writes the scanned sums into the running-sum slot of each aux row.
extern "C" __global__ void ks_logup_running(uint64_t *aux, const uint64_t *scanned, uint64_t n, uint32_t k) {
    const uint32_t pairs = (k + 1) / 2, w = 3 * (pairs + 1);
    for (uint64_t row = ks_tid(); row < n; row += ks_nthreads())
        e3_store(aux + row * w + 3 * pairs, e3_load(scanned + 3 * row));
}
