//! MUL's unit tests: random and edge-case operations balance against the ALU driver and
//! BITWISE; wrong results (consistent forgeries: the driver and the row agree) are caught;
//! every single-cell change of a real row is detected (the shared ALU checks,
//! `rv::testing::alu`). Its proof: `tests/tests/rv_mul.rs`.

use super::ALU_CASE;
use crate::rv::testing::alu;

#[test]
fn mul_balances_on_edge_and_random_ops() {
    alu::balances(&ALU_CASE);
}

#[test]
fn mul_wrong_results_are_caught() {
    alu::wrong_results_caught(&ALU_CASE);
}

#[test]
fn mul_mutations_are_all_detected() {
    alu::mutations_detected(&ALU_CASE);
}

/// On honest operations the production builder (`distinct`, `fill_distinct`, `lookups`)
/// and the as-sent builder the ALU tests use agree on the trace and every byte lookup; the
/// lookups of slices of the rows add up to the whole's, and padding rows make none.
#[test]
fn split_builder_is_the_as_sent_builder_on_honest_ops() {
    use super::{build_trace, build_trace_as_sent, distinct, fill_distinct, lookups};
    use crate::rv::bitwise::ByteCounts;
    use crate::rv::distinct_height;
    let ops = alu::ops_for(&ALU_CASE, 300, 9);
    let (mut split, mut sent) = (ByteCounts::default(), ByteCounts::default());
    let t = build_trace(&ops, &mut split);
    assert!(t == build_trace_as_sent(&ops, &mut sent));
    assert!(split.trace() == sent.trace());
    let rows = distinct(&ops);
    assert!(rows.len() > 100 && t.height() == distinct_height(rows.len()));
    assert!(fill_distinct(&rows) == t);
    let mut parts = ByteCounts::default();
    let cut = rows.len() / 3;
    lookups(&rows[..cut], cut, &mut parts);
    lookups(&rows[cut..], t.height() - cut, &mut parts);
    assert!(parts.trace() == split.trace());
    let mut none = ByteCounts::default();
    lookups(&[], 64, &mut none);
    assert!(none.trace() == ByteCounts::default().trace());
}
