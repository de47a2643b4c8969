//! Runtime for Rust guests of the Kestrel RV64IM zkVM.
//!
//! A guest is a `#![no_std] #![no_main]` binary that depends on this crate and names its main
//! function with [`entry!`]:
//!
//! ```ignore
//! #![no_std]
//! #![no_main]
//! extern crate alloc;
//!
//! kestrel_guest::entry!(main);
//!
//! fn main() -> i32 {
//!     let input = kestrel_guest::read_input();
//!     kestrel_guest::commit(&input);
//!     0
//! }
//! ```
//!
//! The crate provides:
//!
//! - `_start` (in `global_asm!`): aligns `sp` down to 16 bytes, calls the guest's main and
//!   exits with main's return value ([`entry!`], [`ExitCode`]);
//! - system calls with the Linux RISC-V numbers, so that guests also run under `qemu-riscv64`:
//!   [`read_input`] / [`read`] (fd 0, private input), [`commit`] (fd 1, public output),
//!   [`debug`] (fd 2, not proven), [`exit`];
//! - a global allocator ([`BrkAllocator`]): a bump allocator over `brk`;
//! - a panic handler: writes the panic message to fd 2 and exits with [`PANIC_EXIT_CODE`] (101);
//! - the linker script (`kestrel.ld`, the C SDK's layout: code and read-only data at `0x10000`,
//!   data and bss on the next page, no writable and executable segment), given to the link by
//!   this crate's build script.
//!
//! # Limits
//!
//! What Kestrel gives a guest (see the repository's README.md, "Limits"):
//!
//! | what | limit | past it |
//! | --- | --- | --- |
//! | stack | 1 MiB, below `0xC000_0000` | memory fault |
//! | heap (`brk`) | 256 MiB from the page after the last segment | [`BrkAllocator`] exits with [`OOM_EXIT_CODE`] (120) |
//! | private input (fd 0) | 16 MiB | refused before running |
//! | public output (fd 1) | 1 MiB | the run stops (`kestrel run`: exit 3) |
//! | debug output (fd 2) | 1 MiB, not proven | as for fd 1 |
//!
//! The exit code and the public output are what a proof binds; debug output is not proven.
//! Only RV64IM instructions are emitted (the target has no `A` or `C` extension), and the
//! guest is single-threaded: atomics are plain loads and stores, and there is no
//! compare-and-swap.
#![no_std]

extern crate alloc;

use alloc::vec::Vec;
use core::alloc::{GlobalAlloc, Layout};
use core::arch::{asm, global_asm};
use core::cell::UnsafeCell;

/// `read(fd, buf, len)`, Linux RISC-V number.
pub const SYS_READ: usize = 63;
/// `write(fd, buf, len)`, Linux RISC-V number.
pub const SYS_WRITE: usize = 64;
/// `exit(code)`, Linux RISC-V number.
pub const SYS_EXIT: usize = 93;
/// `brk(addr)`, Linux RISC-V number.
pub const SYS_BRK: usize = 214;

/// The file descriptor of the private input.
pub const FD_INPUT: usize = 0;
/// The file descriptor of the public output (bound by the proof).
pub const FD_OUTPUT: usize = 1;
/// The file descriptor of the debug output (not proven).
pub const FD_DEBUG: usize = 2;

/// The exit code after a panic (as for Rust's `std`).
pub const PANIC_EXIT_CODE: i64 = 101;
/// The exit code when the heap is exhausted (as for the C SDK's `ks_alloc`).
pub const OOM_EXIT_CODE: i64 = 120;
/// The exit code when a system call fails (a `read` or `write` that returns an error).
pub const SYSCALL_EXIT_CODE: i64 = 121;

/// Kestrel's stack: 1 MiB below `0xC000_0000`.
pub const STACK_SIZE: usize = 1 << 20;
/// Kestrel's heap limit: 256 MiB above the initial break.
pub const MAX_HEAP: usize = 256 << 20;
/// Kestrel's limit on the private input: 16 MiB.
pub const MAX_INPUT: usize = 16 << 20;
/// Kestrel's limit on the public output: 1 MiB.
pub const MAX_OUTPUT: usize = 1 << 20;

global_asm!(
    ".section .text.start, \"ax\"",
    ".globl _start",
    "_start:",
    // The loader's sp (Kestrel: 0xC000_0000; qemu-riscv64: its own stack holding argv).
    "    andi sp, sp, -16",
    "    call __kestrel_main",
    // exit(a0)
    "    li a7, 93",
    "    ecall",
    "1:  j 1b",
);

/// Declares the guest's main function: `kestrel_guest::entry!(main);` with `fn main() -> T`
/// where `T` is `()`, `i32`, `u32`, `i64`, `u64` or `u8` (see [`ExitCode`]).
///
/// It defines the symbol `__kestrel_main` that `_start` calls; the guest exits with main's
/// return value (`()` means 0). A guest may also end early with [`exit`].
#[macro_export]
macro_rules! entry {
    ($main:path) => {
        #[doc(hidden)]
        #[no_mangle]
        pub extern "C" fn __kestrel_main() -> i64 {
            let main: fn() -> _ = $main;
            $crate::ExitCode::code(main())
        }
    };
}

/// What a guest's main may return: the exit code (public, bound by the proof; `qemu-riscv64`
/// and a shell see its low 8 bits).
pub trait ExitCode {
    /// The exit code.
    fn code(self) -> i64;
}

impl ExitCode for () {
    fn code(self) -> i64 {
        0
    }
}

macro_rules! exit_code_int {
    ($($t:ty),*) => {$(
        impl ExitCode for $t {
            fn code(self) -> i64 {
                self as i64
            }
        }
    )*};
}
exit_code_int!(i32, u32, i64, u64, u8);

/// A system call with up to three arguments: `a7 = n`, arguments in `a0..a2`, result in `a0`.
///
/// # Safety
/// The arguments must be valid for the call (e.g. a buffer of `len` bytes for `read`).
#[inline(always)]
pub unsafe fn syscall3(n: usize, a0: usize, a1: usize, a2: usize) -> isize {
    let ret: isize;
    asm!(
        "ecall",
        inlateout("a0") a0 => ret,
        in("a1") a1,
        in("a2") a2,
        in("a7") n,
        options(nostack),
    );
    ret
}

/// Ends the program with `code` (public, bound by the proof).
pub fn exit(code: i64) -> ! {
    unsafe {
        asm!("ecall", in("a0") code, in("a7") SYS_EXIT, options(noreturn, nostack));
    }
}

/// One `read(0, buf, buf.len())` of the private input: the number of bytes read, 0 at its end.
/// Exits with [`SYSCALL_EXIT_CODE`] if the call fails.
pub fn read(buf: &mut [u8]) -> usize {
    let n = unsafe { syscall3(SYS_READ, FD_INPUT, buf.as_mut_ptr() as usize, buf.len()) };
    if n < 0 {
        fail("kestrel-guest: read failed\n");
    }
    n as usize
}

/// Reads the whole private input (fd 0) to its end. Kestrel's input is at most 16 MiB
/// ([`MAX_INPUT`]); the buffer grows in place on the heap.
pub fn read_input() -> Vec<u8> {
    let mut v: Vec<u8> = Vec::new();
    loop {
        if v.capacity() - v.len() < 4096 {
            v.reserve(core::cmp::max(v.capacity(), 64 << 10));
        }
        let spare = v.spare_capacity_mut();
        let n = unsafe { syscall3(SYS_READ, FD_INPUT, spare.as_mut_ptr() as usize, spare.len()) };
        if n < 0 {
            fail("kestrel-guest: read failed\n");
        }
        if n == 0 {
            return v;
        }
        // SAFETY: the kernel (or Kestrel) wrote `n <= spare.len()` bytes.
        unsafe { v.set_len(v.len() + n as usize) };
    }
}

fn write_all(fd: usize, mut bytes: &[u8]) -> Result<(), ()> {
    while !bytes.is_empty() {
        let n = unsafe { syscall3(SYS_WRITE, fd, bytes.as_ptr() as usize, bytes.len()) };
        if n <= 0 {
            return Err(());
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// Appends `bytes` to the public output (fd 1, bound by the proof; at most 1 MiB in all,
/// [`MAX_OUTPUT`]: a write past it stops the run). Exits with [`SYSCALL_EXIT_CODE`] if the
/// write fails.
pub fn commit(bytes: &[u8]) {
    if write_all(FD_OUTPUT, bytes).is_err() {
        fail("kestrel-guest: write to fd 1 failed\n");
    }
}

/// Writes `s` to the debug output (fd 2; not proven). Errors are ignored.
pub fn debug(s: &str) {
    let _ = write_all(FD_DEBUG, s.as_bytes());
}

/// A [`core::fmt::Write`] to the debug output (fd 2), for `write!(DebugWriter, ...)` without
/// allocating.
pub struct DebugWriter;

impl core::fmt::Write for DebugWriter {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        write_all(FD_DEBUG, s.as_bytes()).map_err(|_| core::fmt::Error)
    }
}

fn fail(msg: &str) -> ! {
    debug(msg);
    exit(SYSCALL_EXIT_CODE)
}

/// `brk(addr)`: Linux semantics; returns the break in force (the old one if `addr` is refused).
pub fn brk(addr: usize) -> usize {
    unsafe { syscall3(SYS_BRK, addr, 0, 0) as usize }
}

/// The global allocator: a bump allocator over `brk`, for a single-threaded guest.
///
/// Memory is never reused, except that the most recent allocation grows or shrinks in place
/// (so a growing `Vec` such as [`read_input`]'s costs no copies). The heap is at most 256 MiB
/// ([`MAX_HEAP`]) under Kestrel; when `brk` refuses to move, the allocator writes a message to
/// fd 2 and exits with [`OOM_EXIT_CODE`] (120).
pub struct BrkAllocator {
    state: UnsafeCell<BrkState>,
}

struct BrkState {
    /// The next free byte (0 before the first allocation).
    next: usize,
    /// The current break.
    end: usize,
    /// The start of the last allocation (for in-place realloc).
    last: usize,
}

// SAFETY: guests are single-threaded.
unsafe impl Sync for BrkAllocator {}

/// How much the break moves at least at once.
const BRK_STEP: usize = 64 << 10;

impl BrkAllocator {
    /// A new allocator (the break is read at the first allocation).
    pub const fn new() -> Self {
        BrkAllocator {
            state: UnsafeCell::new(BrkState {
                next: 0,
                end: 0,
                last: 0,
            }),
        }
    }

    /// Makes `[.., top)` part of the heap, moving the break if needed.
    fn ensure(s: &mut BrkState, top: usize) {
        if top <= s.end {
            return;
        }
        let want = top
            .checked_add(BRK_STEP - 1)
            .map(|t| t & !(BRK_STEP - 1))
            .unwrap_or(top);
        let mut got = brk(want);
        if got < top {
            // Perhaps the larger step passes the limit: ask for the exact size.
            got = brk(top);
        }
        if got < top {
            debug("kestrel-guest: out of memory (heap is at most 256 MiB)\n");
            exit(OOM_EXIT_CODE);
        }
        s.end = got;
    }
}

impl Default for BrkAllocator {
    fn default() -> Self {
        Self::new()
    }
}

unsafe impl GlobalAlloc for BrkAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let s = &mut *self.state.get();
        if s.next == 0 {
            s.end = brk(0);
            s.next = s.end;
        }
        let align = layout.align().max(16);
        let start = match s.next.checked_add(align - 1) {
            Some(x) => x & !(align - 1),
            None => usize::MAX,
        };
        let top = start.checked_add(layout.size()).unwrap_or(usize::MAX);
        Self::ensure(s, top);
        s.next = top;
        s.last = start;
        start as *mut u8
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        let s = &mut *self.state.get();
        if ptr as usize == s.last {
            // The most recent allocation: give its bytes back.
            s.next = s.last;
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let s = &mut *self.state.get();
        if ptr as usize == s.last {
            let top = s.last.checked_add(new_size).unwrap_or(usize::MAX);
            Self::ensure(s, top);
            s.next = top;
            return ptr;
        }
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let new = self.alloc(new_layout);
        core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
        new
    }
}

#[global_allocator]
static ALLOCATOR: BrkAllocator = BrkAllocator::new();

/// The panic handler: writes `panicked at FILE:LINE:COL:\nMESSAGE\n` to fd 2 (not proven) and
/// exits with [`PANIC_EXIT_CODE`] (101). (Panics abort: there is no unwinding.)
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    use core::fmt::Write;
    let mut w = DebugWriter;
    let _ = match info.location() {
        Some(l) => writeln!(w, "panicked at {}:{}:{}:", l.file(), l.line(), l.column()),
        None => writeln!(w, "panicked:"),
    };
    let _ = writeln!(w, "{}", info.message());
    exit(PANIC_EXIT_CODE)
}
