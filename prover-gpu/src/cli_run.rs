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

use std::io::Write;
use std::path::PathBuf;

use serde_json::{json, Map, Value};

use crate::api::{self, ErrorKind, Guest, VmError, DEFAULT_MAX_CYCLES};
use crate::cli_common::{finish, null_fields, output_fields, Cmd, Failure};
use crate::limits::MAX_INPUT;

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
    /// Print one JSON object (with the public output) on stdout instead of the raw output
    /// (schema in the README's "JSON output").
    #[arg(long)]
    pub json: bool,
}

/// Runs `kestrel run` and returns the process exit code.
pub fn run_command(args: &RunArgs) -> i32 {
    let mut fields = null_fields(Cmd::Run);
    let outcome = run_inner(args, &mut fields);
    finish(Cmd::Run, args.json, outcome, fields)
}

fn run_inner(args: &RunArgs, fields: &mut Map<String, Value>) -> Result<i32, Failure> {
    let guest = Guest::load(&args.elf)?;
    let input = match &args.input {
        Some(p) => api::read_file(p, "input", (MAX_INPUT, "private input"))?,
        None => Vec::new(),
    };
    let run = guest.execute(&input, args.max_cycles);
    let (cycles, seconds) = (run.cycles, run.seconds);
    let mhz = if seconds > 0.0 {
        cycles as f64 / seconds / 1e6
    } else {
        0.0
    };
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(&run.debug_output);
    let _ = stderr.flush();
    let out = &run.public_output;
    // `run` is the pre-flight check for `prove`: say when this run could not be proven.
    let provable = run.provable();
    output_fields(
        fields,
        run.result.as_ref().ok().map(|e| e.exit_code),
        Some(out),
    );
    fields.insert("cycles".into(), json!(cycles));
    fields.insert("provable".into(), json!(provable));
    fields.insert("seconds".into(), json!(seconds));
    fields.insert("mhz".into(), json!(mhz));
    if run.result.is_ok() && !provable {
        let _ = writeln!(
            stderr,
            "warning: {cycles} cycles: `kestrel prove` proves at most 2^36 = {} cycles, so \
             this run cannot be proven",
            crate::limits::MAX_PROVABLE_CYCLES
        );
    }
    if !args.json {
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = stdout.write_all(out).and_then(|()| stdout.flush()) {
            return Err(Failure::new(
                ErrorKind::Write,
                format!("cannot write the guest's output to stdout: {e}"),
            ));
        }
    }
    match &run.result {
        Ok(exit) => {
            if !args.json {
                let _ = writeln!(
                    stderr,
                    "kestrel: exit code {}, {cycles} cycles in {seconds:.3} s ({mhz:.1} MHz)",
                    exit.exit_code
                );
            }
            Ok((exit.exit_code & 0xff) as i32)
        }
        Err(e) => {
            // The error starts a line of its own, after the guest's debug text.
            if run.debug_output.last().is_some_and(|&b| b != b'\n') {
                let _ = writeln!(stderr);
            }
            let hint = match e {
                VmError::MaxCycles { .. } => " (raise it with --max-cycles)",
                _ => "",
            };
            Err(Failure::new(ErrorKind::Run, format!("{e}{hint}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{EXIT_IO_ERROR, EXIT_VM_ERROR};
    use crate::api::ErrorKind;
    use crate::cli_common::{exit_code, Cmd};

    /// The codes this module documents are the one map's.
    #[test]
    fn documented_codes() {
        assert_eq!(exit_code(Cmd::Run, ErrorKind::Run), EXIT_VM_ERROR);
        assert_eq!(exit_code(Cmd::Run, ErrorKind::Input), EXIT_IO_ERROR);
    }
}
