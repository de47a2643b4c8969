//! A C interface to Kestrel's verifier, for firmware written in C.
//!
//! ```c
//! static uint8_t arena[64 << 10];
//! KestrelReport report;
//! int32_t rc = kestrel_verify_statement(vk, file, file_len, arena, sizeof arena, &report);
//! if (rc == KESTREL_OK) { /* report.exit_code, report.output[0 .. report.output_len) */ }
//! else { /* rejected: report.message says why */ }
//! ```
//!
//! The verifier streams the proof: its heap depends on the AIR's shape, not on the proof's
//! size. [`kestrel_verify_statement`] reads a file held in memory (or memory-mapped flash) in
//! place and re-reads its out-of-domain record instead of holding it (the least heap);
//! [`kestrel_verify_statement_stream`] pulls the file through a read callback
//! ([`kestrel_read_fn`]) in pieces of at most 256 bytes, reads it once, and holds the
//! out-of-domain values (about 59 KB more for RV64IM); [`kestrel_verify_statement_rewind`]
//! adds a seek callback ([`kestrel_seek_fn`]) and needs only the in-memory arena.
//!
//! Every allocation of a call comes from the caller's arena (a first-fit allocator is laid
//! over it for the duration of the call); nothing is allocated between calls, and the arena
//! may be reused or freed once the call has returned and its output was read. The library is
//! `#![no_std]`: it needs `memcpy`/`memset`/`memcmp` and, if a call panics (an arena too
//! small for the proof: see [`KestrelReport::arena_peak`]), `abort`.
//!
//! Calls are not reentrant: a call made while another one runs (another thread, an
//! interrupt handler) returns [`KESTREL_ERR_BUSY`].
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

extern crate alloc;

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int, c_void};
use core::fmt::Write as _;
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use kestrel_verifier::kestrel_core::air::examples::FibonacciMachine;
use kestrel_verifier::kestrel_core::field::Felt;
use kestrel_verifier::kestrel_core::keys::VerifyingKey;
use kestrel_verifier::statement::{verify_statement_stream, FileError, Statement};
use kestrel_verifier::{ProofSource, SliceSource, SourceError, VerifyError};
use linked_list_allocator::Heap;

/// The proof verified.
pub const KESTREL_OK: i32 = 0;
/// A required pointer is null, or the arena is too small to hold the allocator's bookkeeping.
pub const KESTREL_ERR_ARGUMENT: i32 = 1;
/// Another call is running (the library is not reentrant).
pub const KESTREL_ERR_BUSY: i32 = 2;
/// The bytes are not a statement file (bad magic, truncated, output too long).
pub const KESTREL_ERR_FORMAT: i32 = 3;
/// Rejected: the proof does not have the shape its parameters and statement imply.
pub const KESTREL_ERR_MALFORMED: i32 = 4;
/// Rejected: the proof has the right shape, but a check failed.
pub const KESTREL_ERR_INVALID: i32 = 5;

/// The read (or seek) callback failed, or the input gave other bytes when read a second time.
pub const KESTREL_ERR_READ: i32 = 6;

/// The smallest arena a call accepts (the allocator's bookkeeping needs 2–3 words; no proof
/// verifies in so little, but a smaller one is an argument error rather than a panic).
pub const KESTREL_MIN_ARENA: usize = 256;

/// Length of [`KestrelReport::message`], its terminating NUL included.
pub const KESTREL_MESSAGE_LEN: usize = 96;

/// What a call found.
#[repr(C)]
pub struct KestrelReport {
    /// The statement's exit code (statement files only; 0 otherwise).
    pub exit_code: u64,
    /// The statement's public output: it lies in the arena, valid until the arena is reused.
    /// Null when the call did not return `KESTREL_OK` or the output is empty.
    pub output: *const u8,
    /// Length of `output` in bytes.
    pub output_len: usize,
    /// The most bytes the call had allocated at once: an arena of this size plus the
    /// allocator's overhead (alignment, a few words per block) suffices for this proof.
    pub arena_peak: usize,
    /// Why the proof was rejected, a NUL-terminated line (empty on success).
    pub message: [c_char; KESTREL_MESSAGE_LEN],
}

// ---------------------------------------------------------------------------------------
// The arena allocator
// ---------------------------------------------------------------------------------------

struct ArenaState {
    heap: UnsafeCell<Heap>,
    /// Held while `heap` is read or written.
    lock: AtomicBool,
    /// Whether a call's arena is installed; allocations fail outside a call.
    active: AtomicBool,
    live: AtomicUsize,
    peak: AtomicUsize,
}

// SAFETY: `heap` is only touched with `lock` held (`ArenaState::with_heap`), so at most one
// thread reaches it at a time; the other fields are atomics.
unsafe impl Sync for ArenaState {}

static STATE: ArenaState = ArenaState {
    heap: UnsafeCell::new(Heap::empty()),
    lock: AtomicBool::new(false),
    active: AtomicBool::new(false),
    live: AtomicUsize::new(0),
    peak: AtomicUsize::new(0),
};

/// Taken by a verifying call for its whole duration.
static BUSY: AtomicBool = AtomicBool::new(false);

impl ArenaState {
    fn with_heap<R>(&self, f: impl FnOnce(&mut Heap) -> R) -> R {
        while self
            .lock
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            core::hint::spin_loop();
        }
        // SAFETY: `lock` is held, so this is the only reference to the heap until released.
        let r = f(unsafe { &mut *self.heap.get() });
        self.lock.store(false, Ordering::Release);
        r
    }
}

/// The global allocator that serves each call from its caller's arena. The `runtime` feature
/// (on by default) installs it; a Rust program linking the rlib without that feature installs
/// it itself: `#[global_allocator] static A: ArenaAllocator = ArenaAllocator;`.
pub struct ArenaAllocator;

// SAFETY: blocks come from `linked_list_allocator::Heap`, which hands out disjoint blocks of
// the requested layout inside the installed arena; outside a call, allocation returns null
// (failure) and deallocation is a no-op (the arena was handed back and is re-initialised
// before the next call).
unsafe impl GlobalAlloc for ArenaAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !STATE.active.load(Ordering::Acquire) {
            return ptr::null_mut();
        }
        match STATE.with_heap(|h| h.allocate_first_fit(layout)) {
            Ok(p) => {
                let live = STATE.live.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
                STATE.peak.fetch_max(live, Ordering::Relaxed);
                p.as_ptr()
            }
            Err(()) => ptr::null_mut(),
        }
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if !STATE.active.load(Ordering::Acquire) {
            return;
        }
        let Some(p) = NonNull::new(p) else { return };
        STATE.live.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `p` was returned by `alloc` with `layout` during this call (the caller's
        // `GlobalAlloc` contract), so it is a live block of this heap.
        STATE.with_heap(|h| unsafe { h.deallocate(p, layout) });
    }
}

#[cfg(feature = "runtime")]
#[global_allocator]
static ALLOC: ArenaAllocator = ArenaAllocator;

/// Runs `f` with `arena[..len]` as the heap; returns `f`'s result and the peak of live bytes.
///
/// # Safety
/// `arena` must be valid for reads and writes of `len` bytes, and unused by anything else
/// for the duration of the call.
unsafe fn with_arena<R>(
    arena: *mut u8,
    len: usize,
    f: impl FnOnce() -> R,
) -> Result<(R, usize), i32> {
    if len < KESTREL_MIN_ARENA {
        return Err(KESTREL_ERR_ARGUMENT);
    }
    if BUSY
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        return Err(KESTREL_ERR_BUSY);
    }
    // SAFETY: the caller guarantees `arena[..len]` is valid and exclusively ours for the
    // call; it is large enough for the heap's first hole (checked above). `Heap::new` asks
    // for memory valid for `'static`: the heap is replaced by an empty one before this
    // function returns, so no block of it is handed out or freed after the call.
    STATE.with_heap(|h| unsafe { *h = Heap::new(arena, len) });
    STATE.live.store(0, Ordering::Relaxed);
    STATE.peak.store(0, Ordering::Relaxed);
    STATE.active.store(true, Ordering::Release);
    let r = f();
    STATE.active.store(false, Ordering::Release);
    STATE.with_heap(|h| *h = Heap::empty());
    let peak = STATE.peak.load(Ordering::Relaxed);
    BUSY.store(false, Ordering::Release);
    Ok((r, peak))
}

// ---------------------------------------------------------------------------------------
// The verifier
// ---------------------------------------------------------------------------------------

/// Reads the next `len` bytes of the input into `buf` (see [`kestrel_verify_statement_stream`]).
///
/// Called from within the verifying call, in input order, with `1 <= len <= 256` and `buf`
/// valid for `len` writable bytes. Returns:
/// - `0`: `buf[0 .. len)` was filled with the next `len` bytes;
/// - a positive value: the input ended, fewer than `len` bytes were left (what `buf` then
///   holds is ignored). The verifier asks for one byte past the end of the proof: the
///   callback must answer that with a positive value (any byte there is rejected as
///   trailing);
/// - a negative value: the read failed; the call returns `KESTREL_ERR_READ`.
///
/// After a nonzero return the callback is not called again during that call. `ctx` is the
/// `read_ctx` the caller passed, unchanged.
#[allow(non_camel_case_types)]
pub type kestrel_read_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, buf: *mut u8, len: usize) -> c_int>;

/// Makes the next [`kestrel_read_fn`] call start at byte `pos` of the input (see
/// [`kestrel_verify_statement_rewind`]): `pos` is an offset from the input's first byte, one
/// the library has already read past. Returns 0 on success, nonzero when it cannot (the call
/// returns `KESTREL_ERR_READ`).
#[allow(non_camel_case_types)]
pub type kestrel_seek_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, pos: usize) -> c_int>;

/// The C callbacks as a [`ProofSource`]: read in order, and able to rewind when there is a
/// seek callback (the library counts the bytes read to know the position).
struct Callback {
    read: unsafe extern "C" fn(ctx: *mut c_void, buf: *mut u8, len: usize) -> c_int,
    seek: Option<unsafe extern "C" fn(ctx: *mut c_void, pos: usize) -> c_int>,
    ctx: *mut c_void,
    pos: usize,
}

impl ProofSource for Callback {
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), SourceError> {
        if buf.is_empty() {
            return Ok(());
        }
        // SAFETY: `buf` is valid for `buf.len()` writable bytes; the caller of the entry
        // point guarantees `read` may be called with `ctx`.
        match unsafe { (self.read)(self.ctx, buf.as_mut_ptr(), buf.len()) } {
            0 => {
                self.pos += buf.len();
                Ok(())
            }
            r if r > 0 => Err(SourceError::End),
            _ => Err(SourceError::Failed),
        }
    }

    fn position(&self) -> Option<usize> {
        self.seek.map(|_| self.pos)
    }

    fn seek(&mut self, pos: usize) -> Result<(), SourceError> {
        let seek = self.seek.ok_or(SourceError::Failed)?;
        // SAFETY: the caller of the entry point guarantees `seek` may be called with `ctx`.
        match unsafe { seek(self.ctx, pos) } {
            0 => {
                self.pos = pos;
                Ok(())
            }
            _ => Err(SourceError::Failed),
        }
    }
}

enum Request<'a> {
    /// A statement file (`kestrel prove`'s output) for the RV64IM machine, in memory.
    Statement(&'a [u8]),
    /// A statement file pulled through a read callback.
    Stream(Callback),
    /// A proof for the Fibonacci example AIR with these public values.
    Fibonacci { proof: &'a [u8], public: &'a [u64] },
}

/// The library's one adapter to the verifier's streaming API: each request as a
/// [`ProofSource`] (the in-memory inputs as a [`SliceSource`], which rewinds).
fn run_verifier(vk: &VerifyingKey, req: Request<'_>) -> Result<Option<Statement>, FileError> {
    match req {
        Request::Statement(file) => {
            verify_statement_stream(vk, &mut SliceSource::new(file)).map(Some)
        }
        Request::Stream(mut cb) => verify_statement_stream(vk, &mut cb).map(Some),
        Request::Fibonacci { proof, public } => {
            let public: alloc::vec::Vec<Felt> = public
                .iter()
                .map(|&v| Felt::from_canonical(v))
                .collect::<Option<_>>()
                .ok_or(FileError::Proof(VerifyError::Decode))?;
            kestrel_verifier::verify_stream(
                &FibonacciMachine,
                vk,
                &public,
                &mut SliceSource::new(proof),
            )
            .map(|()| None)
            .map_err(FileError::Proof)
        }
    }
}

fn error_code(e: &FileError) -> i32 {
    use VerifyError::*;
    match e {
        FileError::Format("the proof file's source failed") | FileError::Proof(Source) => {
            KESTREL_ERR_READ
        }
        FileError::Format(_) => KESTREL_ERR_FORMAT,
        FileError::Proof(
            Truncated
            | BadMagic
            | UnsupportedVersion { .. }
            | Decode
            | TrailingBytes { .. }
            | BadParams
            | BelowSecurityFloor { .. }
            | Air(_)
            | PublicCount { .. }
            | LogHeight { .. }
            | Length { .. },
        ) => KESTREL_ERR_MALFORMED,
        FileError::Proof(_) => KESTREL_ERR_INVALID,
    }
}

/// Writes a `Display` into a fixed buffer, truncating, always NUL-terminated.
struct Message<'a> {
    buf: &'a mut [c_char; KESTREL_MESSAGE_LEN],
    len: usize,
}

impl core::fmt::Write for Message<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for &b in s.as_bytes() {
            if self.len + 1 >= KESTREL_MESSAGE_LEN {
                break;
            }
            self.buf[self.len] = b as c_char;
            self.len += 1;
        }
        self.buf[self.len] = 0;
        Ok(())
    }
}

/// Shared by the entry points: checks the pointers, runs the request in the arena, fills the
/// report.
///
/// # Safety
/// As for [`kestrel_verify_statement`]; `req` borrows memory the caller keeps valid.
unsafe fn verify_into(
    vk: *const u8,
    req: Request<'_>,
    arena: *mut u8,
    arena_len: usize,
    report: *mut KestrelReport,
) -> i32 {
    if vk.is_null() || arena.is_null() || report.is_null() {
        return KESTREL_ERR_ARGUMENT;
    }
    // SAFETY: `report` is non-null and the caller guarantees it points to a writable
    // `KestrelReport`; every field is plain data, so writing a whole value is sound.
    let report = unsafe {
        report.write(KestrelReport {
            exit_code: 0,
            output: ptr::null(),
            output_len: 0,
            arena_peak: 0,
            message: [0; KESTREL_MESSAGE_LEN],
        });
        &mut *report
    };
    let mut key = [0u8; 32];
    // SAFETY: the caller guarantees `vk` points to 32 readable bytes.
    key.copy_from_slice(unsafe { core::slice::from_raw_parts(vk, 32) });
    let key = VerifyingKey(key);
    // SAFETY: the caller guarantees `arena[..arena_len]` is ours for the call.
    let run = unsafe {
        with_arena(arena, arena_len, || {
            // Everything the verifier allocated is freed inside the call; the output is
            // left in the arena for the caller.
            run_verifier(&key, req).map(|st| {
                st.map(|st| {
                    let output: &'static mut [u8] = st.output.leak();
                    (st.exit_code, output.as_ptr(), output.len())
                })
            })
        })
    };
    let (result, peak) = match run {
        Ok(r) => r,
        Err(code) => return code,
    };
    report.arena_peak = peak;
    match result {
        Ok(Some((exit_code, output, output_len))) => {
            report.exit_code = exit_code;
            report.output = if output_len == 0 { ptr::null() } else { output };
            report.output_len = output_len;
            KESTREL_OK
        }
        Ok(None) => KESTREL_OK,
        Err(e) => {
            let _ = write!(
                Message {
                    buf: &mut report.message,
                    len: 0
                },
                "{e}"
            );
            error_code(&e)
        }
    }
}

/// Verifies a statement file (what `kestrel prove` writes: exit code, public output, proof)
/// against the RV64IM verifying key `vk` (the 32 bytes `kestrel vk` writes).
///
/// Returns `KESTREL_OK` and fills `report` (exit code, output) when the proof verifies, an
/// error code (`KESTREL_ERR_*`) and `report->message` otherwise. Every allocation comes from
/// `arena[0 .. arena_len)`; `report->arena_peak` says how much of it was needed.
///
/// # Safety
/// `vk` points to 32 readable bytes, `file` to `file_len` readable bytes, `arena` to
/// `arena_len` writable bytes used by nothing else during the call, `report` to a writable
/// `KestrelReport`. `file` and `arena` must not overlap.
#[no_mangle]
pub unsafe extern "C" fn kestrel_verify_statement(
    vk: *const u8,
    file: *const u8,
    file_len: usize,
    arena: *mut u8,
    arena_len: usize,
    report: *mut KestrelReport,
) -> i32 {
    if file.is_null() {
        return KESTREL_ERR_ARGUMENT;
    }
    // SAFETY: `file` is non-null and the caller guarantees `file_len` readable bytes that
    // stay unchanged during the call.
    let file = unsafe { core::slice::from_raw_parts(file, file_len) };
    // SAFETY: the caller's guarantees, forwarded.
    unsafe { verify_into(vk, Request::Statement(file), arena, arena_len, report) }
}

/// [`kestrel_verify_statement`] for a statement file fed in pieces: the library calls
/// `read_fn(read_ctx, buf, len)` (a [`kestrel_read_fn`]) from within this call, in file order,
/// for the next `len <= 256` bytes each time, until the file has been read and one more
/// byte was asked for (the callback then reports the end). The file is read once; the
/// arena must hold what the verifier keeps, the out-of-domain values included (the report's
/// `arena_peak` says how much). Results as for [`kestrel_verify_statement`], and
/// `KESTREL_ERR_READ` when the callback returned a negative value.
///
/// # Safety
/// `read_fn` is non-null and may be called with `read_ctx` during the call (it writes at
/// most `len` bytes to `buf`); `vk`, `arena`, `report` as for [`kestrel_verify_statement`].
#[no_mangle]
pub unsafe extern "C" fn kestrel_verify_statement_stream(
    vk: *const u8,
    read_fn: kestrel_read_fn,
    read_ctx: *mut c_void,
    arena: *mut u8,
    arena_len: usize,
    report: *mut KestrelReport,
) -> i32 {
    let Some(read) = read_fn else {
        return KESTREL_ERR_ARGUMENT;
    };
    let req = Request::Stream(Callback {
        read,
        seek: None,
        ctx: read_ctx,
        pos: 0,
    });
    // SAFETY: the caller's guarantees, forwarded.
    unsafe { verify_into(vk, req, arena, arena_len, report) }
}

/// [`kestrel_verify_statement_stream`] for an input that can also seek back (a file, an SPI
/// flash read by address): `seek_fn(ctx, pos)` (a [`kestrel_seek_fn`]) makes the next
/// `read_fn` call start at byte `pos` of the file. The verifier then reads the proof's
/// out-of-domain record twice instead of holding it, so the arena is that of
/// [`kestrel_verify_statement`] (under 64 KiB for RV64IM). Both reads are hashed and must
/// agree: an input that gives other bytes the second time is rejected (`KESTREL_ERR_READ`).
/// `ctx` is passed to both callbacks. Results as for [`kestrel_verify_statement_stream`].
///
/// # Safety
/// As for [`kestrel_verify_statement_stream`], and `seek_fn` is non-null and may be called
/// with `ctx` during the call.
#[no_mangle]
pub unsafe extern "C" fn kestrel_verify_statement_rewind(
    vk: *const u8,
    read_fn: kestrel_read_fn,
    seek_fn: kestrel_seek_fn,
    ctx: *mut c_void,
    arena: *mut u8,
    arena_len: usize,
    report: *mut KestrelReport,
) -> i32 {
    let (Some(read), Some(seek)) = (read_fn, seek_fn) else {
        return KESTREL_ERR_ARGUMENT;
    };
    let req = Request::Stream(Callback {
        read,
        seek: Some(seek),
        ctx,
        pos: 0,
    });
    // SAFETY: the caller's guarantees, forwarded.
    unsafe { verify_into(vk, req, arena, arena_len, report) }
}

/// Verifies a proof of the Fibonacci example AIR (`kestrel fib`; the golden fixture) with
/// public values `public_values[0 .. n_public)` (canonical Goldilocks elements: first two terms and
/// the last) against `vk`. Results as for [`kestrel_verify_statement`] (no exit code or
/// output).
///
/// # Safety
/// As for [`kestrel_verify_statement`], with `proof`/`proof_len` for the file, and `public_values`
/// pointing to `n_public` readable `uint64_t`s.
#[no_mangle]
pub unsafe extern "C" fn kestrel_verify_fibonacci(
    vk: *const u8,
    proof: *const u8,
    proof_len: usize,
    public_values: *const u64,
    n_public: usize,
    arena: *mut u8,
    arena_len: usize,
    report: *mut KestrelReport,
) -> i32 {
    if proof.is_null() || public_values.is_null() {
        return KESTREL_ERR_ARGUMENT;
    }
    // SAFETY: both are non-null, and the caller guarantees `proof_len` readable bytes and
    // `n_public` readable `u64`s, unchanged during the call.
    let (proof, public) = unsafe {
        (
            core::slice::from_raw_parts(proof, proof_len),
            core::slice::from_raw_parts(public_values, n_public),
        )
    };
    // SAFETY: the caller's guarantees, forwarded.
    unsafe {
        verify_into(
            vk,
            Request::Fibonacci { proof, public },
            arena,
            arena_len,
            report,
        )
    }
}

/// A static, NUL-terminated name for a `KESTREL_*` code ("unknown" for others).
#[no_mangle]
pub extern "C" fn kestrel_error_name(code: i32) -> *const c_char {
    let s: &'static [u8] = match code {
        KESTREL_OK => b"ok\0",
        KESTREL_ERR_ARGUMENT => b"invalid argument\0",
        KESTREL_ERR_BUSY => b"busy\0",
        KESTREL_ERR_FORMAT => b"not a statement file\0",
        KESTREL_ERR_MALFORMED => b"malformed proof\0",
        KESTREL_ERR_INVALID => b"invalid proof\0",
        KESTREL_ERR_READ => b"read failed\0",
        _ => b"unknown\0",
    };
    s.as_ptr().cast()
}

// ---------------------------------------------------------------------------------------
// Runtime for a C program: panic handler, and what precompiled `core` expects on a host
// ---------------------------------------------------------------------------------------

#[cfg(feature = "runtime")]
mod runtime {
    extern "C" {
        fn abort() -> !;
    }

    /// A panic (an arena too small: allocation failure) cannot unwind into C: abort.
    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
        // SAFETY: C's `abort` takes no arguments and never returns.
        unsafe { abort() }
    }

    /// A hosted target's precompiled `core` is built with unwinding and references the
    /// personality routine; with `panic = "abort"` nothing calls it.
    #[cfg(not(target_os = "none"))]
    #[no_mangle]
    pub extern "C" fn rust_eh_personality() {}

    /// As above: the unwinder's resume entry point, never reached without unwinding.
    #[cfg(not(target_os = "none"))]
    #[no_mangle]
    pub extern "C" fn _Unwind_Resume() -> ! {
        // SAFETY: C's `abort` takes no arguments and never returns.
        unsafe { abort() }
    }
}
