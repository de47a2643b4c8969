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
