//! RV64IM instruction decoding shared by prover and verifier (issue 3).
//!
//! [`decode`] turns any 32-bit word into either a compact [`Instr`] (an [`Opcode`] plus the
//! register indices and the sign-extended immediate) or a [`DecodeError`] saying why the word is
//! not an RV64IM user-level instruction Kestrel executes. It is a pure function that never panics.
//!
//! Field conventions of [`Instr`], so that tables can read them without looking at the format:
//!
//! - register fields an instruction does not use are 0 (so reading `x[rs2]` of an I-type gives 0,
//!   and stores and branches "write" `x0`);
//! - `imm` is the immediate as the instruction uses it: sign-extended for I/S/B/J types, the
//!   already shifted `imm << 12` for LUI/AUIPC (as an `i32`, sign-extended to 64 bits on use), the
//!   shift amount for immediate shifts, and 0 where there is none.
//!
//! FENCE and FENCE.I decode to [`Opcode::Fence`], a no-op in a single-hart machine without caches.

mod decode;
mod opcode;

pub use decode::{decode, DecodeError};
pub use opcode::{Format, Opcode};

/// One decoded instruction: 8 bytes, `Copy`, the same on every platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instr {
    /// What the instruction does.
    pub op: Opcode,
    /// Destination register index (0..32); 0 when the instruction writes no register.
    pub rd: u8,
    /// First source register index (0..32); 0 when unused.
    pub rs1: u8,
    /// Second source register index (0..32); 0 when unused.
    pub rs2: u8,
    /// Immediate (see the module documentation for its meaning per format).
    pub imm: i32,
}

impl Instr {
    /// The immediate sign-extended to 64 bits, as RV64 uses it.
    #[inline]
    pub fn imm64(&self) -> u64 {
        i64::from(self.imm) as u64
    }
}

#[cfg(test)]
mod tests;
