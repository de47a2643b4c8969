//! `kestrel run` exit codes: the guest's code passed through, 3 for load/execution errors,
//! 4 for unreadable files.

use kestrel_prover_gpu::cli_run::{run_command, RunArgs, EXIT_IO_ERROR, EXIT_VM_ERROR};
use kestrel_tests::vm_support::asm::{exit, EBREAK};
use kestrel_tests::vm_support::elf_writer::elf;
use kestrel_tests::vm_support::{guest_path, TempFile};
use std::path::PathBuf;

fn args(elf: PathBuf, input: Option<PathBuf>, max_cycles: u64, json: bool) -> RunArgs {
    RunArgs {
        elf,
        input,
        max_cycles,
        json,
    }
}

#[test]
fn passes_the_guest_exit_code_through() {
    let ok = TempFile::new("cli", &elf(&exit(42), &[]));
    assert_eq!(run_command(&args(ok.path().into(), None, 1000, false)), 42);
    assert_eq!(run_command(&args(ok.path().into(), None, 1000, true)), 42);
    // Like a process, only the low 8 bits.
    let big = TempFile::new("cli", &elf(&exit(300), &[]));
    assert_eq!(run_command(&args(big.path().into(), None, 1000, false)), 44);
}

#[test]
fn reads_the_input_file() {
    let input = TempFile::new("cli-input", b"3");
    assert_eq!(
        run_command(&args(
            guest_path("fibonacci"),
            Some(input.path().into()),
            1 << 20,
            false
        )),
        0
    );
}

#[test]
fn vm_and_io_errors_have_their_own_codes() {
    let fault = TempFile::new("cli", &elf(&[EBREAK], &[]));
    assert_eq!(
        run_command(&args(fault.path().into(), None, 1000, false)),
        EXIT_VM_ERROR
    );
    assert_eq!(
        run_command(&args(fault.path().into(), None, 1000, true)),
        EXIT_VM_ERROR
    );
    let looping = TempFile::new("cli", &elf(&[0x0000_006f], &[])); // j .
    assert_eq!(
        run_command(&args(looping.path().into(), None, 1000, false)),
        EXIT_VM_ERROR
    );
    let garbage = TempFile::new("cli", b"not an elf");
    assert_eq!(
        run_command(&args(garbage.path().into(), None, 1000, false)),
        EXIT_VM_ERROR
    );
    let missing = PathBuf::from("/nonexistent/kestrel/prog.elf");
    assert_eq!(
        run_command(&args(missing.clone(), None, 1000, false)),
        EXIT_IO_ERROR
    );
    assert_eq!(
        run_command(&args(guest_path("fibonacci"), Some(missing), 1000, false)),
        EXIT_IO_ERROR
    );
    assert_ne!(EXIT_VM_ERROR, 2, "distinct from clap's usage error");
    assert_ne!(EXIT_IO_ERROR, 2, "distinct from clap's usage error");
}
