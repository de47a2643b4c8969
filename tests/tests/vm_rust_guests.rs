//! The Rust guests (`tests/guests/rust`, prebuilt in `tests/guests/bin/rust`): the Rust SHA-256
//! guest (the `sha2` crate over the `kestrel-guest` runtime) gives the same output as the C
//! SHA-256 guest and `sha256sum` under Kestrel's executor and under `qemu-riscv64`, uses only
//! 32-bit RV64IM instructions, and proves and verifies on the CPU backend.

use kestrel_core::params::StarkParams;
use kestrel_core::rv::machine::public_values;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_prover_gpu::rv::{debug_check, machine_for, program_image, traces, verifier_machine};
use kestrel_tests::vm_support::{guest_path, run_guest, run_qemu, run_recorded};
use std::io::Write;
use std::process::{Command, Stdio};

const RUST_SHA: &str = "rust/sha256-rs";

/// Known SHA-256 digests (FIPS 180-2 and the empty message).
const KNOWN: [(&[u8], &str); 3] = [
    (
        b"",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ),
    (
        b"abc",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    ),
    (
        b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ),
];

/// A few KB of varied bytes (crosses many 64-byte blocks, and a 4 KiB read boundary).
fn kb_input(len: usize) -> Vec<u8> {
    (0..len as u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8)
        .collect()
}

fn inputs() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = KNOWN.iter().map(|(m, _)| m.to_vec()).collect();
    for len in [55, 56, 63, 64, 65, 4095, 4096, 4097, 5000] {
        v.push(kb_input(len));
    }
    v
}

/// `sha256sum`'s digest of `input` (coreutils), as `HEX\n`.
fn sha256sum(input: &[u8]) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sha256sum (coreutils) runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input)
        .expect("write to sha256sum");
    let out = child.wait_with_output().expect("sha256sum finishes");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("text");
    format!("{}\n", text.split_whitespace().next().expect("a digest"))
}

fn kestrel_stdout(name: &str, input: &[u8]) -> (String, u64) {
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

#[test]
fn rust_sha256_known_vectors() {
    for (msg, digest) in KNOWN {
        let (out, cycles) = kestrel_stdout(RUST_SHA, msg);
        assert_eq!(out, format!("{digest}\n"), "input {msg:?}");
        eprintln!("{RUST_SHA}: {} bytes, {cycles} cycles", msg.len());
    }
}

#[test]
fn rust_sha256_matches_c_guest_and_sha256sum() {
    for input in inputs() {
        let expected = sha256sum(&input);
        let (rust, rust_cycles) = kestrel_stdout(RUST_SHA, &input);
        let (c, c_cycles) = kestrel_stdout("sha256", &input);
        assert_eq!(
            rust,
            expected,
            "Rust guest vs sha256sum, {} bytes",
            input.len()
        );
        assert_eq!(c, expected, "C guest vs sha256sum, {} bytes", input.len());
        eprintln!(
            "{} bytes: Rust {rust_cycles} cycles, C {c_cycles} cycles",
            input.len()
        );
    }
}

#[test]
fn rust_sha256_under_qemu() {
    for input in inputs() {
        let expected = sha256sum(&input);
        let q = run_qemu(&guest_path(RUST_SHA), &input);
        assert_eq!(q.status, Some(0), "qemu exit status, {} bytes", input.len());
        assert_eq!(
            String::from_utf8(q.stdout).expect("text"),
            expected,
            "qemu output, {} bytes",
            input.len()
        );
        // And Kestrel agrees with qemu on the whole outcome.
        let run = run_guest(RUST_SHA, &input);
        assert_eq!(run.outcome.stdout, expected.as_bytes());
        assert_eq!(run.outcome.status, Some(0));
    }
}

#[test]
fn rust_sha256_elf_properties() {
    let elf = std::fs::read(guest_path(RUST_SHA)).expect("prebuilt ELF");
    // ELF64, little-endian, RISC-V, e_flags 0: no RVC, soft-float ABI.
    assert_eq!(&elf[..6], b"\x7fELF\x02\x01");
    assert_eq!(u16::from_le_bytes([elf[18], elf[19]]), 243, "EM_RISCV");
    let e_flags = u32::from_le_bytes(elf[48..52].try_into().unwrap());
    assert_eq!(e_flags, 0, "e_flags (0x1 would be RVC)");
    // Every executed instruction is a 32-bit one at a 4-byte-aligned pc.
    let (_, records, exit) = run_recorded(RUST_SHA, &kb_input(5000));
    assert_eq!(exit.exit_code, 0);
    assert!(!records.is_empty());
    for r in &records {
        assert_eq!(r.word & 3, 3, "compressed instruction at {:#x}", r.pc);
        assert_eq!(r.pc % 4, 0, "misaligned pc {:#x}", r.pc);
        // No A extension (opcode AMO = 0x2f), no float loads/stores/ops, no FENCE.I.
        let opcode = r.word & 0x7f;
        assert!(
            !matches!(
                opcode,
                0x2f | 0x07 | 0x27 | 0x43 | 0x47 | 0x4b | 0x4f | 0x53
            ),
            "non-RV64IM instruction {:#010x} at {:#x}",
            r.word,
            r.pc
        );
    }
}

#[test]
fn rust_sha256_exits_cleanly_without_debug_output() {
    // The runtime's exit path: main's return value (0) is the exit code, nothing on fd 2.
    let run = run_guest(RUST_SHA, b"");
    assert_eq!(run.exit_code, Some(0));
    assert!(
        run.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn rust_sha256_proves() {
    let name = RUST_SHA;
    let input: &[u8] = b"abc";
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
