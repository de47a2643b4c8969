//! The `kestrel` binary's allocator: the system allocator, with large blocks (≥ 4 MiB)
//! advised as transparent huge pages on Linux (`madvise(MADV_HUGEPAGE)`), so the prover's
//! big record and trace vectors fault in 2 MiB at a time rather than 4 KiB (the host packing
//! pass spends a large share of its time in first-touch page faults). Where the kernel does
//! not use huge pages the advice is ignored. `KESTREL_NO_HUGEPAGES=1` turns it off (for A/B
//! measurements in one binary).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

/// The allocator (install with `#[global_allocator]`).
pub struct HugePageAlloc;

const HUGE: usize = 2 << 20;
const MIN_ADVISED: usize = 2 * HUGE;

/// 0: not yet read, 1: on, 2: off.
static STATE: AtomicU8 = AtomicU8::new(0);

fn enabled() -> bool {
    match STATE.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            // `var_os` does not allocate through this allocator's advised path (small
            // allocations only), so reading it here is safe.
            let on = std::env::var_os("KESTREL_NO_HUGEPAGES").is_none();
            STATE.store(if on { 1 } else { 2 }, Ordering::Relaxed);
            on
        }
    }
}

#[cfg(target_os = "linux")]
fn advise(p: *mut u8, size: usize) {
    if size < MIN_ADVISED || p.is_null() || !enabled() {
        return;
    }
    let start = (p as usize).div_ceil(HUGE) * HUGE;
    let end = (p as usize + size) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside the block just allocated; the advice changes no
        // contents, and a failure (e.g. huge pages disabled) is harmless and ignored.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_: *mut u8, _: usize) {}

// SAFETY: every method forwards to `System` unchanged; `advise` only adds a hint.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        advise(p, l.size());
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        advise(p, l.size());
        p
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new_size) };
        advise(q, new_size);
        q
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}
