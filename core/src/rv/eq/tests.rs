//! EQ's unit tests: the fill against the debug checker; honest traces pass it, consistent
//! forgeries (a wrong result the driver and the row agree on) and every single-cell
//! mutation of a real row fail it (the shared ALU checks, `rv::testing::alu`).

use super::*;
use crate::rv::bitwise::ByteCounts;
use crate::rv::testing::alu;
use crate::rv::{distinct_height, AluOp};
use alloc::vec::Vec;

/// The rows of slices of the distinct rows concatenate to the trace of the whole (rows are
/// independent: what a fill by slices or by row relies on), padded with zero rows; and
/// `fill_distinct` is that trace.
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
    assert!(fill_distinct(&rows) == whole);
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

#[test]
fn eq_honest_traces_pass_the_checker() {
    alu::honest_checks(&ALU_CASE);
}

/// A consistent forgery: the driver and the table's row agree on a wrong result.
#[test]
fn eq_wrong_results_are_caught() {
    alu::wrong_results(&ALU_CASE);
}

#[test]
fn eq_mutations_are_detected() {
    alu::mutations(&ALU_CASE, 8);
}
