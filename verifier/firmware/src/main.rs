//! Kestrel's verifier as Cortex-M33 firmware (QEMU `mps2-an505`, semihosting).
//!
//! The proof is not linked in: `run.sh` loads a *blob* into the PSRAM at [`BLOB_ADDR`]
//! (QEMU `-device loader`; standing in for memory-mapped external flash), so one build
//! checks every proof. The firmware streams it from there in place (a `SliceSource` over
//! the region: no copy, and the verifier re-reads the out-of-domain record instead of
//! holding it) with a 64 KiB heap, then prints one line through semihosting:
//!
//! ```text
//! kestrel-fw: kind=statement bytes=2251876 result=ok exit_code=0 output_len=5 heap_peak=… stack=…
//! ```
//!
//! and exits with status 0 when the proof verified, 1 when it was rejected (or the blob is
//! malformed, or the firmware faulted: the line says which).
//!
//! Measured around the one call of the verifier ([`verify_blob`]):
//! - peak heap: high-water mark of live bytes in the counting allocator ([`Counting`]);
//! - stack: a region below the caller's frame is painted before the call and scanned after;
//! - instructions: the QEMU plugin in `qemu-plugin/` counts the instructions executed between
//!   the marker functions [`kestrel_fw_mark_begin`] and [`kestrel_fw_mark_end`].
//!
//! Blob layout (little-endian):
//!
//! | bytes | what |
//! | --- | --- |
//! | 8 | `KFWPROOF` |
//! | 4 | kind: 0 = a Fibonacci-AIR proof, 1 = an RV64IM statement file (`kestrel prove`) |
//! | 4 | Fibonacci: log2 of the rows (the public values are recomputed from it); else 0 |
//! | 4 | `len`, the proof's (or file's) length |
//! | 32 | the verifying key |
//! | `len` | the proof or statement file |
#![no_std]
#![no_main]

extern crate alloc;

use core::alloc::{GlobalAlloc, Layout};
use core::mem::MaybeUninit;
use core::panic::PanicInfo;
use core::sync::atomic::{compiler_fence, AtomicUsize, Ordering};

use cortex_m_rt::{entry, exception, ExceptionFrame};
use cortex_m_semihosting::{debug, hprintln};
use embedded_alloc::LlffHeap;

use kestrel_verifier::kestrel_core::air::examples::{fibonacci_trace_result, FibonacciMachine};
use kestrel_verifier::kestrel_core::field::Felt;
use kestrel_verifier::kestrel_core::keys::VerifyingKey;
use kestrel_verifier::statement::{verify_statement_stream, FileError, Statement};
use kestrel_verifier::{SliceSource, VerifyError};

/// Where `run.sh` loads the blob: the PSRAM (16 MiB at `0x8000_0000`), standing in for
/// memory-mapped external flash (an RV64IM proof at the default preset is over 3 MiB).
const BLOB_ADDR: usize = 0x8000_0000;
/// The blob region's size.
const BLOB_MAX: usize = 16 << 20;
const HEADER: usize = 8 + 4 + 4 + 4 + 32;
const MAGIC: &[u8; 8] = b"KFWPROOF";

// ---------------------------------------------------------------------------------------
// Heap: a first-fit allocator over a static arena, behind a counting wrapper
// ---------------------------------------------------------------------------------------

/// The heap arena: 64 KiB (the issue's bound; the streaming verifier needs less for every
/// proof `run.sh` checks: an allocation failure would end the run as a panic).
const HEAP_SIZE: usize = 64 * 1024;
static mut HEAP_MEM: [MaybeUninit<u8>; HEAP_SIZE] = [MaybeUninit::uninit(); HEAP_SIZE];

/// Counts live bytes and keeps their high-water mark.
struct Counting {
    heap: LlffHeap,
    live: AtomicUsize,
    peak: AtomicUsize,
}

// SAFETY: every method forwards to `LlffHeap`, a correct `GlobalAlloc`, and only adds
// bookkeeping on the side.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we forward.
        let p = unsafe { self.heap.alloc(layout) };
        if !p.is_null() {
            let live = self.live.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            self.peak.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `self.alloc` with `layout` (the caller's contract).
        unsafe { self.heap.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting {
    heap: LlffHeap::empty(),
    live: AtomicUsize::new(0),
    peak: AtomicUsize::new(0),
};

// ---------------------------------------------------------------------------------------
// Markers for the instruction-counting plugin, stack painting
// ---------------------------------------------------------------------------------------

/// The plugin starts counting when this function's first instruction executes.
#[no_mangle]
#[inline(never)]
pub extern "C" fn kestrel_fw_mark_begin() {
    // Distinct bodies (1 vs 2), so the optimiser cannot merge the two markers.
    core::hint::black_box(1u32);
    compiler_fence(Ordering::SeqCst);
}

/// The plugin stops counting when this function's first instruction executes.
#[no_mangle]
#[inline(never)]
pub extern "C" fn kestrel_fw_mark_end() {
    core::hint::black_box(2u32);
    compiler_fence(Ordering::SeqCst);
}

const PAINT: u32 = 0x5afe_c0de;
/// Bytes painted below the caller's frame (the RAM left after the heap is ~3.9 MiB).
const PAINT_BYTES: usize = 128 * 1024;
/// Left unpainted just below the caller's stack pointer: the painting function's own frame.
const PAINT_GAP: usize = 512;

/// Paints `[sp − PAINT_GAP − PAINT_BYTES, sp − PAINT_GAP)` and returns `sp`.
#[inline(never)]
fn paint_stack() -> usize {
    let sp = cortex_m::register::msp::read() as usize;
    let top = sp - PAINT_GAP;
    let mut p = top - PAINT_BYTES;
    while p < top {
        // SAFETY: the region lies in RAM below the live stack (the stack grows down from the
        // top of RAM, the heap and statics end more than `PAINT_BYTES + PAINT_GAP` below
        // it: `HEAP_SIZE` leaves ~3.9 MiB), and nothing holds a reference into it.
        unsafe { core::ptr::write_volatile(p as *mut u32, PAINT) };
        p += 4;
    }
    sp
}

/// Bytes of stack used below `sp` since [`paint_stack`]: from `sp` down to the lowest
/// overwritten word.
fn stack_used(sp: usize) -> usize {
    let bottom = sp - PAINT_GAP - PAINT_BYTES;
    let mut p = bottom;
    // SAFETY: the same region `paint_stack` painted; now below the live stack again.
    while p < sp - PAINT_GAP && unsafe { core::ptr::read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    sp - p
}

// ---------------------------------------------------------------------------------------
// The blob and the verifier
// ---------------------------------------------------------------------------------------

enum Case<'a> {
    /// A Fibonacci-AIR proof of `2^log_rows` rows, starting from (1, 1).
    Fibonacci {
        vk: VerifyingKey,
        log_rows: u32,
        proof: &'a [u8],
    },
    /// An RV64IM statement file.
    Statement { vk: VerifyingKey, file: &'a [u8] },
}

impl Case<'_> {
    fn kind(&self) -> &'static str {
        match self {
            Case::Fibonacci { .. } => "fibonacci",
            Case::Statement { .. } => "statement",
        }
    }
    fn bytes(&self) -> usize {
        match self {
            Case::Fibonacci { proof, .. } => proof.len(),
            Case::Statement { file, .. } => file.len(),
        }
    }
}

enum Outcome {
    Proof(Result<(), VerifyError>),
    Statement(Result<Statement, FileError>),
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn read_blob() -> Result<Case<'static>, &'static str> {
    // SAFETY: the PSRAM is mapped at reset and nothing writes it after QEMU loaded the
    // blob; the slice stays within the blob region (`BLOB_MAX`), read-only.
    let region: &'static [u8] =
        unsafe { core::slice::from_raw_parts(BLOB_ADDR as *const u8, BLOB_MAX) };
    if &region[..8] != MAGIC {
        return Err("no proof blob at 0x1010_0000 (bad magic)");
    }
    let kind = u32_at(region, 8);
    let param = u32_at(region, 12);
    let len = u32_at(region, 16) as usize;
    if len > BLOB_MAX - HEADER {
        return Err("blob longer than its region");
    }
    let mut vk = [0u8; 32];
    vk.copy_from_slice(&region[20..HEADER]);
    let vk = VerifyingKey(vk);
    let data = &region[HEADER..HEADER + len];
    match kind {
        0 => Ok(Case::Fibonacci {
            vk,
            log_rows: param,
            proof: data,
        }),
        1 => Ok(Case::Statement { vk, file: data }),
        _ => Err("unknown blob kind"),
    }
}

/// The firmware's one adapter to the verifier: the proof streamed from the blob region in
/// place through a [`SliceSource`] (which rewinds).
#[inline(never)]
fn verify_blob(case: &Case<'_>) -> Outcome {
    match case {
        Case::Fibonacci {
            vk,
            log_rows,
            proof,
        } => {
            let public = [
                Felt::ONE,
                Felt::ONE,
                fibonacci_trace_result(*log_rows, Felt::ONE, Felt::ONE),
            ];
            Outcome::Proof(kestrel_verifier::verify_stream(
                &FibonacciMachine,
                vk,
                &public,
                &mut SliceSource::new(proof),
            ))
        }
        Case::Statement { vk, file } => {
            Outcome::Statement(verify_statement_stream(vk, &mut SliceSource::new(file)))
        }
    }
}

#[entry]
fn main() -> ! {
    // SAFETY: runs once, before the first allocation; `HEAP_MEM` is used by nothing else.
    unsafe {
        ALLOC
            .heap
            .init(core::ptr::addr_of_mut!(HEAP_MEM) as usize, HEAP_SIZE)
    };

    // The Keccak-p this core runs (Thumb-2 assembly, which the host tests cannot run)
    // against a known answer, before it hashes anything.
    if !kestrel_verifier::kestrel_core::keccak32::self_test() {
        hprintln!("kestrel-fw: result=error keccak-p self-test failed");
        debug::exit(debug::EXIT_FAILURE);
        loop {}
    }
    // The same for the Goldilocks multiplication (Thumb-2 assembly too), against the
    // portable code.
    if !kestrel_verifier::kestrel_core::field::Felt::self_test() {
        hprintln!("kestrel-fw: result=error field multiplication self-test failed");
        debug::exit(debug::EXIT_FAILURE);
        loop {}
    }

    let case = match read_blob() {
        Ok(c) => c,
        Err(e) => {
            hprintln!("kestrel-fw: result=error blob: {}", e);
            debug::exit(debug::EXIT_FAILURE);
            loop {}
        }
    };

    let sp = paint_stack();
    ALLOC
        .peak
        .store(ALLOC.live.load(Ordering::Relaxed), Ordering::Relaxed);
    let heap_before = ALLOC.live.load(Ordering::Relaxed);
    kestrel_fw_mark_begin();
    let outcome = verify_blob(&case);
    kestrel_fw_mark_end();
    let stack = stack_used(sp);
    let heap_peak = ALLOC.peak.load(Ordering::Relaxed) - heap_before;

    let (kind, bytes) = (case.kind(), case.bytes());
    let ok = match &outcome {
        Outcome::Proof(Ok(())) => {
            hprintln!(
                "kestrel-fw: kind={} bytes={} result=ok heap_peak={} stack={}",
                kind,
                bytes,
                heap_peak,
                stack
            );
            true
        }
        Outcome::Statement(Ok(st)) => {
            hprintln!(
                "kestrel-fw: kind={} bytes={} result=ok exit_code={} output_len={} heap_peak={} stack={}",
                kind,
                bytes,
                st.exit_code,
                st.output.len(),
                heap_peak,
                stack
            );
            true
        }
        Outcome::Proof(Err(e)) => {
            hprintln!(
                "kestrel-fw: kind={} bytes={} result=rejected ({}) heap_peak={} stack={}",
                kind,
                bytes,
                e,
                heap_peak,
                stack
            );
            false
        }
        Outcome::Statement(Err(e)) => {
            hprintln!(
                "kestrel-fw: kind={} bytes={} result=rejected ({}) heap_peak={} stack={}",
                kind,
                bytes,
                e,
                heap_peak,
                stack
            );
            false
        }
    };
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {}
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    hprintln!("kestrel-fw: result=fault pc={:#x}", frame.pc());
    debug::exit(debug::EXIT_FAILURE);
    loop {}
}

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    hprintln!("kestrel-fw: result=panic {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {}
}
