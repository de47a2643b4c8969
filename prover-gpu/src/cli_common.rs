//! What the `kestrel` commands share: the one map from error kinds to exit codes
//! ([`exit_code`]), how a command ends ([`finish`]) and the `--json` envelope.
//!
//! # `--json`
//!
//! With `--json`, `run`, `prove`, `vk` and `verify` print exactly one JSON object on stdout
//! (stderr keeps its human lines). Schema version 1, stable: fields are only ever added.
//!
//! | field | type | meaning |
//! | --- | --- | --- |
//! | `schema` | string | `"kestrel/1"` |
//! | `command` | string | `"run"`, `"prove"`, `"vk"` or `"verify"` |
//! | `ok` | bool | the command succeeded (`verify`: the proof is valid; `run`: the guest exited) |
//! | `status` | int | the process's exit status |
//! | `error` | null or object | `{"kind", "message"}` when `ok` is false |
//!
//! `error.kind` is one of `usage`, `input`, `load`, `run`, `unprovable`, `budget`,
//! `no_device`, `device`, `prove`, `invalid`, `write` ([`ErrorKind`]); `message` is the
//! text of the `error:` line. The command's own fields follow; each is present in every
//! object, null where the command stopped before knowing it:
//!
//! | command | fields |
//! | --- | --- |
//! | `run` | `exit_code` (the guest's, 64 bits), `cycles`, `provable`, `seconds`, `mhz`, `output_hex`, `output_utf8` (null unless UTF-8) |
//! | `prove` | `backend`, `cycles`, `exit_code`, `output_hex`, `output_utf8`, `blowup`, `vk` (hex), `proof` (path), `proof_bytes`, `seconds`, `khz` |
//! | `vk` | `vk` (hex), `blowup`, `path` |
//! | `verify` | `valid`, `exit_code`, `output_hex`, `output_utf8`, `blowup` (the proof's preset) |
//!
//! A usage error that clap finds (an unknown flag, a value out of range) is reported the
//! same way when `--json` is among the arguments (`command` is then the first argument).

use std::io::Write;

use serde_json::{json, Map, Value};

use crate::api::{self, ErrorKind};

/// The commands that report through [`finish`] (`run` differs in one exit code: an
/// unreadable file is 4, an I/O error, as for the guest's stdout).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmd {
    Run,
    Prove,
    Vk,
    Verify,
}

impl Cmd {
    pub fn name(self) -> &'static str {
        match self {
            Cmd::Run => "run",
            Cmd::Prove => "prove",
            Cmd::Vk => "vk",
            Cmd::Verify => "verify",
        }
    }
}

/// The command's own `--json` fields, as documented above.
pub fn fields_of(cmd: Cmd) -> &'static [&'static str] {
    match cmd {
        Cmd::Run => &[
            "exit_code",
            "cycles",
            "provable",
            "seconds",
            "mhz",
            "output_hex",
            "output_utf8",
        ],
        Cmd::Prove => &[
            "backend",
            "cycles",
            "exit_code",
            "output_hex",
            "output_utf8",
            "blowup",
            "vk",
            "proof",
            "proof_bytes",
            "seconds",
            "khz",
        ],
        Cmd::Vk => &["vk", "blowup", "path"],
        Cmd::Verify => &["valid", "exit_code", "output_hex", "output_utf8", "blowup"],
    }
}

/// Every field of `cmd`, null (a command fills in what it learns).
pub fn null_fields(cmd: Cmd) -> Map<String, Value> {
    fields_of(cmd)
        .iter()
        .map(|k| (k.to_string(), Value::Null))
        .collect()
}

/// The exit status of a failure of `kind` in `cmd`: the one place error kinds become exit
/// codes. 1: proving failed or the proof is invalid; 2: usage, an unreadable or oversized
/// input (`run`: 4), no such backend; 3: the ELF cannot be loaded or run; 4: an output
/// cannot be written.
pub fn exit_code(cmd: Cmd, kind: ErrorKind) -> i32 {
    match kind {
        ErrorKind::Usage | ErrorKind::NoDevice => 2,
        ErrorKind::Input if cmd == Cmd::Run => 4,
        ErrorKind::Input => 2,
        ErrorKind::Load | ErrorKind::Run => 3,
        ErrorKind::Unprovable
        | ErrorKind::Budget
        | ErrorKind::Device
        | ErrorKind::Prove
        | ErrorKind::Invalid => 1,
        ErrorKind::Write => 4,
    }
}

/// A command's failure: its kind and its one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: ErrorKind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
        }
    }
}

impl From<api::Error> for Failure {
    fn from(e: api::Error) -> Failure {
        Failure::new(e.kind(), e.to_string())
    }
}

/// The `--json` object: the envelope, then `fields`.
pub fn envelope(
    command: &str,
    outcome: Result<i32, &Failure>,
    fields: Map<String, Value>,
) -> Value {
    let cmd = [Cmd::Run, Cmd::Prove, Cmd::Vk, Cmd::Verify]
        .into_iter()
        .find(|c| c.name() == command);
    let (ok, status, error) = match outcome {
        Ok(status) => (true, status, Value::Null),
        Err(f) => (
            false,
            cmd.map_or(2, |c| exit_code(c, f.kind)),
            json!({ "kind": f.kind.name(), "message": f.message }),
        ),
    };
    let mut out = Map::new();
    out.insert("schema".into(), json!("kestrel/1"));
    out.insert("command".into(), json!(command));
    out.insert("ok".into(), json!(ok));
    out.insert("status".into(), json!(status));
    out.insert("error".into(), error);
    out.extend(fields);
    Value::Object(out)
}

/// Prints one JSON object on stdout.
///
/// # Errors
/// If stdout cannot be written.
pub fn print_json(v: &Value) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{v}").and_then(|()| stdout.flush())
}

/// Ends a command: prints the failure's line (`error: …` on stderr; `invalid: …` on
/// stdout for a proof that does not verify, on stderr with `--json`), then with `--json`
/// the object; returns the exit status. `ok_status` is the status on success (`run`: the
/// guest's exit code; `verify`: `ok` is whether the proof is valid).
pub fn finish(
    cmd: Cmd,
    json: bool,
    outcome: Result<i32, Failure>,
    fields: Map<String, Value>,
) -> i32 {
    if let Err(f) = &outcome {
        if f.kind == ErrorKind::Invalid {
            if json {
                eprintln!("invalid: {}", f.message);
            } else {
                println!("invalid: {}", f.message);
            }
        } else {
            eprintln!("error: {}", f.message);
        }
    }
    let status = match &outcome {
        Ok(s) => *s,
        Err(f) => exit_code(cmd, f.kind),
    };
    if json {
        if let Err(e) = print_json(&envelope(cmd.name(), outcome.as_ref().map(|s| *s), fields)) {
            eprintln!("error: cannot write the JSON summary to stdout: {e}");
            return exit_code(cmd, ErrorKind::Write);
        }
    }
    status
}

/// Hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The output fields every command that knows a statement reports.
pub fn output_fields(
    fields: &mut Map<String, Value>,
    exit_code: Option<u64>,
    output: Option<&[u8]>,
) {
    fields.insert("exit_code".into(), json!(exit_code));
    fields.insert("output_hex".into(), json!(output.map(hex)));
    fields.insert(
        "output_utf8".into(),
        json!(output.and_then(|o| std::str::from_utf8(o).ok())),
    );
}

/// A spinner on stderr while long work runs, when stderr is a terminal.
pub fn spinner(msg: &'static str) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = indicatif::ProgressBar::new_spinner();
    if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        pb.set_style(style);
    }
    pb.set_message(msg);
    pb.enable_steady_tick(std::time::Duration::from_millis(100));
    Some(pb)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes the commands' docs promise, from the one map.
    #[test]
    fn exit_codes() {
        assert_eq!(exit_code(Cmd::Run, ErrorKind::Run), 3);
        assert_eq!(exit_code(Cmd::Run, ErrorKind::Load), 3);
        assert_eq!(exit_code(Cmd::Run, ErrorKind::Input), 4);
        assert_eq!(exit_code(Cmd::Prove, ErrorKind::Input), 2);
        assert_eq!(exit_code(Cmd::Prove, ErrorKind::Budget), 1);
        assert_eq!(exit_code(Cmd::Verify, ErrorKind::Invalid), 1);
        assert_eq!(exit_code(Cmd::Vk, ErrorKind::Write), 4);
    }

    #[test]
    fn envelope_fields() {
        let v = envelope(
            "prove",
            Err(&Failure::new(ErrorKind::Budget, "too big")),
            Map::new(),
        );
        assert_eq!(v["schema"], "kestrel/1");
        assert_eq!(v["ok"], false);
        assert_eq!(v["status"], 1);
        assert_eq!(v["error"]["kind"], "budget");
        assert_eq!(v["error"]["message"], "too big");
    }
}
