//! A tiny RV64IM encoder for building test programs without an assembler.
//!
//! Register arguments are indices 0..32; immediates are checked to fit their field.

/// Register numbers by ABI name.
pub mod reg {
    #![allow(missing_docs)]
    pub const ZERO: u32 = 0;
    pub const RA: u32 = 1;
    pub const SP: u32 = 2;
    pub const T0: u32 = 5;
    pub const T1: u32 = 6;
    pub const A0: u32 = 10;
    pub const A1: u32 = 11;
    pub const A2: u32 = 12;
    pub const A7: u32 = 17;
}

fn check_imm(imm: i64, bits: u32) {
    let lim = 1i64 << (bits - 1);
    assert!(
        (-lim..lim).contains(&imm),
        "immediate {imm} does not fit {bits} bits"
    );
}

/// R-type.
pub fn r(opcode: u32, f3: u32, f7: u32, rd: u32, rs1: u32, rs2: u32) -> u32 {
    opcode | rd << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | f7 << 25
}

/// I-type (12-bit signed immediate).
pub fn i(opcode: u32, f3: u32, rd: u32, rs1: u32, imm: i64) -> u32 {
    check_imm(imm, 12);
    opcode | rd << 7 | f3 << 12 | rs1 << 15 | ((imm as u32) & 0xfff) << 20
}

/// S-type (stores).
pub fn s(f3: u32, rs1: u32, rs2: u32, imm: i64) -> u32 {
    check_imm(imm, 12);
    let imm = imm as u32;
    0x23 | (imm & 0x1f) << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | ((imm >> 5) & 0x7f) << 25
}

/// B-type (branches), `offset` in bytes, even.
pub fn b(f3: u32, rs1: u32, rs2: u32, offset: i64) -> u32 {
    check_imm(offset, 13);
    assert!(offset % 2 == 0);
    let o = offset as u32;
    0x63 | ((o >> 11) & 1) << 7
        | ((o >> 1) & 0xf) << 8
        | f3 << 12
        | rs1 << 15
        | rs2 << 20
        | ((o >> 5) & 0x3f) << 25
        | ((o >> 12) & 1) << 31
}

/// U-type: `imm20` is the upper 20 bits.
pub fn u(opcode: u32, rd: u32, imm20: u32) -> u32 {
    opcode | rd << 7 | (imm20 & 0xfffff) << 12
}

/// JAL with a byte offset.
pub fn jal(rd: u32, offset: i64) -> u32 {
    check_imm(offset, 21);
    let o = offset as u32;
    0x6f | rd << 7
        | ((o >> 12) & 0xff) << 12
        | ((o >> 11) & 1) << 20
        | ((o >> 1) & 0x3ff) << 21
        | ((o >> 20) & 1) << 31
}

/// JALR.
pub fn jalr(rd: u32, rs1: u32, imm: i64) -> u32 {
    i(0x67, 0, rd, rs1, imm)
}
/// ADDI.
pub fn addi(rd: u32, rs1: u32, imm: i64) -> u32 {
    i(0x13, 0, rd, rs1, imm)
}
/// LUI.
pub fn lui(rd: u32, imm20: u32) -> u32 {
    u(0x37, rd, imm20)
}
/// AUIPC.
pub fn auipc(rd: u32, imm20: u32) -> u32 {
    u(0x17, rd, imm20)
}
/// LD.
pub fn ld(rd: u32, rs1: u32, imm: i64) -> u32 {
    i(0x03, 3, rd, rs1, imm)
}
/// SD.
pub fn sd(rs2: u32, rs1: u32, imm: i64) -> u32 {
    s(3, rs1, rs2, imm)
}
/// ECALL.
pub const ECALL: u32 = 0x0000_0073;
/// EBREAK.
pub const EBREAK: u32 = 0x0010_0073;

/// `li rd, v` for `v` in the signed 32-bit range (LUI + ADDIW), two words.
pub fn li32(rd: u32, v: i32) -> [u32; 2] {
    let lo = ((v << 20) >> 20) as i64; // sign-extended low 12 bits
    let hi = ((v as i64 - lo) >> 12) as u32;
    [lui(rd, hi), i(0x1b, 0, rd, rd, lo)]
}

/// exit(code) via a7/a0: four words.
pub fn exit(code: i32) -> Vec<u32> {
    let mut v = li32(reg::A0, code).to_vec();
    v.push(addi(reg::A7, 0, 93));
    v.push(ECALL);
    v
}
