//! Every ISA test and every example guest proves and verifies: the debug checker passes on
//! the honest traces, the proof verifies against the program's key, and the proven exit code
//! and public output are exactly what `kestrel run` reports (ISA tests: exit code 0, every
//! check passed).

use kestrel_core::params::StarkParams;
use kestrel_core::rv::machine::public_values;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_prover_gpu::rv::{debug_check, machine_for, program_image, traces, verifier_machine};
use kestrel_tests::vm_support::{run_guest, run_recorded, PROVABLE_PROGRAMS};

fn prove_program(name: &str, input: &[u8]) {
    let (program, records, exit) = run_recorded(name, input);
    let image = program_image(&program);
    let machine = machine_for(&image);
    let (tr, public) =
        traces(&machine, &image, &records, input).unwrap_or_else(|e| panic!("{name}: {e}"));
    let run = run_guest(name, input);
    assert_eq!(
        public,
        public_values(exit.exit_code, &run.outcome.stdout),
        "{name}: public values = exit code and kestrel run's stdout"
    );
    let report = debug_check(&machine, &tr, &public);
    assert!(report.is_ok(), "{name}: {report}");
    let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_2).unwrap();
    let (proof, _) = prove(&CpuBackend, &pk, &machine, &tr, &public).unwrap();
    kestrel_verifier::verify(&verifier_machine(), &pk.vk, &public, &proof.to_bytes())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    eprintln!(
        "{name}: {} cycles, {} output bytes proved",
        exit.cycles,
        run.outcome.stdout.len()
    );
}

#[test]
fn isa_tests_prove() {
    for &(name, input) in PROVABLE_PROGRAMS
        .iter()
        .filter(|(n, _)| n.starts_with("isa/"))
    {
        let (_, _, exit) = run_recorded(name, input);
        assert_eq!(exit.exit_code, 0, "{name} fails under the executor");
        prove_program(name, input);
    }
}

#[test]
fn small_guests_prove() {
    for &(name, input) in PROVABLE_PROGRAMS
        .iter()
        .filter(|(n, _)| !n.starts_with("isa/"))
    {
        prove_program(name, input);
    }
}

#[test]
fn sha256_proves() {
    prove_program("sha256", b"abc");
}

#[test]
fn keccak_proves() {
    prove_program("keccak", b"abc");
}

#[test]
fn matmul_proves() {
    prove_program("matmul", b"");
}
