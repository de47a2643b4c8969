//! MUL's proof: edge-case and random operations (the shared ALU workload,
//! `kestrel_core::rv::testing::alu`) prove and verify. Its balance, forgery and mutation
//! tests are its room's unit tests (`core/src/rv/mul/tests.rs`).

use kestrel_core::rv::mul;
use kestrel_core::rv::testing::alu;
use kestrel_tests::alu_proof::assert_proves;

#[test]
fn mul_proves_and_verifies() {
    let ops = alu::ops_for(&mul::ALU_CASE, 20, 2);
    assert_proves(&mul::ALU_CASE, &alu::traces(&mul::ALU_CASE, &ops));
}
