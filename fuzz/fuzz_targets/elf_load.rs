//! Arbitrary bytes as an ELF file: the loader returns a program or an error, never panics,
//! and what it returns keeps the invariants the executor and the verifying key rely on.
#![no_main]

use kestrel_prover_gpu::vm::Program;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = Program::from_elf(data) {
        assert!(!p.segments.is_empty(), "a program without segments");
        assert!(
            p.segments.windows(2).all(|w| w[0].end() <= w[1].vaddr),
            "segments unsorted or overlapping"
        );
        assert!(
            p.segments
                .iter()
                .any(|s| s.perm.exec && (s.vaddr..s.end()).contains(&p.entry)),
            "entry point outside the code"
        );
        assert!(
            p.segments.iter().all(|s| !(s.perm.write && s.perm.exec)),
            "a writable and executable segment"
        );
        assert!(
            p.segments.iter().all(|s| s.vaddr % 8 == 0
                && s.size % 8 == 0
                && s.data.len() % 8 == 0
                && s.data.len() as u64 <= s.size),
            "a segment that is not whole words"
        );
        assert!(
            p.segments.windows(2).all(|w| w[0].end() <= w[1].vaddr),
            "segments sharing a word"
        );
        // The verifying key's memory map is valid for every program the loader accepts
        // (`vk` would panic otherwise).
        let image = kestrel_prover_gpu::rv::program_image(&p);
        kestrel_core::rv::page::MemoryImage::of(&image)
            .validate()
            .expect("the program's memory map");
    }
});
