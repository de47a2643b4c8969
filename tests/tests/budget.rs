//! The embedded verifier's budget: heap, stack, code size, time and proof size.
//!
//! `budget_guard` (CI) proves Fibonacci with 2^16 rows at the default preset (blowup 4) and
//! fails when verification needs more heap or stack than the budgets below, or when the
//! verifier's code, linked into a `#![no_std]` binary with firmware settings (opt-level "s",
//! fat LTO, one codegen unit, panic abort; `tests/nostd-link`), grows past its budget.
//!
//! `budget_report` (ignored) prints every figure for 2^16 and 2^20 rows at blowups 4 and 8:
//!
//! ```text
//! cargo test --release -p kestrel-tests --test budget -- --ignored --nocapture budget_report
//! ```
//!
//! How each figure is measured:
//! - heap: a counting global allocator, counting only the verifying thread, reports the peak
//!   of live bytes during `verify` (the proof bytes are the caller's and not counted), the
//!   total bytes allocated, and the number of allocations; `parse_proof` alone is measured
//!   too, and the live bytes of the decoded `ProofBody` it returns;
//! - stack: the verifying thread's stack below the caller's frame is painted with a pattern,
//!   `verify` runs, and the lowest overwritten word gives the high-water mark;
//! - code: `.text` (every executable section) of `size-verify` minus that of
//!   `size-baseline`, the same binary without the verifier (tests/nostd-link/src/bin);
//! - time: the median of several `verify` calls, on one core (the verifier is
//!   single-threaded).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

use kestrel_core::air::examples::{fibonacci_trace, FibonacciMachine};
use kestrel_core::field::Felt;
use kestrel_core::keys::VerifyingKey;
use kestrel_core::params::StarkParams;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_tests::heap::{count_heap, CountingAlloc, Heap};

// ---- budgets (2^16 rows, blowup 4); measured figures in the comments ----

/// Peak heap during `verify` (the proof bytes are the caller's and not counted); nearly all
/// of it is the decoded `ProofBody`. Measured: 723,633 bytes for a 671,871-byte proof.
const HEAP_BUDGET: usize = 796_000;
/// Peak heap minus the proof's size. Measured: 51,762 bytes.
const HEAP_BEYOND_PROOF_BUDGET: usize = 57_000;
/// Stack high-water mark of `verify` (x86-64, release). Measured: 4,576 bytes; the issue's
/// goal is 32 KiB.
const STACK_BUDGET: usize = 8 * 1024;
/// Executable sections of the verifier linked into a no_std binary (x86-64, opt-level
/// "s", fat LTO, panic abort). Measured: 77,793 bytes.
const CODE_BUDGET: u64 = 85_600;

// ---- counting allocator ----

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// One measurement at a time (the counters are global).
static SERIAL: Mutex<()> = Mutex::new(());

// ---- stack painting ----

const PATTERN: u64 = 0x5A5A_A5A5_C3C3_3C3C;
/// How far below the caller's frame the stack is painted.
const PAINT: usize = 1 << 20;
/// Left unpainted just below the caller's frame: the painting functions' own frames.
const GAP: usize = 4096;

#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    black_box(&marker) as *const u8 as usize
}

#[inline(never)]
fn paint(lo: usize, hi: usize) {
    let mut a = lo;
    while a < hi {
        // SAFETY: [lo, hi) lies inside this thread's stack (a 4 MiB stack, PAINT = 1 MiB
        // below a frame near its top) and below every live frame.
        unsafe { std::ptr::write_volatile(a as *mut u64, PATTERN) };
        a += 8;
    }
}

#[inline(never)]
fn lowest_touched(lo: usize, hi: usize) -> usize {
    let mut a = lo;
    // SAFETY: as in `paint`; the words are initialised (painted) or written by callees.
    while a < hi && unsafe { std::ptr::read_volatile(a as *const u64) } == PATTERN {
        a += 8;
    }
    a
}

/// Stack bytes `f` uses below the caller's frame, measured on a fresh 4 MiB thread.
fn stack_high_water<R: Send>(f: impl FnOnce() -> R + Send) -> (R, usize) {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(4 << 20)
            .spawn_scoped(s, move || {
                let top = stack_address() & !7;
                let (lo, hi) = (top - PAINT, top - GAP);
                paint(lo, hi);
                let r = black_box(f)();
                let low = lowest_touched(lo, hi);
                assert!(low > lo, "the painted stack region was exhausted");
                (r, top - low)
            })
            .expect("spawn the measuring thread")
            .join()
            .expect("the measuring thread panicked")
    })
}

// ---- statements ----

struct Statement {
    vk: VerifyingKey,
    public: [Felt; 3],
    proof: Vec<u8>,
}

fn fibonacci(log_rows: u32, params: StarkParams) -> Statement {
    let pk = setup(&CpuBackend, &FibonacciMachine, params).expect("setup");
    let (trace, result) = fibonacci_trace(log_rows, Felt::ONE, Felt::ONE);
    let public = [Felt::ONE, Felt::ONE, result];
    let (proof, _) = prove(&CpuBackend, &pk, &FibonacciMachine, &[trace], &public).expect("prove");
    Statement {
        vk: pk.vk,
        public,
        proof: proof.to_bytes(),
    }
}

fn verify(s: &Statement) -> Result<(), kestrel_verifier::VerifyError> {
    kestrel_verifier::verify(&FibonacciMachine, &s.vk, &s.public, black_box(&s.proof))
}

#[derive(Debug)]
struct Figures {
    proof_bytes: usize,
    verify: Heap,
    parse: Heap,
    stack: usize,
    verify_ms: f64,
}

fn measure(s: &Statement, timing_runs: usize) -> Figures {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (r, verify_heap) = count_heap(|| verify(s));
    r.expect("the proof verifies");
    let (body, parse) = count_heap(|| kestrel_verifier::parse_proof(&s.proof));
    drop(body.expect("the proof parses"));
    let (r, stack) = stack_high_water(|| verify(s));
    r.expect("the proof verifies");
    let mut times: Vec<f64> = (0..timing_runs.max(1))
        .map(|_| {
            let t = Instant::now();
            verify(s).expect("the proof verifies");
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    Figures {
        proof_bytes: s.proof.len(),
        verify: verify_heap,
        parse,
        stack,
        verify_ms: times[times.len() / 2],
    }
}

// ---- code size ----

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The directory tests/nostd_link.rs builds into, so the two tests share one build.
fn nostd_target_dir(root: &Path) -> PathBuf {
    let base = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir),
        Some(dir) => root.join(dir),
        None => root.join("target"),
    };
    base.join("nostd-link")
}

fn le(b: &[u8], off: usize, n: usize) -> u64 {
    let mut a = [0u8; 8];
    a[..n].copy_from_slice(&b[off..off + n]);
    u64::from_le_bytes(a)
}

/// Sum of the sizes of an ELF64 file's allocated executable sections (what `size -A`
/// lists as `.text`, `.init`, `.plt`…).
fn exec_bytes(path: &Path) -> u64 {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    assert!(b.starts_with(b"\x7fELF") && b[4] == 2, "not an ELF64 file");
    let shoff = le(&b, 0x28, 8) as usize;
    let shentsize = le(&b, 0x3a, 2) as usize;
    let shnum = le(&b, 0x3c, 2) as usize;
    (0..shnum)
        .map(|i| shoff + i * shentsize)
        .filter(|&h| le(&b, h + 8, 8) & 0x6 == 0x6) // SHF_ALLOC | SHF_EXECINSTR
        .map(|h| le(&b, h + 0x20, 8))
        .sum()
}

/// Builds tests/nostd-link and returns (`.text` of size-verify, of size-baseline).
fn code_size() -> (u64, u64) {
    let root = workspace_root();
    let target = nostd_target_dir(&root);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let build = Command::new(cargo)
        .args(["build", "--release", "--manifest-path"])
        .arg(root.join("tests/nostd-link/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .output()
        .expect("cargo runs");
    assert!(
        build.status.success(),
        "building tests/nostd-link failed ({}):\n{}",
        build.status,
        String::from_utf8_lossy(&build.stderr)
    );
    let bin = |name: &str| {
        target
            .join("release")
            .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
    };
    let run = Command::new(bin("size-verify"))
        .status()
        .expect("size-verify runs");
    assert!(
        run.success(),
        "size-verify: the golden proof did not verify ({run})"
    );
    (
        exec_bytes(&bin("size-verify")),
        exec_bytes(&bin("size-baseline")),
    )
}

// ---- tests ----

#[test]
fn budget_guard() {
    let s = fibonacci(16, StarkParams::BLOWUP_4);
    let f = measure(&s, 1);
    println!("2^16 rows, blowup 4: {f:?}");
    assert!(
        f.verify.peak <= HEAP_BUDGET,
        "verify's peak heap {} bytes exceeds the budget of {HEAP_BUDGET}",
        f.verify.peak
    );
    let beyond = f.verify.peak.saturating_sub(f.proof_bytes);
    assert!(
        beyond <= HEAP_BEYOND_PROOF_BUDGET,
        "verify's heap beyond the proof bytes, {beyond} bytes, exceeds the budget of \
         {HEAP_BEYOND_PROOF_BUDGET}"
    );
    assert_eq!(
        f.verify.retained, 0,
        "verify leaked {} bytes",
        f.verify.retained
    );
    assert!(
        f.stack <= STACK_BUDGET,
        "verify's stack high-water mark {} bytes exceeds the budget of {STACK_BUDGET}",
        f.stack
    );
    let (with, without) = code_size();
    let code = with - without;
    println!("code: size-verify {with} bytes, size-baseline {without}, verifier {code}");
    assert!(
        code <= CODE_BUDGET,
        "the verifier's code is {code} bytes, above the budget of {CODE_BUDGET}"
    );
}

#[test]
fn stack_painting_measures_a_known_frame() {
    #[inline(never)]
    fn uses_16k() -> u8 {
        let mut a = [0u8; 16 << 10];
        black_box(&mut a)[0] = 1;
        black_box(&a).iter().fold(0, |x, y| x ^ y)
    }
    let (_, used) = stack_high_water(uses_16k);
    assert!(
        (16 << 10..=20 << 10).contains(&used),
        "a 16 KiB frame measured as {used} bytes"
    );
}

#[test]
#[ignore = "prints the figures for BENCHMARKS.md; takes a minute (2^20-row proofs)"]
fn budget_report() {
    println!(
        "| rows | blowup | proof bytes | verify peak heap | beyond proof | total allocated | \
         allocations | parse peak | ProofBody live | working (peak - ProofBody) | stack | \
         verify ms |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for log_rows in [16, 20] {
        for params in [StarkParams::BLOWUP_4, StarkParams::BLOWUP_8] {
            let s = fibonacci(log_rows, params);
            let f = measure(&s, 9);
            println!(
                "| 2^{log_rows} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2} |",
                params.blowup(),
                f.proof_bytes,
                f.verify.peak,
                f.verify.peak as i64 - f.proof_bytes as i64,
                f.verify.total,
                f.verify.count,
                f.parse.peak,
                f.parse.retained,
                f.verify.peak - f.parse.retained,
                f.stack,
                f.verify_ms
            );
        }
    }
    let (with, without) = code_size();
    println!(
        "code (.text, executable sections): size-verify {with} bytes, size-baseline {without} \
         bytes, verifier {} bytes",
        with - without
    );
}
