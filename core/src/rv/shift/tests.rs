//! SHIFT's unit tests: honest traces pass the debug checker; consistent forgeries (a wrong
//! result the driver and the row agree on) and every single-cell mutation of a real row
//! fail it (the shared ALU checks, `rv::testing::alu`). Its proof: `tests/tests/rv_shift.rs`.

use super::ALU_CASE;
use crate::rv::testing::alu;

#[test]
fn shift_honest_traces_pass_the_checker() {
    alu::honest_checks(&ALU_CASE);
}

/// A consistent forgery: the driver and the table's row agree on a wrong result.
#[test]
fn shift_wrong_results_are_caught() {
    alu::wrong_results(&ALU_CASE);
}

#[test]
fn shift_mutations_are_detected() {
    alu::mutations(&ALU_CASE, 6);
}
