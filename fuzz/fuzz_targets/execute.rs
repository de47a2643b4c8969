//! Random programs: instruction words, data and input from the fuzz bytes, run under a
//! small cycle limit. Execution ends with an exit or a clean `VmError`, never a panic; two
//! runs agree (determinism), and the recording interpreter agrees with the fast path.
//!
//! Input: either a whole ELF file (it starts with `\x7fELF`; the seed corpus holds the
//! guests in tests/guests/bin), or `n: u8, n instruction words, data length: u8, data,
//! bss: u16, input…` which is wrapped into a minimal ELF (`kestrel_fuzz::elf::build`).
#![no_main]

use arbitrary::Unstructured;
use kestrel_fuzz::elf;
use kestrel_prover_gpu::vm::{NoRecorder, Program, VecRecorder, Vm};
use libfuzzer_sys::fuzz_target;

const MAX_CYCLES: u64 = 20_000;
/// Larger images are skipped for speed only: the executor copies the image once.
const MAX_IMAGE_BYTES: usize = 64 << 20;

fn program(data: &[u8]) -> Option<(Program, Vec<u8>)> {
    if data.starts_with(b"\x7fELF") {
        return Program::from_elf(data).ok().map(|p| (p, Vec::new()));
    }
    let mut u = Unstructured::new(data);
    let n: u8 = u.arbitrary().ok()?;
    let words = (0..n)
        .map(|_| u.arbitrary::<u32>())
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    let dlen: u8 = u.arbitrary().ok()?;
    let dat = u.bytes(dlen as usize).ok()?.to_vec();
    let bss: u16 = u.arbitrary().ok()?;
    let input = u.take_rest().to_vec();
    let file = elf::build(&words, &dat, bss as u64);
    let p = Program::from_elf(&file).expect("the minimal ELF writer's output loads");
    Some((p, input))
}

fuzz_target!(|data: &[u8]| {
    let Some((program, input)) = program(data) else {
        return;
    };
    // The executor decodes only a code segment's nonzero prefix (the fix for the bug this
    // target found, `vm_new_memory_is_bounded_by_the_image`), but copies the whole image.
    let image: usize = program.segments.iter().map(|s| s.size as usize).sum();
    if image > MAX_IMAGE_BYTES {
        return;
    }
    let (ra, a) = {
        let mut vm = Vm::new(&program, input.clone()).with_max_cycles(MAX_CYCLES);
        let r = vm.run(&mut NoRecorder);
        let state = (vm.cycles(), *vm.regs(), vm.public_output().to_vec());
        (r, state)
    };
    assert!(a.0 <= MAX_CYCLES, "ran past the cycle limit");
    if let Err(e) = &ra {
        // Every error renders (names pc and word) without panicking.
        let _ = e.to_string();
    }
    let mut vm = Vm::new(&program, input).with_max_cycles(MAX_CYCLES);
    let mut rec = VecRecorder::default();
    let rb = vm.run(&mut rec);
    assert_eq!(ra, rb, "recording run disagrees with the fast path");
    let b = (vm.cycles(), *vm.regs(), vm.public_output().to_vec());
    assert_eq!(
        a, b,
        "recording run ends in another state (cycles, registers, output)"
    );
    assert!(rec.records.len() as u64 <= MAX_CYCLES);
});
