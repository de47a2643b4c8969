//! The ALU rooms' proving tests (`tests/tests/rv_lt.rs`, `rv_eq.rs`, `rv_shift.rs`,
//! `rv_mul.rs`, `rv_dvrm.rs`): a table's traces in the ALU test machine
//! (`kestrel_core::rv::testing`) prove and verify.

use std::time::Instant;

use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::StarkParams;
use kestrel_core::rv::testing::alu::AluCase;
use kestrel_core::rv::testing::AluTestMachine;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_verifier::verify;

/// Driver, table and BITWISE traces `traces` of `case` prove and verify (blowup 8).
///
/// # Panics
/// If setup, proving or verification fails.
pub fn assert_proves(case: &AluCase, traces: &[RowMajorMatrix]) {
    let machine = AluTestMachine { table: case.air };
    let start = Instant::now();
    let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_8).expect("setup");
    let (proof, _) = prove(&CpuBackend, &pk, &machine, traces, &[]).expect("prove");
    let bytes = proof.to_bytes();
    verify(&machine, &pk.vk, &[], &bytes).expect("verify");
    println!(
        "{}: {} rows: setup + prove + verify {:?}, {} bytes",
        case.air.name(),
        traces[1].height(),
        start.elapsed(),
        bytes.len()
    );
}
