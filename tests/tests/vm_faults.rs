//! Faulting programs stop with an error naming pc and instruction word.

use kestrel_core::isa::DecodeError;
use kestrel_prover_gpu::vm::error::Access;
use kestrel_prover_gpu::vm::map::{MAX_HEAP, STACK_BOTTOM, STACK_TOP};
use kestrel_prover_gpu::vm::{NoRecorder, Program, Vm, VmError};
use kestrel_tests::vm_support::asm::{
    self, addi, exit, jal, jalr, ld, li32, lui, reg::*, sd, EBREAK, ECALL,
};
use kestrel_tests::vm_support::elf_writer::{elf, CODE_BASE, DATA_BASE};

fn run(code: &[u32], max: u64) -> (Result<u64, VmError>, Vm) {
    let program = Program::from_elf(&elf(code, &[0u8; 64])).expect("valid ELF");
    let mut vm = Vm::new(&program, b"in".to_vec()).with_max_cycles(max);
    let r = vm.run(&mut NoRecorder).map(|e| e.exit_code);
    (r, vm)
}

fn fault(code: &[u32]) -> VmError {
    run(code, 10_000).0.expect_err("must fault")
}

fn pc_of(index: usize) -> u64 {
    CODE_BASE + 4 * index as u64
}

#[test]
fn exit_counts_cycles() {
    let (r, vm) = run(&exit(42), 100);
    assert_eq!(r, Ok(42));
    assert_eq!(vm.cycles(), 4);
}

#[test]
fn illegal_instructions() {
    let e = fault(&[addi(A0, 0, 1), 0xffff_ffff]);
    assert_eq!(
        e,
        VmError::IllegalInstruction {
            pc: pc_of(1),
            word: 0xffff_ffff,
            reason: DecodeError::UnknownOpcode(0x7f)
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("0x10004") && msg.contains("0xffffffff"),
        "{msg}"
    );
    assert_eq!(
        fault(&[EBREAK]),
        VmError::IllegalInstruction {
            pc: CODE_BASE,
            word: EBREAK,
            reason: DecodeError::Ebreak
        }
    );
    assert_eq!(
        fault(&[0xc000_2573]),
        VmError::IllegalInstruction {
            pc: CODE_BASE,
            word: 0xc000_2573,
            reason: DecodeError::Csr
        }
    );
    assert!(matches!(
        fault(&[0x0000_4501]),
        VmError::IllegalInstruction {
            reason: DecodeError::NotBase32,
            ..
        }
    ));
    // An amo (A extension) is not RV64IM.
    assert!(matches!(
        fault(&[0x0000_302f]),
        VmError::IllegalInstruction {
            reason: DecodeError::UnknownOpcode(0x2f),
            ..
        }
    ));
}

#[test]
fn memory_faults() {
    // Load from the null page.
    let e = fault(&[ld(A0, 0, 8)]);
    assert_eq!(
        e,
        VmError::MemoryFault {
            pc: CODE_BASE,
            word: ld(A0, 0, 8),
            access: Access::Read,
            addr: 8,
            width: 8
        }
    );
    // Store into the (read-only) code segment.
    let code = [lui(T0, (CODE_BASE >> 12) as u32), sd(0, T0, 0)];
    assert!(
        matches!(fault(&code), VmError::MemoryFault { access: Access::Write, addr: CODE_BASE, pc, .. } if pc == pc_of(1))
    );
    // A load straddling the end of the data segment.
    let code = [lui(T0, (DATA_BASE >> 12) as u32), ld(A0, T0, 60)];
    assert!(matches!(
        fault(&code),
        VmError::MemoryFault {
            access: Access::Read,
            width: 8,
            ..
        }
    ));
    // The heap is mapped in full, whatever the break (the proof's memory map; qemu would
    // fault here): beyond the break it reads zero and takes stores. At its limit it faults.
    let heap = DATA_BASE + 0x1000;
    let code = [
        lui(T0, (heap >> 12) as u32),
        ld(A0, T0, 0),
        sd(T0, T0, 8),
        ld(A1, T0, 8),
        asm::r(0x33, 0, 0x20, A1, A1, T0), // a1 - heap: 0 if the store stuck
        asm::r(0x33, 0, 0, A0, A0, A1),
    ];
    let mut code = code.to_vec();
    code.extend([addi(asm::reg::A7, 0, 93), asm::ECALL]);
    assert_eq!(run(&code, 100).0, Ok(0));
    let limit = heap + MAX_HEAP;
    let mut code = li32(T0, limit as i32).to_vec();
    code.push(asm::i(0x03, 4, A0, T0, -1)); // the heap's last byte
    code.push(asm::i(0x03, 4, A0, T0, 0)); // one past it
    assert!(matches!(
        fault(&code),
        VmError::MemoryFault { access: Access::Read, addr, .. } if addr == limit
    ));
}

#[test]
fn stack_is_mapped_below_stack_top() {
    let mut code = vec![sd(A0, SP, -8), ld(A1, SP, -8)];
    // Lowest stack byte.
    let below = (STACK_TOP - STACK_BOTTOM) as i64;
    code.extend(li32(T0, -(below as i32)));
    code.extend([asm::r(0x33, 0, 0, T0, SP, T0), asm::i(0x03, 4, A1, T0, 0)]);
    code.extend(exit(0));
    assert_eq!(run(&code, 100).0, Ok(0));
    assert!(matches!(
        fault(&[sd(A0, SP, 0)]),
        VmError::MemoryFault {
            addr: STACK_TOP,
            ..
        }
    ));
    let mut code: Vec<u32> = li32(T0, -(below as i32)).to_vec();
    code.extend([asm::r(0x33, 0, 0, T0, SP, T0), asm::i(0x03, 4, A1, T0, -1)]);
    assert!(matches!(fault(&code), VmError::MemoryFault { addr, .. } if addr == STACK_BOTTOM - 1));
}

#[test]
fn fetch_faults() {
    // Jump into the data segment (readable, not executable).
    let code = [lui(T0, (DATA_BASE >> 12) as u32), jalr(0, T0, 0)];
    assert_eq!(fault(&code), VmError::FetchFault { pc: DATA_BASE });
    // Misaligned target (no C extension).
    assert_eq!(
        fault(&[jal(0, 6), 0, 0]),
        VmError::FetchFault { pc: CODE_BASE + 6 }
    );
    // Running off the end of the code (segments are whole 8-byte words: a one-instruction
    // segment's second word is a zero, illegal, instruction).
    assert_eq!(
        fault(&[addi(A0, 0, 1), addi(A0, 0, 1)]),
        VmError::FetchFault { pc: CODE_BASE + 8 }
    );
    assert!(matches!(
        fault(&[addi(A0, 0, 1)]),
        VmError::IllegalInstruction { pc, word: 0, .. } if pc == CODE_BASE + 4
    ));
}

#[test]
fn system_call_errors() {
    let close = [addi(A7, 0, 57), ECALL];
    assert_eq!(
        fault(&close),
        VmError::UnsupportedSyscall {
            pc: pc_of(1),
            word: ECALL,
            number: 57
        }
    );
    let exit_group = [addi(A7, 0, 94), ECALL];
    assert!(matches!(
        fault(&exit_group),
        VmError::UnsupportedSyscall { number: 94, .. }
    ));
    let write3 = [addi(A7, 0, 64), addi(A0, 0, 3), ECALL];
    assert_eq!(
        fault(&write3),
        VmError::BadFd {
            pc: pc_of(2),
            word: ECALL,
            call: "write",
            fd: 3
        }
    );
    let read1 = [addi(A7, 0, 63), addi(A0, 0, 1), ECALL];
    assert!(matches!(
        fault(&read1),
        VmError::BadFd {
            call: "read",
            fd: 1,
            ..
        }
    ));
    // write from an unmapped buffer; read into the read-only code segment.
    let bad_buf = [
        addi(A7, 0, 64),
        addi(A0, 0, 1),
        addi(A1, 0, 16),
        addi(A2, 0, 4),
        ECALL,
    ];
    assert!(matches!(
        fault(&bad_buf),
        VmError::MemoryFault {
            access: Access::Read,
            addr: 16,
            width: 4,
            ..
        }
    ));
    let mut ro = vec![
        lui(A1, (CODE_BASE >> 12) as u32),
        addi(A7, 0, 63),
        addi(A0, 0, 0),
        addi(A2, 0, 4),
        ECALL,
    ];
    ro.extend(exit(0));
    assert!(matches!(
        fault(&ro),
        VmError::MemoryFault {
            access: Access::Write,
            addr: CODE_BASE,
            ..
        }
    ));
}

#[test]
fn cycle_limit() {
    let (r, vm) = run(&[addi(A0, A0, 1), jal(0, -4)], 1000);
    assert_eq!(
        r,
        Err(VmError::MaxCycles {
            pc: CODE_BASE,
            word: addi(A0, A0, 1),
            max: 1000
        })
    );
    assert_eq!(vm.cycles(), 1000);
    assert_eq!(vm.regs()[A0 as usize], 500);
    // Exactly enough cycles succeeds.
    assert_eq!(run(&exit(7), 4).0, Ok(7));
    assert!(matches!(run(&exit(7), 3).0, Err(VmError::MaxCycles { .. })));
}

#[test]
fn output_before_a_fault_is_kept() {
    let mut code = vec![
        lui(A1, (DATA_BASE >> 12) as u32),
        addi(T0, 0, 0x41),
        asm::s(0, A1, T0, 0),
    ];
    code.extend([
        addi(A7, 0, 64),
        addi(A0, 0, 1),
        addi(A2, 0, 1),
        ECALL,
        EBREAK,
    ]);
    let (r, vm) = run(&code, 100);
    assert!(matches!(
        r,
        Err(VmError::IllegalInstruction {
            reason: DecodeError::Ebreak,
            ..
        })
    ));
    assert_eq!(vm.public_output(), b"A");
    assert_eq!(vm.pc(), pc_of(7));
}

/// A write that would take fd 1 or fd 2 past its 1 MiB limit stops the run with
/// [`VmError::OutputLimit`] before any byte is copied; writes up to the limit go through.
#[test]
fn output_limits() {
    use kestrel_prover_gpu::vm::ecall::{MAX_DEBUG_OUTPUT, MAX_PUBLIC_OUTPUT};
    assert_eq!(MAX_PUBLIC_OUTPUT, 1 << 20);
    assert_eq!(MAX_DEBUG_OUTPUT, 1 << 20);
    for fd in [1, 2] {
        // brk(heap + 1 MiB + 4 KiB); write(fd, heap, 1 MiB); write(fd, heap, n).
        let program = |n: i64| {
            let mut code = vec![
                addi(A7, 0, 214),
                addi(A0, 0, 0),
                ECALL,
                addi(8, A0, 0),
                lui(T0, 0x101),
                asm::r(0x33, 0, 0, A0, 8, T0),
                ECALL,
                addi(A0, 0, fd),
                addi(A1, 8, 0),
                lui(A2, 0x100),
                addi(A7, 0, 64),
                ECALL,
                addi(A0, 0, fd),
                addi(A2, 0, n),
                ECALL,
            ];
            code.extend(exit(0));
            code
        };
        let (r, vm) = run(&program(0), 100);
        assert_eq!(r, Ok(0));
        let out = if fd == 1 {
            vm.public_output()
        } else {
            vm.debug_output()
        };
        assert_eq!(out.len(), 1 << 20);
        let (r, vm) = run(&program(1), 100);
        assert_eq!(
            r,
            Err(VmError::OutputLimit {
                pc: pc_of(14),
                word: ECALL,
                fd: fd as u64,
                written: 1 << 20,
                len: 1,
                limit: 1 << 20,
            })
        );
        assert!(r
            .unwrap_err()
            .to_string()
            .contains("past its limit of 1048576 bytes"));
        assert_eq!(vm.public_output().len() + vm.debug_output().len(), 1 << 20);
    }
    // One write larger than the limit, from memory that is not even mapped: the limit is
    // checked first, nothing is read.
    let huge = [
        addi(A0, 0, 1),
        addi(A1, 0, 0),
        lui(A2, 0x40000),
        addi(A7, 0, 64),
        ECALL,
    ];
    assert!(matches!(
        fault(&huge),
        VmError::OutputLimit {
            len: 0x4000_0000,
            written: 0,
            ..
        }
    ));
}
