//! Hostile input to the `kestrel` command line: missing, empty, truncated, oversized and
//! wrong-kind files for every command, unwritable output paths, bad flags. Each must end
//! with the documented exit code and one clear `error: …` line on stderr, never a panic.
//!
//! Exit codes (`kestrel run`: prover-gpu/src/cli_run.rs; `kestrel fib`: cli_fib.rs):
//! 2 usage (clap, or `--blowup` not 2/4/8), 3 ELF or execution error, 4 I/O error.
//!
//! The binary belongs to kestrel-prover-gpu, another package, so `CARGO_BIN_EXE_kestrel`
//! is not set here. The test uses `$KESTREL_BIN` if set, else `kestrel` next to this test's
//! profile directory (`cargo test --workspace` builds it there), else builds it into
//! `<target>/cli-hostile` with this test's profile (a separate directory: the running
//! `cargo test` holds the lock on its own).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

fn kestrel() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let name = format!("kestrel{}", std::env::consts::EXE_SUFFIX);
        if let Some(p) = std::env::var_os("KESTREL_BIN") {
            return PathBuf::from(p);
        }
        // <target>/<profile>/deps/cli_hostile-<hash>
        let exe = std::env::current_exe().expect("the test executable's path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test runs from <target>/<profile>/deps");
        let sibling = profile_dir.join(&name);
        if sibling.is_file() {
            return sibling;
        }
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => "dev".to_string(),
            Some(p) => p.to_string(),
            None => "dev".to_string(),
        };
        let target = profile_dir
            .parent()
            .expect("<target>/<profile>")
            .join("cli-hostile");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = Command::new(cargo)
            .args([
                "build",
                "-p",
                "kestrel-prover-gpu",
                "--bin",
                "kestrel",
                "--profile",
            ])
            .arg(&profile)
            .arg("--target-dir")
            .arg(&target)
            .current_dir(root())
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "the kestrel binary is not at {} and building it failed; build it with \
             `cargo build --release -p kestrel-prover-gpu --bin kestrel` or set KESTREL_BIN\n{}",
            sibling.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = if profile == "dev" { "debug" } else { &profile };
        target.join(dir).join(name)
    })
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("kestrel-cli-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

fn kestrel_run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut c = Command::new(kestrel());
    for a in args {
        c.arg(a);
    }
    c.output().expect("kestrel runs")
}

fn describe(o: &Output) -> String {
    format!(
        "status {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Exit `code`, and stderr is exactly one line, `error: …` containing `needle`.
fn expect_one_error(o: &Output, code: i32, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "{}", describe(o));
    assert!(!err.contains("panicked"), "panic: {}", describe(o));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "expected one stderr line: {}", describe(o));
    assert!(lines[0].starts_with("error: "), "{}", describe(o));
    assert!(
        lines[0].contains(needle),
        "expected {needle:?} in the error: {}",
        describe(o)
    );
}

/// Exit `code`, and the last stderr line, the only one starting with `error`, is
/// `error: …` containing `needle` (`kestrel fib` prints its report before it writes files).
fn expect_final_error(o: &Output, code: i32, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "{}", describe(o));
    assert!(!err.contains("panicked"), "panic: {}", describe(o));
    let errors = err.lines().filter(|l| l.starts_with("error")).count();
    assert_eq!(errors, 1, "expected one error line: {}", describe(o));
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: ") && last.contains(needle),
        "expected a last line `error: …{needle}…`: {}",
        describe(o)
    );
}

/// A usage error from clap: exit 2, one `error:` line (clap adds usage hints after it).
fn expect_usage_error(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", describe(o));
    assert!(!err.contains("panicked"), "panic: {}", describe(o));
    let errors = err.lines().filter(|l| l.starts_with("error")).count();
    assert_eq!(errors, 1, "expected one error line: {}", describe(o));
    assert!(err.starts_with("error: "), "{}", describe(o));
}

fn guest(name: &str) -> PathBuf {
    root().join("tests/guests/bin").join(name)
}

const GOLDEN_PROOF: &str = "tests/fixtures/fib-golden.proof";

// ---- kestrel run: the ELF ----

#[test]
fn run_missing_elf() {
    let d = scratch("run-missing");
    let o = kestrel_run(&[&"run", &d.join("nope.elf")]);
    expect_one_error(&o, 4, "cannot read ELF");
}

#[test]
fn run_directory_as_elf() {
    let d = scratch("run-dir");
    let o = kestrel_run(&[&"run", &d]);
    expect_one_error(&o, 4, "cannot read ELF");
}

#[test]
fn run_empty_elf() {
    let d = scratch("run-empty");
    let f = d.join("empty.elf");
    std::fs::write(&f, b"").unwrap();
    expect_one_error(&kestrel_run(&[&"run", &f]), 3, "truncated ELF");
}

#[test]
fn run_truncated_elf() {
    let d = scratch("run-truncated");
    let elf = std::fs::read(guest("fibonacci.elf")).expect("prebuilt guest");
    for len in [3, 63, 64, 100, elf.len() / 2, elf.len() - 1] {
        let f = d.join(format!("t{len}.elf"));
        std::fs::write(&f, &elf[..len]).unwrap();
        let o = kestrel_run(&[&"run", &f]);
        // A cut inside the headers or a segment: a load error. (Cuts in the section
        // data after the last segment leave a loadable program, so only those that end
        // before the segments' end are asserted.)
        if len <= 100 || len == elf.len() / 2 {
            expect_one_error(&o, 3, "cannot load");
        } else {
            assert!(
                !String::from_utf8_lossy(&o.stderr).contains("panicked"),
                "{}",
                describe(&o)
            );
        }
    }
}

#[test]
fn run_wrong_kind_files_as_elf() {
    let d = scratch("run-wrong-kind");
    let text = d.join("notes.txt");
    std::fs::write(
        &text,
        "not an executable, but a text file longer than the 64 bytes of an ELF header.\n",
    )
    .unwrap();
    // A proof, a text file, a host (x86-64 or other) executable: none is an RV64 ELF.
    for (file, needle) in [
        (root().join(GOLDEN_PROOF), "not an ELF"),
        (text, "not an ELF"),
        (kestrel().to_path_buf(), "cannot load"),
    ] {
        expect_one_error(&kestrel_run(&[&"run", &file]), 3, needle);
    }
}

#[test]
fn run_oversized_files() {
    // Sparse 2 GiB files: an ELF of zeros, and an input. Both are read whole today
    // (about 2 GiB of memory each); they must still end cleanly.
    let d = scratch("run-oversized");
    let big = d.join("big");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(2 << 30).unwrap();
    drop(f);
    expect_one_error(&kestrel_run(&[&"run", &big]), 3, "not an ELF");
    // The fibonacci guest does not read its input: it runs and exits 0.
    let o = kestrel_run(&[&"run", &guest("fibonacci.elf"), &"--input", &big]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{}", describe(&o));
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let _ = std::fs::remove_dir_all(&d);
}

// ---- kestrel run: the input and flags ----

#[test]
fn run_missing_or_directory_input() {
    let d = scratch("run-input");
    let elf = guest("fibonacci.elf");
    let o = kestrel_run(&[&"run", &elf, &"--input", &d.join("nope")]);
    expect_one_error(&o, 4, "cannot read input");
    let o = kestrel_run(&[&"run", &elf, &"--input", &d]);
    expect_one_error(&o, 4, "cannot read input");
}

#[test]
fn run_wrong_kind_input() {
    // An ELF or a proof as the private input is just bytes: the guest runs.
    for input in [guest("sort.elf"), root().join(GOLDEN_PROOF)] {
        let o = kestrel_run(&[&"run", &guest("fibonacci.elf"), &"--input", &input]);
        assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    }
}

#[test]
fn run_cycle_limits() {
    let elf = guest("fibonacci.elf");
    let o = kestrel_run(&[&"run", &elf, &"--max-cycles", &"0"]);
    expect_one_error(&o, 3, "cycle limit");
    for bad in ["abc", "-1", "18446744073709551616", ""] {
        expect_usage_error(&kestrel_run(&[&"run", &elf, &"--max-cycles", &bad]));
    }
}

#[test]
fn usage_errors() {
    for args in [
        &["frobnicate"][..],
        &["run"],
        &["run", "--bogus", "x.elf"],
        &["fib", "--bogus"],
        &["fib", "--log-rows", "0"],
        &["fib", "--log-rows", "27"],
        &["fib", "--log-rows", "abc"],
        &["fib", "--blowup", "x"],
        &["--bogus"],
    ] {
        let o = Command::new(kestrel()).args(args).output().unwrap();
        expect_usage_error(&o);
    }
}

#[test]
fn no_arguments_is_a_usage_error() {
    let o = Command::new(kestrel()).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
}

// ---- kestrel fib ----

#[test]
fn fib_bad_blowup() {
    let o = kestrel_run(&[&"fib", &"--log-rows", &"4", &"--blowup", &"3"]);
    expect_one_error(&o, 2, "--blowup");
}

#[test]
fn fib_unwritable_outputs() {
    let d = scratch("fib-out");
    let file = d.join("a-file");
    std::fs::write(&file, b"x").unwrap();
    // A path under a missing directory, under a regular file, and a directory.
    let targets = [d.join("missing/dir/out"), file.join("out"), d.clone()];
    for flag in ["-o", "--vk-out", "--stats"] {
        for t in &targets {
            let o = kestrel_run(&[&"fib", &"--log-rows", &"3", &flag, t]);
            expect_final_error(&o, 4, "writing");
        }
    }
}

#[test]
fn fib_tiny_traces() {
    // Below the smallest table height the protocol accepts: a clean error, not a panic.
    for rows in ["1", "2"] {
        let o = kestrel_run(&[&"fib", &"--log-rows", &rows]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{}", describe(&o));
        assert_ne!(o.status.code(), Some(0), "{}", describe(&o));
        assert_eq!(
            err.lines().filter(|l| l.starts_with("error")).count(),
            1,
            "{}",
            describe(&o)
        );
    }
}

// ---- kestrel vk, prove, verify (RV64IM programs) ----

/// A register-only program that proves, its key and a valid proof file (blowup 8).
struct Proved {
    elf: PathBuf,
    vk: PathBuf,
    proof: PathBuf,
}

fn proved() -> &'static Proved {
    static P: OnceLock<Proved> = OnceLock::new();
    P.get_or_init(|| {
        use kestrel_tests::vm_support::asm::{addi, exit};
        use kestrel_tests::vm_support::elf_writer::elf;
        let dir = scratch("proved");
        let mut code = vec![addi(5, 0, 40)];
        code.extend(exit(7));
        let p = Proved {
            elf: dir.join("prog.elf"),
            vk: dir.join("prog.vk"),
            proof: dir.join("prog.proof"),
        };
        std::fs::write(&p.elf, elf(&code, &[])).unwrap();
        let o = kestrel_run(&[&"vk", &p.elf, &"-o", &p.vk, &"--blowup", &"8"]);
        assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
        let o = kestrel_run(&[&"prove", &p.elf, &"-o", &p.proof, &"--blowup", &"8"]);
        assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
        p
    })
}

/// `kestrel verify` rejects: exit 1 and one `invalid: …` line (stdout or stderr), no panic.
fn expect_invalid(o: &Output) {
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(1), "{}", describe(o));
    assert!(!all.contains("panicked"), "panic: {}", describe(o));
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines.len(), 1, "expected one line: {}", describe(o));
    assert!(lines[0].starts_with("invalid: "), "{}", describe(o));
}

fn verify_with_vk(proof: &Path, vk: &Path) -> Output {
    kestrel_run(&[&"verify", &proof, &"--vk", &vk])
}

#[test]
fn verify_accepts_the_valid_proof() {
    let p = proved();
    let o = verify_with_vk(&p.proof, &p.vk);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let o = kestrel_run(&[&"verify", &p.proof, &"--elf", &p.elf, &"--blowup", &"8"]);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
}

#[test]
fn verify_hostile_proof_files() {
    let p = proved();
    let d = scratch("verify-proof");
    let good = std::fs::read(&p.proof).unwrap();
    let mut cases: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), Vec::new()),
        (
            "golden-fib".into(),
            std::fs::read(root().join(GOLDEN_PROOF)).unwrap(),
        ),
        ("elf".into(), std::fs::read(&p.elf).unwrap()),
        ("trailing".into(), [&good[..], b"x"].concat()),
    ];
    for len in [1, 8, 12, 20, good.len() / 2, good.len() - 1] {
        cases.push((format!("cut{len}"), good[..len].to_vec()));
    }
    for at in [9, 13, 30, good.len() / 2, good.len() - 1] {
        let mut b = good.clone();
        b[at] ^= 0x40;
        cases.push((format!("flip{at}"), b));
    }
    for (name, bytes) in cases {
        let f = d.join(name);
        std::fs::write(&f, bytes).unwrap();
        expect_invalid(&verify_with_vk(&f, &p.vk));
    }
    let o = verify_with_vk(&d.join("missing"), &p.vk);
    expect_one_error(&o, 2, "cannot read proof");
    let o = verify_with_vk(&d, &p.vk);
    expect_one_error(&o, 2, "cannot read proof");
}

#[test]
fn verify_hostile_keys() {
    let p = proved();
    let d = scratch("verify-vk");
    for (name, bytes) in [
        ("empty", Vec::new()),
        ("short", vec![0u8; 31]),
        ("long", vec![0u8; 33]),
        ("elf", std::fs::read(&p.elf).unwrap()),
    ] {
        let f = d.join(name);
        std::fs::write(&f, bytes).unwrap();
        expect_one_error(&verify_with_vk(&p.proof, &f), 2, "verifying key");
    }
    expect_one_error(
        &verify_with_vk(&p.proof, &d.join("missing")),
        2,
        "cannot read",
    );
    // A well-formed key of another statement: invalid.
    let other = d.join("zeros.vk");
    std::fs::write(&other, [0u8; 32]).unwrap();
    expect_invalid(&verify_with_vk(&p.proof, &other));
    // The proof given as the ELF to derive the key from.
    let o = kestrel_run(&[&"verify", &p.proof, &"--elf", &p.proof]);
    expect_one_error(&o, 3, "cannot load");
    // Key flags: both, or neither.
    expect_usage_error(&kestrel_run(&[
        &"verify", &p.proof, &"--vk", &p.vk, &"--elf", &p.elf,
    ]));
    expect_usage_error(&kestrel_run(&[&"verify", &p.proof]));
}

#[test]
fn prove_and_vk_hostile_elves() {
    let p = proved();
    let d = scratch("prove-elf");
    let empty = d.join("empty.elf");
    std::fs::write(&empty, b"").unwrap();
    let out = d.join("out");
    for cmd in ["prove", "vk"] {
        let o = kestrel_run(&[&cmd, &d.join("missing.elf"), &"-o", &out]);
        expect_final_error(&o, 2, "cannot read ELF");
        for bad in [&empty, &p.proof, &root().join(GOLDEN_PROOF)] {
            let o = kestrel_run(&[&cmd, bad, &"-o", &out]);
            expect_final_error(&o, 3, "cannot load");
        }
        let o = kestrel_run(&[&cmd, &p.elf, &"-o", &out, &"--blowup", &"3"]);
        expect_final_error(&o, 2, "--blowup");
        let o = kestrel_run(&[&cmd, &p.elf, &"-o", &d.join("missing/dir/out")]);
        expect_final_error(&o, 4, "cannot write");
        expect_usage_error(&kestrel_run(&[&cmd, &p.elf]));
    }
}

#[test]
fn prove_hostile_runs() {
    let p = proved();
    let d = scratch("prove-run");
    let out = d.join("out");
    let o = kestrel_run(&[
        &"prove",
        &p.elf,
        &"-o",
        &out,
        &"--input",
        &d.join("missing"),
    ]);
    expect_final_error(&o, 2, "cannot read");
    let o = kestrel_run(&[&"prove", &p.elf, &"-o", &out, &"--max-cycles", &"1"]);
    expect_final_error(&o, 3, "cycle limit");
    let o = kestrel_run(&[
        &"prove",
        &p.elf,
        &"-o",
        &out,
        &"--stats",
        &d.join("no/such"),
    ]);
    expect_final_error(&o, 4, "cannot write");
    // Input shorter than a replayed read needs cannot happen through the CLI (the same
    // input feeds both); an output file in a missing directory is refused after proving.
    let o = kestrel_run(&[&"prove", &p.elf, &"-o", &d.join("no/such/proof")]);
    expect_final_error(&o, 4, "cannot write");
}
