//! The RV64IM opcodes Kestrel executes and their encoding formats.

/// Every instruction of RV64IM that Kestrel executes (user level; FENCE/FENCE.I are no-ops).
///
/// The discriminants are stable (`repr(u8)`, in this order) so that tables and records may store
/// them as a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Opcode {
    // RV64I: upper immediates and jumps
    Lui,
    Auipc,
    Jal,
    Jalr,
    // branches
    Beq,
    Bne,
    Blt,
    Bge,
    Bltu,
    Bgeu,
    // loads
    Lb,
    Lh,
    Lw,
    Ld,
    Lbu,
    Lhu,
    Lwu,
    // stores
    Sb,
    Sh,
    Sw,
    Sd,
    // register-immediate
    Addi,
    Slti,
    Sltiu,
    Xori,
    Ori,
    Andi,
    Slli,
    Srli,
    Srai,
    // register-register
    Add,
    Sub,
    Sll,
    Slt,
    Sltu,
    Xor,
    Srl,
    Sra,
    Or,
    And,
    // 32-bit (W) forms
    Addiw,
    Slliw,
    Srliw,
    Sraiw,
    Addw,
    Subw,
    Sllw,
    Srlw,
    Sraw,
    // M extension
    Mul,
    Mulh,
    Mulhsu,
    Mulhu,
    Div,
    Divu,
    Rem,
    Remu,
    Mulw,
    Divw,
    Divuw,
    Remw,
    Remuw,
    // system
    Fence,
    Ecall,
}

/// Encoding format of an instruction (which fields of the word it uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// rd, rs1, rs2.
    R,
    /// rd, rs1, 12-bit immediate (or shift amount).
    I,
    /// rs1, rs2, 12-bit store offset.
    S,
    /// rs1, rs2, 13-bit branch offset.
    B,
    /// rd, 20-bit upper immediate.
    U,
    /// rd, 21-bit jump offset.
    J,
    /// No register fields (FENCE, ECALL).
    None,
}

impl Opcode {
    /// Number of opcodes.
    pub const COUNT: usize = Opcode::Ecall as usize + 1;

    /// All opcodes in discriminant order.
    pub const ALL: [Opcode; Opcode::COUNT] = {
        use Opcode::*;
        [
            Lui, Auipc, Jal, Jalr, Beq, Bne, Blt, Bge, Bltu, Bgeu, Lb, Lh, Lw, Ld, Lbu, Lhu, Lwu,
            Sb, Sh, Sw, Sd, Addi, Slti, Sltiu, Xori, Ori, Andi, Slli, Srli, Srai, Add, Sub, Sll,
            Slt, Sltu, Xor, Srl, Sra, Or, And, Addiw, Slliw, Srliw, Sraiw, Addw, Subw, Sllw, Srlw,
            Sraw, Mul, Mulh, Mulhsu, Mulhu, Div, Divu, Rem, Remu, Mulw, Divw, Divuw, Remw, Remuw,
            Fence, Ecall,
        ]
    };

    /// The opcode with discriminant `b`, if any.
    pub fn from_u8(b: u8) -> Option<Opcode> {
        Self::ALL.get(usize::from(b)).copied()
    }

    /// The lower-case assembler mnemonic.
    pub fn mnemonic(self) -> &'static str {
        use Opcode::*;
        match self {
            Lui => "lui",
            Auipc => "auipc",
            Jal => "jal",
            Jalr => "jalr",
            Beq => "beq",
            Bne => "bne",
            Blt => "blt",
            Bge => "bge",
            Bltu => "bltu",
            Bgeu => "bgeu",
            Lb => "lb",
            Lh => "lh",
            Lw => "lw",
            Ld => "ld",
            Lbu => "lbu",
            Lhu => "lhu",
            Lwu => "lwu",
            Sb => "sb",
            Sh => "sh",
            Sw => "sw",
            Sd => "sd",
            Addi => "addi",
            Slti => "slti",
            Sltiu => "sltiu",
            Xori => "xori",
            Ori => "ori",
            Andi => "andi",
            Slli => "slli",
            Srli => "srli",
            Srai => "srai",
            Add => "add",
            Sub => "sub",
            Sll => "sll",
            Slt => "slt",
            Sltu => "sltu",
            Xor => "xor",
            Srl => "srl",
            Sra => "sra",
            Or => "or",
            And => "and",
            Addiw => "addiw",
            Slliw => "slliw",
            Srliw => "srliw",
            Sraiw => "sraiw",
            Addw => "addw",
            Subw => "subw",
            Sllw => "sllw",
            Srlw => "srlw",
            Sraw => "sraw",
            Mul => "mul",
            Mulh => "mulh",
            Mulhsu => "mulhsu",
            Mulhu => "mulhu",
            Div => "div",
            Divu => "divu",
            Rem => "rem",
            Remu => "remu",
            Mulw => "mulw",
            Divw => "divw",
            Divuw => "divuw",
            Remw => "remw",
            Remuw => "remuw",
            Fence => "fence",
            Ecall => "ecall",
        }
    }

    /// The encoding format.
    pub fn format(self) -> Format {
        use Opcode::*;
        match self {
            Lui | Auipc => Format::U,
            Jal => Format::J,
            Beq | Bne | Blt | Bge | Bltu | Bgeu => Format::B,
            Sb | Sh | Sw | Sd => Format::S,
            Jalr | Lb | Lh | Lw | Ld | Lbu | Lhu | Lwu | Addi | Slti | Sltiu | Xori | Ori
            | Andi | Slli | Srli | Srai | Addiw | Slliw | Srliw | Sraiw => Format::I,
            Fence | Ecall => Format::None,
            _ => Format::R,
        }
    }

    /// Loads: number of bytes read.
    pub fn load_width(self) -> Option<u8> {
        use Opcode::*;
        match self {
            Lb | Lbu => Some(1),
            Lh | Lhu => Some(2),
            Lw | Lwu => Some(4),
            Ld => Some(8),
            _ => None,
        }
    }

    /// Stores: number of bytes written.
    pub fn store_width(self) -> Option<u8> {
        use Opcode::*;
        match self {
            Sb => Some(1),
            Sh => Some(2),
            Sw => Some(4),
            Sd => Some(8),
            _ => None,
        }
    }
}
