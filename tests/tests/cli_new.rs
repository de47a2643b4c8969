//! `kestrel new NAME --lang c|rust`: the guest guide's commands (tests/guests/README.md,
//! "Start a project") run exactly as written — new, build (Debian's riscv64-unknown-elf-gcc,
//! and Debian's Rust 1.85 for Rust, which CI installs; missing, the test fails), run, prove,
//! verify — the project's README gives the same commands, and the ELF matches qemu-riscv64;
//! bad names and an existing directory are refused without writing anything.

use kestrel_prover_gpu::cli_new::{new_command, Lang, NewArgs};
use kestrel_tests::cli_bin::{kestrel, root};
use kestrel_tests::vm_support::{run_kestrel, run_qemu};
use std::path::PathBuf;
use std::process::Command;

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kestrel-new-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The ```sh block under the guide's heading `heading` (tests/guests/README.md), its lines.
fn guide_block(heading: &str) -> Vec<String> {
    let guide = std::fs::read_to_string(root().join("tests/guests/README.md")).unwrap();
    let after = guide
        .split_once(&format!("## {heading}\n"))
        .unwrap_or_else(|| panic!("the guide has a section {heading:?}"))
        .1;
    let block = after
        .split_once("```sh\n")
        .and_then(|(_, b)| b.split_once("```"))
        .unwrap_or_else(|| panic!("{heading:?} has a sh block"))
        .0;
    block.lines().map(str::to_string).collect()
}

/// A command line without its trailing comment.
fn command(line: &str) -> String {
    line.split_once(" #")
        .map_or(line, |(c, _)| c)
        .trim_end()
        .to_string()
}

/// Runs the guide's commands for a new project exactly as written (bash, `kestrel` on the
/// PATH), in a scratch directory: `kestrel new`, build, run, prove, verify. Checks that the
/// project's own README gives the same commands and that the ELF it built runs the same
/// under qemu-riscv64.
fn guide_commands_as_written(tag: &str, heading: &str) {
    let lines = guide_block(heading);
    assert!(lines[0].starts_with("kestrel new hello"), "{lines:?}");
    let dir = scratch(tag);
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(kestrel(), bin.join("kestrel")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = format!("set -euo pipefail\n{}\n", lines.join("\n"));
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(&dir)
        .env("PATH", path)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script}\n--- stdout ---\n{stdout}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `run` prints the greeting, and `verify … && cat out.txt` the verified output.
    assert_eq!(
        stdout.lines().filter(|l| *l == "hello, world").count(),
        2,
        "{stdout}"
    );
    assert!(stdout.ends_with("hello, world\n"), "{stdout}");
    assert!(stdout.contains("valid: exit code 0"), "{stdout}");
    let project = dir.join("hello");
    // The project's README lists the commands the guide runs after `cd hello`.
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    let theirs: Vec<String> = readme
        .split_once("```sh\n")
        .and_then(|(_, b)| b.split_once("```"))
        .expect("the project README has a sh block")
        .0
        .lines()
        .map(command)
        .collect();
    let ours: Vec<String> = lines[2..].iter().map(|l| command(l)).collect();
    assert_eq!(theirs, ours);
    let elf = project.join("hello.elf");
    let k = run_kestrel(&std::fs::read(&elf).unwrap(), b"world", 1 << 20);
    assert_eq!(k.exit_code, Some(0), "{:?}", k.error);
    assert_eq!(run_qemu(&elf, b"world"), k.outcome);
}

#[test]
fn the_guides_c_commands_run_as_written() {
    guide_commands_as_written("c", "Start a project (C)");
}

#[test]
fn the_guides_rust_commands_run_as_written() {
    guide_commands_as_written("rust", "Start a project (Rust)");
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
