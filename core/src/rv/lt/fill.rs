//! LT's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{alu_eval, distinct_height, distinct_ops, AluOp, Distinct, ALU_SLT, ALU_SLTU};
use alloc::vec::Vec;

/// The distinct SLT/SLTU operations of `ops` (any order), sorted by `(op, a, b)`, repeats
/// merged into multiplicities: LT's rows in order.
pub fn distinct(ops: &[AluOp]) -> Vec<Distinct> {
    for o in ops {
        debug_assert!(o.op == ALU_SLT || o.op == ALU_SLTU, "LT got op {}", o.op);
        debug_assert_eq!(alu_eval(o.op, o.a, o.b), Some(o.c));
    }
    distinct_ops(ops)
}

/// What a row computes: `(a', b')` (the sign bits flipped for SLT) and `d = a' − b'`.
fn compare(r: &Distinct) -> (u64, u64, u64) {
    let flip = if r.op == ALU_SLT { 1u64 << 63 } else { 0 };
    let (a2, b2) = (r.a ^ flip, r.b ^ flip);
    (a2, b2, a2.wrapping_sub(b2))
}

/// LT's trace with one row per entry of `rows` (in order; any op other than SLT fills as
/// SLTU), then all-zero padding rows up to [`distinct_height`]. Records no lookups.
pub fn fill_distinct(rows: &[Distinct]) -> RowMajorMatrix {
    let h = distinct_height(rows.len());
    let mut t = RowMajorMatrix::zeros(h, WIDTH);
    let f = |v: u64| Felt::new(v);
    for (r, x) in rows.iter().enumerate() {
        let mut row = LtCols::from_fn(|_| Felt::ZERO);
        let signed = x.op == ALU_SLT;
        let (a2, b2, d) = compare(x);
        let borrow = (a2 as u32) < (b2 as u32);
        row.sel_slt = Felt::from(signed);
        row.sel_sltu = Felt::from(!signed);
        let (ab, bb, db) = (x.a.to_le_bytes(), x.b.to_le_bytes(), d.to_le_bytes());
        for i in 0..8 {
            row.a[i] = f(ab[i] as u64);
            row.b[i] = f(bb[i] as u64);
            row.d[i] = f(db[i] as u64);
        }
        row.borrow = Felt::from(borrow);
        row.lt = Felt::from(a2 < b2);
        row.sa = f((ab[7] >> 7) as u64);
        row.ra = f((ab[7] & 0x7f) as u64);
        row.sb = f((bb[7] >> 7) as u64);
        row.rb = f((bb[7] & 0x7f) as u64);
        row.m = Felt::from(x.mult);
        row.write(t.row_mut(r));
    }
    t
}

/// The byte lookups of LT's trace of `rows` with `height` rows (padding rows look up
/// zeros): five per row.
pub fn lookups(rows: &[Distinct], height: usize, bytes: &mut ByteCounts) {
    debug_assert!(height >= rows.len());
    for x in rows {
        let (_, _, d) = compare(x);
        let (ab, bb, db) = (x.a.to_le_bytes(), x.b.to_le_bytes(), d.to_le_bytes());
        bytes.range(2 * (ab[7] & 0x7f), 2 * (bb[7] & 0x7f));
        for i in (0..8).step_by(2) {
            bytes.range(db[i], db[i + 1]);
        }
    }
    for _ in rows.len()..height {
        for _ in 0..5 {
            bytes.range(0, 0);
        }
    }
}

/// LT's trace for the SLT/SLTU operations `ops` (any order, repeats merged into `m`),
/// recording its byte lookups in `bytes`. Height: the next power of two ≥ 8.
pub fn build_trace(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let rows = distinct(ops);
    let t = fill_distinct(&rows);
    lookups(&rows, t.height(), bytes);
    t
}

/// LT under the shared ALU tests (`rv::testing::alu`): its room's tests and its
/// proving test in `kestrel-tests`.
#[cfg(any(test, feature = "testing"))]
pub const ALU_CASE: crate::rv::testing::alu::AluCase = crate::rv::testing::alu::AluCase {
    air: &LtAir,
    ops: &[crate::rv::ALU_SLT, crate::rv::ALU_SLTU],
    build: build_trace,
    force_c: Some(|row, c| {
        row[LT] = Felt::new(c & 0xff);
        c >> 8 == 0
    }),
};
