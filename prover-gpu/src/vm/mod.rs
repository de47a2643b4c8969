//! RV64IM ELF loading, execution and event recording (issue 3).
//!
//! - [`elf`]: parses a static RV64 ELF executable into a [`Program`] (segments with permissions,
//!   entry point), rejecting malformed input with an [`ElfError`] and never panicking.
//! - [`map`]: the guest memory map (stack, heap, valid ranges).
//! - [`memory`]: the guest memory (one flat byte vector per mapped region).
//! - [`exec`]: the interpreter. [`Vm::run`] is generic over a [`Recorder`]; with [`NoRecorder`]
//!   the recording code is compiled out (the pure fast path).
//! - [`record`]: the packed per-instruction [`Record`] (48 bytes per cycle) that trace builders
//!   derive every table's op list from.
//! - [`ecall`]: the Linux-numbered system calls (exit 93, write 64, read 63, brk 214), with
//!   the output limits (1 MiB to fd 1, 1 MiB to fd 2).
//!
//! ```no_run
//! use kestrel_prover_gpu::vm::{Program, Vm, NoRecorder};
//! let bytes = std::fs::read("prog.elf").unwrap();
//! let program = Program::from_elf(&bytes).unwrap();
//! let mut vm = Vm::new(&program, b"private input".to_vec());
//! let exit = vm.run(&mut NoRecorder).unwrap();
//! println!("exit {} after {} cycles", exit.exit_code, exit.cycles);
//! ```

pub mod ecall;
pub mod elf;
pub mod error;
pub mod exec;
pub mod map;
pub mod memory;
pub mod record;

pub use elf::{ElfError, Program, Segment};
pub use error::VmError;
pub use exec::{Exit, Vm, DEFAULT_MAX_CYCLES};
pub use record::{NoRecorder, Record, Recorder, VecRecorder};
