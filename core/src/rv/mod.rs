//! The RV64IM AIR: tables, buses and how they fit together.
//!
//! Tables (in proof order): CPU, DECODE, MEMW_R, REGISTER, BITWISE; the ALU tables LT, EQ,
//! SHIFT, MUL, DVRM; the memory tables LOAD, STORE, MEMW_A, MEMW, PAGE, PAGE0; the
//! system-call tables ECALL (one row per call) and IO (one row per memory word a read, a
//! write to fd 1 or a break shrink touches). DESIGN.md's OUTPUT table is IO's output rows
//! plus the exit call's [`BUS_EXIT`] token; PAGE0 is the zero-initialised part of PAGE.
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
//! | [`BUS_ENTRY`] | `(pc)` | CPU's first row | DECODE's entry row |
//! | [`BUS_REG_ACCESS`] | `(reg, value[8], ts, is_write)` | CPU: rs1 read, rs2 read, rd write; ECALL: a1, a2, break registers, [`REG_INPUT`] | MEMW_R |
//! | [`BUS_REG`] | `(reg, value[8], ts)` | MEMW_R (new token), REGISTER (initial) | MEMW_R (old token), REGISTER (final) |
//! | [`BUS_BYTE`] | `(op, x, y, z)` | anyone range-checking bytes or doing byte logic | BITWISE |
//! | [`BUS_ALU`] | `(op, a[8], b[8], c[8])` | CPU (ALU instructions and branch compares) | LT, EQ, SHIFT, MUL, DVRM |
//! | [`BUS_EXIT`] | `(a0[8])` | CPU's exit ECALL | the verifier, from the public exit code |
//! | [`BUS_MEMOP`] | `(op, addr[4], value[8], ts)` | CPU: loads (value = rd's new value) and stores (value = rs2) | LOAD, STORE |
//! | [`BUS_MEM_A`] | `(w, old[8], new[8], ts)` | LOAD, STORE (access inside one word), IO | MEMW_A |
//! | [`BUS_MEM_S`] | `(w, old[16], new[16], ts)` | LOAD, STORE (access split over words `w`, `w+1`) | MEMW |
//! | [`BUS_MEM`] | `(w, value[8], ts)` | PAGE, PAGE0 (initial, ts 0), MEMW_A, MEMW (new token) | MEMW_A, MEMW (old token), PAGE, PAGE0 (final) |
//! | [`BUS_FLOOR`] | `(w)` | PAGE's row 0: `heap_start / 8` | PAGE0's first row |
//! | [`BUS_ECALL`] | `(clk, a7[8], a0[8], res[8], exit, outpos, outn)` | CPU's ECALL rows | ECALL |
//! | [`BUS_IO`] | `(kind, addr, ts, pos)` | ECALL (start), IO (next) | ECALL (end), IO (this row) |
//! | [`BUS_OUTPUT`] | `(pos, byte)` | IO rows of kind [`IO_OUT`] | the verifier, from the public output |
//!
//! # Memory
//!
//! Memory is a map of 8-byte words: word `w` holds bytes `8w .. 8w+8` (guest addresses are
//! below 2^32, so `w < 2^29`). A memory token is `(w, value[8], ts)`. Every access to a word
//! consumes its token and emits the new one with a larger timestamp; `ts − old_ts − 1` is
//! range-checked as four bytes. The memory timestamp of cycle `clk` is `clk + 1` (initial
//! tokens carry 0): a cycle makes at most one access per word — a load or store touches one
//! word (MEMW_A) or two adjacent words (MEMW, "split"); a read/write call touches each word
//! of its buffer once (one IO row per word).
//!
//! Routing: an access whose bytes `addr .. addr+width` lie in one aligned word goes to MEMW_A
//! (one token pair); one that crosses a word boundary goes to MEMW (two token pairs in one
//! row). MEMW_A is the cheaper table; misaligned accesses inside a word stay there.
//!
//! Initial memory: PAGE (preprocessed, bound to the verifying key) holds every word of the
//! ELF's loadable segments (bss included, as zeros); PAGE0 holds the other words the run
//! touches (heap, stack), each starting at zero, sorted strictly increasing from
//! `heap_start / 8`, so none repeats and none is an ELF word. Both consume each word's final
//! token. Untouched heap and stack cost nothing.
//!
//! What a proof attests about memory: the run is an RV64IM execution over this memory — the
//! ELF image, then zero-initialised words at and above `heap_start` up to 2^32, all readable
//! and writable. The executor is stricter (it faults on the unmapped gap between heap and
//! stack, above the break, and on writes to read-only segments), so every run it accepts is
//! provable; a proof does not show that the run stayed inside the executor's mapping. Words
//! below `heap_start` that no segment covers cannot be proven at all.
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
//! `4·clk + 3`; initial register tokens carry timestamp 0. MEMW_R checks `old_ts < ts` by
//! range-checking `ts − old_ts − 1` as four bytes.
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
pub mod pack;
pub mod page;
pub mod register;
pub mod shift;
pub mod store;
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
/// The lowest word PAGE0 may hold.
pub const BUS_FLOOR: u32 = 21;
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

/// System call numbers (Linux RISC-V).
pub const SYS_EXIT: u32 = 93;
pub const SYS_WRITE: u32 = 64;
pub const SYS_READ: u32 = 63;
pub const SYS_BRK: u32 = 214;

/// One access of the memory argument to word `w` (MEMW_A row; a MEMW row is two of them,
/// words `w` and `w + 1`, with one `ts`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WordAccess {
    pub w: u32,
    pub old: u64,
    pub new: u64,
    pub old_ts: u64,
    pub ts: u64,
}

/// One load as LOAD proves it: `word0` is word `addr / 8`, `word1` the next word (used only
/// when the access is split, else 0).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOp {
    pub ts: u64,
    pub funct3: u8,
    pub addr: u32,
    pub word0: u64,
    pub word1: u64,
}

/// One store as STORE proves it: `value` is rs2's value; `old0`/`old1` the words before
/// (`old1` only when split, else 0).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
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
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
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
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
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

/// Bytes of a 64-bit value, least significant first.
pub fn bytes_of(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}
