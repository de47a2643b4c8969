//! The C interface end to end: build `verifier/capi` (a `#![no_std]` static library, outside
//! the workspace), compile `verifier/capi/tests/verify.c` with the host's `gcc` against its
//! header and link the library, then run the program on the golden Fibonacci fixture and an
//! RV64IM statement file proved here (fibonacci(20), CPU backend, blowup 8): each verifies,
//! tampered copies are rejected, and the argument errors are reported.

use std::path::{Path, PathBuf};
use std::process::Command;

use kestrel_prover_gpu::api::{BackendChoice, Guest, ProveOptions};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// `$CARGO_TARGET_DIR/capi` (or `target/capi`): the crate has its own profiles.
fn target_dir(root: &Path) -> PathBuf {
    let base = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir),
        Some(dir) => root.join(dir),
        None => root.join("target"),
    };
    base.join("capi")
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{what} failed ({})\n{text}",
        out.status
    );
    text
}

#[test]
fn c_program_verifies_through_the_static_library() {
    let root = workspace_root();
    let target = target_dir(&root);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(
        Command::new(&cargo)
            .args(["build", "--release", "--manifest-path"])
            .arg(root.join("verifier/capi/Cargo.toml"))
            .arg("--target-dir")
            .arg(&target)
            .current_dir(&root),
        "building verifier/capi",
    );
    let lib = target.join("release/libkestrel_verifier_capi.a");
    let exe = target.join("verify-c");
    run(
        Command::new("gcc")
            .args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(root.join("verifier/capi/include"))
            .arg(root.join("verifier/capi/tests/verify.c"))
            .arg(&lib)
            .arg("-o")
            .arg(&exe),
        "compiling and linking verify.c",
    );

    let guest = Guest::load(root.join("tests/guests/bin/fibonacci.elf")).expect("guest loads");
    let options = ProveOptions {
        backend: BackendChoice::Cpu,
        blowup: 8,
        ..ProveOptions::default()
    };
    let proved = guest.prove(b"20", &options).expect("fibonacci(20) proves");
    let vk = guest.verifying_key(8).expect("verifying key");
    let statement = target.join("fib20.stmt");
    let statement_vk = target.join("fib20.vk");
    std::fs::write(&statement, proved.file_bytes()).unwrap();
    std::fs::write(&statement_vk, vk.0).unwrap();

    let text = run(
        Command::new(&exe)
            .arg(root.join("tests/fixtures/fib-golden.proof"))
            .arg(root.join("tests/fixtures/fib-golden.vk"))
            .arg(&statement)
            .arg(&statement_vk),
        "the C program",
    );
    println!("{text}");
    assert!(text.contains("all checks passed"), "{text}");
    assert!(
        text.contains("exit code 0, output (5 bytes): 6765"),
        "{text}"
    );
}
