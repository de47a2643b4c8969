//! Shared helpers for the VM tests: running guests under Kestrel and under `qemu-riscv64`,
//! writing minimal ELF files, and generating random RV64IM programs.

pub mod asm;
pub mod elf_writer;
pub mod rvgen;

use kestrel_prover_gpu::vm::record::{Record, VecRecorder};
use kestrel_prover_gpu::vm::{Exit, NoRecorder, Program, Vm, VmError};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Programs every test of the RV64IM prover covers, with their private input: every ISA
/// test, the register-only Fibonacci bench guest and the small example guests. (The larger
/// example guests are proven by `rv_guests_prove`.)
pub const PROVABLE_PROGRAMS: &[(&str, &[u8])] = &[
    ("isa/add_sub", b""),
    ("isa/branch", b""),
    ("isa/div", b""),
    ("isa/divw", b""),
    ("isa/jump", b""),
    ("isa/load", b""),
    ("isa/logic", b""),
    ("isa/lui_auipc", b""),
    ("isa/mul", b""),
    ("isa/shift", b""),
    ("isa/slt", b""),
    ("isa/store", b""),
    ("isa/syscall", b""),
    ("isa/word", b""),
    ("bench/fib_reg_16", b""),
    ("fibonacci", b"20"),
    ("bignum", b""),
    ("interp", b""),
    ("sort", b"20"),
];

/// Loads the prebuilt guest `name` (relative to [`guest_bin_dir`], without `.elf`) and runs
/// it with event recording on private input `input`.
///
/// # Panics
/// If the file cannot be read or loaded, or the guest faults.
pub fn run_recorded(name: &str, input: &[u8]) -> (Program, Vec<Record>, Exit) {
    let path = guest_bin_dir().join(format!("{name}.elf"));
    let elf = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let program = Program::from_elf(&elf).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut rec = VecRecorder::default();
    let exit = Vm::new(&program, input.to_vec())
        .run(&mut rec)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (program, rec.records, exit)
}

/// The directory of the prebuilt guest ELFs (`tests/guests/bin`).
pub fn guest_bin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("guests")
        .join("bin")
}

/// Path of a prebuilt example guest, e.g. `guest_path("sha256")`.
pub fn guest_path(name: &str) -> PathBuf {
    guest_bin_dir().join(format!("{name}.elf"))
}

/// Paths of all prebuilt example guests (sorted).
pub fn example_guests() -> Vec<PathBuf> {
    elfs_in(&guest_bin_dir())
}

/// Paths of all prebuilt ISA tests (sorted).
pub fn isa_tests() -> Vec<PathBuf> {
    elfs_in(&guest_bin_dir().join("isa"))
}

fn elfs_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "elf"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no ELFs in {}", dir.display());
    v
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Process exit status (low 8 bits of the exit code), or `None` if execution failed.
    pub status: Option<u8>,
    /// Everything written to fd 1.
    pub stdout: Vec<u8>,
}

/// A Kestrel run: the outcome, the error if any, and the cycle count.
#[derive(Debug, Clone)]
pub struct KestrelRun {
    /// Exit status and output.
    pub outcome: Outcome,
    /// The full exit code (a0 at exit).
    pub exit_code: Option<u64>,
    /// The error, if execution failed.
    pub error: Option<VmError>,
    /// Debug output (fd 2).
    pub stderr: Vec<u8>,
    /// Instructions executed.
    pub cycles: u64,
}

/// Loads and runs an ELF under Kestrel (pure path). Panics if the ELF does not load.
pub fn run_kestrel(elf: &[u8], input: &[u8], max_cycles: u64) -> KestrelRun {
    let program = Program::from_elf(elf).unwrap_or_else(|e| panic!("ELF does not load: {e}"));
    let mut vm = Vm::new(&program, input.to_vec()).with_max_cycles(max_cycles);
    let result = vm.run(&mut NoRecorder);
    KestrelRun {
        outcome: Outcome {
            status: result.as_ref().ok().map(|e| e.exit_code as u8),
            stdout: vm.public_output().to_vec(),
        },
        exit_code: result.as_ref().ok().map(|e| e.exit_code),
        error: result.err(),
        stderr: vm.debug_output().to_vec(),
        cycles: vm.cycles(),
    }
}

/// Runs a prebuilt guest by name under Kestrel.
pub fn run_guest(name: &str, input: &[u8]) -> KestrelRun {
    let path = guest_path(name);
    let elf =
        std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    run_kestrel(&elf, input, 1 << 34)
}

/// Runs a prebuilt guest by name under Kestrel and asserts it exits 0 without an error: its
/// public output as text and its cycle count.
///
/// # Panics
/// If the run fails, exits with another code, or writes output that is not UTF-8.
pub fn guest_stdout(name: &str, input: &[u8]) -> (String, u64) {
    let run = run_guest(name, input);
    assert_eq!(run.error, None, "{name}: execution failed");
    assert_eq!(
        run.exit_code,
        Some(0),
        "{name}: exit code (stderr: {})",
        String::from_utf8_lossy(&run.stderr)
    );
    (
        String::from_utf8(run.outcome.stdout).expect("text output"),
        run.cycles,
    )
}

/// Runs a prebuilt guest by name on `input`, checks that its traces pass the debug checker
/// and that the proven public values are the exit code and output `kestrel run` reports,
/// then proves it on the CPU backend (blowup 2) and verifies the proof.
///
/// # Panics
/// If any of that fails.
pub fn prove_guest(name: &str, input: &[u8]) {
    use kestrel_core::params::StarkParams;
    use kestrel_core::rv::machine::public_values;
    use kestrel_prover_gpu::cpu::CpuBackend;
    use kestrel_prover_gpu::prover::{prove, setup};
    use kestrel_prover_gpu::rv::{
        debug_check, machine_for, program_image, traces, verifier_machine,
    };
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
    let bytes = proof.to_bytes();
    kestrel_verifier::verify(&verifier_machine(), &pk.vk, &public, &bytes)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    check_proof_digest(name, input, &bytes);
    eprintln!(
        "{name}: {} cycles, {} output bytes proved",
        exit.cycles,
        run.outcome.stdout.len()
    );
}

/// The folder of the proof digests [`check_proof_digest`] compares against.
pub fn proof_digest_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/proofs")
}

/// Proofs do not change by accident: the SHA3-256 of the proof of `name` on `input` (CPU
/// backend, blowup 2, as [`prove_guest`] makes it) must equal the one recorded in
/// `tests/fixtures/proofs/` (one file per guest and input). A refactor keeps every proof
/// byte for byte; a change that alters proofs on purpose records the new digests with
/// `KESTREL_BLESS_PROOFS=1 cargo test --release -p kestrel-tests --test rv_prove --test
/// vm_rust_guests` and says why in its commit.
///
/// # Panics
/// If the digest differs or is not recorded (and blessing is off).
pub fn check_proof_digest(name: &str, input: &[u8], proof: &[u8]) {
    use sha3::{Digest as _, Sha3_256};
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let key = format!(
        "{}-{}.sha3",
        name.replace('/', "_"),
        hex(&Sha3_256::digest(input)[..4])
    );
    let digest = hex(&Sha3_256::digest(proof));
    let path = proof_digest_dir().join(&key);
    if std::env::var_os("KESTREL_BLESS_PROOFS").is_some() {
        std::fs::create_dir_all(proof_digest_dir()).expect("create the digest folder");
        std::fs::write(&path, format!("{digest}\n")).expect("write the digest");
        return;
    }
    let recorded = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "{name}: no recorded proof digest at {} (record it with KESTREL_BLESS_PROOFS=1)",
            path.display()
        )
    });
    assert_eq!(
        recorded.trim(),
        digest,
        "{name}: the proof's bytes changed ({} bytes); if on purpose, record them with \
         KESTREL_BLESS_PROOFS=1",
        proof.len()
    );
}

/// The QEMU user-mode emulator used as the oracle.
pub const QEMU: &str = "qemu-riscv64";

/// Runs an ELF file under `qemu-riscv64` with `input` on stdin. Panics (the test fails loudly)
/// if QEMU is not installed: CI must install the Debian package `qemu-user`.
pub fn run_qemu(path: &Path, input: &[u8]) -> Outcome {
    use std::io::Write;
    let mut child = Command::new(QEMU)
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot start {QEMU} ({e}): install it (Debian package qemu-user); these tests must not be skipped")
        });
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_vec();
    // Feed stdin from a thread so a guest that does not read cannot deadlock us.
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("qemu-riscv64 runs");
    let _ = feeder.join();
    Outcome {
        status: out.status.code().map(|c| c as u8),
        stdout: out.stdout,
    }
}

/// A temporary file holding `bytes`, removed on drop.
pub struct TempFile(PathBuf);

impl TempFile {
    /// Writes `bytes` to a fresh executable file in the system temporary directory.
    pub fn new(tag: &str, bytes: &[u8]) -> TempFile {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("kestrel-{tag}-{}-{n}.elf", std::process::id()));
        std::fs::write(&path, bytes)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        // qemu-riscv64 refuses files without execute permission.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("cannot chmod {}: {e}", path.display()));
        TempFile(path)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The private input [`PROVABLE_PROGRAMS`] lists for `name` (empty for anything else).
pub fn input_of(name: &str) -> &'static [u8] {
    PROVABLE_PROGRAMS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(b"", |(_, i)| *i)
}
