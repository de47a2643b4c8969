//! `kestrel run prog.elf [--input FILE] [--max-cycles N] [--json]`: executes a guest without
//! proving it.
//!
//! The guest's fd 1 (public output) goes to stdout, fd 2 (debug text) to stderr, and the process
//! exits with the guest's exit code (its low 8 bits, as Linux). A summary line with the cycle
//! count and speed goes to stderr. With `--json`, stdout instead carries one JSON object:
//! `{"exit_code", "cycles", "seconds", "mhz", "output_hex", "output_utf8", "error"}`
//! (`output_utf8` is null unless the output is valid UTF-8; `error` is null unless the run failed).
//!
//! Exit codes other than the guest's:
//!
//! | code | meaning |
//! | --- | --- |
//! | 2 | usage error (from clap) |
//! | [`EXIT_VM_ERROR`] = 3 | the ELF could not be loaded (or is larger than [`limits::MAX_ELF_FILE`]), or execution stopped with an error (illegal instruction, memory fault, unsupported system call, output limit, cycle limit) |
//! | [`EXIT_IO_ERROR`] = 4 | a file could not be read (or the input is larger than [`MAX_INPUT`]), or stdout could not be written |
//!
//! Output is bounded by the executor: at most 1 MiB of public output
//! ([`MAX_PUBLIC_OUTPUT`](crate::vm::ecall::MAX_PUBLIC_OUTPUT)) and 1 MiB of debug text
//! ([`MAX_DEBUG_OUTPUT`](crate::vm::ecall::MAX_DEBUG_OUTPUT)); a write past either stops the
//! run with an error.

use crate::limits::{self, read_capped, ReadError, MAX_INPUT};
use crate::vm::{NoRecorder, Program, Vm, VmError, DEFAULT_MAX_CYCLES};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Process exit code for ELF loading and execution errors.
pub const EXIT_VM_ERROR: i32 = 3;
/// Process exit code for I/O errors.
pub const EXIT_IO_ERROR: i32 = 4;

/// Arguments of `kestrel run`.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// The guest: a static RV64IM ELF executable.
    pub elf: PathBuf,
    /// File whose bytes are the guest's private input (fd 0); empty if not given.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Stop with an error after this many instructions.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CYCLES)]
    pub max_cycles: u64,
    /// Print a JSON summary (with the public output) on stdout instead of the raw output.
    #[arg(long)]
    pub json: bool,
}

/// The ELF's bytes (at most [`limits::MAX_ELF_FILE`]); a file too large or without the ELF magic
/// cannot be loaded (exit 3), one that cannot be read is an I/O error (exit 4).
fn read_elf(path: &Path) -> Result<Vec<u8>, i32> {
    limits::read_elf(path).map_err(|e| match e {
        ReadError::Io(e) => {
            eprintln!("error: cannot read ELF {}: {e}", path.display());
            EXIT_IO_ERROR
        }
        e => {
            eprintln!("error: cannot load {}: {e}", path.display());
            EXIT_VM_ERROR
        }
    })
}

/// The private input (at most [`MAX_INPUT`]).
fn read_input(path: &Path) -> Result<Vec<u8>, i32> {
    read_capped(path, (MAX_INPUT, "private input"), None).map_err(|e| {
        eprintln!("error: cannot read input {}: {e}", path.display());
        EXIT_IO_ERROR
    })
}

/// Runs `kestrel run` and returns the process exit code.
pub fn run_command(args: &RunArgs) -> i32 {
    match run_inner(args) {
        Ok(code) | Err(code) => code,
    }
}

fn run_inner(args: &RunArgs) -> Result<i32, i32> {
    let elf = read_elf(&args.elf)?;
    let input = match &args.input {
        Some(p) => read_input(p)?,
        None => Vec::new(),
    };
    let program = Program::from_elf(&elf).map_err(|e| {
        eprintln!("error: cannot load {}: {e}", args.elf.display());
        EXIT_VM_ERROR
    })?;
    let mut vm = Vm::new(&program, input).with_max_cycles(args.max_cycles);
    let start = Instant::now();
    let result = vm.run(&mut NoRecorder);
    let seconds = start.elapsed().as_secs_f64();
    let cycles = vm.cycles();
    let mhz = if seconds > 0.0 {
        cycles as f64 / seconds / 1e6
    } else {
        0.0
    };

    let mut stderr = std::io::stderr().lock();
    let debug = vm.debug_output();
    let _ = stderr.write_all(debug);
    let _ = stderr.flush();
    let out = vm.public_output();
    let code = match &result {
        Ok(exit) => (exit.exit_code & 0xff) as i32,
        Err(e) => {
            // The error starts a line of its own, after the guest's debug text.
            if debug.last().is_some_and(|&b| b != b'\n') {
                let _ = writeln!(stderr);
            }
            let hint = match e {
                VmError::MaxCycles { .. } => " (raise it with --max-cycles)",
                _ => "",
            };
            let _ = writeln!(stderr, "error: {e}{hint}");
            EXIT_VM_ERROR
        }
    };
    // `run` is the pre-flight check for `prove`: say when this run could not be proven.
    let provable = cycles <= crate::limits::MAX_PROVABLE_CYCLES;
    if result.is_ok() && !provable {
        let _ = writeln!(
            stderr,
            "warning: {cycles} cycles: `kestrel prove` proves at most 2^26 = {} cycles, so \
             this run cannot be proven",
            crate::limits::MAX_PROVABLE_CYCLES
        );
    }
    if args.json {
        let summary = serde_json::json!({
            "exit_code": result.as_ref().ok().map(|e| e.exit_code),
            "cycles": cycles,
            "provable": result.is_ok() && provable,
            "seconds": seconds,
            "mhz": mhz,
            "output_hex": hex(out),
            "output_utf8": std::str::from_utf8(out).ok(),
            "error": result.as_ref().err().map(|e| e.to_string()),
        });
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = writeln!(stdout, "{summary}").and_then(|()| stdout.flush()) {
            let _ = writeln!(
                stderr,
                "error: cannot write the JSON summary to stdout: {e}"
            );
            return Err(EXIT_IO_ERROR);
        }
    } else {
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = stdout.write_all(out).and_then(|()| stdout.flush()) {
            let _ = writeln!(
                stderr,
                "error: cannot write the guest's output to stdout: {e}"
            );
            return Err(EXIT_IO_ERROR);
        }
        if let Ok(exit) = &result {
            let _ = writeln!(
                stderr,
                "kestrel: exit code {}, {cycles} cycles in {seconds:.3} s ({mhz:.1} MHz)",
                exit.exit_code
            );
        }
    }
    Ok(code)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}
