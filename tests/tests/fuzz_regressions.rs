//! Findings of the fuzz targets (fuzz/) and of the embedded-budget work, each kept as a
//! test with a minimal input. A test marked `#[ignore]` reproduces a bug not fixed yet:
//! remove the `ignore` with the fix.
//!
//! | finding | target | test |
//! | --- | --- | --- |
//! | a 128-byte ELF declaring a 256 MiB code segment makes `Vm::new` allocate ~1.3 GiB (the executor pre-decodes the zero-filled tail of executable segments, 24 bytes per word) | `execute` (OOM) | `vm_new_memory_is_bounded_by_the_image` |
//! | a 24 KiB proof makes `parse_proof` allocate ~1.6 MB (serde preallocates `size_of::<T>()` bytes per claimed element, up to 1 MiB per list, at each nesting level; postcard only bounds the claim by the remaining input) — fatal on a small embedded heap; fixed by proof format 2 and the streaming verifier (every count checked against the AIR's before allocating) | found while measuring the heap | `hostile_length_prefixes_do_not_preallocate` |

use kestrel_core::field::Felt;
use kestrel_core::keys::VerifyingKey;
use kestrel_core::proof::{COUNT_LEN, HEADER_LEN, PARAMS_LEN};
use kestrel_prover_gpu::vm::{Program, Vm};
use kestrel_tests::heap::{count_heap, CountingAlloc};
use kestrel_verifier::VerifyError;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Peak live heap bytes of `f` on this thread.
fn peak_heap<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let (r, heap) = count_heap(f);
    (r, heap.peak)
}

// ---- execute: executable segments with a large zero-filled tail ----

/// A static RV64 ELF with one read+execute segment at 0x10000: `li a7, 93; ecall` (exit 0)
/// in the file, `memsz` bytes in memory.
fn elf_with_code_memsz(memsz: u64) -> Vec<u8> {
    let code: [u32; 2] = [0x05d0_0893, 0x0000_0073];
    let mut f = Vec::new();
    f.extend_from_slice(b"\x7fELF\x02\x01\x01\x00");
    f.extend_from_slice(&[0; 8]);
    f.extend_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    f.extend_from_slice(&243u16.to_le_bytes()); // EM_RISCV
    f.extend_from_slice(&1u32.to_le_bytes());
    f.extend_from_slice(&0x10000u64.to_le_bytes()); // e_entry
    f.extend_from_slice(&64u64.to_le_bytes()); // e_phoff
    f.extend_from_slice(&0u64.to_le_bytes()); // e_shoff
    f.extend_from_slice(&0u32.to_le_bytes());
    for h in [64u16, 56, 1, 64, 0, 0] {
        f.extend_from_slice(&h.to_le_bytes());
    }
    f.extend_from_slice(&1u32.to_le_bytes()); // PT_LOAD
    f.extend_from_slice(&5u32.to_le_bytes()); // R+X
    for v in [120u64, 0x10000, 0x10000, 8, memsz, 4096] {
        f.extend_from_slice(&v.to_le_bytes());
    }
    for w in code {
        f.extend_from_slice(&w.to_le_bytes());
    }
    f
}

#[test]
fn large_code_segment_loads_and_runs() {
    // Not the bug itself: the program is valid and exits 0 (kept cheap: 64 KiB).
    let p = Program::from_elf(&elf_with_code_memsz(64 << 10)).expect("loads");
    let exit = Vm::new(&p, Vec::new())
        .with_max_cycles(10)
        .run(&mut kestrel_prover_gpu::vm::NoRecorder)
        .expect("exits");
    assert_eq!(exit.exit_code, 0);
}

#[test]
fn vm_new_memory_is_bounded_by_the_image() {
    // `kestrel run` on the 256 MiB version of this 128-byte file peaks at 1.3 GB of RSS
    // and takes 5.6 s for two instructions; the fuzzer found the 700 MiB case (~5 GiB).
    let memsz: usize = 16 << 20;
    let program = Program::from_elf(&elf_with_code_memsz(memsz as u64)).expect("loads");
    let (vm, peak) = peak_heap(|| Vm::new(&program, Vec::new()));
    drop(vm);
    // The image's copy, the 1 MiB stack, and slack: the decoded code should be bounded by
    // the file-backed bytes, not the memory size.
    let budget = memsz + (1 << 20) + (4 << 20);
    assert!(
        peak <= budget,
        "Vm::new allocated {peak} bytes for a {memsz}-byte image with 8 bytes of code \
         (budget {budget})"
    );
}

// ---- proofs: length prefixes larger than the input ----

/// The golden Fibonacci statement (one table of 2^6 rows, blowup 8).
const GOLDEN_PROOF: &[u8] = include_bytes!("../fixtures/fib-golden.proof");
const GOLDEN_VK: &[u8; 32] = include_bytes!("../fixtures/fib-golden.vk");

fn verify_golden_statement(proof: &[u8]) -> Result<(), VerifyError> {
    use kestrel_core::air::examples::{fibonacci_trace_result, FibonacciMachine};
    let public = [
        Felt::ONE,
        Felt::ONE,
        fibonacci_trace_result(6, Felt::ONE, Felt::ONE),
    ];
    kestrel_verifier::verify(&FibonacciMachine, &VerifyingKey(*GOLDEN_VK), &public, proof)
}

/// A header, the golden proof's parameters, then `count` as the first list's length
/// (the table heights), followed by `pad` zero bytes.
fn huge_first_count(count: u32, pad: usize) -> Vec<u8> {
    let mut b = GOLDEN_PROOF[..HEADER_LEN + PARAMS_LEN].to_vec();
    b.extend_from_slice(&count.to_le_bytes());
    b.resize(b.len() + pad, 0);
    b
}

/// The golden proof with the count at byte `at` (a list's length) replaced by `count`.
fn golden_with_count(at: usize, count: u32) -> Vec<u8> {
    let mut b = GOLDEN_PROOF.to_vec();
    b[at..at + 4].copy_from_slice(&count.to_le_bytes());
    b
}

#[test]
fn hostile_length_prefixes_do_not_preallocate() {
    // Postcard-era finding: a 24 KiB proof with nested lengths made `parse_proof`
    // allocate ~1.6 MB. Now every count is compared with the AIR's before anything is
    // allocated, and the verifier's heap is bounded by the AIR's shape.
    // The preprocessed cap's count, after the one table's height.
    let pre_cap_count = HEADER_LEN + PARAMS_LEN + COUNT_LEN + 1;
    // The main cap's count, after the empty preprocessed cap.
    let main_cap_count = pre_cap_count + COUNT_LEN;
    for input in [
        huge_first_count(u32::MAX, 0),
        huge_first_count(u32::MAX, 24 << 10),
        huge_first_count(12 << 10, 24 << 10),
        golden_with_count(pre_cap_count, u32::MAX),
        golden_with_count(main_cap_count, u32::MAX),
    ] {
        let (r, peak) = peak_heap(|| verify_golden_statement(&input));
        assert!(
            matches!(r, Err(VerifyError::Length { .. })),
            "a huge count is a length error: {r:?}"
        );
        assert!(
            peak <= 16 << 10,
            "the verifier allocated {peak} bytes for a {}-byte hostile input",
            input.len()
        );
    }
}

#[test]
fn hostile_length_prefixes_are_rejected() {
    assert!(verify_golden_statement(GOLDEN_PROOF).is_ok());
    for (count, got) in [(u32::MAX, u32::MAX as usize), (2, 2), (0, 0)] {
        assert_eq!(
            verify_golden_statement(&huge_first_count(count, 0)),
            Err(VerifyError::Length {
                what: "table heights",
                expected: 1,
                got,
            })
        );
    }
    // Fibonacci has no preprocessed table: its preprocessed cap is empty.
    let pre_cap_count = HEADER_LEN + PARAMS_LEN + COUNT_LEN + 1;
    for count in [1u32, u32::MAX] {
        assert_eq!(
            verify_golden_statement(&golden_with_count(pre_cap_count, count)),
            Err(VerifyError::Length {
                what: "preprocessed cap",
                expected: 0,
                got: count as usize,
            })
        );
    }
}
