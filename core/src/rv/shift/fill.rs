//! SHIFT's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{
    alu_eval, distinct_height, distinct_ops, AluOp, Distinct, ALU_SLL, ALU_SLLW, ALU_SRA, ALU_SRAW,
};
use alloc::vec::Vec;

/// The distinct shift operations of `ops` (any order), sorted by `(op, a, b)`, repeats
/// merged into multiplicities: SHIFT's rows in order.
pub fn distinct(ops: &[AluOp]) -> Vec<Distinct> {
    for o in ops {
        debug_assert!(OPS.contains(&o.op), "SHIFT got op {}", o.op);
        debug_assert_eq!(alu_eval(o.op, o.a, o.b), Some(o.c));
    }
    distinct_ops(ops)
}

/// SHIFT's trace with one row per entry of `rows` (in order), then all-zero padding rows up
/// to [`distinct_height`]. Records no lookups.
pub fn fill_distinct(rows: &[Distinct]) -> RowMajorMatrix {
    let h = distinct_height(rows.len());
    let mut t = RowMajorMatrix::zeros(h, WIDTH);
    for (r, x) in rows.iter().enumerate() {
        fill_row(t.row_mut(r), x);
    }
    t
}

/// The byte lookups of SHIFT's trace of `rows` with `height` rows (padding rows look up
/// zeros): ten per row.
pub fn lookups(rows: &[Distinct], height: usize, bytes: &mut ByteCounts) {
    debug_assert!(height >= rows.len());
    for x in rows {
        let w = Witness::of(x);
        for (lo, hi) in w.lo.into_iter().zip(w.hi) {
            bytes.range(lo as u8, hi as u8);
        }
        let (ab, cb) = (x.a.to_le_bytes(), w.c.to_le_bytes());
        bytes.range(2 * (ab[7] & 0x7f), 2 * (ab[3] & 0x7f));
        bytes.range(2 * (cb[3] & 0x7f), 8 * (x.b & 31) as u8);
    }
    for _ in rows.len()..height {
        for _ in 0..10 {
            bytes.range(0, 0);
        }
    }
}

/// SHIFT's trace for the shift operations `ops` (any order, repeats merged into `m`),
/// recording its byte lookups in `bytes`. Height: the next power of two ≥ 8.
pub fn build_trace(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let rows = distinct(ops);
    let t = fill_distinct(&rows);
    lookups(&rows, t.height(), bytes);
    t
}

/// The derived values of one row.
struct Witness {
    /// Selector index (an op outside [`OPS`] fills as SLL's selector).
    sel: usize,
    /// The result.
    c: u64,
    /// `e = 8·J + s`.
    e: u64,
    s: u64,
    /// `xᵢ·2^s = loᵢ + 256·hiᵢ`.
    lo: [u64; 8],
    hi: [u64; 8],
}

impl Witness {
    fn of(x: &Distinct) -> Witness {
        let (op, a, b) = (x.op, x.a, x.b);
        let sel = OPS.iter().position(|&o| o == op).unwrap_or(0);
        let word = sel >= 3;
        let left = op == ALU_SLL || op == ALU_SLLW;
        let c = alu_eval(op, a, b).unwrap_or(0);
        let ab = a.to_le_bytes();
        let b0 = b & 0xff;
        let amount = if word { b0 & 31 } else { b0 & 63 };
        let e = if left { amount } else { 64 - amount };
        let s = e % 8;
        let fill_w = if op == ALU_SRAW { 255 * sign(ab[3]) } else { 0 };
        let (mut lo, mut hi) = ([0; 8], [0; 8]);
        for i in 0..8 {
            let v = if i >= 4 && word { fill_w } else { ab[i] as u64 };
            lo[i] = (v << s) & 0xff;
            hi[i] = (v << s) >> 8;
        }
        Witness {
            sel,
            c,
            e,
            s,
            lo,
            hi,
        }
    }
}

fn sign(byte: u8) -> u64 {
    (byte >> 7) as u64
}

fn fill_row(out: &mut [Felt], x: &Distinct) {
    let mut row = ShiftCols::from_fn(|_| Felt::ZERO);
    let f = |v: u64| Felt::new(v);
    let w = Witness::of(x);
    let (ab, bb, cb) = (x.a.to_le_bytes(), x.b.to_le_bytes(), w.c.to_le_bytes());
    row.sel[w.sel] = Felt::ONE;
    for i in 0..8 {
        row.a[i] = f(ab[i] as u64);
        row.b[i] = f(bb[i] as u64);
        row.c[i] = f(cb[i] as u64);
        row.lo[i] = f(w.lo[i]);
        row.hi[i] = f(w.hi[i]);
    }
    let b0 = bb[0] as u64;
    row.h5 = f((b0 >> 5) & 1);
    row.h6 = f((b0 >> 6) & 1);
    row.h7 = f(b0 >> 7);
    let s = w.s;
    row.s0 = f(s & 1);
    row.s1 = f((s >> 1) & 1);
    row.s2 = f(s >> 2);
    row.pow = f((1 << s) - 1);
    row.j[(w.e / 8) as usize] = Felt::ONE;
    let sigma = match x.op {
        ALU_SRA => sign(ab[7]),
        ALU_SRAW => sign(ab[3]),
        _ => 0,
    };
    row.sigma = f(sigma);
    row.t8 = f(w.hi[7] + sigma * (256 - (1 << s)));
    row.sa7 = f(sign(ab[7]));
    row.ra7 = f((ab[7] & 0x7f) as u64);
    row.sa3 = f(sign(ab[3]));
    row.ra3 = f((ab[3] & 0x7f) as u64);
    row.sc = f(sign(cb[3]));
    row.rc = f((cb[3] & 0x7f) as u64);
    row.m = Felt::from(x.mult);
    row.write(out);
}

/// SHIFT under the shared ALU tests (`rv::testing::alu`): its room's tests and its
/// proving test in `kestrel-tests`.
#[cfg(any(test, feature = "testing"))]
pub const ALU_CASE: crate::rv::testing::alu::AluCase = crate::rv::testing::alu::AluCase {
    air: &ShiftAir,
    ops: &OPS,
    build: build_trace,
    force_c: Some(|row, c| {
        for (i, byte) in c.to_le_bytes().into_iter().enumerate() {
            row[C + i] = Felt::from(byte as u32);
        }
        true
    }),
};
