//! EQ's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::{batch_inverse, Felt};
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{alu_eval, distinct_height, distinct_ops, AluOp, Distinct, ALU_EQ};
use alloc::vec::Vec;

/// EQ's trace for the [`ALU_EQ`] operations `ops` (any order, repeats merged into `m`).
/// EQ makes no byte lookups; `bytes` is taken for uniformity with the other ALU tables.
/// Height: [`distinct_height`].
pub fn build_trace(ops: &[AluOp], _bytes: &mut ByteCounts) -> RowMajorMatrix {
    fill_distinct(&distinct(ops))
}

/// EQ's trace with one row per entry of `rows` (in order, [`fill_rows`]), then all-zero
/// padding rows up to [`distinct_height`]. Records no lookups (EQ makes none).
pub fn fill_distinct(rows: &[Distinct]) -> RowMajorMatrix {
    let mut t = RowMajorMatrix::zeros(distinct_height(rows.len()), WIDTH);
    fill_rows(rows, &mut t.values[..rows.len() * WIDTH]);
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

/// EQ's byte lookups for its first rows: none (its rows make no byte lookups); the same
/// signature as the other distinct-row tables' `lookups`.
pub fn lookups(_rows: &[Distinct], _height: usize, _bytes: &mut ByteCounts) {}

/// EQ's rows for `rows` (in order), row-major, into `out` (`rows.len()` rows of [`WIDTH`],
/// zero on entry); padding rows stay zero. Rows are independent (each row's `inv` is its
/// own `s`'s inverse, 0 when `s = 0`), so slices of `rows` fill the matching slices of the
/// trace, and the device fill (`kernels/rv/eq.cu`) inverts row by row.
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

/// EQ under the shared ALU tests (`rv::testing::alu`): its room's tests and its
/// proving test in `kestrel-tests`.
#[cfg(any(test, feature = "testing"))]
pub const ALU_CASE: crate::rv::testing::alu::AluCase = crate::rv::testing::alu::AluCase {
    air: &EqAir,
    ops: &[crate::rv::ALU_EQ],
    build: build_trace,
    force_c: Some(|row, c| {
        row[NEQ] = Felt::ONE - Felt::new(c & 0xff);
        c >> 8 == 0
    }),
};
