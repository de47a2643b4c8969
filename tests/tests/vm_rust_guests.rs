//! The Rust guests (`tests/guests/rust`, prebuilt in `tests/guests/bin/rust`): the Rust SHA-256
//! guest (the `sha2` crate over the `kestrel-guest` runtime) gives the same output as the C
//! SHA-256 guest and `sha256sum` under Kestrel's executor and under `qemu-riscv64`, uses only
//! 32-bit RV64IM instructions, and proves and verifies on the CPU backend. json-rs (serde_json)
//! and bignum-rs (crypto-bigint modexp) match independently computed outputs and qemu, reject
//! invalid inputs with exit code 1, and prove.

use kestrel_tests::vm_support::{
    guest_path, guest_stdout, prove_guest, run_guest, run_qemu, run_recorded,
};
use std::io::Write;
use std::process::{Command, Stdio};

const RUST_SHA: &str = "rust/sha256-rs";

/// Known SHA-256 digests (FIPS 180-2 and the empty message).
const KNOWN: [(&[u8], &str); 3] = [
    (
        b"",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ),
    (
        b"abc",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    ),
    (
        b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ),
];

/// A few KB of varied bytes (crosses many 64-byte blocks, and a 4 KiB read boundary).
fn kb_input(len: usize) -> Vec<u8> {
    (0..len as u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8)
        .collect()
}

fn inputs() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = KNOWN.iter().map(|(m, _)| m.to_vec()).collect();
    for len in [55, 56, 63, 64, 65, 4095, 4096, 4097, 5000] {
        v.push(kb_input(len));
    }
    v
}

/// `sha256sum`'s digest of `input` (coreutils), as `HEX\n`.
fn sha256sum(input: &[u8]) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sha256sum (coreutils) runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input)
        .expect("write to sha256sum");
    let out = child.wait_with_output().expect("sha256sum finishes");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("text");
    format!("{}\n", text.split_whitespace().next().expect("a digest"))
}

#[test]
fn rust_sha256_known_vectors() {
    for (msg, digest) in KNOWN {
        let (out, cycles) = guest_stdout(RUST_SHA, msg);
        assert_eq!(out, format!("{digest}\n"), "input {msg:?}");
        eprintln!("{RUST_SHA}: {} bytes, {cycles} cycles", msg.len());
    }
}

#[test]
fn rust_sha256_matches_c_guest_and_sha256sum() {
    for input in inputs() {
        let expected = sha256sum(&input);
        let (rust, rust_cycles) = guest_stdout(RUST_SHA, &input);
        let (c, c_cycles) = guest_stdout("sha256", &input);
        assert_eq!(
            rust,
            expected,
            "Rust guest vs sha256sum, {} bytes",
            input.len()
        );
        assert_eq!(c, expected, "C guest vs sha256sum, {} bytes", input.len());
        eprintln!(
            "{} bytes: Rust {rust_cycles} cycles, C {c_cycles} cycles",
            input.len()
        );
    }
}

#[test]
fn rust_sha256_under_qemu() {
    for input in inputs() {
        let expected = sha256sum(&input);
        let q = run_qemu(&guest_path(RUST_SHA), &input);
        assert_eq!(q.status, Some(0), "qemu exit status, {} bytes", input.len());
        assert_eq!(
            String::from_utf8(q.stdout).expect("text"),
            expected,
            "qemu output, {} bytes",
            input.len()
        );
        // And Kestrel agrees with qemu on the whole outcome.
        let run = run_guest(RUST_SHA, &input);
        assert_eq!(run.outcome.stdout, expected.as_bytes());
        assert_eq!(run.outcome.status, Some(0));
    }
}

#[test]
fn rust_sha256_elf_properties() {
    let elf = std::fs::read(guest_path(RUST_SHA)).expect("prebuilt ELF");
    // ELF64, little-endian, RISC-V, e_flags 0: no RVC, soft-float ABI.
    assert_eq!(&elf[..6], b"\x7fELF\x02\x01");
    assert_eq!(u16::from_le_bytes([elf[18], elf[19]]), 243, "EM_RISCV");
    let e_flags = u32::from_le_bytes(elf[48..52].try_into().unwrap());
    assert_eq!(e_flags, 0, "e_flags (0x1 would be RVC)");
    // Every executed instruction is a 32-bit one at a 4-byte-aligned pc.
    let (_, records, exit) = run_recorded(RUST_SHA, &kb_input(5000));
    assert_eq!(exit.exit_code, 0);
    assert!(!records.is_empty());
    for r in &records {
        assert_eq!(r.word & 3, 3, "compressed instruction at {:#x}", r.pc);
        assert_eq!(r.pc % 4, 0, "misaligned pc {:#x}", r.pc);
        // No A extension (opcode AMO = 0x2f), no float loads/stores/ops, no FENCE.I.
        let opcode = r.word & 0x7f;
        assert!(
            !matches!(
                opcode,
                0x2f | 0x07 | 0x27 | 0x43 | 0x47 | 0x4b | 0x4f | 0x53
            ),
            "non-RV64IM instruction {:#010x} at {:#x}",
            r.word,
            r.pc
        );
    }
}

#[test]
fn rust_sha256_exits_cleanly_without_debug_output() {
    // The runtime's exit path: main's return value (0) is the exit code, nothing on fd 2.
    let run = run_guest(RUST_SHA, b"");
    assert_eq!(run.exit_code, Some(0));
    assert!(
        run.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn rust_sha256_proves() {
    prove_guest(RUST_SHA, b"abc");
}

// --- json-rs: serde + serde_json (no_std, alloc) ---

const RUST_JSON: &str = "rust/json-rs";

/// Valid JSON documents for json-rs: a name and the values, formatted as JSON in different
/// ways (whitespace, escapes, field order, an extra field is ignored by serde's default).
fn json_docs() -> Vec<(Vec<u8>, String, Vec<u64>)> {
    let many: Vec<u64> = (0..200u64).map(|i| i * i * 1_000_003).collect();
    let many_json = many
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    vec![
        (
            br#"{"name":"abc","values":[1,2,3]}"#.to_vec(),
            "abc".into(),
            vec![1, 2, 3],
        ),
        (
            br#"{"name": "empty", "values": []}"#.to_vec(),
            "empty".into(),
            vec![],
        ),
        (
            b" {\n  \"values\" : [18446744073709551615, 7],\n  \"name\" : \"k\\u00e9strel \\\"q\\\"\",\n  \"extra\": {\"a\": [null, true]}\n}\n"
                .to_vec(),
            "k\u{e9}strel \"q\"".into(),
            vec![u64::MAX, 7],
        ),
        (
            format!(r#"{{"name":"many","values":[{many_json}]}}"#).into_bytes(),
            "many".into(),
            many,
        ),
    ]
}

/// json-rs's summary, computed here from the values the document was made from.
fn json_summary(name: &str, values: &[u64]) -> String {
    let sum = values.iter().fold(0u64, |a, &v| a.wrapping_add(v));
    format!("name={name} count={} sum={sum}\n", values.len())
}

/// Inputs json-rs must reject (exit 1, nothing committed): not JSON, or JSON of another shape.
const JSON_INVALID: [&[u8]; 7] = [
    b"",
    b"{",
    br#"{"name": "x", values: [1]}"#,
    br#"{"name": "x", "values": [1, -2]}"#,
    br#"{"name": "x", "values": [18446744073709551616]}"#,
    br#"{"name": "x"}"#,
    br#"{"name": "x", "values": [1]} trailing"#,
];

#[test]
fn rust_json_decodes_and_matches_qemu() {
    for (doc, name, values) in json_docs() {
        let expected = json_summary(&name, &values);
        let (out, cycles) = guest_stdout(RUST_JSON, &doc);
        assert_eq!(out, expected, "input {}", String::from_utf8_lossy(&doc));
        let q = run_qemu(&guest_path(RUST_JSON), &doc);
        assert_eq!(q.status, Some(0), "qemu exit status");
        assert_eq!(String::from_utf8(q.stdout).expect("text"), expected, "qemu");
        eprintln!("{RUST_JSON}: {} bytes, {cycles} cycles", doc.len());
    }
}

#[test]
fn rust_json_rejects_invalid_input() {
    for doc in JSON_INVALID {
        let run = run_guest(RUST_JSON, doc);
        assert_eq!(run.error, None, "execution failed");
        assert_eq!(
            run.exit_code,
            Some(1),
            "input {}",
            String::from_utf8_lossy(doc)
        );
        assert!(run.outcome.stdout.is_empty(), "nothing committed");
        let q = run_qemu(&guest_path(RUST_JSON), doc);
        assert_eq!(q.status, Some(1), "qemu exit status");
        assert!(q.stdout.is_empty(), "qemu: nothing committed");
    }
}

// --- bignum-rs: crypto-bigint 256-bit modular exponentiation ---

const RUST_BIGNUM: &str = "rust/bignum-rs";

/// 2^255 - 19.
const P25519: [u8; 32] = {
    let mut p = [0xffu8; 32];
    p[0] = 0x7f;
    p[31] = 0xed;
    p
};

fn u256_be(v: u128) -> [u8; 32] {
    let mut b = [0u8; 32];
    b[16..].copy_from_slice(&v.to_be_bytes());
    b
}

fn bignum_input(base: &[u8; 32], exp: &[u8; 32], modulus: &[u8; 32]) -> Vec<u8> {
    [&base[..], &exp[..], &modulus[..]].concat()
}

/// base^exp mod m in u128 arithmetic (m < 2^64, so products fit), for the small cases.
fn modpow_u128(base: u128, mut exp: u128, m: u128) -> u128 {
    let mut acc = 1 % m;
    let mut b = base % m;
    while exp > 0 {
        if exp & 1 == 1 {
            acc = acc * b % m;
        }
        b = b * b % m;
        exp >>= 1;
    }
    acc
}

/// (input, expected output) for bignum-rs.
fn bignum_cases() -> Vec<(Vec<u8>, String)> {
    let mut v = Vec::new();
    // Known answers with 256-bit numbers; the hex values were computed with Python 3's
    // built-in pow(base, exp, mod), e.g. `'%064x' % pow(3, 0x10001, 2**255 - 19)`.
    v.push((
        bignum_input(&u256_be(3), &u256_be(0x10001), &P25519),
        "03f04683df34a517220db397a217b1c0bcb428a45104be9bf3f8db540f66d7f2\n".to_string(),
    ));
    // Fermat: 2^(p-1) = 1 mod p, p = 2^255 - 19 prime.
    let mut p_minus_1 = P25519;
    p_minus_1[31] -= 1;
    v.push((
        bignum_input(&u256_be(2), &p_minus_1, &P25519),
        format!("{:064x}\n", 1),
    ));
    // The inverse of 9 mod p (exponent p - 2): pow(9, 2**255 - 21, 2**255 - 19).
    let mut p_minus_2 = P25519;
    p_minus_2[31] -= 2;
    v.push((
        bignum_input(&u256_be(9), &p_minus_2, &P25519),
        "471c71c71c71c71c71c71c71c71c71c71c71c71c71c71c71c71c71c71c71c712\n".to_string(),
    ));
    // Full-width operands: pow(2**255 + 12345, 2**256 - 1, 2**256 - 189).
    let mut base = u256_be(12345);
    base[0] = 0x80;
    let mut modulus = [0xffu8; 32];
    modulus[31] = 0x43; // 2^256 - 189
    v.push((
        bignum_input(&base, &[0xff; 32], &modulus),
        "819213fc69ce0fd0f087b6b1f343727ff4e2fd6c8ecda8489a377266b0fe004c\n".to_string(),
    ));
    // Small operands, checked with u128 arithmetic here (base >= modulus, exponent 0, ...).
    for (b, e, m) in [
        (5u128, 3u128, 7u128),
        (1_000_008, 3, 1_000_003),
        (123_456_789, 0, 1_000_000_007),
        (0, 5, 97),
        (0xdead_beef_cafe, 0x1234_5678_9abc, 0xffff_ffff_ffff_ffc5),
        (2, 10, 1),
    ] {
        v.push((
            bignum_input(&u256_be(b), &u256_be(e), &u256_be(m)),
            format!("{:064x}\n", modpow_u128(b, e, m)),
        ));
    }
    v
}

#[test]
fn rust_bignum_modpow_matches_known_answers_and_qemu() {
    for (input, expected) in bignum_cases() {
        let (out, cycles) = guest_stdout(RUST_BIGNUM, &input);
        assert_eq!(out, expected, "Kestrel, input {input:02x?}");
        let q = run_qemu(&guest_path(RUST_BIGNUM), &input);
        assert_eq!(q.status, Some(0), "qemu exit status");
        assert_eq!(String::from_utf8(q.stdout).expect("text"), expected, "qemu");
        eprintln!("{RUST_BIGNUM}: {cycles} cycles");
    }
}

#[test]
fn rust_bignum_rejects_invalid_input() {
    let even = bignum_input(&u256_be(3), &u256_be(5), &u256_be(100));
    for input in [Vec::new(), vec![1u8; 95], vec![1u8; 97], even] {
        let run = run_guest(RUST_BIGNUM, &input);
        assert_eq!(run.error, None, "execution failed");
        assert_eq!(run.exit_code, Some(1), "{} bytes", input.len());
        assert!(run.outcome.stdout.is_empty(), "nothing committed");
        let q = run_qemu(&guest_path(RUST_BIGNUM), &input);
        assert_eq!(q.status, Some(1), "qemu exit status");
        assert!(q.stdout.is_empty(), "qemu: nothing committed");
    }
}

#[test]
fn rust_json_proves() {
    prove_guest(RUST_JSON, br#"{"name":"abc","values":[1,2,3]}"#);
}

#[test]
fn rust_bignum_proves() {
    let (input, _) = bignum_cases().swap_remove(0);
    prove_guest(RUST_BIGNUM, &input);
}
