//! `kestrel new NAME --lang c|rust`: the project it writes builds with its own build script
//! (Debian's riscv64-unknown-elf-gcc, and Debian's Rust 1.85 for Rust, which CI installs;
//! missing, the test fails), runs, proves and verifies with the commands its README gives,
//! and matches qemu-riscv64; bad names and an existing directory are refused without writing
//! anything.

use kestrel_prover_gpu::cli_new::{new_command, Lang, NewArgs};
use kestrel_prover_gpu::cli_prove::{prove_command, verify_command, ProveArgs, VerifyArgs};
use kestrel_prover_gpu::select::BackendChoice;
use kestrel_tests::vm_support::{run_kestrel, run_qemu};
use std::path::PathBuf;
use std::process::Command;

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kestrel-new-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `name` in `lang`, builds it with its build script, and checks that it runs (under
/// Kestrel and qemu), proves and verifies as its README says.
fn new_build_run_prove_verify(tag: &str, name: &str, lang: Lang) {
    let dir = scratch(tag).join(name);
    assert_eq!(
        new_command(&NewArgs {
            name: dir.clone(),
            lang
        }),
        0
    );
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(
        readme.contains("bash build.sh") && readme.contains(&format!("kestrel prove {name}.elf"))
    );
    let out = Command::new("bash")
        .arg(dir.join("build.sh"))
        .output()
        .expect("bash runs the build script");
    assert!(
        out.status.success(),
        "build.sh: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let elf_path = dir.join(format!("{name}.elf"));
    let elf = std::fs::read(&elf_path).unwrap();
    // Run: the greeting is the public output, under Kestrel and under qemu alike.
    let k = run_kestrel(&elf, b"world", 1 << 20);
    assert_eq!(k.exit_code, Some(0), "{:?}", k.error);
    assert_eq!(k.outcome.stdout, b"hello, world\n");
    assert_eq!(run_qemu(&elf_path, b"world"), k.outcome);
    // Prove and verify, as the README says.
    let input = dir.join("input.txt");
    std::fs::write(&input, b"world").unwrap();
    let proof = dir.join(format!("{name}.proof"));
    let args = ProveArgs {
        json: false,
        elf: elf_path.clone(),
        output: proof.clone(),
        input: Some(input),
        max_cycles: 1 << 20,
        blowup: 8,
        stats: None,
        backend: BackendChoice::Cpu,
        host_fills: false,
        vram_budget: None,
    };
    assert_eq!(prove_command(&args), 0);
    let public = dir.join("out.txt");
    assert_eq!(
        verify_command(&VerifyArgs {
            json: false,
            proof,
            vk: None,
            elf: Some(elf_path),
            blowup: None,
            public_output: Some(public.clone()),
        }),
        0
    );
    assert_eq!(std::fs::read(public).unwrap(), b"hello, world\n");
}

#[test]
fn a_new_c_project_builds_runs_proves_and_verifies() {
    new_build_run_prove_verify("c", "hello", Lang::C);
}

#[test]
fn a_new_rust_project_builds_runs_proves_and_verifies() {
    new_build_run_prove_verify("rust", "hello-rs", Lang::Rust);
}

#[test]
fn bad_requests_write_nothing() {
    let d = scratch("bad");
    let new = |name: &str, lang| {
        new_command(&NewArgs {
            name: d.join(name),
            lang,
        })
    };
    // An existing directory is left as it was.
    std::fs::create_dir(d.join("taken")).unwrap();
    std::fs::write(d.join("taken/keep"), b"x").unwrap();
    assert_eq!(new("taken", Lang::C), 2);
    assert_eq!(std::fs::read(d.join("taken/keep")).unwrap(), b"x");
    assert_eq!(new("bad name", Lang::C), 2);
    assert_eq!(new("1st", Lang::Rust), 2);
    assert_eq!(
        new_command(&NewArgs {
            name: d.join("missing/parent/x"),
            lang: Lang::C
        }),
        4
    );
    let mut left: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["taken"]);
}

/// Every argument and option of every command has help text.
#[test]
fn every_argument_has_help() {
    use clap::CommandFactory;
    let cmd = kestrel_prover_gpu::cli::Cli::command();
    let mut missing = Vec::new();
    for sub in cmd.get_subcommands() {
        for arg in sub.get_arguments() {
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("{} {}", sub.get_name(), arg.get_id()));
            }
        }
    }
    assert!(missing.is_empty(), "arguments without help: {missing:?}");
    assert!(cmd.get_subcommands().count() >= 6);
}
