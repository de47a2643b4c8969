//! CPU on the register-only program (`kestrel_tests::register_program`, no ALU-table
//! instructions): the debug checker accepts the honest traces and the proof verifies (a
//! wrong exit code does not); every single-cell change of a real CPU row is caught; a wrong
//! ALU result that the CPU row and the ALU table agree on is caught; a segment in the
//! middle of a run (its first clock 1000, a handoff) proves on its own against its
//! boundary tokens, and not against another's. (DECODE, MEMW_R,
//! REGISTER and BITWISE on the same program: `rv_decode.rs`, `rv_memw_r.rs`,
//! `rv_register.rs`, `rv_bitwise.rs`.)

use kestrel_core::field::Felt;
use kestrel_core::params::StarkParams;
use kestrel_core::rv::machine::TableId;
use kestrel_core::rv::testing::cpu::{self as segments, segment_traces, SegmentMachine};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup, ProverError};
use kestrel_prover_gpu::rv::{debug_check, machine_for, program_image, traces, verifier_machine};
use kestrel_tests::register_program::{honest, run};
use kestrel_tests::vm_support::asm::{self, addi, r};
use kestrel_verifier::VerifyError;

#[test]
fn honest_traces_pass_the_debug_checker_and_prove() {
    let h = honest();
    let (machine, tr, public) = (&h.machine, &h.traces, &h.public);
    assert_eq!(public[0], Felt::new(42));
    let pk = setup(&CpuBackend, machine, StarkParams::BLOWUP_8).unwrap();
    let (proof, _) = prove(&CpuBackend, &pk, machine, tr, public).unwrap();
    let bytes = proof.to_bytes();
    kestrel_verifier::verify(&verifier_machine(), &pk.vk, public, &bytes).unwrap();
    let mut wrong = public.clone();
    wrong[0] = Felt::new(43);
    assert!(kestrel_verifier::verify(&verifier_machine(), &pk.vk, &wrong, &bytes).is_err());
}

#[test]
fn every_real_cpu_cell_mutation_is_caught() {
    let h = honest();
    h.assert_mutations_caught(TableId::Cpu, h.records.len(), 7);
}

/// A wrong ALU result that the CPU row and the ALU table row agree on (both built from the
/// same forged op) is still caught: the ALU table's constraints pin `c` to `alu_eval(op, a, b)`.
#[test]
fn forged_alu_results_are_caught() {
    let mut code = vec![
        addi(5, 0, -7),
        addi(6, 0, 3),
        r(0x33, 2, 0, 7, 5, 6),                        // slt
        r(0x33, 3, 0, 8, 5, 6),                        // sltu
        r(0x33, 1, 0, 9, 5, 6),                        // sll
        r(0x33, 5, 0x20, 10, 5, 6),                    // sra
        r(0x3b, 5, 0, 11, 5, 6),                       // srlw
        kestrel_tests::vm_support::asm::b(1, 5, 6, 8), // bne (taken)
        addi(12, 0, 1),
        kestrel_tests::vm_support::asm::b(0, 5, 6, 8), // beq (not taken)
    ];
    code.extend(asm::exit(42));
    let (program, records) = run(&code);
    let image = program_image(&program);
    let machine = machine_for(&image);
    let (tr, public) = traces(&machine, &image, &records, &[]).unwrap();
    assert!(debug_check(&machine, &tr, &public).is_ok());
    for i in 2..records.len() - 4 {
        let d = kestrel_core::rv::decode::decode_for_air(records[i].pc, records[i].word).unwrap();
        // Branch compares write no register; their forgery is a wrong next pc, which the
        // CPU's own pc constraint catches (covered by the cell mutations above).
        if !d.class[kestrel_core::rv::decode::class::ALU] {
            continue;
        }
        let mut forged = records.clone();
        forged[i].rd_val ^= 1;
        let built = traces(&machine, &image, &forged, &[]);
        let Ok((tr, public)) = built else { continue };
        let report = debug_check(&machine, &tr, &public);
        assert!(
            !report.is_ok(),
            "forged result of step {i} ({:#x}) not caught",
            records[i].word
        );
    }
}

/// A segment in the middle of a run — steps 9..30 of `rv::testing::cpu`'s looping program
/// from clock 1000, 7 output bytes before it, handing off after a taken branch — proves as
/// a table: the CPU with stand-ins for the other side of each bus, the two BUS_ENTRY
/// boundary tokens supplied. With the start token one clock off (what a neighbour that
/// ends one cycle early would hand it) no verifying proof exists.
#[test]
fn a_middle_segment_proves_against_its_tokens() {
    let s = segments::run().segment(9..30, 1000, 7);
    let t = s.trace();
    let machine = SegmentMachine;
    let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_8).unwrap();
    let traces = segment_traces(&t, &t, &s.boundary());
    let (proof, _) = prove(&CpuBackend, &pk, &machine, &traces, &[]).unwrap();
    kestrel_verifier::verify(&machine, &pk.vk, &[], &proof.to_bytes()).unwrap();

    let mut boundary = s.boundary();
    boundary[0].0[0] = Felt::new(999);
    let traces = segment_traces(&t, &t, &boundary);
    match prove(&CpuBackend, &pk, &machine, &traces, &[]) {
        Err(ProverError::ConstraintsNotSatisfied { .. }) => {}
        Err(e) => panic!("unexpected prover error {e}"),
        Ok((proof, _)) => {
            let r = kestrel_verifier::verify(&machine, &pk.vk, &[], &proof.to_bytes());
            assert!(matches!(r, Err(VerifyError::LogUpSum)), "{r:?}");
        }
    }
}
