//! The RV64IM AIR: tables, buses and how they fit together.
//!
//! Tables (in proof order): CPU, DECODE, MEMW_R, REGISTER, BITWISE; the ALU tables LT, EQ,
//! SHIFT, MUL, DVRM; the memory tables LOAD, STORE, MEMW_A, MEMW, PAGE, PAGE0; the
//! system-call tables ECALL (one row per call) and IO (one row per memory word a read, a
//! write to fd 1 or a break shrink touches); MEMW_R2, MEMW_R's AIR for its rows past MEMW_R's
//! height ([`memw_r::split`]: three register accesses per cycle then fill 2^(k+1) + 2^k rows,
//! not 2^(k+2)). DESIGN.md's OUTPUT table is IO's output rows plus the exit call's
//! [`BUS_EXIT`] token; PAGE0 is the zero-initialised part of PAGE.
//!
//! # Values
//!
//! A 64-bit value is 8 byte limbs, little-endian, each a field element in `0..256`. Bytes are
//! range-checked by whoever produces them (the CPU checks every result it writes, ALU tables
//! check their internal witnesses), so every value on a bus is canonical.
//!
//! # Buses
//!
//! | bus | tuple | sent by | received by |
//! | --- | --- | --- | --- |
//! | [`BUS_DECODE`] | `(pc, selectors…, alu_op, rd, rs1, rs2, imm_f, imm[8])` | CPU, once per executed row | DECODE, multiplicity = executions |
//! | [`BUS_ENTRY`] | `(clk, pc, outpos)` | CPU's row 0 (a segment's start) | DECODE's entry row `(0, entry, 0)`, CPU's handoff row (`(clk + 1, next_pc, outpos + outn)`) |
//! | [`BUS_REG_ACCESS`] | `(reg, value[8], ts, is_write)` | CPU: rs1 read, rs2 read, rd write; ECALL: a1, a2, break registers, [`REG_INPUT`] | MEMW_R, MEMW_R2 |
//! | [`BUS_REG`] | `(reg, value[8], ts)` | MEMW_R, MEMW_R2 (new token), REGISTER (initial) | MEMW_R, MEMW_R2 (old token), REGISTER (final) |
//! | [`BUS_BYTE`] | `(op, x, y, z)` | anyone range-checking bytes or doing byte logic | BITWISE |
//! | [`BUS_ALU`] | `(op, a[8], b[8], c[8])` | CPU (ALU instructions and branch compares) | LT, EQ, SHIFT, MUL, DVRM |
//! | [`BUS_EXIT`] | `(a0[8])` | CPU's exit ECALL | the verifier, from the public exit code |
//! | [`BUS_MEMOP`] | `(op, addr[4], value[8], ts)` | CPU: loads (value = rd's new value) and stores (value = rs2) | LOAD, STORE |
//! | [`BUS_MEM_A`] | `(w, old[8], new[8], ts, wr)` | LOAD (`wr = 0`), STORE (`wr = 1`) (access inside one word), IO (`wr = 1 − kind`) | MEMW_A |
//! | [`BUS_MEM_S`] | `(w, old[16], new[16], ts, wr)` | LOAD, STORE (access split over words `w`, `w+1`) | MEMW |
//! | [`BUS_MEM`] | `(w, value[8], ts, ro)` | PAGE, PAGE0 (initial, ts 0), MEMW_A, MEMW (new token) | MEMW_A, MEMW (old token), PAGE, PAGE0 (final) |
//! | [`BUS_ZRANGE`] | `(lo, hi, ro)` | PAGE (the key's zero ranges, multiplicity `zmult`) | PAGE0, once per row |
//! | [`BUS_ECALL`] | `(clk, a7[8], a0[8], res[8], exit, outpos, outn)` | CPU's ECALL rows | ECALL |
//! | [`BUS_IO`] | `(kind, addr, ts, pos)` | ECALL (start), IO (next) | ECALL (end), IO (this row) |
//! | [`BUS_OUTPUT`] | `(pos, byte)` | IO rows of kind [`IO_OUT`] | the verifier, from the public output |
//!
//! # Memory
//!
//! Memory is a map of 8-byte words: word `w` holds bytes `8w .. 8w+8` (guest addresses are
//! below 2^32, so `w < 2^29`). A memory token is `(w, value[8], ts, ro)`. Every access to a
//! word consumes its token and emits the new one with a larger timestamp; `ts − old_ts − 1`
//! is range-checked as five bytes (`< 2^40`). The memory timestamp of cycle `clk` is `clk + 1`
//! (initial tokens carry 0), so memory timestamps stay below `2^36 + 2`; an access near
//! cycle 2^36 to a word still holding its initial token has a gap of about 2^36, which five
//! bytes cover and four would not (soundness: see "Timestamps").
//! A cycle makes at most one access per word — a load or store
//! touches one word (MEMW_A) or two adjacent words (MEMW, "split"); a read/write call
//! touches each word of its buffer once (one IO row per word).
//!
//! Routing: an access whose bytes `addr .. addr+width` lie in one aligned word goes to MEMW_A
//! (one token pair); one that crosses a word boundary goes to MEMW (two token pairs in one
//! row). MEMW_A is the cheaper table; misaligned accesses inside a word stay there.
//!
//! # The memory map
//!
//! What a proof attests about memory is the executor's memory map, word for word (see
//! `page.rs`, and `prover-gpu/src/vm/map.rs` for the executor's side):
//!
//! | words | initial value | tokens from | permissions |
//! | --- | --- | --- | --- |
//! | file-backed words of the readable ELF segments | the ELF's bytes | PAGE (preprocessed) | read-only unless the segment is writable |
//! | their bss (zero-filled rest) | 0 | PAGE0, per touched word | as the segment |
//! | heap `heap_start .. heap_limit` | 0 | PAGE0 | read/write |
//! | stack [`STACK_BOTTOM`] `..` [`STACK_TOP`] | 0 | PAGE0 | read/write |
//!
//! Every other word — below the first segment, the gaps between segments, between the
//! heap's limit and the stack, at and above the stack's top (including word 2^29, which a
//! split access at `0xFFFF_FFFC` would reach) — has no initial token, so no access to it
//! can balance. A read-only word's tokens carry `ro = 1`, and MEMW_A/MEMW prove
//! `wr·ro = 0`: no store, input transfer or break shrink writes it, even with the value it
//! already holds. Costs: one column `wr` per MEMW_A/MEMW row and one `ro` per word of a
//! row (2 cells per aligned access, 3 per split access), no lookups; the map's bounds are
//! checked once per touched zero word (PAGE0: 10 more columns and 4 more byte lookups per
//! row than a floor-only PAGE0) and never per access. Zero-filled memory (bss, heap,
//! stack) costs nothing until touched, so the verifying key's cost is proportional to
//! the file-backed bytes.
//!
//! Every executed pc is a multiple of 4 (the CPU proves it, see `cpu.rs`), and the code
//! DECODE holds is the aligned words of the executable segments, which start at multiples
//! of 4 (the loader refuses others), so the executor and the key decode the same words.
//!
//! # The executor and qemu-riscv64
//!
//! The executor runs exactly what a proof can attest; where that differs from
//! `qemu-riscv64` on the same static ELF (tested in `tests/tests/vm_qemu_diff.rs` and
//! `vm_faults.rs`):
//!
//! - The heap is mapped in full, `heap_start .. heap_limit`, whatever the break: accessing
//!   memory above the break works (qemu faults above the break's page). `brk` keeps
//!   Linux's return values, and lowering the break zeroes the released bytes, so memory the
//!   break exposes again reads as zero, as under Linux. The proof cannot follow the break
//!   per access cheaply; a program that does not touch memory above its break (every
//!   correct program) behaves the same on both.
//! - Segments are mapped as whole 8-byte words (qemu maps whole pages): bytes between a
//!   segment's end and the end of its last word are accessible zeros; the bytes of the same
//!   page beyond that fault (under qemu they are accessible). Segments that share a word,
//!   and executable segments that do not start at a multiple of 4, are refused.
//! - The stack is 1 MiB at `STACK_BOTTOM .. STACK_TOP` with `sp = STACK_TOP` and nothing
//!   on it (qemu's stack is elsewhere, larger, and holds argv/envp/auxv); accesses outside
//!   it fault.
//! - Misaligned pc targets fault in both; reads and writes to other fds, and other system
//!   calls, stop the executor where Linux would return an error (see `ecall.rs`).
//!
//! # Range checks of `k·x`
//!
//! A byte lookup of `k·x` pins `x` only when `x` equals an integer expression of checked
//! bytes; every use states what pins it:
//!
//! - CPU `2·L7` (`L7 = sum_3 − 128·SGN`), LOAD `2·low7` (`low7 = top − 128·sign`), LT
//!   `2·ra`, `2·rb`, MUL `2·ra`, `2·rb`, `2·rw`, SHIFT `2·ra7`, `2·ra3`, `2·rc`, DVRM
//!   `2·low7ᵢ`: each `x = b − 128·s` for a canonical byte `b` (checked by its producer) and
//!   a boolean `s`, so `x` is an integer in `[−128, 255]` and `2·x ∈ [0, 256)` gives
//!   `x < 128`.
//! - SHIFT `8·k5` (`k5 = b_0 − 32·h5 − 64·h6 − 128·h7`, `b_0` canonical, `h` boolean): `k5`
//!   is an integer in `[−224, 255]`, so `k5 < 32`.
//! - STORE `8·q`, IO `8·wb₃`: `q` and `wb₃` are themselves range-checked in the same or
//!   another lookup, so the second check only bounds them (`< 32`).
//! - CPU `Q`: checked itself (JALR's `sum_0 = 4·Q + BIT0` would not pin `Q` through a check
//!   of `4·Q`: `4·Q = sum_0 − BIT0` is an integer for any field element `Q`; the former
//!   `2·H` check let `H = sum_0 / 2` in the field for an odd `sum_0`).
//!
//! # System calls
//!
//! The CPU's ECALL row reads `a7` (rs1) and `a0` (rs2), writes `a0` (rd) with `res`, and
//! sends [`BUS_ECALL`]; ECALL proves `res` and the effects (see `ecall.rs`). Register tokens
//! beyond the 32 architectural ones: [`REG_BRK`] (the program break), [`REG_HEAP_LIMIT`] and
//! [`REG_HEAP_START`] (read-only constants), initialised by REGISTER from the program, and
//! [`REG_INPUT`] (the unread private input bytes), whose initial value is private: REGISTER
//! takes it from its main trace (range-checked bytes), and every `read` lowers it by the
//! bytes it returns, so reads are proven to take `min(len, remaining)` bytes of one stream.
//! read/write transfers run as a chain of IO rows over [`BUS_IO`]: ECALL sends the start token
//! `(kind, buf, clk+1, outpos)` and receives the end token `(kind, buf+cnt, clk+1,
//! outpos+cnt)`; each IO row covers the bytes `lo .. lo+cnt` of one word, receiving
//! `(kind, 8w+lo, ts, pos)` and sending `(kind, 8w+lo+cnt, ts, pos+cnt)`. Output bytes are
//! numbered by `pos` from 0 in execution order (the CPU's `outpos` column).
//!
//! # Timestamps
//!
//! Row `clk` of the CPU reads `rs1` at `4·clk + 1`, `rs2` at `4·clk + 2` and writes `rd` at
//! `4·clk + 3`; initial register tokens carry timestamp 0. Clocks are global across
//! segments (segment `k`'s row `r` is `clk = k·S + r`), and the verifier bounds a run by
//! 2^36 cycles, so register timestamps stay below `2^38 + 4` and memory timestamps
//! (`clk + 1`, see "Memory") below `2^36 + 2`: every timestamp on the buses is below 2^39.
//! MEMW_R, MEMW_A and MEMW check `old_ts < ts` by range-checking `ts − old_ts − 1` as five
//! bytes (`< 2^40`). With both timestamps below 2^39, an honest gap is below 2^39, while
//! `old_ts ≥ ts` makes `ts − old_ts − 1` a field element in `[p − 2^39, p − 1]` (p ≈ 2^64),
//! which no five bytes equal.
//!
//! # Segments
//!
//! A run longer than one segment is proven in parts ([`crate::proof::SegmentedProof`]):
//! each segment of `S` consecutive cycles (the last may be shorter) proves the segment
//! tables (CPU, MEMW_R, the ALU tables, LOAD, STORE, MEMW_A, MEMW, ECALL, IO) over its
//! cycles, and one run part proves the run tables (DECODE, REGISTER, BITWISE, PAGE, PAGE0:
//! the program with every segment's executions counted, the initial and final register
//! and memory tokens, the byte table with every segment's lookups). Every part's main
//! commitment is absorbed before the LogUp challenges are drawn, all parts use the same
//! α, β, and the verifier accepts only if every part verifies and all parts' LogUp totals
//! plus the public interactions sum to zero. Why a verifier that accepts has verified one
//! execution:
//!
//! 1. **One multiset.** With the challenges drawn after every part's main trace is fixed,
//!    the sum over all parts is the LogUp sum of the union of their rows (each part's
//!    total is its own rows' sum, checked by its own quotient), so, except with the
//!    probability the estimator's LogUp term bounds (it counts the fractions of all parts,
//!    `kestrel_verifier`'s `check_floor`), every bus balances over the whole run exactly
//!    as it would if all parts' tables were one proof's. Everything argued above for one
//!    proof holds for the union: a token consumed in one segment may have been emitted in
//!    any other part, and nothing else changes.
//! 2. **One chain of cycles.** A CPU table's row 0 sends [`BUS_ENTRY`] `(clk, pc,
//!    outpos)`; a segment that does not end the run ends with a handoff row that receives
//!    `(clk + 1, next_pc, outpos + outn)`, and DECODE's entry row receives `(0, entry, 0)`
//!    once per run (`cpu/mod.rs` has the constraints). Each segment has exactly one first
//!    row and at most one handoff, so with the run part's single entry token the segments
//!    form one chain from clock 0, each starting where the previous handed off; a cycle of
//!    segments would need its clocks to wrap around p, impossible for the at most 2^36
//!    rows the verifier accepts in all (`MAX_RUN_LOG_CYCLES`). The run's rows are thus
//!    one execution of consecutive clocks `0 .. n`, every pc and output position
//!    continuing across boundaries, and exactly one segment (the last) exits.
//! 3. **Registers and memory cross boundaries through their tokens.** Timestamps are
//!    global (`4·clk + k` for registers, `clk + 1` for memory), so the freshness checks
//!    order accesses across segments as within one, and the tokens REGISTER and
//!    PAGE/PAGE0 emit at time 0 and take at the end are accounted once per run, in the
//!    run part. The checks are five bytes wide (`ts − old_ts − 1 < 2^40`), enough for
//!    every timestamp of a 2^36-cycle run (below 2^39).
//! 4. **Bound to one run.** Each part's transcript after the challenges is the run's
//!    transcript (statement, parameters, preprocessed cap, public values, every part's
//!    heights and main cap) plus its index, so a part taken from another run, another
//!    input, or another position, or a dropped or repeated part, changes what every part
//!    must answer; the proof lists the parts' heights and caps a second time before their
//!    openings and the verifier checks the two listings agree.
//!
//! # ALU operations
//!
//! `c` is the full 64-bit result written to `rd` (W forms: the sign-extended 32-bit result;
//! compares: 0 or 1). Inputs `a` and `b` are canonical bytes (register values and
//! DECODE's immediates); for shifts only the low 6 (W: 5) bits of `b` count.

pub mod alu_ops;
pub mod bitwise;
pub mod cpu;
pub mod decode;
pub mod dvrm;
pub mod ecall;
pub mod eq;
pub mod io;
pub mod load;
pub mod lt;
pub mod machine;
pub mod memw;
pub mod memw_r;
pub mod mul;
#[cfg(feature = "trace")]
pub mod pack;
pub mod page;
pub mod page0;
pub mod register;
pub mod shift;
pub mod store;
pub mod table;
#[cfg(feature = "trace")]
pub mod testing;

pub use alu_ops::*;

/// DECODE lookups.
pub const BUS_DECODE: u32 = 10;
/// The entry point.
pub const BUS_ENTRY: u32 = 11;
/// Register accesses from the CPU to MEMW_R.
pub const BUS_REG_ACCESS: u32 = 12;
/// Register tokens of the memory argument.
pub const BUS_REG: u32 = 13;
/// Byte range checks and byte logic (BITWISE).
pub const BUS_BYTE: u32 = 14;
/// ALU operations.
pub const BUS_ALU: u32 = 15;
/// The exit code.
pub const BUS_EXIT: u32 = 16;

/// Loads and stores from the CPU to LOAD and STORE.
pub const BUS_MEMOP: u32 = 17;
/// Accesses inside one aligned word (to MEMW_A).
pub const BUS_MEM_A: u32 = 18;
/// Accesses split over two adjacent words (to MEMW).
pub const BUS_MEM_S: u32 = 19;
/// Memory tokens.
pub const BUS_MEM: u32 = 20;
/// The zero ranges of the memory map (PAGE to PAGE0).
pub const BUS_ZRANGE: u32 = 21;
/// System calls from the CPU to ECALL.
pub const BUS_ECALL: u32 = 22;
/// The read/write transfer chain.
pub const BUS_IO: u32 = 23;
/// Public output bytes.
pub const BUS_OUTPUT: u32 = 24;

/// [`BUS_MEMOP`] op of a load: `MEMOP_LOAD + funct3` (LB 0, LH 1, LW 2, LD 3, LBU 4, LHU 5,
/// LWU 6).
pub const MEMOP_LOAD: u32 = 32;
/// [`BUS_MEMOP`] op of a store: `MEMOP_STORE + funct3` (SB 0, SH 1, SW 2, SD 3).
pub const MEMOP_STORE: u32 = 40;

/// [`BUS_IO`] kind of a read (input bytes into memory).
pub const IO_IN: u32 = 0;
/// [`BUS_IO`] kind of a write to fd 1 (public output).
pub const IO_OUT: u32 = 1;
/// [`BUS_IO`] kind of a break shrink: the bytes from the new break up to the old one become
/// zero (so memory the break exposes again reads as zero, as under Linux/qemu).
pub const IO_ZERO: u32 = 2;

/// The program break, as a register of the memory argument.
pub const REG_BRK: u32 = 32;
/// The highest break `brk` accepts (read-only).
pub const REG_HEAP_LIMIT: u32 = 33;
/// The lowest break `brk` accepts: the initial break (read-only).
pub const REG_HEAP_START: u32 = 34;
/// The private input bytes not yet read (4 canonical bytes, the high 4 zero): starts at
/// the input's length (a private initial value of REGISTER), every `read` lowers it by the
/// bytes it returns.
pub const REG_INPUT: u32 = 35;
/// Registers of the memory argument: 32 architectural ones and the four above.
pub const NUM_REGS: usize = 36;

/// One past the highest stack byte, and `sp` at entry.
pub const STACK_TOP: u32 = 0xC000_0000;
/// Size of the stack region in bytes.
pub const STACK_SIZE: u32 = 1 << 20;
/// Lowest stack byte: the stack is `STACK_BOTTOM .. STACK_TOP`, readable and writable.
pub const STACK_BOTTOM: u32 = STACK_TOP - STACK_SIZE;

/// System call numbers (Linux RISC-V).
pub const SYS_EXIT: u32 = 93;
pub const SYS_WRITE: u32 = 64;
pub const SYS_READ: u32 = 63;
pub const SYS_BRK: u32 = 214;

/// One access of the memory argument to word `w` (MEMW_A row; a MEMW row is two of them,
/// words `w` and `w + 1`, with one `ts`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WordAccess {
    pub w: u32,
    pub old: u64,
    pub new: u64,
    pub old_ts: u64,
    pub ts: u64,
    /// The word is read-only (its tokens carry `ro = 1`).
    pub ro: bool,
    /// The access is a write (a store, an input transfer, a break shrink), even if it
    /// leaves the value as it was.
    pub wr: bool,
}

/// A word as a segment's memory finds it before the segment's first access to it: its
/// value, the timestamp of its last access in an earlier segment (0 if none) and its
/// read-only flag. What the memory walk on a device starts from, as the register walk
/// starts from [`memw_r::MemwRRecords::start`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WordStart {
    pub w: u32,
    pub value: u64,
    pub ts: u64,
    pub ro: bool,
}

/// One load as LOAD proves it: `word0` is word `addr / 8`, `word1` the next word (used only
/// when the access is split, else 0).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoadOp {
    pub ts: u64,
    pub funct3: u8,
    pub addr: u32,
    pub word0: u64,
    pub word1: u64,
}

/// One store as STORE proves it: `value` is rs2's value; `old0`/`old1` the words before
/// (`old1` only when split, else 0).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoreOp {
    pub ts: u64,
    pub funct3: u8,
    pub addr: u32,
    pub value: u64,
    pub old0: u64,
    pub old1: u64,
}

/// One system call as ECALL proves it. `brk` = (old break, heap limit, heap start), the
/// values of registers 32..35 before the call (read only by `brk`); `remaining` = the value
/// of [`REG_INPUT`] before the call (read and lowered by `res` only by `read`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EcallOp {
    pub clk: u64,
    pub a7: u64,
    pub a0: u64,
    pub a1: u64,
    pub a2: u64,
    /// a0 after the call.
    pub res: u64,
    /// Public output bytes written before this call.
    pub outpos: u64,
    pub brk: [u64; 3],
    /// Private input bytes not yet read before the call (used only by `read`).
    pub remaining: u64,
}

/// One IO row: bytes `lo .. lo + cnt` of word `w` moved by the call at memory timestamp
/// `ts`; `pos` is the transfer position of byte `lo` (the output position for [`IO_OUT`]).
/// `old`/`new` are the word before and after (equal for output).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IoWord {
    pub kind: u32,
    pub ts: u64,
    pub pos: u64,
    pub w: u32,
    pub lo: u8,
    pub cnt: u8,
    pub old: u64,
    pub new: u64,
}

/// [`BUS_BYTE`] operations: `(RANGE, x, y, 0)` checks that `x` and `y` are bytes.
pub const BYTE_RANGE: u32 = 0;
/// `(AND, x, y, x & y)`.
pub const BYTE_AND: u32 = 1;
/// `(OR, x, y, x | y)`.
pub const BYTE_OR: u32 = 2;
/// `(XOR, x, y, x ^ y)`.
pub const BYTE_XOR: u32 = 3;

/// The height of a table with `n` real rows: the next power of two, at least 8.
pub fn padded_height(n: usize) -> usize {
    n.next_power_of_two().max(crate::params::MIN_ROWS)
}

/// Bytes of a 64-bit value, least significant first.
pub fn bytes_of(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}
