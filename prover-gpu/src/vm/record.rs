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
        let mut records = mapped_records(n);
        records.clear();
        VecRecorder { records }
    }
}

/// `n` default records, their pages mapped by writing them in parallel: a buffer a
/// [`SliceRecorder`] then fills without page faults on the (sequential) run's thread.
pub fn mapped_records(n: usize) -> Vec<Record> {
    use rayon::prelude::*;
    let mut records = Vec::with_capacity(n);
    records.par_extend((0..n).into_par_iter().map(|_| Record::default()));
    records
}

/// Records into a buffer of fixed length (what does not fit is counted, not kept): a
/// chunk of a run recorded in place.
///
/// On x86-64, with the buffer 16-byte aligned (so is every 48-byte record), each record is
/// written with non-temporal stores: the buffer's lines are written without first being
/// read into the cache, which a plain store does (a recording is written once and read
/// by other threads later). [`SliceRecorder::finish`] orders those stores before whatever
/// hands the records over.
pub struct SliceRecorder<'a> {
    buf: &'a mut [Record],
    len: usize,
    stream: bool,
}

impl<'a> SliceRecorder<'a> {
    /// A recorder writing `buf` from its start.
    pub fn new(buf: &'a mut [Record]) -> SliceRecorder<'a> {
        let stream = cfg!(target_arch = "x86_64")
            && (buf.as_ptr() as usize).is_multiple_of(16)
            && std::env::var("KESTREL_STREAM_RECORDS").map_or(true, |v| v != "0");
        SliceRecorder {
            buf,
            len: 0,
            stream,
        }
    }

    /// The buffer, its records written and visible to other threads, and the number of
    /// records given (more than the buffer holds if it overflowed).
    pub fn finish(self) -> (&'a mut [Record], usize) {
        #[cfg(target_arch = "x86_64")]
        if self.stream {
            // SAFETY: SSE2 is part of x86-64.
            unsafe { core::arch::x86_64::_mm_sfence() };
        }
        (self.buf, self.len)
    }
}

impl Recorder for SliceRecorder<'_> {
    const ENABLED: bool = true;
    #[inline(always)]
    fn record(&mut self, r: Record) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            #[cfg(target_arch = "x86_64")]
            if self.stream {
                use core::arch::x86_64::{_mm_set_epi64x, _mm_stream_si128};
                let p = (slot as *mut Record).cast::<core::arch::x86_64::__m128i>();
                let head = (u64::from(r.word) << 32) | u64::from(r.pc);
                // SAFETY: `slot` is a record of the buffer (48 bytes: three 16-byte words)
                // at a 16-byte aligned address (the buffer's start is, checked in `new`, and
                // records are 48 bytes); SSE2 is part of x86-64. The words are the record's
                // fields in its `repr(C)` order, little-endian.
                unsafe {
                    _mm_stream_si128(p, _mm_set_epi64x(r.rs1_val as i64, head as i64));
                    _mm_stream_si128(p.add(1), _mm_set_epi64x(r.rd_val as i64, r.rs2_val as i64));
                    _mm_stream_si128(
                        p.add(2),
                        _mm_set_epi64x(r.mem_val as i64, r.mem_addr as i64),
                    );
                }
                self.len += 1;
                return;
            }
            *slot = r;
        }
        self.len += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streamed or stored, a slice recorder writes each record's fields, at any alignment.
    #[test]
    fn a_slice_recorder_writes_the_records() {
        let recs: Vec<Record> = (0..100u64)
            .map(|i| Record {
                pc: 0x1000 + 4 * i as u32,
                word: 0x13 + i as u32,
                rs1_val: i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                rs2_val: !i,
                rd_val: i << 40,
                mem_addr: u64::MAX - i,
                mem_val: i * 3,
            })
            .collect();
        // One record of slack: the buffer at offset 0 and at an 8-byte offset (so one of the
        // two is not 16-byte aligned and takes plain stores).
        let mut words = vec![0u64; 6 * 101 + 1];
        for skip in [0usize, 1] {
            let (_, tail) = words.split_at_mut(skip);
            let (pre, buf, _) = unsafe { tail.align_to_mut::<Record>() };
            assert!(pre.is_empty());
            let mut rec = SliceRecorder::new(&mut buf[..100]);
            for &r in &recs {
                rec.record(r);
            }
            rec.record(recs[0]);
            let (buf, n) = rec.finish();
            assert_eq!(n, 101, "the overflow is counted");
            assert_eq!(buf, &recs[..], "offset {skip}");
        }
    }

    #[test]
    fn a_mapped_recorder_is_empty_with_its_room() {
        let r = VecRecorder::with_capacity_mapped(10_000);
        assert!(r.records.is_empty());
        assert!(r.records.capacity() >= 10_000);
    }
}
