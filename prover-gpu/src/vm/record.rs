//! The event stream: one packed [`Record`] per executed instruction.
//!
//! **48 bytes per cycle**, `#[repr(C)]`, no padding, little-endian on every supported host, so a
//! `Vec<Record>` can be uploaded to a GPU as is. The timestamp of a record is its index in the
//! stream (the cycle number, from 0); the next pc is the next record's `pc` (after the last
//! record the program has exited).
//!
//! | field | bytes | meaning |
//! | --- | --- | --- |
//! | `pc` | 4 | address of the instruction (all guest addresses are below 2^32, see [`map`](super::map)) |
//! | `word` | 4 | the instruction word; [`kestrel_core::isa::decode`] gives opcode, rd, rs1, rs2, imm |
//! | `rs1_val` | 8 | value of `x[rs1]` before the instruction (0 when the format has no rs1) |
//! | `rs2_val` | 8 | value of `x[rs2]` before the instruction (0 when the format has no rs2) |
//! | `rd_val` | 8 | value of `x[rd]` after the instruction (0 for `rd = x0`, stores, branches) |
//! | `mem_addr` | 8 | loads/stores: the effective address `rs1 + imm` (may be misaligned) |
//! | `mem_val` | 8 | loads: the bytes read, zero-extended (before sign extension); stores: the bytes the store overwrote, zero-extended (the new bytes are `rs2_val` truncated) |
//!
//! For ECALL (whose word names no registers) the fields hold the call instead: `rs1_val = a7`
//! (call number), `rs2_val = a0` (first argument) and `rd_val` = a0 after the call (the return
//! value; unchanged for exit), `mem_addr = a1`, `mem_val = a2`. The bytes moved by `read`
//! are the next bytes of the private input and those of `write` are the public output (fd 1) or
//! debug text (fd 2), both available from the [`Vm`](super::Vm); the old bytes a `read`
//! overwrites are found by replaying memory, as the memory argument does for timestamps.
//! Fields an instruction does not use are 0.

/// One executed instruction (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Record {
    /// Address of the instruction.
    pub pc: u32,
    /// Instruction word.
    pub word: u32,
    /// `x[rs1]` before (ECALL: a7).
    pub rs1_val: u64,
    /// `x[rs2]` before (ECALL: a0 before).
    pub rs2_val: u64,
    /// `x[rd]` after (ECALL: a0 after).
    pub rd_val: u64,
    /// Effective address of a load/store (ECALL: a1).
    pub mem_addr: u64,
    /// Bytes loaded, or bytes overwritten by a store (ECALL: a2).
    pub mem_val: u64,
}

/// Bytes per cycle of the event stream.
pub const RECORD_BYTES: usize = core::mem::size_of::<Record>();
const _: () = assert!(RECORD_BYTES == 48);

/// Receives the event stream. `ENABLED = false` compiles all recording out of the interpreter.
pub trait Recorder {
    /// Whether the interpreter should build records at all.
    const ENABLED: bool;
    /// Called once per executed instruction, in order.
    fn record(&mut self, r: Record);
}

/// The pure fast path: records nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoRecorder;

impl Recorder for NoRecorder {
    const ENABLED: bool = false;
    #[inline(always)]
    fn record(&mut self, _: Record) {}
}

/// Collects the whole stream in memory.
#[derive(Clone, Debug, Default)]
pub struct VecRecorder {
    /// The records, one per cycle.
    pub records: Vec<Record>,
}

impl Recorder for VecRecorder {
    const ENABLED: bool = true;
    #[inline(always)]
    fn record(&mut self, r: Record) {
        self.records.push(r);
    }
}

impl VecRecorder {
    /// A recorder with room for `n` records whose memory is already mapped: the buffer is
    /// filled in parallel and cleared before the run, so the (sequential) recorded run
    /// writes to pages that no longer fault. A fresh buffer of 48 B per cycle otherwise
    /// takes one page fault per 4 KiB on the interpreter's thread.
    pub fn with_capacity_mapped(n: usize) -> VecRecorder {
        use rayon::prelude::*;
        let mut records = Vec::with_capacity(n);
        records.par_extend((0..n).into_par_iter().map(|_| Record::default()));
        records.clear();
        VecRecorder { records }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapped_recorder_is_empty_with_its_room() {
        let r = VecRecorder::with_capacity_mapped(10_000);
        assert!(r.records.is_empty());
        assert!(r.records.capacity() >= 10_000);
    }
}
