//! ELF loading: valid files load, each kind of malformed file gives its error, and no input
//! makes the loader panic.

use kestrel_prover_gpu::vm::{ElfError, Program};
use kestrel_tests::vm_support::asm::exit;
use kestrel_tests::vm_support::elf_writer::{elf, elf_segments, Seg, CODE_BASE, DATA_BASE};
use kestrel_tests::vm_support::guest_path;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn valid() -> Vec<u8> {
    elf(&exit(0), &[1, 2, 3])
}

fn patch(mut bytes: Vec<u8>, at: usize, value: &[u8]) -> Vec<u8> {
    bytes[at..at + value.len()].copy_from_slice(value);
    bytes
}

/// Offset of program header `k`'s field at `field`.
fn ph(k: usize, field: usize) -> usize {
    64 + 56 * k + field
}

fn err(bytes: &[u8]) -> ElfError {
    Program::from_elf(bytes).expect_err("must be rejected")
}

fn code_seg(vaddr: u64, flags: u32) -> Seg {
    let bytes: Vec<u8> = exit(0).iter().flat_map(|w| w.to_le_bytes()).collect();
    Seg {
        vaddr,
        memsz: bytes.len() as u64,
        bytes,
        flags,
    }
}

#[test]
fn valid_elf_loads_with_permissions() {
    let p = Program::from_elf(&valid()).expect("valid ELF");
    assert_eq!(p.entry, CODE_BASE);
    assert_eq!(p.segments.len(), 2);
    let (code, data) = (&p.segments[0], &p.segments[1]);
    assert_eq!(
        (code.vaddr, code.perm.read, code.perm.write, code.perm.exec),
        (CODE_BASE, true, false, true)
    );
    assert_eq!(
        (data.vaddr, data.perm.read, data.perm.write, data.perm.exec),
        (DATA_BASE, true, true, false)
    );
    // Mapped as whole words: the file bytes, then zeros to the word's end.
    assert_eq!(data.data, [1, 2, 3, 0, 0, 0, 0, 0]);
    assert_eq!(data.size, 8);
    assert_eq!(p.heap_start(), DATA_BASE + 0x1000);
}

#[test]
fn bss_is_zero_filled() {
    let seg = Seg {
        vaddr: DATA_BASE,
        bytes: vec![7; 10],
        memsz: 5000,
        flags: 6,
    };
    let p =
        Program::from_elf(&elf_segments(CODE_BASE, &[code_seg(CODE_BASE, 5), seg])).expect("valid");
    // The file bytes to the end of their word are held; the bss is only a size.
    assert_eq!(p.segments[1].size, 5000);
    assert_eq!(p.segments[1].data.len(), 16);
    assert!(p.segments[1].data[..10].iter().all(|&b| b == 7));
    assert!(p.segments[1].data[10..].iter().all(|&b| b == 0));
}

#[test]
fn guest_elfs_load() {
    for name in [
        "fibonacci",
        "sha256",
        "keccak",
        "sort",
        "bignum",
        "matmul",
        "interp",
    ] {
        let p = Program::from_elf(&std::fs::read(guest_path(name)).expect("prebuilt")).expect(name);
        assert!(
            p.segments.iter().any(|s| s.perm.exec && !s.perm.write),
            "{name}"
        );
    }
}

#[test]
fn header_errors() {
    let v = valid();
    assert!(matches!(err(&v[..10]), ElfError::Truncated { .. }));
    assert!(matches!(err(&[]), ElfError::Truncated { .. }));
    assert!(matches!(
        err(&patch(v.clone(), 0, b"\x7fELG")),
        ElfError::BadMagic { .. }
    ));
    assert_eq!(
        err(&patch(v.clone(), 4, &[1])),
        ElfError::WrongClass { got: 1 }
    );
    assert_eq!(
        err(&patch(v.clone(), 5, &[2])),
        ElfError::WrongEndianness { got: 2 }
    );
    assert_eq!(
        err(&patch(v.clone(), 18, &62u16.to_le_bytes())),
        ElfError::WrongMachine { got: 62 }
    );
    assert_eq!(
        err(&patch(v.clone(), 16, &3u16.to_le_bytes())),
        ElfError::WrongType { got: 3 }
    );
    assert_eq!(
        err(&patch(v.clone(), 16, &1u16.to_le_bytes())),
        ElfError::WrongType { got: 1 }
    );
    assert_eq!(
        err(&patch(v.clone(), 54, &32u16.to_le_bytes())),
        ElfError::BadPhentsize { got: 32 }
    );
    assert!(matches!(
        err(&patch(v.clone(), 32, &u64::MAX.to_le_bytes())),
        ElfError::Truncated { .. }
    ));
    assert!(matches!(
        err(&patch(v.clone(), 32, &0x10_0000u64.to_le_bytes())),
        ElfError::Truncated { .. }
    ));
    assert_eq!(
        err(&patch(v.clone(), 56, &1000u16.to_le_bytes())),
        ElfError::TooManySegments { got: 1000 }
    );
    assert_eq!(
        err(&patch(v.clone(), 56, &0u16.to_le_bytes())),
        ElfError::NoSegments
    );
}

#[test]
fn segment_errors() {
    let v = valid();
    // Not PT_LOAD any more: no segments left once both are changed.
    let none = patch(
        patch(v.clone(), ph(0, 0), &6u32.to_le_bytes()),
        ph(1, 0),
        &6u32.to_le_bytes(),
    );
    assert_eq!(err(&none), ElfError::NoSegments);
    assert_eq!(
        err(&patch(v.clone(), ph(0, 0), &3u32.to_le_bytes())),
        ElfError::Dynamic
    );
    // filesz > memsz
    assert!(matches!(
        err(&patch(v.clone(), ph(1, 40), &1u64.to_le_bytes())),
        ElfError::FileszExceedsMemsz { index: 1, .. }
    ));
    // past the end of the file, and offset + filesz overflowing
    let past = patch(
        patch(v.clone(), ph(1, 32), &0x10_0000u64.to_le_bytes()),
        ph(1, 40),
        &0x10_0000u64.to_le_bytes(),
    );
    assert!(matches!(
        err(&past),
        ElfError::SegmentPastFile { index: 1, .. }
    ));
    assert!(matches!(
        err(&patch(v.clone(), ph(1, 8), &u64::MAX.to_le_bytes())),
        ElfError::SegmentPastFile { .. }
    ));
    // addresses: null page, wrapping, into the stack
    assert!(matches!(
        err(&patch(v.clone(), ph(1, 16), &0u64.to_le_bytes())),
        ElfError::SegmentOutOfRange { .. }
    ));
    assert!(matches!(
        err(&patch(v.clone(), ph(1, 16), &(u64::MAX - 1).to_le_bytes())),
        ElfError::SegmentOutOfRange { .. }
    ));
    assert!(matches!(
        err(&patch(v.clone(), ph(1, 16), &0xbfff_0000u64.to_le_bytes())),
        ElfError::SegmentOutOfRange { .. }
    ));
    // W + X
    assert!(matches!(
        err(&patch(v.clone(), ph(0, 4), &7u32.to_le_bytes())),
        ElfError::WritableAndExecutable { index: 0, .. }
    ));
    // absurd size: 2 GiB of bss
    assert!(matches!(
        err(&patch(v.clone(), ph(1, 40), &(2u64 << 30).to_le_bytes())),
        ElfError::TooLarge { .. }
    ));
    // overlap
    let overlap = elf_segments(
        CODE_BASE,
        &[
            code_seg(CODE_BASE, 5),
            Seg {
                vaddr: CODE_BASE + 8,
                bytes: vec![0; 4],
                memsz: 4,
                flags: 6,
            },
        ],
    );
    assert!(matches!(err(&overlap), ElfError::Overlap { .. }));
}

#[test]
fn entry_errors() {
    let v = valid();
    assert_eq!(
        err(&patch(v.clone(), 24, &0u64.to_le_bytes())),
        ElfError::NoEntry
    );
    assert_eq!(
        err(&patch(v.clone(), 24, &DATA_BASE.to_le_bytes())),
        ElfError::BadEntry { entry: DATA_BASE }
    );
    assert_eq!(
        err(&patch(v.clone(), 24, &(CODE_BASE + 2).to_le_bytes())),
        ElfError::BadEntry {
            entry: CODE_BASE + 2
        }
    );
    assert_eq!(
        err(&patch(v.clone(), 24, &0x9000_0000u64.to_le_bytes())),
        ElfError::BadEntry { entry: 0x9000_0000 }
    );
    // Executable flag removed from the code segment.
    assert!(matches!(
        err(&patch(v.clone(), ph(0, 4), &4u32.to_le_bytes())),
        ElfError::BadEntry { .. }
    ));
}

#[test]
fn errors_have_clear_messages() {
    let msg = err(&patch(valid(), 18, &62u16.to_le_bytes())).to_string();
    assert!(
        msg.contains("machine 62") && msg.contains("RISC-V"),
        "{msg}"
    );
    let msg = err(&valid()[..20]).to_string();
    assert!(msg.contains("truncated"), "{msg}");
}

#[test]
fn never_panics_on_mutations_and_truncations() {
    let real = std::fs::read(guest_path("sha256")).expect("prebuilt");
    for base in [valid(), real] {
        for len in 0..base.len().min(300) {
            let _ = Program::from_elf(&base[..len]);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..20_000 {
            let mut b = base.clone();
            for _ in 0..rng.gen_range(1..6) {
                // Mostly the header and program headers, where the checks are.
                let at = if rng.gen_bool(0.8) {
                    rng.gen_range(0..200.min(b.len()))
                } else {
                    rng.gen_range(0..b.len())
                };
                b[at] = match rng.gen_range(0..4) {
                    0 => 0,
                    1 => 0xff,
                    _ => rng.gen(),
                };
            }
            let _ = Program::from_elf(&b);
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for _ in 0..2_000 {
        let len = rng.gen_range(0..512);
        let mut b: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        if b.len() >= 20 {
            b[..4].copy_from_slice(b"\x7fELF");
            b[4] = 2;
            b[5] = 1;
            b[18] = 243;
            b[19] = 0;
        }
        let _ = Program::from_elf(&b);
    }
}

#[test]
fn segments_are_mapped_as_whole_words() {
    // A data segment starting and ending inside words is rounded out, the added bytes zero.
    let seg = Seg {
        vaddr: DATA_BASE + 3,
        bytes: vec![7, 8],
        memsz: 7,
        flags: 6,
    };
    let p =
        Program::from_elf(&elf_segments(CODE_BASE, &[code_seg(CODE_BASE, 5), seg])).expect("valid");
    let d = &p.segments[1];
    assert_eq!(d.vaddr, DATA_BASE);
    assert_eq!(d.data, [0, 0, 0, 7, 8, 0, 0, 0]);
    assert_eq!(d.size, 16);
}

#[test]
fn segments_sharing_a_word_are_refused() {
    let seg = |vaddr: u64, n: usize| Seg {
        vaddr,
        bytes: vec![1; n],
        memsz: n as u64,
        flags: 4,
    };
    // Read-only bytes DATA_BASE..+5 and writable ones from +6: one word, two permissions.
    let mut rw = seg(DATA_BASE + 6, 4);
    rw.flags = 6;
    let e = err(&elf_segments(
        CODE_BASE,
        &[code_seg(CODE_BASE, 5), seg(DATA_BASE, 5), rw],
    ));
    assert!(matches!(e, ElfError::SharedWord { .. }), "{e:?}");
    // The next word is fine.
    let mut rw = seg(DATA_BASE + 8, 4);
    rw.flags = 6;
    Program::from_elf(&elf_segments(
        CODE_BASE,
        &[code_seg(CODE_BASE, 5), seg(DATA_BASE, 5), rw],
    ))
    .expect("adjacent words");
}

#[test]
fn code_segments_start_at_multiples_of_4() {
    // Refused by the one loader that both the executor and `vk` / `verify --elf` use (the
    // whole crafted program of issue 13 is in rv_pc_align.rs).
    let e = err(&elf_segments(
        CODE_BASE,
        &[code_seg(CODE_BASE, 5), code_seg(0x20002, 5)],
    ));
    assert_eq!(
        e,
        ElfError::MisalignedCode {
            index: 1,
            vaddr: 0x20002
        }
    );
    // At a multiple of 4 (not of 8) it loads: the segment is rounded down to a word, its
    // first four bytes zero, and its instructions stay at their addresses.
    let body: Vec<u8> = exit(7).iter().flat_map(|w| w.to_le_bytes()).collect();
    let p = Program::from_elf(&elf_segments(
        0x20004,
        &[Seg {
            vaddr: 0x20004,
            memsz: body.len() as u64,
            bytes: body.clone(),
            flags: 5,
        }],
    ))
    .expect("aligned code");
    assert_eq!(p.segments[0].vaddr, 0x20000);
    assert_eq!(&p.segments[0].data[4..4 + body.len()], &body[..]);
    let mut vm = kestrel_prover_gpu::vm::Vm::new(&p, Vec::new());
    let exit = vm
        .run(&mut kestrel_prover_gpu::vm::NoRecorder)
        .expect("runs");
    assert_eq!(exit.exit_code, 7);
}
