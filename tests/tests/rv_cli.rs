//! `kestrel vk`, `prove` and `verify` on a register-only program: a valid proof verifies
//! with the key file and with the ELF, and tampering, a wrong key or a foreign file are
//! rejected with the documented exit codes.

use kestrel_prover_gpu::cli_prove::{
    decode_statement, encode_statement, prove_command, verify_command, vk_command, ProveArgs,
    VerifyArgs, VkArgs,
};
use kestrel_prover_gpu::select::BackendChoice;
use kestrel_tests::vm_support::asm::{addi, exit, r};
use kestrel_tests::vm_support::elf_writer::elf;
use kestrel_tests::vm_support::TempFile;
use std::path::{Path, PathBuf};

fn verify(proof: &Path, vk: Option<&Path>, elf: Option<&Path>) -> i32 {
    verify_command(&VerifyArgs {
        json: false,
        proof: proof.into(),
        vk: vk.map(PathBuf::from),
        elf: elf.map(PathBuf::from),
        blowup: Some(8),
        public_output: None,
    })
}

#[test]
fn vk_prove_verify_round_trip() {
    let mut code = vec![addi(5, 0, 40), addi(6, 5, 2), r(0x33, 0, 0, 10, 5, 6)];
    code.extend(exit(7));
    let prog = TempFile::new("rv-cli", &elf(&code, &[]));
    let other = TempFile::new("rv-cli-other", &elf(&exit(7), &[]));
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let vk = dir.join(format!("kestrel-rv-cli-{pid}.vk"));
    let proof = dir.join(format!("kestrel-rv-cli-{pid}.proof"));
    let stats = dir.join(format!("kestrel-rv-cli-{pid}.json"));
    assert_eq!(
        vk_command(&VkArgs {
            json: false,
            elf: prog.path().into(),
            output: vk.clone(),
            blowup: 8
        }),
        0
    );
    assert_eq!(std::fs::read(&vk).unwrap().len(), 32);
    let args = ProveArgs {
        json: false,
        elf: prog.path().into(),
        output: proof.clone(),
        input: None,
        max_cycles: 1000,
        blowup: 8,
        stats: Some(stats.clone()),
        backend: BackendChoice::Cpu,
        host_fills: false,
        vram_budget: None,
        devices: None,
        segment_cycles: None,
        packers: None,
    };
    assert_eq!(prove_command(&args), 0);
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    assert_eq!(s["cycles"], 7);
    // The stats carry the key and the parameter set with its security.
    let vk_hex: String = std::fs::read(&vk)
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(s["vk"], vk_hex.as_str());
    assert_eq!(s["preset"]["blowup"], 8);
    assert!(s["preset"]["queries"].as_u64().unwrap() > 0);
    assert!(s["preset"]["provable_bits"].as_f64().unwrap() >= 100.0);
    assert!(
        s["preset"]["conjectured_bits"].as_f64().unwrap()
            >= s["preset"]["provable_bits"].as_f64().unwrap()
    );
    assert!(s["tables"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["table"] == "CPU"));
    // The proof's size by part sums to its size.
    let parts = ["opened_values", "merkle_paths", "fri", "ood", "other"].map(|k| {
        s["proof_parts"][k]
            .as_u64()
            .unwrap_or_else(|| panic!("proof_parts.{k}"))
    });
    assert_eq!(
        parts.iter().sum::<u64>(),
        s["proof_bytes"].as_u64().unwrap()
    );
    assert!(parts.iter().all(|&p| p > 0), "{parts:?}");

    assert_eq!(verify(&proof, Some(&vk), None), 0);
    assert_eq!(verify(&proof, None, Some(prog.path())), 0);
    // Another program's key.
    assert_eq!(verify(&proof, None, Some(other.path())), 1);
    // A different exit code in the statement.
    let file = std::fs::read(&proof).unwrap();
    let (mut statement, body) = decode_statement(&file).unwrap();
    statement.exit_code = 8;
    let forged = TempFile::new("rv-cli-forged", &encode_statement(&statement, body));
    assert_eq!(verify(forged.path(), Some(&vk), None), 1);
    // The same file through the verifier crate alone (what an embedder calls).
    use kestrel_verifier::statement::{verify_statement_file, FileError};
    let key = kestrel_core::keys::VerifyingKey(std::fs::read(&vk).unwrap().try_into().unwrap());
    let st = verify_statement_file(&key, &file).expect("the proof file verifies");
    assert_eq!((st.exit_code, st.output.len()), (7, 0));
    assert!(matches!(
        verify_statement_file(&key, &encode_statement(&statement, body)),
        Err(FileError::Proof(_))
    ));
    assert!(matches!(
        verify_statement_file(&key, &file[..10]),
        Err(FileError::Format(_))
    ));
    // A flipped proof byte, a truncated file, a foreign file.
    let mut bad = file.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 1;
    let bad = TempFile::new("rv-cli-bad", &bad);
    assert_eq!(verify(bad.path(), Some(&vk), None), 1);
    let short = TempFile::new("rv-cli-short", &file[..10]);
    assert_eq!(verify(short.path(), Some(&vk), None), 1);
    assert_eq!(verify(prog.path(), Some(&vk), None), 1);
    // Usage: a key of the wrong size, a missing file.
    let badkey = TempFile::new("rv-cli-key", &[0u8; 31]);
    assert_eq!(verify(&proof, Some(badkey.path()), None), 2);
    assert_eq!(verify(Path::new("/nonexistent/proof"), Some(&vk), None), 2);
    for p in [vk, proof, stats] {
        let _ = std::fs::remove_file(p);
    }
}

/// A C guest with private input and public output: the verified output is exactly what
/// `kestrel run` prints; altered, extra or missing output bytes are rejected.
#[test]
fn guest_output_is_bound_by_the_proof() {
    let guest = kestrel_tests::vm_support::guest_path("fibonacci");
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let input = TempFile::new("rv-cli-input", b"20");
    let proof = dir.join(format!("kestrel-rv-cli-out-{pid}.proof"));
    let out = dir.join(format!("kestrel-rv-cli-out-{pid}.out"));
    let args = ProveArgs {
        json: false,
        elf: guest.clone(),
        output: proof.clone(),
        input: Some(input.path().into()),
        max_cycles: 10_000_000,
        blowup: 8,
        stats: None,
        backend: BackendChoice::Cpu,
        host_fills: false,
        vram_budget: None,
        devices: None,
        segment_cycles: None,
        packers: None,
    };
    assert_eq!(prove_command(&args), 0);
    let check = |file: &Path, public_output: Option<PathBuf>| {
        verify_command(&VerifyArgs {
            json: false,
            proof: file.into(),
            vk: None,
            elf: Some(guest.clone()),
            blowup: Some(8),
            public_output,
        })
    };
    assert_eq!(check(&proof, Some(out.clone())), 0);
    let run = kestrel_tests::vm_support::run_guest("fibonacci", b"20");
    let printed = std::fs::read(&out).unwrap();
    assert!(!printed.is_empty());
    assert_eq!(
        printed, run.outcome.stdout,
        "verified output = kestrel run's stdout"
    );

    let file = std::fs::read(&proof).unwrap();
    let (statement, body) = decode_statement(&file).unwrap();
    let mut forgeries = Vec::new();
    let mut flipped = statement.clone();
    flipped.output[0] ^= 1;
    forgeries.push(("flipped byte", flipped));
    let mut extra = statement.clone();
    extra.output.push(b'!');
    forgeries.push(("extra byte", extra));
    let mut missing = statement.clone();
    missing.output.pop();
    forgeries.push(("missing byte", missing));
    let mut swapped = statement.clone();
    swapped.output.swap(0, 1);
    forgeries.push(("swapped bytes", swapped));
    for (what, st) in forgeries {
        let f = TempFile::new("rv-cli-out-forged", &encode_statement(&st, body));
        assert_eq!(check(f.path(), None), 1, "{what}");
    }
    for p in [proof, out] {
        let _ = std::fs::remove_file(p);
    }
}

mod statement_files {
    use kestrel_core::rv::machine::MAX_OUTPUT;
    use kestrel_prover_gpu::cli_prove::{decode_statement, encode_statement, Statement};
    use proptest::prelude::*;

    proptest! {
        /// Any bytes: decoding never panics, and whatever decodes re-encodes to the same file.
        #[test]
        fn decoding_hostile_files_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let mut file = b"KSTLSTMT".to_vec();
            file.extend_from_slice(&bytes);
            for f in [&bytes[..], &file[..]] {
                if let Ok((st, proof)) = decode_statement(f) {
                    prop_assert!(st.output.len() <= MAX_OUTPUT);
                    prop_assert_eq!(encode_statement(&st, proof), f.to_vec());
                }
            }
        }

        /// Statements round-trip.
        #[test]
        fn statements_round_trip(
            exit_code in any::<u64>(),
            output in proptest::collection::vec(any::<u8>(), 0..300),
            proof in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let st = Statement { exit_code, output };
            let file = encode_statement(&st, &proof);
            let (back, p) = decode_statement(&file).unwrap();
            prop_assert_eq!(back, st);
            prop_assert_eq!(p, &proof[..]);
        }
    }

    /// A length field claiming more output than a statement may carry is refused before
    /// anything is allocated for it.
    #[test]
    fn oversized_output_length_is_refused() {
        let mut file = b"KSTLSTMT".to_vec();
        file.extend_from_slice(&0u64.to_le_bytes());
        file.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_statement(&file).is_err());
    }
}

/// `--vram-budget` is the CUDA backend's: with the CPU backend it is a usage error (exit 2)
/// and no proof file is written.
#[test]
fn vram_budget_needs_the_cuda_backend() {
    let prog = TempFile::new("rv-cli-budget", &elf(&exit(0), &[]));
    let proof = std::env::temp_dir().join(format!(
        "kestrel-rv-cli-budget-{}.proof",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&proof);
    let args = ProveArgs {
        json: false,
        elf: prog.path().into(),
        output: proof.clone(),
        input: None,
        max_cycles: 1000,
        blowup: 2,
        stats: None,
        backend: BackendChoice::Cpu,
        host_fills: false,
        vram_budget: Some(1 << 30),
        devices: None,
        segment_cycles: None,
        packers: None,
    };
    assert_eq!(prove_command(&args), 2);
    assert!(!proof.exists());
}

/// `prove --stats` on the CPU backend: a `roofline` line for every stage with finite,
/// non-negative figures and a bound, measured ceilings, and each table's fill (in [0, 1]
/// where known: a table without records has none of its rows real).
#[test]
fn prove_stats_report_the_roofline_and_fill() {
    let mut code = vec![addi(5, 0, 40), addi(6, 5, 2), r(0x33, 0, 0, 10, 5, 6)];
    code.extend(exit(7));
    let prog = TempFile::new("rv-cli-roofline", &elf(&code, &[]));
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let proof = dir.join(format!("kestrel-rv-cli-roofline-{pid}.proof"));
    let stats = dir.join(format!("kestrel-rv-cli-roofline-{pid}.json"));
    let args = ProveArgs {
        json: false,
        elf: prog.path().into(),
        output: proof.clone(),
        input: None,
        max_cycles: 1000,
        blowup: 8,
        stats: Some(stats.clone()),
        backend: BackendChoice::Cpu,
        host_fills: false,
        vram_budget: None,
        devices: None,
        segment_cycles: None,
        packers: None,
    };
    assert_eq!(prove_command(&args), 0);
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    let c = &s["ceilings"];
    for k in ["copy_gb_s", "keccak_gperm_s"] {
        let v = c[k].as_f64().unwrap_or_else(|| panic!("ceilings.{k}: {c}"));
        assert!(v.is_finite() && v > 0.0, "ceilings.{k} = {v}");
    }
    assert!(c["measured_by"]
        .as_str()
        .is_some_and(|m| m.starts_with("cpu")));
    let roofline = s["roofline"].as_array().expect("a roofline array");
    let stages: Vec<&str> = roofline
        .iter()
        .map(|r| r["stage"].as_str().unwrap())
        .collect();
    assert_eq!(stages, kestrel_prover_gpu::roofline::STAGES);
    for r in roofline {
        for k in [
            "ms",
            "bytes_min",
            "keccak_perms",
            "bytes_per_s",
            "perms_per_s",
            "bandwidth_fraction",
            "keccak_fraction",
        ] {
            let v = r[k].as_f64().unwrap_or_else(|| panic!("{k} in {r}"));
            assert!(v.is_finite() && v >= 0.0, "{k} = {v} in {r}");
        }
        assert!(["bandwidth", "keccak", "none"].contains(&r["bound"].as_str().unwrap()));
    }
    let by_stage = |n: &str| roofline.iter().find(|r| r["stage"] == n).unwrap();
    assert!(by_stage("commit main")["keccak_perms"].as_u64().unwrap() > 0);
    assert!(by_stage("grinding")["keccak_perms"].as_u64().unwrap() > 0);
    assert!(by_stage("deep")["bytes_min"].as_u64().unwrap() > 0);
    // Fill: 7 steps in the CPU table's 16 rows.
    let tables = s["tables"].as_array().unwrap();
    let cpu = tables.iter().find(|t| t["table"] == "CPU").unwrap();
    assert_eq!(cpu["fill"].as_f64(), Some(7.0 / 16.0));
    for t in tables {
        let f = &t["fill"];
        assert!(
            f.is_null() || f.as_f64().is_some_and(|f| (0.0..=1.0).contains(&f)),
            "fill {f} of {}",
            t["table"]
        );
    }
    for p in [proof, stats] {
        let _ = std::fs::remove_file(p);
    }
}
