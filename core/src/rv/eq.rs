//! EQ: one row per distinct `(a, b)` of [`ALU_EQ`] (BEQ/BNE compares), received on
//! [`super::BUS_ALU`] with a multiplicity column.
//!
//! # Design
//!
//! `c = [1 − neq, 0, 0, 0, 0, 0, 0, 0]`. With byte inputs, `s = Σᵢ (aᵢ − bᵢ)²` is an integer
//! below `8·255² ≪ p`, zero exactly when `a = b`. The constraints
//!
//! - `(1 − neq)·s = 0` (a difference forces `neq = 1`),
//! - `neq·(s·inv − 1) = 0` (`s = 0` forces `neq = 0`; otherwise `inv = 1/s`),
//! - `(1 − neq)·inv = 0` (no free `inv` on equal rows),
//!
//! fix `neq` and `inv`; `s` is a column so the second stays at degree 3. An all-zero row
//! (padding, `m = 0`) satisfies them. EQ makes no byte lookups: it only reads its inputs.

use alloc::vec::Vec;

use super::bitwise::ByteCounts;
use super::{alu_eval, distinct_height, distinct_ops, AluOp, Distinct, ALU_EQ, BUS_ALU};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::{batch_inverse, Felt};
use crate::matrix::RowMajorMatrix;

crate::columns! {
    /// EQ's columns.
    pub struct EqCols {
        a[8],
        b[8],
        /// `s = Σ (aᵢ − bᵢ)²`.
        s,
        /// `1` when `a ≠ b`; the result is `1 − neq`.
        neq,
        /// `1/s` when `a ≠ b`, else 0.
        inv,
        /// How many times the CPU dispatched this row's operation.
        m,
    }
}

/// Column indices (for tests), from [`EqCols`].
pub const A: usize = col!(EqCols, a);
pub const B: usize = col!(EqCols, b);
pub const S: usize = col!(EqCols, s);
pub const NEQ: usize = col!(EqCols, neq);
pub const INV: usize = col!(EqCols, inv);
pub const M: usize = col!(EqCols, m);
/// Main columns.
pub const WIDTH: usize = <EqCols<u8> as Columns<u8>>::WIDTH;

/// The EQ table.
pub struct EqAir;

impl Air for EqAir {
    fn name(&self) -> &str {
        "EQ"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let k = |v: u32| B::Expr::from(Felt::from(v));
        let c: EqCols<B::Expr> = EqCols::from_fn(|i| b.main(i));
        let (s, neq, inv) = (c.s.clone(), c.neq.clone(), c.inv.clone());
        let mut sum = k(0);
        for i in 0..8 {
            let d = c.a[i].clone() - c.b[i].clone();
            sum = sum + d.clone() * d;
        }
        b.assert_zero("eq s = Σ (a − b)²", s.clone() - sum);
        b.assert_zero("eq equal rows have s = 0", (k(1) - neq.clone()) * s.clone());
        b.assert_zero(
            "eq unequal rows have s·inv = 1",
            neq.clone() * (s * inv.clone() - k(1)),
        );
        b.assert_zero("eq equal rows have inv = 0", (k(1) - neq.clone()) * inv);

        let mut values = alloc::vec![k(ALU_EQ)];
        values.extend(c.a.iter().cloned());
        values.extend(c.b.iter().cloned());
        values.push(k(1) - neq);
        values.extend((1..8).map(|_| k(0)));
        b.receive(BUS_ALU, c.m, &values);
    }
}

/// EQ's trace for the [`ALU_EQ`] operations `ops` (any order, repeats merged into `m`).
/// EQ makes no byte lookups; `bytes` is taken for uniformity with the other ALU tables.
/// Height: the next power of two ≥ 8.
pub fn build_trace(ops: &[AluOp], _bytes: &mut ByteCounts) -> RowMajorMatrix {
    let rows = distinct(ops);
    let mut t = RowMajorMatrix::zeros(distinct_height(rows.len()), WIDTH);
    fill_rows(&rows, &mut t.values[..rows.len() * WIDTH]);
    t
}

/// The distinct EQ operations of `ops` (any order), sorted by `(op, a, b)`, repeats merged
/// into multiplicities: EQ's rows in order.
pub fn distinct(ops: &[AluOp]) -> Vec<Distinct> {
    for o in ops {
        debug_assert_eq!(o.op, ALU_EQ, "EQ got op {}", o.op);
        debug_assert_eq!(alu_eval(o.op, o.a, o.b), Some(o.c));
    }
    distinct_ops(ops)
}

/// EQ's rows for `rows` (in order), row-major, into `out` (`rows.len()` rows of [`WIDTH`],
/// zero on entry); padding rows stay zero. Rows are independent, so slices of `rows` fill
/// the matching slices of the trace.
pub fn fill_rows(rows: &[Distinct], out: &mut [Felt]) {
    let sums: Vec<Felt> = rows
        .iter()
        .map(|d| {
            let (ab, bb) = (d.a.to_le_bytes(), d.b.to_le_bytes());
            Felt::new(
                (0..8)
                    .map(|i| (ab[i] as i64 - bb[i] as i64).pow(2) as u64)
                    .sum(),
            )
        })
        .collect();
    // One batched inversion of the non-zero sums (a zero sum, a = b, has inverse 0).
    let nonzero: Vec<Felt> = sums.iter().copied().filter(|s| *s != Felt::ZERO).collect();
    let mut inverses = batch_inverse(&nonzero).unwrap_or_default().into_iter();
    for ((d, &s), out) in rows.iter().zip(&sums).zip(out.chunks_exact_mut(WIDTH)) {
        let mut row = EqCols::from_fn(|_| Felt::ZERO);
        let (ab, bb) = (d.a.to_le_bytes(), d.b.to_le_bytes());
        for i in 0..8 {
            row.a[i] = Felt::from(ab[i] as u32);
            row.b[i] = Felt::from(bb[i] as u32);
        }
        row.s = s;
        row.neq = Felt::from(d.a != d.b);
        row.inv = if s == Felt::ZERO {
            Felt::ZERO
        } else {
            inverses.next().unwrap_or(Felt::ZERO)
        };
        row.m = Felt::from(d.mult);
        row.write(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows of slices of the distinct rows concatenate to the trace of the whole (what
    /// the parallel packing pass relies on), padded with zero rows.
    #[test]
    fn rows_of_slices_concatenate_to_the_trace() {
        let ops: Vec<AluOp> = (0..300u64)
            .map(|k| {
                let (a, b) = (k % 37, (k * 7) % 37);
                AluOp {
                    op: ALU_EQ,
                    a: a << (k % 8 * 8),
                    b: b << (k % 8 * 8),
                    c: u64::from(a << (k % 8 * 8) == b << (k % 8 * 8)),
                }
            })
            .collect();
        let whole = build_trace(&ops, &mut ByteCounts::default());
        let rows = distinct(&ops);
        assert!(rows.len() > 100 && whole.height() == distinct_height(rows.len()));
        for cut in [0, 1, rows.len() / 3, rows.len()] {
            let mut values = alloc::vec![Felt::ZERO; rows.len() * WIDTH];
            let (lo, hi) = values.split_at_mut(cut * WIDTH);
            fill_rows(&rows[..cut], lo);
            fill_rows(&rows[cut..], hi);
            assert_eq!(values[..], whole.values[..rows.len() * WIDTH]);
            assert!(whole.values[rows.len() * WIDTH..]
                .iter()
                .all(|v| *v == Felt::ZERO));
        }
    }
}
