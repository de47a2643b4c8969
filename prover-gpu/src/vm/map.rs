//! The guest memory map.
//!
//! Every guest address Kestrel maps lies below 2^32, so addresses fit one 32-bit limb:
//!
//! | range | what | permissions |
//! | --- | --- | --- |
//! | `0 .. MIN_SEGMENT_ADDR` (4 KiB) | never mapped (null pointer accesses fault) | none |
//! | ELF `PT_LOAD` segments, within `MIN_SEGMENT_ADDR .. STACK_BOTTOM`, rounded out to whole 8-byte words | program image, bss zeroed | the segment's R/W/X (W and X together are refused) |
//! | `heap_start .. heap_limit` | heap, mapped in full whatever the break | R/W |
//! | `STACK_BOTTOM .. STACK_TOP` (1 MiB) | stack, zeroed; `sp = STACK_TOP` at entry | R/W |
//!
//! `heap_start` is the end of the highest segment rounded up to a page ([`PAGE_SIZE`]); `brk` may
//! grow up to [`heap_limit`] (`heap_start + MAX_HEAP`, never into the stack). The initial break
//! is `heap_start`. `brk` keeps Linux's return values and zeroes what a shrink releases, but
//! the whole heap range is accessible whatever the break (qemu faults above the break's
//! page): the proof's memory map cannot follow the break cheaply, so the executor attests
//! what the proof attests (documented in `core/src/rv/mod.rs`).
//! All other registers start at 0; there is no argv/envp/auxv on the stack, so guests must not
//! depend on the value of `sp` or on what lies above it (under `qemu-riscv64` the stack is
//! elsewhere and holds argv; guests behave the same on both).
//!
//! The total size of the mapped segments is at most [`MAX_IMAGE_BYTES`].

/// Page size used for rounding the heap start.
pub const PAGE_SIZE: u64 = 4096;
/// Lowest address a segment may start at.
pub const MIN_SEGMENT_ADDR: u64 = 0x1000;
/// One past the highest stack byte; the initial `sp` (the proof's, from core).
pub const STACK_TOP: u64 = kestrel_core::rv::STACK_TOP as u64;
/// Size of the stack region.
pub const STACK_SIZE: u64 = kestrel_core::rv::STACK_SIZE as u64;
/// Lowest stack byte; segments and the heap end at or below it.
pub const STACK_BOTTOM: u64 = STACK_TOP - STACK_SIZE;
/// Largest heap (`brk - heap_start`).
pub const MAX_HEAP: u64 = 256 << 20;
/// Largest total of all segments' memory sizes.
pub const MAX_IMAGE_BYTES: u64 = 1 << 30;

/// One past the highest heap byte for a heap starting at `heap_start`.
pub const fn heap_limit(heap_start: u64) -> u64 {
    let l = heap_start.saturating_add(MAX_HEAP);
    if l < STACK_BOTTOM {
        l
    } else {
        STACK_BOTTOM
    }
}

/// Rounds `x` up to a multiple of [`PAGE_SIZE`] (saturating).
pub const fn page_align_up(x: u64) -> u64 {
    match x.checked_add(PAGE_SIZE - 1) {
        Some(y) => y & !(PAGE_SIZE - 1),
        None => !(PAGE_SIZE - 1),
    }
}
