//! DVRM's proof: edge-case and random operations (the shared ALU workload,
//! `kestrel_core::rv::testing::alu`) prove and verify. Its balance, forgery and mutation
//! tests are its room's unit tests (`core/src/rv/dvrm/tests.rs`).

use kestrel_core::rv::dvrm;
use kestrel_core::rv::testing::alu;
use kestrel_tests::alu_proof::assert_proves;

#[test]
fn dvrm_proves_and_verifies() {
    let ops = alu::ops_for(&dvrm::ALU_CASE, 20, 2);
    assert_proves(&dvrm::ALU_CASE, &alu::traces(&dvrm::ALU_CASE, &ops));
}
