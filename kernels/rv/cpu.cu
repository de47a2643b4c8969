// The CPU fill (mirrors prover-gpu/src/cuda/rv/cpu.rs): ks_fill_cpu =
// core::rv::cpu::fill_host (core::rv::cpu::fill_row per step, then the padding rows).
#include "fill.cuh"

// CPU columns (core/src/rv/cpu/mod.rs).
#define CPU_IS_REAL 0
#define CPU_FIRST 1
#define CPU_CLK 2
#define CPU_PC 3
#define CPU_NEXT_PC 4
#define CPU_DEC 5
#define CPU_FIELDS 30
#define CPU_RS1V (CPU_DEC + CPU_FIELDS)
#define CPU_RS2V (CPU_RS1V + 8)
#define CPU_OPB (CPU_RS2V + 8)
#define CPU_SUM (CPU_OPB + 8)
#define CPU_CARRY (CPU_SUM + 8)
#define CPU_RES (CPU_CARRY + 8)
#define CPU_RDV (CPU_RES + 8)
#define CPU_TAKEN (CPU_RDV + 8)
#define CPU_Q (CPU_TAKEN + 1)
#define CPU_BIT0 (CPU_TAKEN + 2)
#define CPU_SGN (CPU_TAKEN + 3)
#define CPU_L7 (CPU_TAKEN + 4)
#define CPU_EXIT (CPU_TAKEN + 5)
#define CPU_OUTPOS (CPU_TAKEN + 6)
#define CPU_OUTN (CPU_TAKEN + 7)
#define CPU_HANDOFF (CPU_TAKEN + 8)
#define CPU_WIDTH (CPU_TAKEN + 9)
// DECODE field offsets (core/src/rv/decode.rs: class selectors, then these).
#define CLS_ADD 0
#define CLS_SUB 1
#define CLS_ADDW 2
#define CLS_SUBW 3
#define CLS_BRANCH 8
#define CLS_JAL 9
#define CLS_JALR 10
#define CLS_LOAD 12
#define CLS_STORE 13
#define F_BR_NEG 14
#define F_USE_IMM 15
#define F_WR 16
#define F_IMM 22
// Words per DECODE row of the uploaded table: pc, then the fields.
#define DEC_WORDS (1 + CPU_FIELDS)

// The CPU trace (h rows) of a segment of n steps from clock clk0 (row i at clk0 + i), with
// outpos0 output bytes written before it; `handoff`: its last step hands off to the next
// segment. Per step: its DECODE row `dec_row`, its register values `rs1`, `rs2` and its
// result `res`; `calls`: the system calls, ncalls triples (clk, outpos before,
// outn | exit << 63), sorted by clk (the run's clocks); `dec` the DECODE rows (DEC_WORDS
// canonical words each). The arrays are uploaded as they are (cuda/rv/cpu.rs) or `rs1` and
// `rs2` come from the register walk (memw_r.cu).
extern "C" __global__ void ks_fill_cpu(uint64_t *out, uint64_t h, const uint32_t *dec_row,
                                       const uint64_t *rs1, const uint64_t *rs2,
                                       const uint64_t *res, uint64_t n, const uint64_t *dec,
                                       const uint64_t *calls, uint64_t ncalls, uint64_t clk0,
                                       uint64_t outpos0, uint64_t handoff) {
    for (uint64_t i = ks_tid(); i < h; i += ks_nthreads()) {
        uint64_t *o = out + i;
#define PUT(c, v) o[(uint64_t)(c) * h] = (v)
        const uint64_t clk = clk0 + i;
        // The output columns: the last call at or before this row (binary search).
        uint64_t outpos = outpos0, outn = 0, exit = 0;
        {
            uint64_t lo = 0, hi = ncalls;  // first call with clk > this row's
            while (lo < hi) {
                const uint64_t mid = (lo + hi) / 2;
                if (calls[3 * mid] <= clk) lo = mid + 1; else hi = mid;
            }
            if (lo > 0) {
                const uint64_t *c = calls + 3 * (lo - 1);
                const uint64_t n_out = c[2] & ~(1ull << 63);
                if (c[0] == clk && i < n) {
                    outpos = c[1];
                    outn = n_out;
                    exit = c[2] >> 63;
                } else {
                    outpos = c[1] + n_out;
                }
            }
        }
        if (i >= n) {
            // Padding: the clock runs on, nothing else happens (next_pc = 4).
            for (int c = 0; c < CPU_WIDTH; c++) PUT(c, 0);
            PUT(CPU_CLK, clk);
            PUT(CPU_NEXT_PC, 4);
            PUT(CPU_OUTPOS, outpos);
            continue;
        }
        PUT(CPU_OUTPOS, outpos);
        PUT(CPU_OUTN, outn);
        PUT(CPU_EXIT, exit);
        const uint64_t *d = dec + (uint64_t)dec_row[i] * DEC_WORDS;
        const uint64_t pc = d[0];
        const uint64_t *f = d + 1;
        PUT(CPU_IS_REAL, 1);
        PUT(CPU_FIRST, i == 0 ? 1 : 0);
        PUT(CPU_HANDOFF, handoff && i + 1 == n ? 1 : 0);
        PUT(CPU_CLK, clk);
        PUT(CPU_PC, pc);
        for (int k = 0; k < CPU_FIELDS; k++) PUT(CPU_DEC + k, f[k]);
        const bool add = f[CLS_ADD] | f[CLS_ADDW] | f[CLS_JALR] | f[CLS_LOAD] | f[CLS_STORE];
        const bool sub = f[CLS_SUB] | f[CLS_SUBW];
        const bool wr = f[F_WR] != 0;
        uint64_t imm = 0;
        for (int j = 0; j < 8; j++) imm |= f[F_IMM + j] << (8 * j);
        const uint64_t a = rs1[i], r2 = rs2[i], r = res[i];
        const uint64_t b = f[F_USE_IMM] ? imm : r2;
        uint64_t sum = 0;
        uint32_t carries = 0;  // bit j: carry out of byte j
        if (add || sub) {
            const uint64_t x = add ? a : a - b;  // sub: sum = a - b and sum + b = a
            sum = add ? a + b : x;
            uint32_t carry = 0;
            for (int j = 0; j < 8; j++) {
                uint32_t s = (uint32_t)byte_of(x, j) + (uint32_t)byte_of(b, j) + carry;
                carry = s >> 8;
                carries |= carry << j;
            }
        }
        for (int j = 0; j < 8; j++) {
            PUT(CPU_RS1V + j, byte_of(a, j));
            PUT(CPU_RS2V + j, byte_of(r2, j));
            PUT(CPU_OPB + j, byte_of(b, j));
            PUT(CPU_SUM + j, byte_of(sum, j));
            PUT(CPU_CARRY + j, (carries >> j) & 1);
            PUT(CPU_RES + j, byte_of(r, j));
            PUT(CPU_RDV + j, wr ? byte_of(r, j) : 0);
        }
        const bool taken = f[CLS_BRANCH] && (((r & 1) == 1) != (f[F_BR_NEG] != 0));
        PUT(CPU_TAKEN, taken ? 1 : 0);
        const bool jalr = f[CLS_JALR] != 0;
        // The next step's pc; the last step's from its own (cpu::next_pc_of): a JAL's or
        // taken branch's target, a JALR's (sum, bit 0 cleared, low 32 bits), else pc + 4.
        uint64_t next_pc;
        if (i + 1 < n) {
            next_pc = dec[(uint64_t)dec_row[i + 1] * DEC_WORDS];
        } else if (f[CLS_JAL] || taken) {
            next_pc = (uint32_t)(pc + imm);
        } else if (jalr) {
            next_pc = (uint32_t)sum & ~1u;
        } else {
            next_pc = (uint32_t)(pc + 4);
        }
        PUT(CPU_NEXT_PC, next_pc);
        // cpu::quarter: JALR's sum_0 / 4, a JAL's or taken branch's imm_0 / 4, else 0.
        PUT(CPU_Q, jalr ? (sum & 0xff) >> 2 : (f[CLS_JAL] || taken) ? (imm & 0xff) >> 2 : 0);
        PUT(CPU_BIT0, jalr ? sum & 1 : 0);
        const bool w = f[CLS_ADDW] | f[CLS_SUBW];
        const uint64_t s3 = (sum >> 24) & 0xff;
        PUT(CPU_SGN, w ? s3 >> 7 : 0);
        PUT(CPU_L7, w ? s3 & 0x7f : 0);
#undef PUT
    }
}
