//! Decoding of 32-bit instruction words into [`Instr`].

use super::{Instr, Opcode};
use core::fmt;

/// Why a word is not an instruction Kestrel executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Not a 32-bit encoding (low two bits are not `11`): compressed instructions (C extension)
    /// are not part of RV64IM.
    NotBase32,
    /// The major opcode (bits 6..0) is not one of RV64IM's.
    UnknownOpcode(u8),
    /// The major opcode is known but funct3/funct7 (or another fixed field) is reserved or
    /// belongs to an extension Kestrel does not implement.
    Reserved,
    /// EBREAK (breakpoint) is not supported.
    Ebreak,
    /// A CSR instruction (Zicsr) is not supported.
    Csr,
    /// Another SYSTEM instruction (e.g. WFI, MRET, SRET) is not supported.
    System,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotBase32 => f.write_str("not a 32-bit instruction (compressed encoding)"),
            DecodeError::UnknownOpcode(op) => write!(f, "unknown major opcode {op:#04x}"),
            DecodeError::Reserved => f.write_str("reserved or unsupported funct field"),
            DecodeError::Ebreak => f.write_str("EBREAK is not supported"),
            DecodeError::Csr => f.write_str("CSR instructions are not supported"),
            DecodeError::System => f.write_str("unsupported SYSTEM instruction"),
        }
    }
}

#[inline]
fn rd(w: u32) -> u8 {
    ((w >> 7) & 31) as u8
}
#[inline]
fn rs1(w: u32) -> u8 {
    ((w >> 15) & 31) as u8
}
#[inline]
fn rs2(w: u32) -> u8 {
    ((w >> 20) & 31) as u8
}
#[inline]
fn funct3(w: u32) -> u32 {
    (w >> 12) & 7
}
#[inline]
fn funct7(w: u32) -> u32 {
    w >> 25
}
#[inline]
fn imm_i(w: u32) -> i32 {
    (w as i32) >> 20
}
#[inline]
fn imm_s(w: u32) -> i32 {
    (((w & 0xfe00_0000) as i32) >> 20) | ((w >> 7) & 0x1f) as i32
}
#[inline]
fn imm_b(w: u32) -> i32 {
    (((w & 0x8000_0000) as i32) >> 19)
        | (((w >> 7) & 1) << 11) as i32
        | (((w >> 25) & 0x3f) << 5) as i32
        | (((w >> 8) & 0xf) << 1) as i32
}
#[inline]
fn imm_u(w: u32) -> i32 {
    (w & 0xffff_f000) as i32
}
#[inline]
fn imm_j(w: u32) -> i32 {
    (((w & 0x8000_0000) as i32) >> 11)
        | (w & 0x000f_f000) as i32
        | (((w >> 20) & 1) << 11) as i32
        | (((w >> 21) & 0x3ff) << 1) as i32
}

fn r(op: Opcode, w: u32) -> Instr {
    Instr {
        op,
        rd: rd(w),
        rs1: rs1(w),
        rs2: rs2(w),
        imm: 0,
    }
}
fn i(op: Opcode, w: u32) -> Instr {
    Instr {
        op,
        rd: rd(w),
        rs1: rs1(w),
        rs2: 0,
        imm: imm_i(w),
    }
}
fn shift(op: Opcode, w: u32, shamt_bits: u32) -> Instr {
    let shamt = (w >> 20) & ((1 << shamt_bits) - 1);
    Instr {
        op,
        rd: rd(w),
        rs1: rs1(w),
        rs2: 0,
        imm: shamt as i32,
    }
}

/// Decodes one instruction word.
///
/// # Errors
/// [`DecodeError`] for every word that is not an RV64IM instruction Kestrel executes. Never panics.
pub fn decode(w: u32) -> Result<Instr, DecodeError> {
    use Opcode::*;
    if w & 3 != 3 {
        return Err(DecodeError::NotBase32);
    }
    let f3 = funct3(w);
    let f7 = funct7(w);
    let major = (w & 0x7f) as u8;
    let ins = match major {
        0x37 => Instr {
            op: Lui,
            rd: rd(w),
            rs1: 0,
            rs2: 0,
            imm: imm_u(w),
        },
        0x17 => Instr {
            op: Auipc,
            rd: rd(w),
            rs1: 0,
            rs2: 0,
            imm: imm_u(w),
        },
        0x6f => Instr {
            op: Jal,
            rd: rd(w),
            rs1: 0,
            rs2: 0,
            imm: imm_j(w),
        },
        0x67 if f3 == 0 => i(Jalr, w),
        0x63 => {
            let op = match f3 {
                0 => Beq,
                1 => Bne,
                4 => Blt,
                5 => Bge,
                6 => Bltu,
                7 => Bgeu,
                _ => return Err(DecodeError::Reserved),
            };
            Instr {
                op,
                rd: 0,
                rs1: rs1(w),
                rs2: rs2(w),
                imm: imm_b(w),
            }
        }
        0x03 => {
            let op = match f3 {
                0 => Lb,
                1 => Lh,
                2 => Lw,
                3 => Ld,
                4 => Lbu,
                5 => Lhu,
                6 => Lwu,
                _ => return Err(DecodeError::Reserved),
            };
            i(op, w)
        }
        0x23 => {
            let op = match f3 {
                0 => Sb,
                1 => Sh,
                2 => Sw,
                3 => Sd,
                _ => return Err(DecodeError::Reserved),
            };
            Instr {
                op,
                rd: 0,
                rs1: rs1(w),
                rs2: rs2(w),
                imm: imm_s(w),
            }
        }
        0x13 => match f3 {
            0 => i(Addi, w),
            2 => i(Slti, w),
            3 => i(Sltiu, w),
            4 => i(Xori, w),
            6 => i(Ori, w),
            7 => i(Andi, w),
            1 if w >> 26 == 0 => shift(Slli, w, 6),
            5 if w >> 26 == 0 => shift(Srli, w, 6),
            5 if w >> 26 == 0x10 => shift(Srai, w, 6),
            _ => return Err(DecodeError::Reserved),
        },
        0x1b => match f3 {
            0 => i(Addiw, w),
            1 if f7 == 0 => shift(Slliw, w, 5),
            5 if f7 == 0 => shift(Srliw, w, 5),
            5 if f7 == 0x20 => shift(Sraiw, w, 5),
            _ => return Err(DecodeError::Reserved),
        },
        0x33 => {
            let op = match (f7, f3) {
                (0, 0) => Add,
                (0x20, 0) => Sub,
                (0, 1) => Sll,
                (0, 2) => Slt,
                (0, 3) => Sltu,
                (0, 4) => Xor,
                (0, 5) => Srl,
                (0x20, 5) => Sra,
                (0, 6) => Or,
                (0, 7) => And,
                (1, 0) => Mul,
                (1, 1) => Mulh,
                (1, 2) => Mulhsu,
                (1, 3) => Mulhu,
                (1, 4) => Div,
                (1, 5) => Divu,
                (1, 6) => Rem,
                (1, 7) => Remu,
                _ => return Err(DecodeError::Reserved),
            };
            r(op, w)
        }
        0x3b => {
            let op = match (f7, f3) {
                (0, 0) => Addw,
                (0x20, 0) => Subw,
                (0, 1) => Sllw,
                (0, 5) => Srlw,
                (0x20, 5) => Sraw,
                (1, 0) => Mulw,
                (1, 4) => Divw,
                (1, 5) => Divuw,
                (1, 6) => Remw,
                (1, 7) => Remuw,
                _ => return Err(DecodeError::Reserved),
            };
            r(op, w)
        }
        // FENCE (funct3 0) and FENCE.I (funct3 1): no-ops; reserved fields are ignored as the
        // specification asks.
        0x0f if f3 <= 1 => Instr {
            op: Fence,
            rd: 0,
            rs1: 0,
            rs2: 0,
            imm: 0,
        },
        0x73 => {
            return match (w, f3) {
                (0x0000_0073, _) => Ok(Instr {
                    op: Ecall,
                    rd: 0,
                    rs1: 0,
                    rs2: 0,
                    imm: 0,
                }),
                (0x0010_0073, _) => Err(DecodeError::Ebreak),
                (_, 0) => Err(DecodeError::System),
                (_, 4) => Err(DecodeError::Reserved),
                _ => Err(DecodeError::Csr),
            }
        }
        0x67 | 0x0f => return Err(DecodeError::Reserved),
        _ => return Err(DecodeError::UnknownOpcode(major)),
    };
    Ok(ins)
}
