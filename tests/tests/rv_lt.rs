//! LT's proof: honest traces of edge-case and random operations (the shared ALU workload,
//! `kestrel_core::rv::testing::alu`) satisfy the debug checker and prove and verify. Its
//! forgeries and mutations are its room's unit tests (`core/src/rv/lt/tests.rs`).

use kestrel_core::rv::lt;
use kestrel_core::rv::testing::alu;
use kestrel_tests::alu_proof::assert_proves;

#[test]
fn lt_honest_checks_and_proves() {
    let tr = alu::honest_checks(&lt::ALU_CASE);
    assert_proves(&lt::ALU_CASE, &tr);
}
