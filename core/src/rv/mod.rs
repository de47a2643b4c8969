//! The RV64IM AIR: tables, buses and how they fit together (register-only programs; loads,
//! stores and the read/write calls come with the memory tables).
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
//! | [`BUS_REG_ACCESS`] | `(reg, value[8], ts, is_write)` | CPU: rs1 read, rs2 read, rd write | MEMW_R |
//! | [`BUS_REG`] | `(reg, value[8], ts)` | MEMW_R (new token), REGISTER (initial) | MEMW_R (old token), REGISTER (final) |
//! | [`BUS_BYTE`] | `(op, x, y, z)` | anyone range-checking bytes or doing byte logic | BITWISE |
//! | [`BUS_ALU`] | `(op, a[8], b[8], c[8])` | CPU (ALU instructions and branch compares) | LT, EQ, SHIFT, MUL, DVRM |
//! | [`BUS_EXIT`] | `(a0[8])` | CPU's exit ECALL | the verifier, from the public exit code |
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
pub mod eq;
pub mod lt;
pub mod machine;
pub mod memw_r;
pub mod mul;
pub mod register;
pub mod shift;
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
