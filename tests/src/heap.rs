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

// ---- stack painting ----

use std::hint::black_box;

const PATTERN: u64 = 0x5A5A_A5A5_C3C3_3C3C;
/// How far below the caller's frame the stack is painted.
const PAINT: usize = 1 << 20;
/// Left unpainted just below the caller's frame: the painting functions' own frames.
const GAP: usize = 4096;

#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    black_box(&marker) as *const u8 as usize
}

#[inline(never)]
fn paint(lo: usize, hi: usize) {
    let mut a = lo;
    while a < hi {
        // SAFETY: [lo, hi) lies inside this thread's stack (a 4 MiB stack, PAINT = 1 MiB
        // below a frame near its top) and below every live frame.
        unsafe { std::ptr::write_volatile(a as *mut u64, PATTERN) };
        a += 8;
    }
}

#[inline(never)]
fn lowest_touched(lo: usize, hi: usize) -> usize {
    let mut a = lo;
    // SAFETY: as in `paint`; the words are initialised (painted) or written by callees.
    while a < hi && unsafe { std::ptr::read_volatile(a as *const u64) } == PATTERN {
        a += 8;
    }
    a
}

/// Stack bytes `f` uses below the caller's frame, measured on a fresh 4 MiB thread.
pub fn stack_high_water<R: Send>(f: impl FnOnce() -> R + Send) -> (R, usize) {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(4 << 20)
            .spawn_scoped(s, move || {
                let top = stack_address() & !7;
                let (lo, hi) = (top - PAINT, top - GAP);
                paint(lo, hi);
                let r = black_box(f)();
                let low = lowest_touched(lo, hi);
                assert!(low > lo, "the painted stack region was exhausted");
                (r, top - low)
            })
            .expect("spawn the measuring thread")
            .join()
            .expect("the measuring thread panicked")
    })
}
