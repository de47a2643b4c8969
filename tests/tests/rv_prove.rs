//! Every ISA test and every example guest proves and verifies: the debug checker passes on
//! the honest traces, the proof verifies against the program's key, and the proven exit code
//! and public output are exactly what `kestrel run` reports (ISA tests: exit code 0, every
//! check passed).

use kestrel_tests::vm_support::{prove_guest, run_recorded, PROVABLE_PROGRAMS};

#[test]
fn isa_tests_prove() {
    for &(name, input) in PROVABLE_PROGRAMS
        .iter()
        .filter(|(n, _)| n.starts_with("isa/"))
    {
        let (_, _, exit) = run_recorded(name, input);
        assert_eq!(exit.exit_code, 0, "{name} fails under the executor");
        prove_guest(name, input);
    }
}

#[test]
fn small_guests_prove() {
    for &(name, input) in PROVABLE_PROGRAMS
        .iter()
        .filter(|(n, _)| !n.starts_with("isa/"))
    {
        prove_guest(name, input);
    }
}

#[test]
fn sha256_proves() {
    prove_guest("sha256", b"abc");
}

#[test]
fn keccak_proves() {
    prove_guest("keccak", b"abc");
}

#[test]
fn matmul_proves() {
    prove_guest("matmul", b"");
}
