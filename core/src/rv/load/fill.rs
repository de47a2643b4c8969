//! LOAD's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::LoadOp;

/// Bytes accessed by a load or store with this funct3: `1 << (funct3 & 3)` (defined for
/// every input; funct3 7 reads as 8 bytes).
pub fn width_of(funct3: u8) -> u32 {
    1 << (funct3 & 3)
}

/// Whether an access of `width_of(funct3)` bytes at `addr` crosses a word boundary.
pub fn is_split(funct3: u8, addr: u32) -> bool {
    addr % 8 + width_of(funct3) > 8
}

/// The 16 bytes a load or store sees: word 0, then word 1 when split (else zeros).
pub(crate) fn window(funct3: u8, addr: u32, word0: u64, word1: u64) -> [u8; 16] {
    let mut buf = [0u8; 16];
    buf[..8].copy_from_slice(&word0.to_le_bytes());
    if is_split(funct3, addr) {
        buf[8..].copy_from_slice(&word1.to_le_bytes());
    }
    buf
}

/// The value the load writes to `rd`: `width` bytes at `addr`, sign-extended for funct3
/// 0..=2, zero-extended for 4..=6 (funct3 3 and 7 load 8 bytes).
pub fn load_value(op: &LoadOp) -> u64 {
    let buf = window(op.funct3, op.addr, op.word0, op.word1);
    let (off, width) = ((op.addr % 8) as usize, width_of(op.funct3) as usize);
    let mut v = [0u8; 8];
    v[..width].copy_from_slice(&buf[off..off + width]);
    let raw = u64::from_le_bytes(v);
    if op.funct3 < 4 && width < 8 {
        let sh = 64 - 8 * width as u32;
        (((raw << sh) as i64) >> sh) as u64
    } else {
        raw
    }
}

/// The funct3 of a load (`load`) or store whose DECODE row carries `alu_op` (the
/// [`BUS_MEMOP`] op: [`MEMOP_LOAD`] or [`MEMOP_STORE`](crate::rv::MEMOP_STORE) + funct3).
#[inline]
pub fn funct3_of(alu_op: u32, load: bool) -> u8 {
    (alu_op
        - if load {
            MEMOP_LOAD
        } else {
            crate::rv::MEMOP_STORE
        }) as u8
}

/// The bytes an access of `width_of(funct3)` bytes at `addr` finds in `word0` (and `word1`
/// when split), zero-extended: what the executor records for a load or store alike.
#[inline]
pub fn accessed_bytes(funct3: u8, addr: u32, word0: u64, word1: u64) -> u64 {
    // The unsigned load of the same width (funct3 3 and 7 already read 8 bytes unsigned).
    let unsigned = match funct3 % 4 {
        3 => 3,
        f => 4 + f,
    };
    load_value(&LoadOp {
        ts: 0,
        funct3: unsigned,
        addr,
        word0,
        word1,
    })
}

/// LOAD's record of a load at memory timestamp `ts` that found `word0` (and `word1` when
/// split), and the words it leaves: the same.
#[inline]
pub fn record(ts: u64, funct3: u8, addr: u32, word0: u64, word1: u64) -> (LoadOp, (u64, u64)) {
    let op = LoadOp {
        ts,
        funct3,
        addr,
        word0,
        word1,
    };
    (op, (word0, word1))
}

/// LOAD's trace: one row per op, in order, padded with zero rows to a power of two ≥ 8;
/// byte lookups go to `bytes`.
///
/// Records are assumed valid (funct3 in `0..=6`, `word1` the word after `word0` when the
/// access is split). The builder does not panic on funct3 7: it writes a row with
/// `u = sz₈ = 1`, which fails "load unsigned only for widths 1, 2, 4".
pub fn build_trace(ops: &[LoadOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let h = ops.len().next_power_of_two().max(crate::params::MIN_ROWS);
    let mut t = RowMajorMatrix::zeros(h, WIDTH);
    let b = |v: u8| Felt::from(v as u32);
    for (r, op) in ops.iter().enumerate() {
        let mut row = LoadCols::from_fn(|_| Felt::ZERO);
        let width = width_of(op.funct3) as usize;
        let off = (op.addr % 8) as usize;
        let a = op.addr.to_le_bytes();
        let q = a[0] >> 3;
        row.sz[(op.funct3 & 3) as usize] = Felt::ONE;
        row.u = Felt::from(op.funct3 >= 4);
        row.off[off] = Felt::ONE;
        row.q = b(q);
        for i in 0..3 {
            row.addr_hi[i] = b(a[i + 1]);
        }
        let value = load_value(op).to_le_bytes();
        for (i, &v) in value.iter().enumerate() {
            row.value[i] = b(v);
        }
        let buf = window(op.funct3, op.addr, op.word0, op.word1);
        for (i, &v) in buf.iter().enumerate() {
            row.mem[i] = b(v);
        }
        row.ts = Felt::new(op.ts);
        row.split = Felt::from(is_split(op.funct3, op.addr));
        let top = value[width - 1];
        row.sign = b(top >> 7);
        row.low7 = b(top & 0x7f);
        row.write(t.row_mut(r));
        bytes.range(q, 2 * (top & 0x7f));
    }
    t
}

/// The byte lookups [`build_trace`] records for `ops`, without building the trace (for a
/// table filled elsewhere, e.g. on a device): one `(RANGE, q, 2·low7)` per op; padding rows
/// record nothing (their multiplicity is `is_real = 0`).
pub fn lookups(ops: &[LoadOp], bytes: &mut ByteCounts) {
    for op in ops {
        let top = load_value(op).to_le_bytes()[width_of(op.funct3) as usize - 1];
        bytes.range((op.addr as u8) >> 3, 2 * (top & 0x7f));
    }
}
