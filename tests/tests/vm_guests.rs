//! Each example guest under Kestrel's executor, checked against known answers.

use kestrel_tests::vm_support::{guest_stdout, run_guest};

fn stdout_of(name: &str, input: &[u8]) -> String {
    guest_stdout(name, input).0
}

fn exit_of(name: &str, input: &[u8]) -> u64 {
    let run = run_guest(name, input);
    assert_eq!(run.error, None, "{name}: execution failed");
    run.exit_code.expect("exited")
}

#[test]
fn fibonacci() {
    let fib = |n: u64| {
        (0..n)
            .fold((0u64, 1u64), |(a, b), _| (b, a.wrapping_add(b)))
            .0
    };
    for n in [0u64, 1, 2, 10, 90, 93, 94, 12345, 1_000_000] {
        assert_eq!(
            stdout_of("fibonacci", n.to_string().as_bytes()),
            format!("{}\n", fib(n)),
            "fib({n})"
        );
    }
    assert_eq!(stdout_of("fibonacci", b""), "55\n", "default N = 10");
    assert_eq!(stdout_of("fibonacci", b"90"), "2880067194370816120\n");
}

const SHA_VECTORS: [(&[u8], &str, &str); 3] = [
    (
        b"",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a",
    ),
    (
        b"abc",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
    ),
    (
        b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        "41c0dba2a9d6240849100376a8235e2c82e1b9998a999e21db32dd97496d3376",
    ),
];

#[test]
fn sha256_known_vectors() {
    for (msg, sha256, _) in SHA_VECTORS {
        assert_eq!(stdout_of("sha256", msg), format!("{sha256}\n"));
    }
    // FIPS 180-2: one million 'a'.
    assert_eq!(
        stdout_of("sha256", &[b'a'; 1_000_000]),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0\n"
    );
}

#[test]
fn keccak_sha3_256_known_vectors() {
    for (msg, _, sha3) in SHA_VECTORS {
        assert_eq!(stdout_of("keccak", msg), format!("{sha3}\n"));
    }
    // FIPS 202 examples: 200 bytes of 0xa3 (crosses the 136-byte rate), and 135/136-byte edges.
    assert_eq!(
        stdout_of("keccak", &[0xa3; 200]),
        "79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787\n"
    );
    assert_eq!(
        stdout_of("keccak", &[b'x'; 135]),
        "c150125edc74b56fb5cbfdd024fabe20ea5a99bd3c97305bbf7cb55885c106fe\n"
    );
    assert_eq!(
        stdout_of("keccak", &[b'x'; 136]),
        "5bc276bac9c582508b8fa9b3949e7ed9b6e584ee4d2925b29a426b9931ba1486\n"
    );
}

#[test]
fn sort() {
    let expect = |n: usize| {
        let mut s = 88172645463325252u64;
        let mut a: Vec<u64> = (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s
            })
            .collect();
        a.sort_unstable();
        let sum = a.iter().enumerate().fold(0u64, |acc, (i, &v)| {
            acc.wrapping_add((i as u64 + 1).wrapping_mul(v))
        });
        format!("{} {} {}\n", a[0], a[n - 1], sum)
    };
    for n in [1usize, 2, 1000, 50_000] {
        assert_eq!(
            stdout_of("sort", n.to_string().as_bytes()),
            expect(n),
            "n = {n}"
        );
    }
    assert_eq!(exit_of("sort", b"0"), 4, "n = 0 is rejected");
}

/// 3^n in lower-case hex, by repeated multiplication with 32-bit limbs.
fn pow3_hex(n: u32) -> String {
    let mut limbs = vec![1u32];
    for _ in 0..n {
        let mut carry = 0u64;
        for l in &mut limbs {
            let v = u64::from(*l) * 3 + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            limbs.push(carry as u32);
        }
    }
    let mut s: String = limbs.iter().rev().map(|l| format!("{l:08x}")).collect();
    let trimmed = s.trim_start_matches('0').to_string();
    s = if trimmed.is_empty() {
        "0".into()
    } else {
        trimmed
    };
    s
}

#[test]
fn bignum() {
    assert_eq!(
        stdout_of("bignum", b"100"),
        "5a4653ca673768565b41f775d6947d55cf3813d1\n"
    );
    for n in [0u32, 1, 40, 41, 64, 1000, 5000] {
        assert_eq!(
            stdout_of("bignum", n.to_string().as_bytes()),
            format!("{}\n", pow3_hex(n)),
            "3^{n}"
        );
    }
}

#[test]
fn matmul() {
    let expect = |n: i64| {
        let a = |i: i64, j: i64| (i * 7 + j * 3) % 17 - 8;
        let b = |i: i64, j: i64| (i * 5 + j * 11) % 13 - 6;
        let c = |i: i64, j: i64| (0..n).map(|k| a(i, k) * b(k, j)).sum::<i64>();
        let trace: i64 = (0..n).map(|i| c(i, i)).sum();
        let weighted: i64 = (0..n)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .map(|(i, j)| (i * n + j + 1) * c(i, j))
            .sum();
        format!("{trace} {weighted}\n")
    };
    for n in [1i64, 2, 16, 33, 64] {
        assert_eq!(
            stdout_of("matmul", n.to_string().as_bytes()),
            expect(n),
            "n = {n}"
        );
    }
    assert_eq!(exit_of("matmul", b"65"), 4, "n > 64 is rejected");
}

#[test]
fn interpreter() {
    // 20! and the sum 1..100 by loops.
    assert_eq!(
        stdout_of("interp", b"1 20 [ swap over * swap 1 - dup ] drop ."),
        "2432902008176640000\n"
    );
    assert_eq!(
        stdout_of("interp", b"0 100 [ swap over + swap 1 - dup ] drop ."),
        "5050\n"
    );
    // Truncating division, comparisons, INT64_MIN / -1.
    assert_eq!(
        stdout_of("interp", b"7 -2 / . 7 -2 % . 3 4 < . 4 3 < . 5 5 = ."),
        "-3\n1\n1\n0\n1\n"
    );
    assert_eq!(
        stdout_of("interp", b"-9223372036854775807 1 - -1 / ."),
        "-9223372036854775808\n"
    );
    // Errors.
    assert_eq!(exit_of("interp", b"7 0 /"), 6, "division by zero");
    assert_eq!(exit_of("interp", b"drop"), 7, "stack underflow");
    assert_eq!(exit_of("interp", b"1 foo"), 8, "unknown word");
    assert_eq!(exit_of("interp", b"[ 1"), 9, "unbalanced");
    assert_eq!(exit_of("interp", b"]"), 9, "unbalanced");
}
