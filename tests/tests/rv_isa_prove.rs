//! Every register-only ISA test proves and verifies, and the proven exit code is the one
//! `kestrel run` reports (0: every check in the test passed).

use kestrel_core::params::StarkParams;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_prover_gpu::rv::{debug_check, machine_for, program_image, traces, verifier_machine};
use kestrel_prover_gpu::vm::record::VecRecorder;
use kestrel_prover_gpu::vm::{Program, Vm};
use kestrel_tests::vm_support::guest_bin_dir;

/// The ISA tests that use no memory instructions and no read/write calls.
const REGISTER_ONLY: &[&str] = &[
    "add_sub",
    "branch",
    "jump",
    "logic",
    "lui_auipc",
    "shift",
    "slt",
    "word",
];

fn prove_isa(name: &str) {
    let path = guest_bin_dir().join("isa").join(format!("{name}.elf"));
    let elf = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let program = Program::from_elf(&elf).unwrap();
    let mut rec = VecRecorder::default();
    let exit = Vm::new(&program, Vec::new()).run(&mut rec).unwrap();
    assert_eq!(exit.exit_code, 0, "{name} fails under the executor");
    let image = program_image(&program);
    let machine = machine_for(&image);
    let (tr, public) =
        traces(&machine, &image, &rec.records).unwrap_or_else(|e| panic!("{name}: {e}"));
    let report = debug_check(&machine, &tr, &public);
    assert!(report.is_ok(), "{name}: {report}");
    let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_2).unwrap();
    let (proof, _) = prove(&CpuBackend, &pk, &machine, &tr, &public).unwrap();
    kestrel_verifier::verify(&verifier_machine(), &pk.vk, &public, &proof.to_bytes())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        public.iter().all(|p| p.as_u64() == 0),
        "{name}: proven exit code not 0"
    );
    eprintln!("{name}: {} cycles proved", exit.cycles);
}

#[test]
fn register_only_isa_tests_prove() {
    for name in REGISTER_ONLY {
        prove_isa(name);
    }
}
