//! The smallest runtime a `#![no_std]` firmware image gives the verifier: a panic handler
//! that aborts without formatting, and a bump allocator over a static array. Shared by the
//! `size-verify` and `size-baseline` binaries, whose `.text` difference is the verifier's
//! code size (see `tests/tests/budget.rs`).

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::panic::PanicInfo;
use core::sync::atomic::{AtomicUsize, Ordering};

// The C library: start files (`_start` calls `main`), memcpy/memset, abort.
#[link(name = "c")]
extern "C" {}

extern "C" {
    fn abort() -> !;
}

#[panic_handler]
fn panic(_: &PanicInfo<'_>) -> ! {
    // SAFETY: abort never returns and is always safe to call.
    unsafe { abort() }
}

/// Referenced by the precompiled `core`/`alloc`; never called with `panic = "abort"`.
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}

/// Referenced by the precompiled `core`/`alloc`; never called with `panic = "abort"`.
#[no_mangle]
pub extern "C" fn _Unwind_Resume() -> ! {
    // SAFETY: abort never returns and is always safe to call.
    unsafe { abort() }
}

const HEAP_SIZE: usize = 64 << 20;

#[repr(C, align(4096))]
struct Heap(UnsafeCell<[u8; HEAP_SIZE]>);

// SAFETY: the allocator hands out disjoint ranges of the array.
unsafe impl Sync for Heap {}

static HEAP: Heap = Heap(UnsafeCell::new([0; HEAP_SIZE]));

/// Bump allocator; freeing the most recent block rewinds.
struct Bump {
    top: AtomicUsize,
}

#[global_allocator]
static ALLOC: Bump = Bump {
    top: AtomicUsize::new(0),
};

unsafe impl GlobalAlloc for Bump {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let base = HEAP.0.get() as usize;
        let top = self.top.load(Ordering::Relaxed);
        let start = (base + top).next_multiple_of(layout.align()) - base;
        match start.checked_add(layout.size()) {
            Some(end) if end <= HEAP_SIZE => {
                self.top.store(end, Ordering::Relaxed);
                // SAFETY: `start + size <= HEAP_SIZE`: inside the array.
                unsafe { HEAP.0.get().cast::<u8>().add(start) }
            }
            _ => core::ptr::null_mut(),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let offset = ptr as usize - HEAP.0.get() as usize;
        if offset + layout.size() == self.top.load(Ordering::Relaxed) {
            self.top.store(offset, Ordering::Relaxed);
        }
    }
}
