//! Differential tests: Kestrel's executor against `qemu-riscv64` (the oracle).
//!
//! (a) every example guest and every ISA test gives the same stdout and exit status under both;
//! (b) random RV64IM programs (see `vm_support::rvgen`) give byte-identical register dumps.
//! QEMU missing is a failure, not a skip. `KESTREL_QEMU_SEEDS` sets the number of random programs
//! (default 2000).

use kestrel_tests::vm_support::{
    example_guests, isa_tests, run_kestrel, run_qemu, rvgen, Outcome, TempFile,
};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Inputs each example guest is run with.
fn inputs_for(name: &str) -> Vec<Vec<u8>> {
    match name {
        "fibonacci" => vec![
            b"0".to_vec(),
            b"1".to_vec(),
            b"90".to_vec(),
            b"100000".to_vec(),
            Vec::new(),
        ],
        "sha256" | "keccak" => vec![
            Vec::new(),
            b"abc".to_vec(),
            vec![0x5a; 1000],
            (0..=255u8).cycle().take(5000).collect(),
        ],
        "sort" => vec![b"1".to_vec(), b"1000".to_vec(), b"0".to_vec()],
        "bignum" => vec![b"0".to_vec(), b"100".to_vec(), b"2000".to_vec()],
        "matmul" => vec![
            b"1".to_vec(),
            b"16".to_vec(),
            b"40".to_vec(),
            b"65".to_vec(),
        ],
        "interp" => vec![
            b"1 20 [ swap over * swap 1 - dup ] drop .".to_vec(),
            b"7 0 /".to_vec(),
            b"-9223372036854775807 1 - -1 / . 5 -3 % .".to_vec(),
            b"drop".to_vec(),
        ],
        _ => vec![Vec::new()],
    }
}

fn assert_same(path: &std::path::Path, input: &[u8]) {
    let elf = std::fs::read(path).expect("prebuilt ELF");
    let k = run_kestrel(&elf, input, 1 << 32);
    let q = run_qemu(path, input);
    assert!(q.status.is_some(), "{} crashed under qemu", path.display());
    assert_eq!(
        k.outcome,
        q,
        "{} with input {:?}: kestrel (error {:?}) differs from qemu",
        path.display(),
        String::from_utf8_lossy(input),
        k.error
    );
}

#[test]
fn example_guests_match_qemu() {
    for path in example_guests() {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        for input in inputs_for(&name) {
            assert_same(&path, &input);
        }
    }
}

#[test]
fn isa_tests_match_qemu() {
    for path in isa_tests() {
        assert_same(&path, b"");
    }
}

fn check_seed(seed: u64) -> Result<(), String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut next = || rng.next_u64();
    let body = 20 + (next() % 60) as usize;
    let elf = rvgen::random_program(&mut next, body);
    let k = run_kestrel(&elf, b"", 100_000);
    let file = TempFile::new("rvgen", &elf);
    let q = run_qemu(file.path(), b"");
    if k.outcome != q || q.status.is_none() || q.stdout.len() != rvgen::DUMP_LEN as usize {
        return Err(format!(
            "seed {seed}: kestrel {:?} (error {:?}) vs qemu {:?}",
            summary(&k.outcome),
            k.error,
            summary(&q)
        ));
    }
    Ok(())
}

fn summary(o: &Outcome) -> String {
    let regs: Vec<String> = o
        .stdout
        .chunks(8)
        .map(|c| {
            let mut a = [0u8; 8];
            a[..c.len()].copy_from_slice(c);
            format!("{:#x}", u64::from_le_bytes(a))
        })
        .collect();
    format!("status {:?}, dump [{}]", o.status, regs.join(", "))
}

#[test]
fn random_programs_match_qemu() {
    let seeds: u64 = std::env::var("KESTREL_QEMU_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8) as u64;
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t..seeds)
                        .step_by(threads as usize)
                        .filter_map(|seed| check_seed(seed).err())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {seeds} random programs differ:\n{}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The documented differences to qemu (core/src/rv/mod.rs, "The executor and
/// qemu-riscv64"), each shown on both.
#[test]
fn documented_differences_to_qemu() {
    use kestrel_tests::vm_support::asm::{addi, exit, ld, lui, r, reg::*, sd, ECALL};
    use kestrel_tests::vm_support::elf_writer::{elf, DATA_BASE};
    // The heap is mapped in full whatever the break: a store 64 KiB above the initial
    // break, and a load back, work here; qemu faults (no page there).
    let mut code = vec![
        addi(A7, ZERO, 214),
        addi(A0, ZERO, 0),
        ECALL,       // a0 = brk(0): the heap's start
        lui(T0, 16), // 64 KiB
        r(0x33, 0, 0, T0, A0, T0),
        addi(T1, ZERO, 9),
        sd(T1, T0, 0),
        ld(T1, T0, 0),
    ];
    code.extend(exit(0));
    let bytes = elf(&code, &[1, 2, 3]);
    let k = run_kestrel(&bytes, &[], 1000);
    assert_eq!(k.exit_code, Some(0), "{:?}", k.error);
    let f = TempFile::new("above-brk", &bytes);
    assert_ne!(run_qemu(f.path(), &[]).status, Some(0));
    // Segments are mapped as whole words, not pages: a load 16 bytes into a 3-byte data
    // segment faults here; qemu reads the page's zeros.
    let mut code = vec![lui(T0, (DATA_BASE >> 12) as u32), ld(T1, T0, 16)];
    code.extend(exit(0));
    let bytes = elf(&code, &[1, 2, 3]);
    let k = run_kestrel(&bytes, &[], 1000);
    assert!(
        matches!(k.error, Some(kestrel_prover_gpu::vm::VmError::MemoryFault { addr, .. }) if addr == DATA_BASE + 16),
        "{:?}",
        k.error
    );
    let f = TempFile::new("past-word", &bytes);
    assert_eq!(run_qemu(f.path(), &[]).status, Some(0));
    // Within the segment's last word the bytes past its end are zeros on both.
    let mut code = vec![lui(T0, (DATA_BASE >> 12) as u32), ld(A0, T0, 0)];
    code.extend([addi(A7, ZERO, 93), ECALL]); // exit(a0 = 0x030201): status 1 on both
    let bytes = elf(&code, &[1, 2, 3]);
    let k = run_kestrel(&bytes, &[], 1000);
    assert_eq!(k.exit_code, Some(0x03_0201));
    let f = TempFile::new("in-word", &bytes);
    assert_eq!(run_qemu(f.path(), &[]).status, Some(1));
}
