//! System calls, with Linux RISC-V numbers so the same ELF runs under `qemu-riscv64`.
//!
//! | a7 | call | behaviour |
//! | --- | --- | --- |
//! | 93 | `exit(a0)` | stops; the exit code is a0 (a process sees its low 8 bits) |
//! | 64 | `write(fd, buf, len)` | fd 1 appends to the public output (at most [`MAX_PUBLIC_OUTPUT`] bytes in all), fd 2 to the debug text (at most [`MAX_DEBUG_OUTPUT`]); returns `len` |
//! | 63 | `read(fd, buf, len)` | fd 0 copies the next `min(len, remaining)` private input bytes; returns that count (0 at the end) |
//! | 214 | `brk(addr)` | Linux semantics: moves the break if `addr` is in the heap range, returns the break in force |
//!
//! Any other number, another fd, or a buffer that is not mapped with the needed permission stops
//! execution with a [`VmError`] (Linux would return `-EBADF`/`-EFAULT`; Kestrel's proofs have no
//! use for error returns, so they are errors here). So does a `write` that would take its stream
//! past its limit ([`VmError::OutputLimit`]): the check compares `len` with what is left before
//! any byte is copied, so a single huge write allocates nothing.

use kestrel_core::rv::machine::MAX_OUTPUT;

use super::error::{Access, VmError};
use super::memory::Memory;

/// `exit`.
pub const SYS_EXIT: u64 = 93;
/// `write`.
pub const SYS_WRITE: u64 = 64;
/// `read`.
pub const SYS_READ: u64 = 63;
/// `brk`.
pub const SYS_BRK: u64 = 214;

/// Most bytes a guest may write to fd 1 (public output) in one run: the largest output a
/// proof's statement carries (`kestrel_core::rv::machine::MAX_OUTPUT`, 1 MiB).
pub const MAX_PUBLIC_OUTPUT: u64 = MAX_OUTPUT as u64;
/// Most bytes a guest may write to fd 2 (debug text) in one run: 1 MiB. Debug text is not
/// proven; the cap keeps `kestrel run` and `prove` bounded.
pub const MAX_DEBUG_OUTPUT: u64 = 1 << 20;

const A0: usize = 10;
const A1: usize = 11;
const A2: usize = 12;
const A7: usize = 17;

/// The guest's input and output streams.
#[derive(Clone, Debug, Default)]
pub struct Io {
    /// Private input (fd 0).
    pub input: Vec<u8>,
    /// How many input bytes have been read.
    pub input_pos: usize,
    /// Public output (fd 1).
    pub public: Vec<u8>,
    /// Debug text (fd 2).
    pub debug: Vec<u8>,
}

/// What the interpreter does after an ECALL.
pub(crate) enum After {
    Continue,
    Exit(u64),
}

/// Executes the ECALL at `pc` (`word`) on registers `x`.
pub(crate) fn ecall(
    x: &mut [u64; 32],
    mem: &mut Memory,
    io: &mut Io,
    pc: u64,
    word: u32,
) -> Result<After, VmError> {
    let (a0, buf, len) = (x[A0], x[A1], x[A2]);
    match x[A7] {
        SYS_EXIT => return Ok(After::Exit(a0)),
        SYS_WRITE => {
            let (out, limit) = match a0 {
                1 => (&mut io.public, MAX_PUBLIC_OUTPUT),
                2 => (&mut io.debug, MAX_DEBUG_OUTPUT),
                fd => {
                    return Err(VmError::BadFd {
                        pc,
                        word,
                        call: "write",
                        fd,
                    })
                }
            };
            // Before any byte is read or copied: would the stream pass its limit?
            let written = out.len() as u64;
            if len > limit - written.min(limit) {
                return Err(VmError::OutputLimit {
                    pc,
                    word,
                    fd: a0,
                    written,
                    len,
                    limit,
                });
            }
            let fault = VmError::MemoryFault {
                pc,
                word,
                access: Access::Read,
                addr: buf,
                width: len,
            };
            if !mem.readable(buf, len) {
                return Err(fault);
            }
            let bytes = mem.read_bytes(buf, len).ok_or(fault)?;
            out.extend_from_slice(&bytes);
            x[A0] = len;
        }
        SYS_READ => {
            if a0 != 0 {
                return Err(VmError::BadFd {
                    pc,
                    word,
                    call: "read",
                    fd: a0,
                });
            }
            let rest = io.input.get(io.input_pos..).unwrap_or(&[]);
            let n = usize::try_from(len).unwrap_or(usize::MAX).min(rest.len());
            if !mem.write_bytes(buf, &rest[..n]) {
                let width = n as u64;
                return Err(VmError::MemoryFault {
                    pc,
                    word,
                    access: Access::Write,
                    addr: buf,
                    width,
                });
            }
            io.input_pos += n;
            x[A0] = n as u64;
        }
        SYS_BRK => x[A0] = mem.set_brk(a0),
        number => return Err(VmError::UnsupportedSyscall { pc, word, number }),
    }
    Ok(After::Continue)
}
