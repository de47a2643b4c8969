//! Links kestrel-verifier into a `#![no_std]` `#![no_main]` host binary.
//!
//! The binary has its own `#[panic_handler]` and `#[global_allocator]`, so if anything in
//! the verifier's dependency graph pulls in `std`, the build fails with "duplicate lang
//! item `panic_impl`". It links against the C library only for the C start files,
//! `memcpy` and friends, `write` and `abort`.
//!
//! The global allocator is a bump allocator over a static array. It records the highest
//! address it handed out and the peak of live bytes; `main` prints both, so this binary
//! also measures the verifier's heap high-water mark.
//!
//! Exit status: 0 when every check passed, 1 when one failed, 2 when the heap ran out,
//! and SIGABRT on panic (after printing the panic message to stderr).
#![no_std]
#![no_main]

extern crate alloc;

use alloc::vec::Vec;
use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int};
use core::fmt::{self, Write as _};
use core::panic::PanicInfo;
use core::sync::atomic::{AtomicUsize, Ordering};

use kestrel_verifier::kestrel_core::field::{batch_inverse, Ext3, Felt, Field};
use kestrel_verifier::kestrel_core::transcript::Transcript;

// The C library: start files (`_start` calls our `main`), memcpy/memset, write, abort.
#[link(name = "c")]
extern "C" {}

extern "C" {
    fn write(fd: c_int, buf: *const u8, count: usize) -> isize;
    fn abort() -> !;
}

// ---------------------------------------------------------------------------------------
// Output without std
// ---------------------------------------------------------------------------------------

struct Fd(c_int);

impl fmt::Write for Fd {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut bytes = s.as_bytes();
        while !bytes.is_empty() {
            // SAFETY: `bytes` is a valid readable buffer of `bytes.len()` bytes.
            let n = unsafe { write(self.0, bytes.as_ptr(), bytes.len()) };
            if n <= 0 {
                return Err(fmt::Error);
            }
            bytes = &bytes[n as usize..];
        }
        Ok(())
    }
}

macro_rules! out {
    ($($arg:tt)*) => {{ let _ = writeln!(Fd(1), $($arg)*); }};
}

macro_rules! err {
    ($($arg:tt)*) => {{ let _ = writeln!(Fd(2), $($arg)*); }};
}

// ---------------------------------------------------------------------------------------
// Panic handler and the symbols the precompiled `core`/`alloc` expect
// ---------------------------------------------------------------------------------------

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    err!("nostd-link: panic: {info}");
    // SAFETY: abort never returns and is always safe to call.
    unsafe { abort() }
}

/// The precompiled `core` and `alloc` are built with unwinding and reference this symbol;
/// with `panic = "abort"` nothing ever calls it.
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}

/// The precompiled `core`/`alloc` reference the unwinder's resume entry point; with
/// `panic = "abort"` nothing unwinds, so it is never called.
#[no_mangle]
pub extern "C" fn _Unwind_Resume() -> ! {
    // SAFETY: `abort` takes no arguments and never returns.
    unsafe { abort() }
}

// ---------------------------------------------------------------------------------------
// Bump allocator
// ---------------------------------------------------------------------------------------

/// Heap size: the verifier must fit in this (raise it for large proofs).
const HEAP_SIZE: usize = 64 << 20;

#[repr(C, align(4096))]
struct Heap(UnsafeCell<[u8; HEAP_SIZE]>);

// SAFETY: the allocator hands out disjoint ranges of the array.
unsafe impl Sync for Heap {}

static HEAP: Heap = Heap(UnsafeCell::new([0; HEAP_SIZE]));

/// Bump allocator: `top` only moves up, except that freeing (or growing) the most recent
/// block rewinds (or extends) it in place, which keeps `Vec` growth cheap.
struct BumpAlloc {
    /// Offset of the first free byte.
    top: AtomicUsize,
    /// Highest `top` ever reached: the heap this program needs from a bump allocator.
    high_water: AtomicUsize,
    /// Bytes currently allocated and not freed.
    live: AtomicUsize,
    /// Highest `live` ever reached: the heap a general-purpose allocator would need.
    peak_live: AtomicUsize,
    /// Allocation calls served.
    allocations: AtomicUsize,
    /// Allocation calls refused for lack of space.
    failures: AtomicUsize,
}

#[global_allocator]
static ALLOC: BumpAlloc = BumpAlloc {
    top: AtomicUsize::new(0),
    high_water: AtomicUsize::new(0),
    live: AtomicUsize::new(0),
    peak_live: AtomicUsize::new(0),
    allocations: AtomicUsize::new(0),
    failures: AtomicUsize::new(0),
};

impl BumpAlloc {
    fn base() -> usize {
        HEAP.0.get() as usize
    }

    fn add_live(&self, n: usize) {
        let live = self.live.fetch_add(n, Ordering::Relaxed) + n;
        self.peak_live.fetch_max(live, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for BumpAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // Single-threaded program: Relaxed atomics are only there to avoid `static mut`.
        let base = Self::base();
        let top = self.top.load(Ordering::Relaxed);
        let start = (base + top).next_multiple_of(layout.align()) - base;
        let Some(end) = start.checked_add(layout.size()).filter(|&e| e <= HEAP_SIZE) else {
            self.failures.fetch_add(1, Ordering::Relaxed);
            return core::ptr::null_mut();
        };
        self.top.store(end, Ordering::Relaxed);
        self.high_water.fetch_max(end, Ordering::Relaxed);
        self.allocations.fetch_add(1, Ordering::Relaxed);
        self.add_live(layout.size());
        // SAFETY: `start + size <= HEAP_SIZE`, so the pointer stays inside the array.
        unsafe { HEAP.0.get().cast::<u8>().add(start) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
        let offset = ptr as usize - Self::base();
        if offset + layout.size() == self.top.load(Ordering::Relaxed) {
            self.top.store(offset, Ordering::Relaxed);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let offset = ptr as usize - Self::base();
        if offset + layout.size() == self.top.load(Ordering::Relaxed) {
            // The most recent block: resize in place.
            let Some(end) = offset.checked_add(new_size).filter(|&e| e <= HEAP_SIZE) else {
                self.failures.fetch_add(1, Ordering::Relaxed);
                return core::ptr::null_mut();
            };
            self.top.store(end, Ordering::Relaxed);
            self.high_water.fetch_max(end, Ordering::Relaxed);
            if new_size >= layout.size() {
                self.add_live(new_size - layout.size());
            } else {
                self.live
                    .fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
            return ptr;
        }
        // SAFETY: the caller guarantees `layout` describes `ptr` and `new_size` is valid
        // for `layout.align()`.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks are valid for the smaller size and do not overlap.
            unsafe {
                core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        new
    }
}

// ---------------------------------------------------------------------------------------
// What the embedded verifier runs
// ---------------------------------------------------------------------------------------

/// Field and transcript arithmetic from kestrel-core (through the verifier's re-export),
/// checked against values that hold for any correct implementation.
fn check_core() -> Result<(), &'static str> {
    let a = Felt::new(0x1234_5678_9abc_def0);
    let inv = a.inverse().ok_or("nonzero Felt has no inverse")?;
    if a * inv != Felt::ONE {
        return Err("Felt: a * a^-1 != 1");
    }
    if Felt::NEG_ONE + Felt::ONE != Felt::ZERO || Felt::ZERO.inverse().is_some() {
        return Err("Felt: -1 + 1 != 0 or 0 invertible");
    }
    let g = Felt::two_adic_generator(20).ok_or("no 2^20-th root of unity")?;
    if g.exp_u64(1 << 20) != Felt::ONE || g.exp_u64(1 << 19) != Felt::NEG_ONE {
        return Err("Felt: 2^20-th root of unity has the wrong order");
    }

    // Heap: a vector of elements and their batch inverse.
    let values: Vec<Felt> = (1..=1000u32).map(Felt::from).collect();
    let inverses = batch_inverse(&values).ok_or("batch_inverse failed")?;
    if values
        .iter()
        .zip(&inverses)
        .any(|(v, i)| *v * *i != Felt::ONE)
    {
        return Err("batch_inverse: v * v^-1 != 1");
    }

    // Fiat–Shamir: two transcripts fed the same data agree; a different label diverges.
    let run = |label: &[u8]| {
        let mut t = Transcript::new(b"kestrel-nostd-link");
        t.label(label);
        t.observe_felts(&values[..16]);
        t.observe_ext(Ext3::new(a, inv, g));
        (t.sample_felt(), t.sample_ext(), t.sample_bits(20))
    };
    let (f1, e1, b1) = run(b"round");
    let (f2, e2, b2) = run(b"round");
    let (f3, _, _) = run(b"other");
    if (f1, e1, b1) != (f2, e2, b2) || f1 == f3 || b1 >= 1 << 20 {
        return Err("Transcript: samples are not deterministic or ignore the label");
    }
    let e_inv = e1.inverse().ok_or("sampled extension element is zero")?;
    if e1 * e_inv != Ext3::ONE {
        return Err("Ext3: e * e^-1 != 1");
    }
    Ok(())
}

const GOLDEN_PROOF: &[u8] = include_bytes!("../../fixtures/fib-golden.proof");
const GOLDEN_VK: &[u8; 32] = include_bytes!("../../fixtures/fib-golden.vk");

fn verify_golden() -> Result<(), &'static str> {
    use kestrel_verifier::kestrel_core::air::examples::{fibonacci_trace_result, FibonacciMachine};
    use kestrel_verifier::kestrel_core::keys::VerifyingKey;
    let public = [
        Felt::ONE,
        Felt::ONE,
        fibonacci_trace_result(6, Felt::ONE, Felt::ONE),
    ];
    let vk = VerifyingKey(*GOLDEN_VK);
    if kestrel_verifier::verify(&FibonacciMachine, &vk, &public, GOLDEN_PROOF).is_err() {
        return Err("golden proof rejected");
    }
    let mut bad = GOLDEN_PROOF.to_vec();
    let mid = bad.len() / 2;
    bad[mid] ^= 1;
    if kestrel_verifier::verify(&FibonacciMachine, &vk, &public, &bad).is_ok() {
        return Err("tampered golden proof accepted");
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    let mut status = 0;
    if let Err(e) = check_core() {
        err!("nostd-link: core check failed: {e}");
        status = 1;
    }

    // The embedded verifier: the golden Fibonacci proof must verify under its key, and a
    // flipped byte must be rejected.
    match verify_golden() {
        Ok(()) => {}
        Err(e) => {
            err!("nostd-link: verifier check failed: {e}");
            status = 1;
        }
    }

    let failures = ALLOC.failures.load(Ordering::Relaxed);
    if failures > 0 {
        err!("nostd-link: heap of {HEAP_SIZE} bytes exhausted ({failures} refused allocations)");
        status = 2;
    }
    out!(
        "nostd-link: heap high-water {} bytes, peak live {} bytes, {} allocations",
        ALLOC.high_water.load(Ordering::Relaxed),
        ALLOC.peak_live.load(Ordering::Relaxed),
        ALLOC.allocations.load(Ordering::Relaxed)
    );
    if status == 0 {
        out!("nostd-link: ok");
    }
    status
}
