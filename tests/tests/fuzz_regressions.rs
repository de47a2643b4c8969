//! Findings of the fuzz targets (fuzz/) and of the embedded-budget work, each kept as a
//! test with a minimal input. A test marked `#[ignore]` reproduces a bug not fixed yet:
//! remove the `ignore` with the fix.
//!
//! | finding | target | test |
//! | --- | --- | --- |
//! | a 128-byte ELF declaring a 256 MiB code segment makes `Vm::new` allocate ~1.3 GiB (the executor pre-decodes the zero-filled tail of executable segments, 24 bytes per word) | `execute` (OOM) | `vm_new_memory_is_bounded_by_the_image` |
//! | a 24 KiB proof makes `parse_proof` allocate ~1.6 MB (serde preallocates `size_of::<T>()` bytes per claimed element, up to 1 MiB per list, at each nesting level; postcard only bounds the claim by the remaining input) — fatal on a small embedded heap | found while measuring the heap | `hostile_length_prefixes_do_not_preallocate` |

use kestrel_core::proof::{FORMAT_VERSION, MAGIC};
use kestrel_prover_gpu::vm::{Program, Vm};
use kestrel_tests::heap::{count_heap, CountingAlloc};

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

// ---- parse_proof: length prefixes larger than the input ----

/// A header, valid parameters, empty lists up to `queries`, then a chain of huge length
/// prefixes: queries, the first query's tables, its first table's openings, the first
/// opening's values; then the input ends.
fn nested_huge_lengths() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&MAGIC);
    b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    b.extend_from_slice(&[2, 110, 16, 3]); // log_blowup, num_queries (varint), pow, final
    b.extend_from_slice(&[0; 9]); // preprocessed_roots … final_poly: empty
    b.push(0); // pow_nonce
    let huge = [0xff, 0xff, 0xff, 0xff, 0x0f]; // varint 2^32 - 1
    for _ in 0..4 {
        b.extend_from_slice(&huge);
    }
    b
}

/// Like [`nested_huge_lengths`], but each length is half the input that follows (postcard
/// gives serde no size hint for a length larger than the remaining input), and the input
/// goes on with `pad` zero bytes.
fn nested_lengths_within_input(pad: usize) -> Vec<u8> {
    let mut b = nested_huge_lengths();
    b.truncate(b.len() - 20);
    let mut len = (pad / 2) as u64;
    let mut varint = Vec::new();
    loop {
        let byte = (len & 0x7f) as u8;
        len >>= 7;
        if len == 0 {
            varint.push(byte);
            break;
        }
        varint.push(byte | 0x80);
    }
    for _ in 0..4 {
        b.extend_from_slice(&varint);
    }
    b.resize(b.len() + pad, 0);
    b
}

#[test]
fn hostile_length_prefixes_do_not_preallocate() {
    // 24 KiB of input; lists of 12 Ki elements claimed at four nesting levels: serde
    // preallocates 48 + 24 + 48 + 8 bytes per claimed element, ~1.6 MB in all.
    let input = nested_lengths_within_input(24 << 10);
    let (r, peak) = peak_heap(|| kestrel_verifier::parse_proof(&input));
    assert!(r.is_err());
    // A valid proof decodes into ~1.1x its size; allow 2x.
    assert!(
        peak <= 2 * input.len(),
        "parse_proof allocated {peak} bytes for a {}-byte input",
        input.len()
    );
}

#[test]
fn hostile_length_prefixes_are_rejected() {
    for input in [nested_huge_lengths(), nested_lengths_within_input(24 << 10)] {
        assert_eq!(
            kestrel_verifier::parse_proof(&input),
            Err(kestrel_verifier::VerifyError::Decode)
        );
    }
}
