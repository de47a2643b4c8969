//! Decoder tests against words produced by the GNU assembler.

use super::*;
use Opcode::*;

fn ins(op: Opcode, rd: u8, rs1: u8, rs2: u8, imm: i32) -> Instr {
    Instr {
        op,
        rd,
        rs1,
        rs2,
        imm,
    }
}

#[test]
fn decodes_assembler_output() {
    // (word, expected) pairs from riscv64-unknown-elf-as; branch/jump offsets relative to pc.
    let cases = [
        (0xfff50513, ins(Addi, 10, 10, 0, -1)),
        (0x80000537, ins(Lui, 10, 0, 0, i32::MIN)),
        (0xfffff297, ins(Auipc, 5, 0, 0, -4096)),
        (0xff5ff0ef, ins(Jal, 1, 0, 0, -12)),
        (0xff830067, ins(Jalr, 0, 6, 0, -8)),
        (0xfeb506e3, ins(Beq, 0, 10, 11, -20)),
        (0xfe9474e3, ins(Bgeu, 0, 8, 9, -24)),
        (0xff013783, ins(Ld, 15, 2, 0, -16)),
        (0x7ff16783, ins(Lwu, 15, 2, 0, 2047)),
        (0x81bfb023, ins(Sd, 0, 31, 27, -2048)),
        (0x03f59513, ins(Slli, 10, 11, 0, 63)),
        (0x4215d513, ins(Srai, 10, 11, 0, 33)),
        (0x41f5d51b, ins(Sraiw, 10, 11, 0, 31)),
        (0x407302b3, ins(Sub, 5, 6, 7, 0)),
        (0x02c5a533, ins(Mulhsu, 10, 11, 12, 0)),
        (0x02c5f53b, ins(Remuw, 10, 11, 12, 0)),
        (0x0ff0000f, ins(Fence, 0, 0, 0, 0)),
        (0x0000100f, ins(Fence, 0, 0, 0, 0)),
        (0x00000073, ins(Ecall, 0, 0, 0, 0)),
    ];
    for (w, want) in cases {
        assert_eq!(decode(w), Ok(want), "word {w:#010x}");
    }
}

#[test]
fn rejects_unsupported() {
    assert_eq!(decode(0x00100073), Err(DecodeError::Ebreak));
    assert_eq!(decode(0xc0002573), Err(DecodeError::Csr));
    assert_eq!(decode(0x10500073), Err(DecodeError::System)); // wfi
    assert_eq!(decode(0), Err(DecodeError::NotBase32));
    assert_eq!(decode(0x4501), Err(DecodeError::NotBase32)); // c.li a0, 0
    assert_eq!(decode(0x0000_0007), Err(DecodeError::UnknownOpcode(7))); // flw
    assert_eq!(decode(0x0000_202f), Err(DecodeError::UnknownOpcode(0x2f))); // amo
    assert_eq!(decode(0x0805_9513), Err(DecodeError::Reserved)); // slli with funct6 != 0
    assert_eq!(decode(0x0205_951b), Err(DecodeError::Reserved)); // slliw shamt 32
    assert_eq!(decode(0x0000_7003), Err(DecodeError::Reserved)); // load funct3 7
    assert_eq!(decode(0x0000_4023), Err(DecodeError::Reserved)); // store funct3 4
    assert_eq!(decode(0x0000_2063), Err(DecodeError::Reserved)); // branch funct3 2
    assert_eq!(decode(0x0000_1067), Err(DecodeError::Reserved)); // jalr funct3 1
    assert_eq!(decode(0x4000_1033), Err(DecodeError::Reserved)); // sll with funct7 0x20
}

#[test]
fn every_opcode_has_stable_discriminant_and_format() {
    for (k, op) in Opcode::ALL.iter().enumerate() {
        assert_eq!(*op as usize, k);
        assert_eq!(Opcode::from_u8(k as u8), Some(*op));
        assert!(!op.mnemonic().is_empty());
        let _ = op.format();
    }
    assert_eq!(Opcode::from_u8(Opcode::COUNT as u8), None);
    assert_eq!(core::mem::size_of::<Instr>(), 8);
}

#[test]
fn never_panics_and_fields_in_range() {
    // A cheap deterministic sweep over many words (xorshift), plus every major opcode/funct3/funct7.
    let mut x: u32 = 0x9e37_79b9;
    let check = |w: u32| {
        if let Ok(i) = decode(w) {
            assert!(i.rd < 32 && i.rs1 < 32 && i.rs2 < 32);
        }
    };
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        check(x);
    }
    for major in 0..128u32 {
        for f3 in 0..8u32 {
            for f7 in 0..128u32 {
                check(major | (f3 << 12) | (f7 << 25) | (0b10101 << 7) | (0b01010 << 15));
            }
        }
    }
}
