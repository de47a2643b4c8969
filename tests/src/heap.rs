//! A counting global allocator for heap measurements in tests: install it in a test binary
//! with `#[global_allocator] static A: CountingAlloc = CountingAlloc;`, then wrap the code
//! to measure in [`count_heap`]. Only the calling thread's allocations are counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Forwards to the system allocator, counting while [`count_heap`] runs.
pub struct CountingAlloc;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Whether this thread's allocations are counted.
    static TRACK: Cell<bool> = const { Cell::new(false) };
}

fn tracking() -> bool {
    TRACK.try_with(Cell::get).unwrap_or(false)
}

fn grow(n: usize) {
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
    TOTAL.fetch_add(n, Ordering::Relaxed);
    COUNT.fetch_add(1, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; only counters are touched.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if tracking() {
            grow(layout.size());
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if tracking() {
            grow(layout.size());
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if tracking() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if tracking() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grow(new_size);
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What [`count_heap`] measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct Heap {
    /// Peak live bytes above what was live when counting started.
    pub peak: usize,
    /// Bytes allocated in all.
    pub total: usize,
    /// Allocation calls.
    pub count: usize,
    /// Live bytes when counting stopped (above the start).
    pub retained: usize,
}

/// Runs `f` on this thread with its allocations counted. The counters are global: run one
/// measurement at a time.
pub fn count_heap<R>(f: impl FnOnce() -> R) -> (R, Heap) {
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    TOTAL.store(0, Ordering::Relaxed);
    COUNT.store(0, Ordering::Relaxed);
    TRACK.with(|t| t.set(true));
    let r = f();
    TRACK.with(|t| t.set(false));
    let heap = Heap {
        peak: PEAK.load(Ordering::Relaxed),
        total: TOTAL.load(Ordering::Relaxed),
        count: COUNT.load(Ordering::Relaxed),
        retained: LIVE.load(Ordering::Relaxed),
    };
    (r, heap)
}
