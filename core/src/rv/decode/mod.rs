//! DECODE: one preprocessed row per static instruction slot of the program, bound to the
//! verifying key. Each row holds what the CPU needs to execute the instruction — class
//! selectors, the ALU operation, register indices, immediates — and a multiplicity column
//! counts how often it ran. The entry point's row also receives the run's first
//! [`super::BUS_ENTRY`] token `(0, entry, 0)`: clock 0, the entry pc, no output yet.
//!
//! Instructions this version cannot prove (anything undecodable, EBREAK, CSR instructions)
//! get a row with no class selector set, so a CPU row executing them cannot satisfy
//! "exactly one class" and the proof fails cleanly.
//!
//! # Columns
//!
//! [`DecodePreCols`] (preprocessed: `pc`, the [`DecodeFields`] values, the entry flag) and
//! [`DecodeCols`] (main: the multiplicity) are the layout's source. The CPU copies the
//! [`DecodeFields`] into its own row and reads them by name.

use alloc::vec;
use alloc::vec::Vec;

use super::alu_ops::*;
use super::{BUS_DECODE, BUS_ENTRY};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;
use crate::isa::{decode, Opcode};

/// A program's image: entry point, every (pc, word) of its code, its initial memory and
/// its heap bounds (all bound to the verifying key).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramImage {
    pub entry: u32,
    pub code: Vec<(u32, u32)>,
    /// Initial memory: every file-backed word of the loadable segments, strictly
    /// increasing word index `w` (bytes `8w .. 8w + 8`).
    pub words: Vec<(u32, u64)>,
    /// Zero-initialised words of the segments (bss) as word ranges `lo .. hi`, sorted,
    /// disjoint and disjoint from `words`, below `heap_start / 8`. Untouched ones cost
    /// nothing: they are PAGE0's, like the heap's and the stack's.
    pub bss: Vec<(u32, u32)>,
    /// Word ranges `lo .. hi` that are read-only (segments without write permission),
    /// sorted and disjoint; every other word of `words` and `bss` is writable.
    pub read_only: Vec<(u32, u32)>,
    /// The initial program break (a multiple of 8, above every image word).
    pub heap_start: u32,
    /// The highest break `brk` accepts.
    pub heap_limit: u32,
}

/// Class selectors, in tuple order. Exactly one is set for every provable instruction.
pub mod class {
    pub const ADD: usize = 0;
    pub const SUB: usize = 1;
    pub const ADDW: usize = 2;
    pub const SUBW: usize = 3;
    pub const AND: usize = 4;
    pub const OR: usize = 5;
    pub const XOR: usize = 6;
    pub const ALU: usize = 7;
    pub const BRANCH: usize = 8;
    pub const JAL: usize = 9;
    pub const JALR: usize = 10;
    pub const ECALL: usize = 11;
    pub const LOAD: usize = 12;
    pub const STORE: usize = 13;
    pub const COUNT: usize = 14;
}

/// The decoded fields of one instruction, as the CPU consumes them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decoded {
    pub class: [bool; class::COUNT],
    /// Branch taken when the compare is false (BNE, BGE, BGEU).
    pub br_neg: bool,
    /// Operand b is the immediate (else rs2).
    pub use_imm: bool,
    /// The instruction writes `rd` and `rd ≠ 0`.
    pub wr: bool,
    /// ALU instructions and branches: the ALU operation; loads and stores: the
    /// [`super::BUS_MEMOP`] operation.
    pub alu_op: u32,
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    /// The immediate as a signed field element (branch and JAL offsets).
    pub imm_f: Felt,
    /// The 64-bit operand b when `use_imm`, or the constant result of LUI/AUIPC.
    pub imm: u64,
}

/// Decodes one instruction for the AIR; `None` when this version cannot prove it.
pub fn decode_for_air(pc: u32, word: u32) -> Option<Decoded> {
    use Opcode::*;
    let i = decode(word).ok()?;
    let mut d = Decoded {
        rd: i.rd,
        rs1: i.rs1,
        rs2: i.rs2,
        imm_f: Felt::from_i64(i.imm as i64),
        imm: i.imm64(),
        ..Decoded::default()
    };
    let (cls, alu_op, use_imm) = match i.op {
        Add => (class::ADD, 0, false),
        Addi => (class::ADD, 0, true),
        Lui => (class::ADD, 0, true),
        Auipc => {
            d.imm = (pc as u64).wrapping_add(i.imm64());
            (class::ADD, 0, true)
        }
        Fence => {
            d.rd = 0;
            d.rs1 = 0;
            d.rs2 = 0;
            d.imm = 0;
            (class::ADD, 0, true)
        }
        Sub => (class::SUB, 0, false),
        Addw => (class::ADDW, 0, false),
        Addiw => (class::ADDW, 0, true),
        Subw => (class::SUBW, 0, false),
        And => (class::AND, 0, false),
        Andi => (class::AND, 0, true),
        Or => (class::OR, 0, false),
        Ori => (class::OR, 0, true),
        Xor => (class::XOR, 0, false),
        Xori => (class::XOR, 0, true),
        Slt => (class::ALU, ALU_SLT, false),
        Slti => (class::ALU, ALU_SLT, true),
        Sltu => (class::ALU, ALU_SLTU, false),
        Sltiu => (class::ALU, ALU_SLTU, true),
        Sll => (class::ALU, ALU_SLL, false),
        Slli => (class::ALU, ALU_SLL, true),
        Srl => (class::ALU, ALU_SRL, false),
        Srli => (class::ALU, ALU_SRL, true),
        Sra => (class::ALU, ALU_SRA, false),
        Srai => (class::ALU, ALU_SRA, true),
        Sllw => (class::ALU, ALU_SLLW, false),
        Slliw => (class::ALU, ALU_SLLW, true),
        Srlw => (class::ALU, ALU_SRLW, false),
        Srliw => (class::ALU, ALU_SRLW, true),
        Sraw => (class::ALU, ALU_SRAW, false),
        Sraiw => (class::ALU, ALU_SRAW, true),
        Mul => (class::ALU, ALU_MUL, false),
        Mulh => (class::ALU, ALU_MULH, false),
        Mulhsu => (class::ALU, ALU_MULHSU, false),
        Mulhu => (class::ALU, ALU_MULHU, false),
        Mulw => (class::ALU, ALU_MULW, false),
        Div => (class::ALU, ALU_DIV, false),
        Divu => (class::ALU, ALU_DIVU, false),
        Rem => (class::ALU, ALU_REM, false),
        Remu => (class::ALU, ALU_REMU, false),
        Divw => (class::ALU, ALU_DIVW, false),
        Divuw => (class::ALU, ALU_DIVUW, false),
        Remw => (class::ALU, ALU_REMW, false),
        Remuw => (class::ALU, ALU_REMUW, false),
        Beq => (class::BRANCH, ALU_EQ, false),
        Bne => {
            d.br_neg = true;
            (class::BRANCH, ALU_EQ, false)
        }
        Blt => (class::BRANCH, ALU_SLT, false),
        Bge => {
            d.br_neg = true;
            (class::BRANCH, ALU_SLT, false)
        }
        Bltu => (class::BRANCH, ALU_SLTU, false),
        Bgeu => {
            d.br_neg = true;
            (class::BRANCH, ALU_SLTU, false)
        }
        Jal => (class::JAL, 0, false),
        Jalr => (class::JALR, 0, true),
        Ecall => {
            // The CPU reads a7 (call number) as rs1 and a0 (argument) as rs2, and writes a0
            // (the result; exit writes a0 back unchanged).
            d.rs1 = 17;
            d.rs2 = 10;
            d.rd = 10;
            (class::ECALL, 0, false)
        }
        Lb | Lh | Lw | Ld | Lbu | Lhu | Lwu => {
            (class::LOAD, super::MEMOP_LOAD + funct3(word), true)
        }
        Sb | Sh | Sw | Sd => (class::STORE, super::MEMOP_STORE + funct3(word), true),
    };
    d.class[cls] = true;
    d.alu_op = alu_op;
    d.use_imm = use_imm;
    let writes = !matches!(cls, class::BRANCH | class::STORE);
    d.wr = writes && d.rd != 0;
    if !writes {
        d.rd = 0;
    }
    Some(d)
}

fn funct3(word: u32) -> u32 {
    (word >> 12) & 7
}

crate::columns! {
    /// The DECODE tuple's values after `pc` (what the CPU copies, see [`Decoded`]).
    pub struct DecodeFields {
        /// Class selectors, indexed by [`class`].
        sel[class::COUNT],
        /// Branch taken when the compare is false.
        br_neg,
        /// Operand b is the immediate.
        use_imm,
        /// The instruction writes `rd` and `rd ≠ 0`.
        wr,
        /// The ALU (or memory) operation.
        alu_op,
        rd,
        rs1,
        rs2,
        /// The immediate as a signed field element.
        imm_f,
        /// The 64-bit immediate's bytes.
        imm[8],
    }
}

/// Values of the DECODE tuple after `pc`: selectors, br_neg, use_imm, wr, alu_op, rd, rs1,
/// rs2, imm_f, imm bytes ([`DecodeFields`]).
pub const FIELDS: usize = <DecodeFields<u8> as Columns<u8>>::WIDTH;
/// The tuple: `pc` then [`FIELDS`] values.
pub const TUPLE: usize = 1 + FIELDS;

impl Decoded {
    /// The tuple values after `pc`, as field elements.
    pub fn fields(&self) -> [Felt; FIELDS] {
        let f = DecodeFields {
            sel: self.class.map(Felt::from),
            br_neg: Felt::from(self.br_neg),
            use_imm: Felt::from(self.use_imm),
            wr: Felt::from(self.wr),
            alu_op: Felt::from(self.alu_op),
            rd: Felt::from(self.rd as u32),
            rs1: Felt::from(self.rs1 as u32),
            rs2: Felt::from(self.rs2 as u32),
            imm_f: self.imm_f,
            imm: self.imm.to_le_bytes().map(|b| Felt::from(b as u32)),
        };
        let mut out = [Felt::ZERO; FIELDS];
        f.write(&mut out);
        out
    }
}

crate::columns! {
    /// DECODE's preprocessed columns: the tuple, then the entry flag.
    pub struct DecodePreCols {
        /// The instruction's pc.
        pc,
        /// The tuple's values after `pc` ([`DecodeFields`]).
        fields[FIELDS],
        /// `1` on the entry point's row.
        entry,
    }
}

crate::columns! {
    /// DECODE's main columns.
    pub struct DecodeCols {
        /// How many times the instruction ran.
        m,
    }
}

/// The multiplicity column (for tests), from [`DecodeCols`].
pub const M: usize = col!(DecodeCols, m);

/// DECODE's main columns.
pub const WIDTH: usize = <DecodeCols<u8> as Columns<u8>>::WIDTH;

const _: () = assert!(col!(DecodePreCols, entry) == TUPLE);

/// Preprocessed columns: the tuple, then the entry flag.
pub const PRE_WIDTH: usize = <DecodePreCols<u8> as Columns<u8>>::WIDTH;

/// The DECODE table of one program (the verifier's instance carries no trace).
pub struct DecodeAir {
    rows: Option<(Vec<Felt>, u32)>,
}

impl DecodeAir {
    /// The table for `program`, with its preprocessed trace. Row order follows `code`.
    pub fn new(program: &ProgramImage) -> DecodeAir {
        let h = program
            .code
            .len()
            .next_power_of_two()
            .max(crate::params::MIN_ROWS);
        let mut v = vec![Felt::ZERO; h * PRE_WIDTH];
        for (row, &(pc, word)) in v.chunks_exact_mut(PRE_WIDTH).zip(&program.code) {
            DecodePreCols {
                pc: Felt::from(pc),
                fields: decode_for_air(pc, word).map_or([Felt::ZERO; FIELDS], |d| d.fields()),
                entry: Felt::from(pc == program.entry),
            }
            .write(row);
        }
        DecodeAir {
            rows: Some((v, h.trailing_zeros())),
        }
    }

    /// The verifier's view: shape only; the commitment comes from the verifying key.
    pub fn shape_only() -> DecodeAir {
        DecodeAir { rows: None }
    }
}

impl Air for DecodeAir {
    fn name(&self) -> &str {
        "DECODE"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn preprocessed_width(&self) -> usize {
        PRE_WIDTH
    }
    fn preprocessed_trace(&self) -> Option<(Vec<Felt>, u32)> {
        self.rows.clone()
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let p: DecodePreCols<B::Expr> = DecodePreCols::from_fn(|i| b.preprocessed(i));
        let c: DecodeCols<B::Expr> = DecodeCols::from_fn(|i| b.main(i));
        let mut tuple = Vec::with_capacity(TUPLE);
        tuple.push(p.pc);
        tuple.extend(p.fields);
        b.receive(BUS_DECODE, c.m, &tuple);
        // The run starts at clock 0, at the entry point, with no output written: the first
        // segment's CPU row 0 sends this token (see the CPU's "Segments").
        let zero = || B::Expr::from(Felt::ZERO);
        b.receive(BUS_ENTRY, p.entry, &[zero(), tuple[0].clone(), zero()]);
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
