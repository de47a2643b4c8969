//! Every register-only ISA test proves and verifies, and the proven exit code is the one
//! `kestrel run` reports (0: every check in the test passed).

use kestrel_core::params::StarkParams;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_prover_gpu::rv::{debug_check, machine_for, program_image, traces, verifier_machine};
use kestrel_tests::vm_support::{run_recorded, REGISTER_ONLY_PROGRAMS};

fn prove_isa(name: &str) {
    let (program, records, exit) = run_recorded(name);
    assert_eq!(exit.exit_code, 0, "{name} fails under the executor");
    let image = program_image(&program);
    let machine = machine_for(&image);
    let (tr, public) = traces(&machine, &image, &records).unwrap_or_else(|e| panic!("{name}: {e}"));
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
    // The ISA tests (the bench guest's exit code is its result, not 0).
    for name in REGISTER_ONLY_PROGRAMS
        .iter()
        .filter(|n| n.starts_with("isa/"))
    {
        prove_isa(name);
    }
}
