//! Why execution stopped without an exit system call.

use kestrel_core::isa::DecodeError;
use thiserror::Error;

/// Why a memory access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Load.
    Read,
    /// Store.
    Write,
}

impl std::fmt::Display for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Access::Read => "load from",
            Access::Write => "store to",
        })
    }
}

fn stream(fd: u64) -> &'static str {
    if fd == 1 {
        "public output (fd 1)"
    } else {
        "debug output (fd 2)"
    }
}

/// An execution error. Every variant names the pc and, where there is one, the instruction word.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum VmError {
    /// The word at pc is not an RV64IM instruction Kestrel executes (includes EBREAK and CSRs).
    #[error("illegal instruction at pc {pc:#x}: word {word:#010x}: {reason}")]
    IllegalInstruction {
        /// Program counter.
        pc: u64,
        /// Instruction word.
        word: u32,
        /// Why it was rejected.
        reason: DecodeError,
    },
    /// pc is misaligned or not inside an executable segment.
    #[error("instruction fetch fault at pc {pc:#x}: not a 4-byte aligned address in an executable segment")]
    FetchFault {
        /// Program counter.
        pc: u64,
    },
    /// A load or store touched memory that is unmapped or lacks the permission.
    #[error("memory fault at pc {pc:#x} (word {word:#010x}): {access} {addr:#x} ({width} bytes): unmapped or not permitted")]
    MemoryFault {
        /// Program counter.
        pc: u64,
        /// Instruction word.
        word: u32,
        /// Read or write.
        access: Access,
        /// First byte accessed.
        addr: u64,
        /// Bytes accessed.
        width: u64,
    },
    /// ECALL with a system call number Kestrel does not implement.
    #[error("unsupported system call {number} (a7) at pc {pc:#x} (word {word:#010x}); supported: exit 93, write 64, read 63, brk 214")]
    UnsupportedSyscall {
        /// Program counter.
        pc: u64,
        /// Instruction word.
        word: u32,
        /// a7.
        number: u64,
    },
    /// read/write on a file descriptor other than 0 (read) or 1/2 (write).
    #[error("system call {call} on unsupported file descriptor {fd} at pc {pc:#x} (word {word:#010x}); read takes fd 0, write fd 1 or 2")]
    BadFd {
        /// Program counter.
        pc: u64,
        /// Instruction word.
        word: u32,
        /// "read" or "write".
        call: &'static str,
        /// a0.
        fd: u64,
    },
    /// A `write` would take fd 1 past the public output limit or fd 2 past the debug limit
    /// (checked before the bytes are copied).
    #[error("write of {len} bytes at pc {pc:#x} (word {word:#010x}) would take the {} past its limit of {limit} bytes ({written} written so far)", stream(*.fd))]
    OutputLimit {
        /// Program counter.
        pc: u64,
        /// Instruction word.
        word: u32,
        /// 1 (public output) or 2 (debug text).
        fd: u64,
        /// Bytes written to that fd so far.
        written: u64,
        /// a2, the length of the refused write.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// The cycle limit was reached before the program exited.
    #[error("cycle limit {max} reached at pc {pc:#x} (next word {word:#010x}) before the program exited")]
    MaxCycles {
        /// Program counter of the instruction that would have run next.
        pc: u64,
        /// Its word (0 if not fetchable).
        word: u32,
        /// The limit.
        max: u64,
    },
}

impl VmError {
    /// The program counter the error names.
    pub fn pc(&self) -> u64 {
        match *self {
            VmError::IllegalInstruction { pc, .. }
            | VmError::FetchFault { pc }
            | VmError::MemoryFault { pc, .. }
            | VmError::UnsupportedSyscall { pc, .. }
            | VmError::BadFd { pc, .. }
            | VmError::OutputLimit { pc, .. }
            | VmError::MaxCycles { pc, .. } => pc,
        }
    }
}
