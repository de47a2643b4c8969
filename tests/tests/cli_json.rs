//! `--json` of `run`, `prove`, `vk` and `verify`: one object on stdout with the documented
//! schema (`prover-gpu/src/cli.rs`, the README's "JSON output"), on success and on every
//! kind of failure, with `status` equal to the process's exit status.

use std::path::{Path, PathBuf};
use std::process::Command;

use kestrel_tests::cli_bin::kestrel;
use kestrel_tests::vm_support::guest_path;
use serde_json::Value;

const ENVELOPE: [&str; 5] = ["schema", "command", "ok", "status", "error"];

/// Each command's own fields, as documented.
fn fields(command: &str) -> &'static [&'static str] {
    match command {
        "run" => &[
            "exit_code",
            "cycles",
            "provable",
            "seconds",
            "mhz",
            "output_hex",
            "output_utf8",
        ],
        "prove" => &[
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
        "vk" => &["vk", "blowup", "path"],
        "verify" => &["valid", "exit_code", "output_hex", "output_utf8", "blowup"],
        _ => &[],
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kestrel-cli-json-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `kestrel args…`; checks that stdout is one JSON object with exactly the envelope and
/// the command's documented fields, and that `status` is the exit status.
fn json(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Value {
    let mut c = Command::new(kestrel());
    for a in args {
        c.arg(a);
    }
    let o = c.output().unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "one line on stdout: {text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let obj = v.as_object().unwrap();
    let command = v["command"].as_str().unwrap();
    let mut want: Vec<&str> = ENVELOPE.to_vec();
    want.extend(fields(command));
    want.sort_unstable();
    let mut have: Vec<&str> = obj.keys().map(String::as_str).collect();
    have.sort_unstable();
    assert_eq!(have, want, "{command}: {text}");
    assert_eq!(v["schema"], "kestrel/1");
    assert_eq!(v["status"], o.status.code().unwrap(), "{text}");
    assert_eq!(v["ok"], v["error"].is_null(), "{text}");
    if let Some(e) = v["error"].as_object() {
        assert!(e["kind"].is_string() && e["message"].is_string(), "{text}");
    }
    v
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn run_prove_vk_verify_succeed() {
    let d = scratch("ok");
    let elf = s(&guest_path("fibonacci"));
    let input = d.join("n");
    std::fs::write(&input, "30").unwrap();
    let input = s(&input);
    let run = json(&[&"run", &elf, &"--input", &input, &"--json"]);
    assert_eq!(run["ok"], true);
    assert_eq!(run["exit_code"], 0);
    assert_eq!(run["provable"], true);
    assert_eq!(run["output_utf8"], "832040\n");
    let proof = s(&d.join("p"));
    let prove = json(&[
        &"prove",
        &elf,
        &"--input",
        &input,
        &"-o",
        &proof,
        &"--blowup",
        &"2",
        &"--backend",
        &"cpu",
        &"--json",
    ]);
    assert_eq!(prove["ok"], true);
    assert_eq!(prove["backend"], "cpu");
    assert_eq!(prove["cycles"], run["cycles"]);
    assert_eq!(prove["output_hex"], run["output_hex"]);
    assert_eq!(prove["blowup"], 2);
    assert_eq!(prove["proof"], proof.as_str());
    assert_eq!(
        prove["proof_bytes"].as_u64().unwrap()
            + kestrel_verifier::statement::STATEMENT_HEADER_LEN as u64
            + 7,
        std::fs::metadata(&proof).unwrap().len()
    );
    let key = s(&d.join("vk"));
    let vk = json(&[&"vk", &elf, &"-o", &key, &"--blowup", &"2", &"--json"]);
    assert_eq!(vk["ok"], true);
    assert_eq!(vk["vk"], prove["vk"]);
    let verify = json(&[&"verify", &proof, &"--vk", &key, &"--json"]);
    assert_eq!(verify["ok"], true);
    assert_eq!(verify["valid"], true);
    assert_eq!(verify["blowup"], 2);
    assert_eq!(verify["exit_code"], 0);
    assert_eq!(verify["output_utf8"], "832040\n");
    let by_elf = json(&[&"verify", &proof, &"--elf", &elf, &"--json"]);
    assert_eq!(by_elf["valid"], true);
}

#[test]
fn failures_name_their_kind() {
    let d = scratch("fail");
    let elf = s(&guest_path("fibonacci"));
    let out = s(&d.join("p"));
    let case = |args: &[&dyn AsRef<std::ffi::OsStr>], kind: &str, status: i32| {
        let v = json(args);
        assert_eq!(v["ok"], false, "{v}");
        assert_eq!(v["error"]["kind"], kind, "{v}");
        assert_eq!(v["status"], status, "{v}");
        v
    };
    // usage, found by clap and by the command
    case(
        &[&"prove", &elf, &"-o", &out, &"--blowup", &"3", &"--json"],
        "usage",
        2,
    );
    case(
        &[
            &"prove",
            &elf,
            &"-o",
            &out,
            &"--backend",
            &"cpu",
            &"--vram-budget",
            &"1G",
            &"--json",
        ],
        "usage",
        2,
    );
    // input: a missing ELF (run: 4, prove: 2), a missing input file
    case(&[&"run", &"/nonexistent.elf", &"--json"], "input", 4);
    case(
        &[&"prove", &"/nonexistent.elf", &"-o", &out, &"--json"],
        "input",
        2,
    );
    case(
        &[
            &"prove",
            &elf,
            &"-o",
            &out,
            &"--input",
            &"/nonexistent",
            &"--json",
        ],
        "input",
        2,
    );
    // load: not an ELF
    let not_elf = d.join("x.elf");
    std::fs::write(&not_elf, b"#!/bin/sh\n").unwrap();
    case(&[&"run", &s(&not_elf), &"--json"], "load", 3);
    case(&[&"vk", &s(&not_elf), &"-o", &out, &"--json"], "load", 3);
    // run: a cycle limit; run's fields still say how far it got
    let v = case(&[&"run", &elf, &"--max-cycles", &"5", &"--json"], "run", 3);
    assert_eq!(v["cycles"], 5);
    assert_eq!(v["provable"], false);
    case(
        &[
            &"prove",
            &elf,
            &"-o",
            &out,
            &"--max-cycles",
            &"5",
            &"--json",
        ],
        "run",
        3,
    );
    // invalid: not a proof file, a proof of another statement
    case(
        &[&"verify", &s(&not_elf), &"--elf", &elf, &"--json"],
        "invalid",
        1,
    );
    let proof = d.join("good");
    let v = json(&[
        &"prove",
        &elf,
        &"-o",
        &s(&proof),
        &"--blowup",
        &"2",
        &"--backend",
        &"cpu",
        &"--json",
    ]);
    assert_eq!(v["ok"], true);
    let mut bytes = std::fs::read(&proof).unwrap();
    bytes[10] ^= 1; // the exit code (after the magic and the version)
    let forged = d.join("forged");
    std::fs::write(&forged, &bytes).unwrap();
    let v = case(
        &[&"verify", &s(&forged), &"--elf", &elf, &"--json"],
        "invalid",
        1,
    );
    assert_eq!(v["valid"], false);
    assert_eq!(v["blowup"], 2);
    // usage: a verify --blowup other than the proof's
    case(
        &[
            &"verify",
            &s(&proof),
            &"--elf",
            &elf,
            &"--blowup",
            &"4",
            &"--json",
        ],
        "usage",
        2,
    );
    // write: an output path in a missing directory
    case(
        &[&"vk", &elf, &"-o", &"/nonexistent/dir/vk", &"--json"],
        "write",
        4,
    );
}
