//! Random RV64IM programs for differential testing against `qemu-riscv64`.
//!
//! A program loads edge values (0, ±1, INT64_MIN/MAX, INT32_MIN, 2^32−1, shift amounts ≥ 32 and
//! ≥ 64, …) into x1..x30, runs a straight-line body of random instructions (every RV64IM ALU and
//! M operation including the W forms, immediates at their edges, loads and stores of every
//! width at misaligned addresses of a scratch buffer, forward branches, JAL and JALR), then
//! stores x1..x31 and the scratch buffer, writes them to fd 1 and exits with the low byte of
//! one register. x31 holds the data segment's address throughout. Control flow only goes
//! forward, so every program terminates.

use super::asm::{self, addi, auipc, jal, jalr, ld, lui, r, sd, ECALL};
use super::elf_writer::{elf, DATA_BASE};

/// Register holding the data segment base.
pub const BASE: u32 = 31;
/// Offset of the scratch buffer in the data segment.
pub const SCRATCH: i64 = 31 * 8;
/// Size of the scratch buffer.
pub const SCRATCH_LEN: i64 = 64;
/// Offset of the constant table.
pub const CONSTS: i64 = SCRATCH + SCRATCH_LEN;
/// Bytes written to fd 1: 31 registers, then the scratch buffer.
pub const DUMP_LEN: i64 = CONSTS;

const EDGE: [u64; 21] = [
    0,
    1,
    u64::MAX,
    i64::MIN as u64,
    i64::MAX as u64,
    0xffff_ffff_8000_0000, // INT32_MIN
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff, // 2^32 - 1
    0x1_0000_0000,
    31,
    32,
    33,
    63,
    64,
    65,
    127,
    u64::MAX - 1,
    (i64::MIN as u64) + 1,
    0x0000_0001_ffff_ffff,
    0xffff_ffff_0000_0000,
];
const NCONST: usize = EDGE.len() + 3;

/// R-type operations: (opcode, funct3, funct7).
const R_OPS: [(u32, u32, u32); 28] = [
    (0x33, 0, 0),
    (0x33, 0, 0x20),
    (0x33, 1, 0),
    (0x33, 2, 0),
    (0x33, 3, 0),
    (0x33, 4, 0),
    (0x33, 5, 0),
    (0x33, 5, 0x20),
    (0x33, 6, 0),
    (0x33, 7, 0),
    (0x3b, 0, 0),
    (0x3b, 0, 0x20),
    (0x3b, 1, 0),
    (0x3b, 5, 0),
    (0x3b, 5, 0x20),
    (0x33, 0, 1),
    (0x33, 1, 1),
    (0x33, 2, 1),
    (0x33, 3, 1),
    (0x33, 4, 1),
    (0x33, 5, 1),
    (0x33, 6, 1),
    (0x33, 7, 1),
    (0x3b, 0, 1),
    (0x3b, 4, 1),
    (0x3b, 5, 1),
    (0x3b, 6, 1),
    (0x3b, 7, 1),
];

struct Gen<'a> {
    next: &'a mut dyn FnMut() -> u64,
    code: Vec<u32>,
}

impl Gen<'_> {
    fn below(&mut self, n: u64) -> u64 {
        (self.next)() % n
    }
    fn rd(&mut self) -> u32 {
        // x0 now and then (writes must be discarded), never x31.
        if self.below(16) == 0 {
            0
        } else {
            1 + self.below(30) as u32
        }
    }
    fn rs(&mut self) -> u32 {
        self.below(32) as u32
    }
    fn imm12(&mut self) -> i64 {
        match self.below(8) {
            0 => 0,
            1 => 1,
            2 => -1,
            3 => 2047,
            4 => -2048,
            5 => 31 + self.below(3) as i64, // near shift widths
            _ => self.below(4096) as i64 - 2048,
        }
    }

    fn alu(&mut self) {
        let w = if self.below(3) == 0 {
            self.alu_imm()
        } else {
            self.alu_reg()
        };
        self.code.push(w);
    }
    fn alu_reg(&mut self) -> u32 {
        let (op, f3, f7) = R_OPS[self.below(R_OPS.len() as u64) as usize];
        let (rd, rs1, rs2) = (self.rd(), self.rs(), self.rs());
        r(op, f3, f7, rd, rs1, rs2)
    }
    fn alu_imm(&mut self) -> u32 {
        let (rd, rs1) = (self.rd(), self.rs());
        match self.below(11) {
            k @ 0..=5 => {
                let f3 = [0, 2, 3, 4, 6, 7][k as usize];
                asm::i(0x13, f3, rd, rs1, self.imm12())
            }
            6 => asm::i(0x1b, 0, rd, rs1, self.imm12()), // addiw
            7 => {
                let (f3, hi) = [(1, 0), (5, 0), (5, 0x400)][self.below(3) as usize];
                asm::i(0x13, f3, rd, rs1, (hi | self.below(64)) as i64) // slli/srli/srai
            }
            8 => {
                let (f3, hi) = [(1, 0), (5, 0), (5, 0x400)][self.below(3) as usize];
                asm::i(0x1b, f3, rd, rs1, (hi | self.below(32)) as i64) // slliw/srliw/sraiw
            }
            9 => lui(rd, (self.next)() as u32),
            _ => auipc(rd, (self.next)() as u32),
        }
    }
    fn reload(&mut self) {
        let k = self.below(NCONST as u64) as i64;
        let rd = self.rd();
        self.code.push(ld(rd, BASE, CONSTS + 8 * k));
    }
    /// A base register and offset addressing scratch byte `at`.
    fn address(&mut self, at: i64) -> (u32, i64) {
        if self.below(2) == 0 {
            return (BASE, SCRATCH + at);
        }
        let t = 1 + self.below(30) as u32;
        let shift = self.below(801) as i64 - 400;
        self.code.push(addi(t, BASE, SCRATCH + shift));
        (t, at - shift)
    }
    fn load(&mut self) {
        let (f3, width) =
            [(0, 1), (1, 2), (2, 4), (3, 8), (4, 1), (5, 2), (6, 4)][self.below(7) as usize];
        let at = self.below((SCRATCH_LEN - width + 1) as u64) as i64;
        let (base, off) = self.address(at);
        let rd = self.rd();
        self.code.push(asm::i(0x03, f3, rd, base, off));
    }
    fn store(&mut self) {
        let (f3, width) = [(0, 1), (1, 2), (2, 4), (3, 8)][self.below(4) as usize];
        let at = self.below((SCRATCH_LEN - width + 1) as u64) as i64;
        let (base, off) = self.address(at);
        let rs2 = self.rs();
        self.code.push(asm::s(f3, base, rs2, off));
    }
    fn branch(&mut self) {
        let f3 = [0, 1, 4, 5, 6, 7][self.below(6) as usize];
        let skip = 1 + self.below(3) as i64;
        let (rs1, rs2) = (self.rs(), self.rs());
        self.code.push(asm::b(f3, rs1, rs2, 4 * (skip + 1)));
        for _ in 0..skip {
            self.alu();
        }
    }
    fn jump(&mut self) {
        let rd = self.rd();
        if self.below(2) == 0 {
            let skip = 1 + self.below(2) as i64;
            self.code.push(jal(rd, 4 * (skip + 1)));
            for _ in 0..skip {
                self.alu();
            }
        } else {
            let t = 1 + self.below(30) as u32;
            let odd = self.below(2) as i64; // bit 0 of the target is ignored
            self.code.push(auipc(t, 0));
            self.code.push(jalr(rd, t, 12 + odd));
            self.alu();
        }
    }
}

/// Generates one random program (an ELF image) from the random source `next`, with about
/// `body_len` body instructions.
pub fn random_program(next: &mut dyn FnMut() -> u64, body_len: usize) -> Vec<u8> {
    let mut g = Gen {
        next,
        code: Vec::new(),
    };
    // Data: dump area, scratch, constant table.
    let mut data = vec![0u8; DUMP_LEN as usize];
    for b in &mut data[SCRATCH as usize..] {
        *b = (g.next)() as u8;
    }
    let mut consts: Vec<u64> = EDGE.to_vec();
    consts.push((g.next)());
    consts.push((g.next)() >> (g.below(64)));
    consts.push(g.below(256));
    for c in consts {
        data.extend_from_slice(&c.to_le_bytes());
    }
    // Prologue: base, then edge values into x1..x30.
    g.code.push(lui(BASE, (DATA_BASE >> 12) as u32));
    for rd in 1..=30 {
        let k = g.below(NCONST as u64) as i64;
        g.code.push(ld(rd, BASE, CONSTS + 8 * k));
    }
    while g.code.len() < 31 + body_len {
        match g.below(100) {
            0..=39 => g.alu(),
            40..=49 => g.reload(),
            50..=64 => g.load(),
            65..=79 => g.store(),
            80..=91 => g.branch(),
            _ => g.jump(),
        }
    }
    // Epilogue: dump x1..x31, write(1, base, DUMP_LEN), exit(low byte of a random register).
    for k in 1..=31 {
        g.code.push(sd(k, BASE, 8 * (k as i64 - 1)));
    }
    let exit_reg = 1 + g.below(30) as i64;
    g.code.extend([
        addi(asm::reg::A7, 0, 64),
        addi(asm::reg::A0, 0, 1),
        addi(asm::reg::A1, BASE, 0),
        addi(asm::reg::A2, 0, DUMP_LEN),
        ECALL,
        ld(asm::reg::A0, BASE, 8 * (exit_reg - 1)),
        addi(asm::reg::A7, 0, 93),
        ECALL,
    ]);
    elf(&g.code, &data)
}
