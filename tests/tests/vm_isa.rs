//! The assembly ISA test suite (tests/guests/isa) under Kestrel: each test exits 0, or the
//! number of the failing case.

use kestrel_tests::vm_support::{isa_tests, run_kestrel};

#[test]
fn every_isa_test_passes() {
    let tests = isa_tests();
    assert!(tests.len() >= 14, "ISA tests missing: {tests:?}");
    for path in tests {
        let elf = std::fs::read(&path).expect("prebuilt ISA test");
        let run = run_kestrel(&elf, b"", 1_000_000);
        assert_eq!(run.error, None, "{}", path.display());
        assert_eq!(
            run.exit_code,
            Some(0),
            "{}: failing case number",
            path.display()
        );
    }
}

#[test]
fn syscall_test_writes_public_and_debug_output() {
    let path = kestrel_tests::vm_support::guest_bin_dir()
        .join("isa")
        .join("syscall.elf");
    let run = run_kestrel(&std::fs::read(path).expect("syscall.elf"), b"", 1_000_000);
    assert_eq!(run.exit_code, Some(0));
    assert_eq!(run.outcome.stdout, b"hello\n");
    assert_eq!(run.stderr, b"");
}
