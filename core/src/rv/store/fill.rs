//! STORE's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::load::{is_split, width_of, window};
use crate::rv::StoreOp;

/// The words after the store: (new word `w`, new word `w + 1`); the second is 0 when the
/// access is not split.
pub fn store_words(op: &StoreOp) -> (u64, u64) {
    let mut buf = window(op.funct3, op.addr, op.old0, op.old1);
    let (off, width) = ((op.addr % 8) as usize, width_of(op.funct3) as usize);
    buf[off..off + width].copy_from_slice(&op.value.to_le_bytes()[..width]);
    let word = |i: usize| u64::from_le_bytes(buf[8 * i..8 * i + 8].try_into().unwrap());
    (word(0), word(1))
}

/// STORE's record of a store of rs2's `value` at memory timestamp `ts` over `old0` (and
/// `old1` when split), and the words it leaves ([`store_words`]).
#[inline]
pub fn record(
    ts: u64,
    funct3: u8,
    addr: u32,
    value: u64,
    old0: u64,
    old1: u64,
) -> (StoreOp, (u64, u64)) {
    let op = StoreOp {
        ts,
        funct3,
        addr,
        value,
        old0,
        old1,
    };
    (op, store_words(&op))
}

/// STORE's trace: one row per op, in order, padded with zero rows to a power of two ≥ 8;
/// byte lookups go to `bytes`.
///
/// Records are assumed valid (funct3 in `0..=3`, `old1` the word after `old0` when the
/// access is split). The builder does not panic on funct3 `4..=7`: it writes a row with no
/// width selector, which fails "store offset one-hot".
pub fn build_trace(ops: &[StoreOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let h = ops.len().next_power_of_two().max(crate::params::MIN_ROWS);
    let mut t = RowMajorMatrix::zeros(h, WIDTH);
    let b = |v: u8| Felt::from(v as u32);
    for (r, op) in ops.iter().enumerate() {
        let mut row = StoreCols::from_fn(|_| Felt::ZERO);
        let a = op.addr.to_le_bytes();
        let q = a[0] >> 3;
        if op.funct3 < 4 {
            row.sz[op.funct3 as usize] = Felt::ONE;
        }
        row.off[(op.addr % 8) as usize] = Felt::ONE;
        row.q = b(q);
        for i in 0..3 {
            row.addr_hi[i] = b(a[i + 1]);
        }
        for (i, &v) in op.value.to_le_bytes().iter().enumerate() {
            row.value[i] = b(v);
        }
        let old = window(op.funct3, op.addr, op.old0, op.old1);
        let (n0, n1) = store_words(op);
        let mut new = [0u8; 16];
        new[..8].copy_from_slice(&n0.to_le_bytes());
        new[8..].copy_from_slice(&n1.to_le_bytes());
        for i in 0..16 {
            row.old[i] = b(old[i]);
            row.new[i] = b(new[i]);
        }
        row.ts = Felt::new(op.ts);
        row.split = Felt::from(is_split(op.funct3, op.addr));
        row.write(t.row_mut(r));
        bytes.range(q, q << 3);
    }
    t
}

/// The byte lookups [`build_trace`] records for `ops`, without building the trace (for a
/// table filled elsewhere, e.g. on a device): one `(RANGE, q, 8·q)` per op; padding rows
/// record nothing (their multiplicity is `is_real = 0`).
pub fn lookups(ops: &[StoreOp], bytes: &mut ByteCounts) {
    for op in ops {
        let q = (op.addr as u8) >> 3;
        bytes.range(q, q << 3);
    }
}
