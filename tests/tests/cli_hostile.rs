//! Hostile input to the `kestrel` command line: missing, empty, truncated, oversized and
//! wrong-kind files for every command, unwritable output paths, bad flags. Each must end
//! with the documented exit code and one clear `error: …` line on stderr, never a panic.
//!
//! Exit codes (`kestrel run`: prover-gpu/src/cli_run.rs; `kestrel fib`: cli_fib.rs):
//! 2 usage (clap: bad flags, `--blowup` not 2/4/8, `prove --max-cycles` over 2^26; prove/verify:
//! unreadable or oversized input or proof), 3 ELF or execution error, 4 I/O error.
//!
//! The binary is found by [`kestrel_tests::cli_bin::kestrel`].

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use kestrel_tests::cli_bin::{kestrel, root};

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
    // Sparse 2 GiB files: an ELF of zeros, and an input. Both are refused from their size,
    // unread (the ELF and input caps: 1 GiB + 64 MiB and 16 MiB).
    let d = scratch("run-oversized");
    let big = d.join("big");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(2 << 30).unwrap();
    drop(f);
    expect_one_error(&kestrel_run(&[&"run", &big]), 3, "ELF file limit");
    // Even though the fibonacci guest would not read it.
    let o = kestrel_run(&[&"run", &guest("fibonacci.elf"), &"--input", &big]);
    expect_one_error(&o, 4, "private input limit");
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
        &["fib", "--log-rows", "3"],
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
    expect_usage_error(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--blowup"));
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
            let o = kestrel_run(&[&"fib", &"--log-rows", &"4", &flag, t]);
            expect_final_error(&o, 4, "writing");
        }
    }
}

#[test]
fn fib_tiny_traces() {
    // Below the smallest table height the protocol accepts: a usage error, not a panic.
    for rows in ["1", "2", "3"] {
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
        expect_usage_error(&o);
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
    // input feeds both); an output file in a missing directory is refused before proving.
    let o = kestrel_run(&[&"prove", &p.elf, &"-o", &d.join("no/such/proof")]);
    expect_final_error(&o, 4, "cannot write");
}

// ---- resource limits: refused up front, in one line, in bounded memory ----
//
// Each child runs under an address-space limit (`ulimit -v` through `sh -c`), with two
// rayon threads and two malloc arenas so the limit means the same on any machine. The
// limits are several times what the commands need here and far below what the fixed bugs
// took (hundreds of MiB to gigabytes): an allocation past the limit aborts the child, which
// fails the exit code assertion.

/// `kestrel run`'s budget: it needs under 48 MiB here; the output bug took over 256 MiB.
const RUN_LIMIT_MIB: u64 = 192;
/// `prove`/`vk`/`verify`'s budget: proving the 7-cycle program needs under 384 MiB; the
/// bugs took gigabytes.
const PROVE_LIMIT_MIB: u64 = 1024;

/// `kestrel args…` under an address-space limit of `mib` MiB.
fn kestrel_limited(mib: u64, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    limited_command(mib, args)
        .output()
        .expect("sh runs kestrel")
}

fn limited_command(mib: u64, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(r#"ulimit -v "$0" && exec "$@""#)
        .arg((mib * 1024).to_string())
        .arg(kestrel())
        .env("RAYON_NUM_THREADS", "2")
        .env("MALLOC_ARENA_MAX", "2");
    for a in args {
        c.arg(a);
    }
    c
}

/// A guest that sets the break to `heap + chunk` and then writes `chunk` bytes from the heap
/// to `fd`, `count` times, then exits 0. `chunk` is a multiple of 4 KiB.
fn writer_guest(fd: i64, chunk: u32, count: i32) -> Vec<u8> {
    use kestrel_tests::vm_support::asm::{addi, b, exit, li32, lui, r, reg::*, ECALL};
    use kestrel_tests::vm_support::elf_writer::elf;
    const S0: u32 = 8;
    assert_eq!(chunk % 4096, 0);
    let mut code = vec![
        addi(A7, ZERO, 214),
        addi(A0, ZERO, 0),
        ECALL,                     // a0 = the heap's start
        addi(S0, A0, 0),           // s0 = heap
        lui(T0, chunk >> 12),      // t0 = chunk
        r(0x33, 0, 0, A0, S0, T0), // a0 = heap + chunk
        ECALL,                     // brk
    ];
    code.extend(li32(T1, count));
    let top = code.len();
    code.extend([
        addi(A0, ZERO, fd),
        addi(A1, S0, 0),
        lui(A2, chunk >> 12),
        addi(A7, ZERO, 64),
        ECALL, // write(fd, heap, chunk)
        addi(T1, T1, -1),
    ]);
    let here = code.len();
    code.push(b(1, T1, ZERO, (top as i64 - here as i64) * 4)); // bne t1, zero, top
    code.extend(exit(0));
    elf(&code, &[])
}

/// A guest that reads its whole input, 64 KiB at a time into the heap, then exits 0.
fn reader_guest() -> Vec<u8> {
    use kestrel_tests::vm_support::asm::{addi, b, exit, lui, r, reg::*, ECALL};
    use kestrel_tests::vm_support::elf_writer::elf;
    const S0: u32 = 8;
    let mut code = vec![
        addi(A7, ZERO, 214),
        addi(A0, ZERO, 0),
        ECALL,
        addi(S0, A0, 0),
        lui(T0, 16),
        r(0x33, 0, 0, A0, S0, T0),
        ECALL, // brk(heap + 64 KiB)
    ];
    let top = code.len();
    code.extend([
        addi(A0, ZERO, 0),
        addi(A1, S0, 0),
        lui(A2, 16),
        addi(A7, ZERO, 63),
        ECALL, // a0 = read(0, heap, 64 KiB)
    ]);
    let here = code.len();
    code.push(b(1, A0, ZERO, (top as i64 - here as i64) * 4)); // bne a0, zero, top
    code.extend(exit(0));
    elf(&code, &[])
}

/// A guest that never exits: `j .`.
fn looping_guest() -> Vec<u8> {
    use kestrel_tests::vm_support::asm::jal;
    use kestrel_tests::vm_support::elf_writer::elf;
    elf(&[jal(0, 0)], &[])
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn sparse_file(dir: &Path, name: &str, len: u64) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().set_len(len).unwrap();
    p
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn output_past_its_limit_stops_the_run() {
    let d = scratch("output-limit");
    // 256 MiB in 64 KiB writes, to fd 1 and to fd 2.
    let to_stdout = write_file(&d, "w1.elf", &writer_guest(1, 64 << 10, 4096));
    let to_stderr = write_file(&d, "w2.elf", &writer_guest(2, 64 << 10, 4096));
    // One write of 2 MiB: refused before a byte is copied.
    let one_big = write_file(&d, "big.elf", &writer_guest(1, 2 << 20, 1));

    let o = kestrel_limited(RUN_LIMIT_MIB, &[&"run", &to_stdout]);
    expect_one_error(
        &o,
        3,
        "past its limit of 1048576 bytes (1048576 written so far)",
    );
    assert!(
        o.stderr.starts_with(b"error: write of 65536 bytes"),
        "{}",
        describe(&o)
    );
    assert_eq!(o.stdout.len(), 1 << 20, "the first 1 MiB is printed");

    let o = kestrel_limited(RUN_LIMIT_MIB, &[&"run", &to_stderr]);
    // The 1 MiB of debug text (NULs, no newline), then the error on a line of its own.
    assert_eq!(o.status.code(), Some(3), "{}", describe(&o));
    let (debug, rest) = o.stderr.split_at(1 << 20);
    assert!(debug.iter().all(|&b| b == 0), "{}", describe(&o));
    let rest = String::from_utf8_lossy(rest);
    assert!(
        rest.starts_with("\nerror: write of 65536 bytes")
            && rest.contains("debug output (fd 2) past its limit of 1048576 bytes")
            && rest.lines().count() == 2,
        "{rest}"
    );

    let o = kestrel_limited(RUN_LIMIT_MIB, &[&"run", &one_big, &"--json"]);
    expect_one_error(&o, 3, "write of 2097152 bytes");
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(json["error"]["message"]
        .as_str()
        .unwrap()
        .contains("past its limit"));
    assert_eq!(json["output_hex"], "");

    // prove stops in its first (unrecorded) run, before anything is kept or written.
    let out = d.join("w.proof");
    for elf in [&to_stdout, &to_stderr, &one_big] {
        let o = kestrel_limited(
            PROVE_LIMIT_MIB,
            &[&"prove", elf, &"-o", &out, &"--backend", &"cpu"],
        );
        expect_one_error(&o, 3, "past its limit of 1048576 bytes");
    }
    assert!(!out.exists());
    assert_eq!(listing(&d), ["big.elf", "w1.elf", "w2.elf"]);
}

#[test]
fn prove_stops_at_the_provable_cycle_count() {
    let d = scratch("cycles");
    let elf = write_file(&d, "loop.elf", &looping_guest());
    let out = d.join("loop.proof");
    // The default --max-cycles of prove is 2^26: the run stops there (in a second or so,
    // without records), naming the limit and how to raise it.
    let t = std::time::Instant::now();
    let o = kestrel_limited(PROVE_LIMIT_MIB, &[&"prove", &elf, &"-o", &out]);
    expect_one_error(&o, 3, "cycle limit 67108864 reached");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("raise it with --max-cycles, up to 68719476736"));
    assert!(t.elapsed().as_secs() < 30, "took {:?}", t.elapsed());
    // A smaller limit: the same hint.
    let o = kestrel_limited(
        PROVE_LIMIT_MIB,
        &[&"prove", &elf, &"-o", &out, &"--max-cycles", &"1000"],
    );
    expect_one_error(&o, 3, "raise it with --max-cycles, up to 68719476736");
    // More than can be proven (2^36, in segments): a usage error before anything runs.
    for n in ["68719476737", "18446744073709551615"] {
        let o = kestrel_limited(
            PROVE_LIMIT_MIB,
            &[&"prove", &elf, &"-o", &out, &"--max-cycles", &n],
        );
        expect_usage_error(&o);
        assert!(String::from_utf8_lossy(&o.stderr).contains("at most 2^36 = 68719476736"));
    }
    // A segment size that is no power of two in range: a usage error before anything runs.
    for n in ["1000", "128", "134217728"] {
        let o = kestrel_limited(
            PROVE_LIMIT_MIB,
            &[&"prove", &elf, &"-o", &out, &"--segment-cycles", &n],
        );
        expect_usage_error(&o);
        assert!(String::from_utf8_lossy(&o.stderr).contains("not a power of two from 2^8"));
    }
    // `run` keeps its larger default (2^32) and takes a larger --max-cycles.
    let o = kestrel_limited(RUN_LIMIT_MIB, &[&"run", &elf, &"--max-cycles", &"67108865"]);
    expect_one_error(&o, 3, "cycle limit 67108865 reached");
    assert!(!out.exists());
    assert_eq!(listing(&d), ["loop.elf"]);
}

#[test]
fn oversized_input_is_refused_before_running() {
    let d = scratch("input-limit");
    let elf = write_file(&d, "reader.elf", &reader_guest());
    let out = d.join("r.proof");
    // 100 MB (sparse: the size is refused from the metadata), just over the 16 MiB limit,
    // and /dev/zero (refused after 16 MiB + 1 bytes).
    let big = sparse_file(&d, "big.input", 100_000_000);
    let over = sparse_file(&d, "over.input", (16 << 20) + 1);
    let cases: [(&Path, &str); 3] = [
        (
            &big,
            "100000000 bytes, more than the private input limit of 16 MiB",
        ),
        (
            &over,
            "16777217 bytes, more than the private input limit of 16 MiB",
        ),
        (
            Path::new("/dev/zero"),
            "more than the private input limit of 16 MiB",
        ),
    ];
    for (input, needle) in cases {
        if !input.exists() {
            continue;
        }
        let o = kestrel_limited(
            PROVE_LIMIT_MIB,
            &[&"prove", &elf, &"-o", &out, &"--input", &input],
        );
        expect_one_error(&o, 2, needle);
        let o = kestrel_limited(RUN_LIMIT_MIB, &[&"run", &elf, &"--input", &input]);
        expect_one_error(&o, 4, needle);
    }
    // Exactly the limit is read (the guest reads it all).
    let limit = sparse_file(&d, "limit.input", 16 << 20);
    let o = kestrel_limited(RUN_LIMIT_MIB, &[&"run", &elf, &"--input", &limit]);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    assert!(!out.exists());
}

#[test]
fn oversized_and_endless_files_are_refused_unread() {
    let p = proved();
    let d = scratch("file-limits");
    let out = d.join("out");
    // A sparse ELF over the 1 GiB + 64 MiB cap, and a 3 GB sparse "proof".
    let elf = sparse_file(&d, "big.elf", (1 << 30) + (64 << 20) + 1);
    let proof = sparse_file(&d, "big.proof", 3_000_000_000);
    let needle = "more than the ELF file limit of 1088 MiB";
    let t = std::time::Instant::now();
    expect_one_error(&kestrel_limited(RUN_LIMIT_MIB, &[&"run", &elf]), 3, needle);
    for cmd in ["prove", "vk"] {
        let o = kestrel_limited(PROVE_LIMIT_MIB, &[&cmd, &elf, &"-o", &out]);
        expect_one_error(&o, 3, needle);
    }
    let o = kestrel_limited(PROVE_LIMIT_MIB, &[&"verify", &p.proof, &"--elf", &elf]);
    expect_one_error(&o, 3, needle);
    let o = kestrel_limited(PROVE_LIMIT_MIB, &[&"verify", &proof, &"--vk", &p.vk]);
    expect_one_error(
        &o,
        2,
        "3000000000 bytes, more than the proof file limit of 2048 MiB",
    );
    // Character devices: /dev/zero as the ELF, the proof, the key.
    let zero = Path::new("/dev/zero");
    if zero.exists() {
        let o = kestrel_limited(RUN_LIMIT_MIB, &[&"run", &zero]);
        expect_one_error(&o, 3, "not an ELF");
        for cmd in ["prove", "vk"] {
            let o = kestrel_limited(PROVE_LIMIT_MIB, &[&cmd, &zero, &"-o", &out]);
            expect_one_error(&o, 3, "not an ELF");
        }
        let o = kestrel_limited(PROVE_LIMIT_MIB, &[&"verify", &p.proof, &"--elf", &zero]);
        expect_one_error(&o, 3, "not an ELF");
        let o = kestrel_limited(PROVE_LIMIT_MIB, &[&"verify", &zero, &"--vk", &p.vk]);
        expect_invalid(&o);
        let o = kestrel_limited(PROVE_LIMIT_MIB, &[&"verify", &p.proof, &"--vk", &zero]);
        expect_one_error(&o, 2, "is not a 32-byte verifying key");
    }
    assert!(t.elapsed().as_secs() < 20, "took {:?}", t.elapsed());
    assert!(!out.exists());
}

#[test]
fn unwritable_outputs_are_refused_before_the_work() {
    let p = proved();
    let d = scratch("out-first");
    let file = write_file(&d, "a-file", b"x");
    // The looping guest would take 2^26 cycles before proving could even start: the
    // output checks come first.
    let elf = write_file(&d, "loop.elf", &looping_guest());
    let good = d.join("good.out");
    let t = std::time::Instant::now();
    for bad in [d.join("missing/dir/x.proof"), file.join("x"), d.clone()] {
        let o = kestrel_limited(PROVE_LIMIT_MIB, &[&"prove", &elf, &"-o", &bad]);
        expect_one_error(&o, 4, "cannot write proof");
        let o = kestrel_limited(
            PROVE_LIMIT_MIB,
            &[&"prove", &elf, &"-o", &good, &"--stats", &bad],
        );
        expect_one_error(&o, 4, "cannot write stats");
        let o = kestrel_limited(PROVE_LIMIT_MIB, &[&"vk", &p.elf, &"-o", &bad]);
        expect_one_error(&o, 4, "cannot write verifying key");
        // Checked before the proof is even read: a missing proof still says "cannot write".
        for proof in [&p.proof, &d.join("no-such.proof")] {
            let o = kestrel_limited(
                PROVE_LIMIT_MIB,
                &[&"verify", proof, &"--vk", &p.vk, &"--public-output", &bad],
            );
            expect_one_error(&o, 4, "cannot write public output");
        }
    }
    assert!(t.elapsed().as_secs() < 20, "took {:?}", t.elapsed());
    // A failed prove leaves an existing output as it was, and no temporary file behind.
    std::fs::write(&good, b"old").unwrap();
    let o = kestrel_limited(
        PROVE_LIMIT_MIB,
        &[&"prove", &elf, &"-o", &good, &"--max-cycles", &"10"],
    );
    expect_one_error(&o, 3, "cycle limit 10");
    assert_eq!(std::fs::read(&good).unwrap(), b"old");
    assert_eq!(listing(&d), ["a-file", "good.out", "loop.elf"]);
    // So does a verify that rejects.
    let o = kestrel_limited(
        PROVE_LIMIT_MIB,
        &[&"verify", &file, &"--vk", &p.vk, &"--public-output", &good],
    );
    expect_invalid(&o);
    assert_eq!(std::fs::read(&good).unwrap(), b"old");
    assert_eq!(listing(&d), ["a-file", "good.out", "loop.elf"]);
    // /dev/null is written in place (never replaced).
    let o = kestrel_limited(PROVE_LIMIT_MIB, &[&"vk", &p.elf, &"-o", &"/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    // Through a symbolic link, the target is replaced and the link stays.
    let link = d.join("link.vk");
    std::os::unix::fs::symlink(&good, &link).unwrap();
    let o = kestrel_limited(
        PROVE_LIMIT_MIB,
        &[&"vk", &p.elf, &"-o", &link, &"--blowup", &"8"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&good).unwrap(), std::fs::read(&p.vk).unwrap());
    assert_eq!(listing(&d), ["a-file", "good.out", "link.vk", "loop.elf"]);
}

#[test]
fn run_json_to_a_full_disk_says_why() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    for args in [&["--json"][..], &[]] {
        let mut c = limited_command(RUN_LIMIT_MIB, &[&"run", &guest("fibonacci.elf")]);
        c.args(args)
            .stdout(std::fs::File::create(full).expect("open /dev/full"));
        let o = c.output().expect("kestrel runs");
        expect_one_error(&o, 4, "cannot write");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("No space left on device"),
            "{}",
            describe(&o)
        );
    }
}

#[test]
fn bad_blowup_is_refused_before_any_work() {
    let p = proved();
    let d = scratch("blowup");
    let elf = write_file(&d, "loop.elf", &looping_guest());
    let out = d.join("out");
    for bad in ["3", "0", "16", "x"] {
        // Before the 2^26 cycles of the looping guest, and with --vk as with --elf.
        for args in [
            &[&"prove" as &dyn AsRef<std::ffi::OsStr>, &elf, &"-o", &out][..],
            &[&"vk", &elf, &"-o", &out],
            &[&"verify", &p.proof, &"--vk", &p.vk],
            &[&"verify", &p.proof, &"--elf", &p.elf],
            &[&"fib", &"--log-rows", &"4"],
        ] {
            let mut a = args.to_vec();
            a.extend([&"--blowup" as &dyn AsRef<std::ffi::OsStr>, &bad]);
            let o = kestrel_limited(PROVE_LIMIT_MIB, &a);
            expect_usage_error(&o);
            assert!(
                String::from_utf8_lossy(&o.stderr).contains("must be 2, 4 or 8"),
                "{}",
                describe(&o)
            );
        }
    }
    assert!(!out.exists());
}

#[test]
fn verify_uses_the_proofs_blowup_or_names_the_mismatch() {
    let p = proved(); // made with --blowup 8
                      // Without --blowup, --elf derives the key with the proof's own preset.
    let o = kestrel_limited(PROVE_LIMIT_MIB, &[&"verify", &p.proof, &"--elf", &p.elf]);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("valid: exit code 7"));
    // A --blowup that differs is named exactly, with --elf or --vk.
    for key in [
        &[&"--elf" as &dyn AsRef<std::ffi::OsStr>, &p.elf][..],
        &[&"--vk", &p.vk],
    ] {
        for other in ["2", "4"] {
            let mut a: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"verify", &p.proof];
            a.extend_from_slice(key);
            a.extend([&"--blowup" as &dyn AsRef<std::ffi::OsStr>, &other]);
            let o = kestrel_limited(PROVE_LIMIT_MIB, &a);
            expect_one_error(
                &o,
                2,
                &format!("proof was made with --blowup 8; this verify used --blowup {other}"),
            );
        }
    }
}

/// A small ELF whose data segment is almost all bss (`bss` bytes of zeros after 8 file
/// bytes), with a program that stores into the bss's last word and exits 0.
fn bss_guest(bss: u64) -> Vec<u8> {
    use kestrel_tests::vm_support::asm::{addi, exit, li32, reg::*, sd};
    use kestrel_tests::vm_support::elf_writer::{elf_segments, Seg, CODE_BASE, DATA_BASE};
    let last = DATA_BASE + 8 + bss - 8;
    let mut code = li32(T0, last as i32).to_vec();
    code.extend([addi(T1, ZERO, 5), sd(T1, T0, 0)]);
    code.extend(exit(0));
    let code: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
    elf_segments(
        CODE_BASE,
        &[
            Seg {
                vaddr: CODE_BASE,
                memsz: code.len() as u64,
                bytes: code,
                flags: 5,
            },
            Seg {
                vaddr: DATA_BASE,
                bytes: vec![1; 8],
                memsz: 8 + bss,
                flags: 6,
            },
        ],
    )
}

#[test]
fn zero_filled_memory_costs_nothing_until_touched() {
    // A 128-byte file with a 1 GiB − 64 KiB bss: `vk` and `verify --elf` cost what the
    // file-backed bytes cost (they took minutes and gigabytes when bss was image bytes).
    let d = scratch("bss");
    let elf = write_file(&d, "bss.elf", &bss_guest((1 << 30) - (64 << 10)));
    let vk = d.join("bss.vk");
    let t = std::time::Instant::now();
    let o = kestrel_limited(RUN_LIMIT_MIB, &[&"vk", &elf, &"-o", &vk]);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    assert!(t.elapsed().as_secs() < 10, "vk took {:?}", t.elapsed());
    // The executor maps the bss (as zeroed pages) and the run touches one word of it.
    let proof = d.join("bss.proof");
    let o = kestrel_run(&[&"prove", &elf, &"-o", &proof]);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let t = std::time::Instant::now();
    for key in [["--vk", "bss.vk"], ["--elf", "bss.elf"]] {
        let o = kestrel_limited(
            PROVE_LIMIT_MIB,
            &[&"verify", &proof, &key[0], &d.join(key[1])],
        );
        assert_eq!(o.status.code(), Some(0), "{key:?}: {}", describe(&o));
    }
    assert!(t.elapsed().as_secs() < 20, "verify took {:?}", t.elapsed());
}

#[test]
fn run_says_prove_proves_runs_past_one_segment() {
    use kestrel_tests::vm_support::asm::{addi, b, exit, li32, reg::*};
    use kestrel_tests::vm_support::elf_writer::elf;
    let d = scratch("preflight");
    // A countdown of 2^25 + 16 iterations of two instructions: just past 2^26 cycles, which
    // prove proves in segments (with a --max-cycles above its default).
    let guest = |iterations: i32| {
        let mut code = li32(T0, iterations).to_vec();
        code.extend([addi(T0, T0, -1), b(1, T0, ZERO, -4)]);
        code.extend(exit(0));
        elf(&code, &[])
    };
    let long = write_file(&d, "long.elf", &guest((1 << 25) + 16));
    let short = write_file(&d, "short.elf", &guest(16));
    let o = kestrel_limited(RUN_LIMIT_MIB, &[&"run", &long, &"--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("warning"));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["provable"], true);
    assert!(j["cycles"].as_u64().unwrap() > 1 << 26);
    let o = kestrel_limited(RUN_LIMIT_MIB, &[&"run", &short, &"--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("warning"));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["provable"], true);
}
