//! The event stream: one record per cycle, consistent with a replay of registers, memory and
//! pc flow, and the pure path gives the same results.

use kestrel_core::isa::{decode, Opcode};
use kestrel_prover_gpu::vm::record::RECORD_BYTES;
use kestrel_prover_gpu::vm::{NoRecorder, Program, Record, VecRecorder, Vm};
use kestrel_tests::vm_support::{guest_path, rvgen};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

#[test]
fn record_is_48_packed_bytes() {
    assert_eq!(RECORD_BYTES, 48);
    assert_eq!(std::mem::size_of::<Record>(), 48);
    assert_eq!(std::mem::align_of::<Record>(), 8);
}

/// Replays `records` against `program` and checks every field; returns the final registers.
fn replay(program: &Program, input: &[u8], records: &[Record]) -> [u64; 32] {
    let mut x = [0u64; 32];
    x[2] = kestrel_prover_gpu::vm::map::STACK_TOP;
    let mut written: HashMap<u64, u8> = HashMap::new();
    let initial = |a: u64| {
        program
            .segments
            .iter()
            .find(|s| a >= s.vaddr && a < s.end())
            .and_then(|s| s.data.get((a - s.vaddr) as usize).copied())
            .unwrap_or(0) // bss and the heap start as zeros
    };
    let read = |w: &HashMap<u64, u8>, a: u64, n: u64| {
        (0..n).fold(0u64, |v, k| {
            v | u64::from(w.get(&(a + k)).copied().unwrap_or_else(|| initial(a + k))) << (8 * k)
        })
    };
    let mut input_pos = 0usize;
    let mut pc = program.entry;
    for (t, r) in records.iter().enumerate() {
        assert_eq!(u64::from(r.pc), pc, "cycle {t}: pc flow");
        let ins = decode(r.word).expect("executed words decode");
        let mut next = pc + 4;
        if ins.op == Opcode::Ecall {
            assert_eq!(
                (r.rs1_val, r.rs2_val, r.mem_addr, r.mem_val),
                (x[17], x[10], x[11], x[12]),
                "cycle {t}: ecall"
            );
            if x[17] == 63 {
                for k in 0..r.rd_val {
                    written.insert(x[11] + k, input[input_pos + k as usize]);
                }
                input_pos += r.rd_val as usize;
            }
            x[10] = r.rd_val;
        } else {
            assert_eq!(
                r.rs1_val, x[ins.rs1 as usize],
                "cycle {t}: rs1 of {:?}",
                ins.op
            );
            assert_eq!(
                r.rs2_val, x[ins.rs2 as usize],
                "cycle {t}: rs2 of {:?}",
                ins.op
            );
            let addr = r.rs1_val.wrapping_add(ins.imm64());
            if let Some(n) = ins.op.load_width() {
                assert_eq!(r.mem_addr, addr, "cycle {t}: load address");
                assert_eq!(
                    r.mem_val,
                    read(&written, addr, n.into()),
                    "cycle {t}: loaded bytes"
                );
            } else if let Some(n) = ins.op.store_width() {
                assert_eq!(r.mem_addr, addr, "cycle {t}: store address");
                assert_eq!(
                    r.mem_val,
                    read(&written, addr, n.into()),
                    "cycle {t}: overwritten bytes"
                );
                for k in 0..u64::from(n) {
                    written.insert(addr + k, (r.rs2_val >> (8 * k)) as u8);
                }
            } else {
                assert_eq!(
                    (r.mem_addr, r.mem_val),
                    (0, 0),
                    "cycle {t}: no memory access"
                );
            }
            let taken = match ins.op {
                Opcode::Beq => r.rs1_val == r.rs2_val,
                Opcode::Bne => r.rs1_val != r.rs2_val,
                Opcode::Blt => (r.rs1_val as i64) < (r.rs2_val as i64),
                Opcode::Bge => (r.rs1_val as i64) >= (r.rs2_val as i64),
                Opcode::Bltu => r.rs1_val < r.rs2_val,
                Opcode::Bgeu => r.rs1_val >= r.rs2_val,
                _ => false,
            };
            match ins.op {
                Opcode::Jal => next = pc.wrapping_add(ins.imm64()),
                Opcode::Jalr => next = addr & !1,
                _ if taken => next = pc.wrapping_add(ins.imm64()),
                _ => {}
            }
            if matches!(ins.op, Opcode::Jal | Opcode::Jalr) && ins.rd != 0 {
                assert_eq!(r.rd_val, pc + 4, "cycle {t}: link");
            }
            if ins.rd == 0 {
                assert_eq!(r.rd_val, 0, "cycle {t}: x0 stays 0");
            }
            x[ins.rd as usize] = r.rd_val;
            x[0] = 0;
        }
        pc = next;
    }
    x
}

fn check(elf: &[u8], input: &[u8]) {
    let program = Program::from_elf(elf).expect("valid ELF");
    let mut pure = Vm::new(&program, input.to_vec());
    let pure_exit = pure.run(&mut NoRecorder).expect("runs");
    let mut rec = VecRecorder::default();
    let mut vm = Vm::new(&program, input.to_vec());
    let exit = vm.run(&mut rec).expect("runs");
    assert_eq!(exit, pure_exit);
    assert_eq!(vm.public_output(), pure.public_output());
    assert_eq!(vm.regs(), pure.regs());
    assert_eq!(rec.records.len() as u64, exit.cycles);
    let regs = replay(&program, input, &rec.records);
    assert_eq!(&regs, vm.regs(), "replayed register file");
}

#[test]
fn guests_record_consistent_streams() {
    for (name, input) in [
        ("sha256", &b"abc"[..]),
        ("keccak", b"hello"),
        ("sort", b"300"),
        ("bignum", b"300"),
        ("matmul", b"8"),
        ("interp", b"1 20 [ swap over * swap 1 - dup ] drop ."),
        ("fibonacci", b"1000"),
    ] {
        check(&std::fs::read(guest_path(name)).expect("prebuilt"), input);
    }
}

#[test]
fn random_programs_record_consistent_streams() {
    for seed in 0..200 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut next = || rng.next_u64();
        check(&rvgen::random_program(&mut next, 60), b"");
    }
}
