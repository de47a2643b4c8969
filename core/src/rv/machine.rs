//! The RV64IM statement: its tables in proof order, its public values (the exit code), and
//! the trace builder that turns an execution into every table's trace.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

use super::bitwise::{BitwiseAir, ByteCounts};
use super::cpu::{self, CpuAir, Step};
use super::decode::{class, decode_for_air, DecodeAir, Decoded, ProgramImage};
use super::memw_r::{self, MemwRAir, RegAccess};
use super::register::{self, RegisterAir};
use super::{AluOp, BUS_EXIT, BYTE_AND, BYTE_OR, BYTE_XOR};
use crate::air::{Air, Direction, Machine, PublicInteraction, TableAir};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// An ALU table: its AIR, the operations it accepts, and its trace builder.
pub trait AluTable: Sync {
    fn air(&self) -> &dyn TableAir;
    /// Operation codes this table receives.
    fn accepts(&self, op: u32) -> bool;
    /// The trace for `ops` (all accepted), recording byte lookups.
    fn build(&self, ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix;
}

/// An [`AluTable`] from an AIR, its op codes and its trace builder.
pub struct Alu<A: Air + 'static> {
    pub air: A,
    pub ops: &'static [u32],
    pub build: fn(&[AluOp], &mut ByteCounts) -> RowMajorMatrix,
}

impl<A: Air + 'static> AluTable for Alu<A> {
    fn air(&self) -> &dyn TableAir {
        &self.air
    }
    fn accepts(&self, op: u32) -> bool {
        self.ops.contains(&op)
    }
    fn build(&self, ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
        (self.build)(ops, bytes)
    }
}

/// Every ALU table, in proof order: LT, EQ, SHIFT, MUL, DVRM.
pub fn alu_tables() -> Vec<Box<dyn AluTable>> {
    use super::alu_ops::*;
    vec![
        Box::new(Alu {
            air: super::lt::LtAir,
            ops: &[ALU_SLT, ALU_SLTU],
            build: super::lt::build_trace,
        }),
        Box::new(Alu {
            air: super::eq::EqAir,
            ops: &[ALU_EQ],
            build: super::eq::build_trace,
        }),
        Box::new(Alu {
            air: super::shift::ShiftAir,
            ops: &[ALU_SLL, ALU_SRL, ALU_SRA, ALU_SLLW, ALU_SRLW, ALU_SRAW],
            build: super::shift::build_trace,
        }),
        Box::new(Alu {
            air: super::mul::MulAir,
            ops: &super::mul::OPS,
            build: super::mul::build_trace,
        }),
        Box::new(Alu {
            air: super::dvrm::DvrmAir,
            ops: &super::dvrm::OPS,
            build: super::dvrm::build_trace,
        }),
    ]
}

impl Rv64Machine {
    /// The machine proving `program`.
    pub fn new(program: &ProgramImage) -> Rv64Machine {
        Rv64Machine {
            decode: DecodeAir::new(program),
            alu: alu_tables(),
        }
    }

    /// The verifier's machine: shapes only; commitments come from the verifying key.
    pub fn verifier() -> Rv64Machine {
        Rv64Machine {
            decode: DecodeAir::shape_only(),
            alu: alu_tables(),
        }
    }
}

/// Public values: the 8 bytes of `a0` at the exit call.
pub const NUM_PUBLIC: usize = 8;

/// The machine: CPU, DECODE, MEMW_R, REGISTER, BITWISE, then the ALU tables.
pub struct Rv64Machine {
    pub decode: DecodeAir,
    pub alu: Vec<Box<dyn AluTable>>,
}

impl Machine for Rv64Machine {
    fn name(&self) -> &str {
        "kestrel-rv64im"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        let mut t: Vec<&dyn TableAir> =
            vec![&CpuAir, &self.decode, &MemwRAir, &RegisterAir, &BitwiseAir];
        t.extend(self.alu.iter().map(|a| a.air()));
        t
    }
    fn num_public_values(&self) -> usize {
        NUM_PUBLIC
    }
    fn public_interactions(&self, public: &[Felt]) -> Vec<PublicInteraction> {
        vec![PublicInteraction {
            bus: BUS_EXIT,
            direction: Direction::Receive,
            multiplicity: Felt::ONE,
            values: public.to_vec(),
        }]
    }
}

/// Why an execution cannot be turned into traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceError {
    /// No steps.
    Empty,
    /// This version cannot prove the instruction at `pc`.
    Unsupported { pc: u32, word: u32 },
    /// The pc is not in the program's code.
    NotInProgram { pc: u32 },
    /// The execution does not end with the exit call.
    NoExit,
    /// An ALU operation no table accepts.
    NoAluTable { op: u32 },
    /// Too many steps for the largest table height.
    TooLong { steps: usize },
}

impl core::fmt::Display for TraceError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TraceError::Empty => write!(f, "empty execution"),
            TraceError::Unsupported { pc, word } => write!(
                f,
                "instruction {word:#010x} at pc {pc:#x} cannot be proven yet (loads, stores and read/write calls need the memory tables)"
            ),
            TraceError::NotInProgram { pc } => write!(f, "pc {pc:#x} is not in the program"),
            TraceError::NoExit => write!(f, "the execution does not end with exit"),
            TraceError::NoAluTable { op } => write!(f, "no table proves ALU operation {op}"),
            TraceError::TooLong { steps } => write!(f, "{steps} steps exceed the largest table"),
        }
    }
}

/// Every table's trace (in [`Machine::tables`] order) and the public values.
pub fn build_traces(
    machine: &Rv64Machine,
    program: &ProgramImage,
    steps: &[Step],
) -> Result<(Vec<RowMajorMatrix>, Vec<Felt>), TraceError> {
    let last = steps.last().ok_or(TraceError::Empty)?;
    if steps.len() > 1 << 26 {
        return Err(TraceError::TooLong { steps: steps.len() });
    }
    let rows: BTreeMap<u32, usize> = program
        .code
        .iter()
        .enumerate()
        .map(|(i, &(pc, _))| (pc, i))
        .collect();
    let decode_h = program.code.len().next_power_of_two().max(8);
    let mut decode_mult = vec![0u64; decode_h];
    let h = steps.len().next_power_of_two().max(8);
    let mut cpu_trace = RowMajorMatrix::zeros(h, cpu::WIDTH);
    let mut bytes = ByteCounts::default();
    let mut accesses = Vec::with_capacity(3 * steps.len());
    let mut alu_ops = Vec::new();
    let mut public = vec![Felt::ZERO; NUM_PUBLIC];
    for (clk, s) in steps.iter().enumerate() {
        let d = decode_for_air(s.pc, s.word).ok_or(TraceError::Unsupported {
            pc: s.pc,
            word: s.word,
        })?;
        let r = *rows
            .get(&s.pc)
            .ok_or(TraceError::NotInProgram { pc: s.pc })?;
        decode_mult[r] += 1;
        let next_pc = steps.get(clk + 1).map_or(s.pc.wrapping_add(4), |n| n.pc);
        let row = cpu_trace.row_mut(clk);
        let res = cpu::fill_row(row, clk, s, &d, next_pc);
        let b = if d.use_imm { d.imm } else { s.rs2_val };
        let ts = 4 * clk as u64;
        accesses.push(RegAccess {
            reg: d.rs1,
            value: s.rs1_val,
            ts: ts + 1,
            is_write: false,
        });
        accesses.push(RegAccess {
            reg: d.rs2,
            value: s.rs2_val,
            ts: ts + 2,
            is_write: false,
        });
        accesses.push(RegAccess {
            reg: d.rd,
            value: if d.wr { res } else { 0 },
            ts: ts + 3,
            is_write: true,
        });
        let row = cpu_trace.row(clk);
        let sum = u64::from_le_bytes(core::array::from_fn(|i| row_byte(row, cpu::SUM + i)));
        step_lookups(&d, s.rs1_val, b, res, sum, &mut alu_ops, &mut bytes);
        if d.class[class::ECALL] {
            public = s
                .rs2_val
                .to_le_bytes()
                .map(|x| Felt::from(x as u32))
                .to_vec();
        }
    }
    let exit = decode_for_air(last.pc, last.word).is_some_and(|d| d.class[class::ECALL]);
    if !exit {
        return Err(TraceError::NoExit);
    }
    for (clk, row) in cpu_trace
        .values
        .chunks_exact_mut(cpu::WIDTH)
        .enumerate()
        .skip(steps.len())
    {
        // Padding: the clock runs on, nothing else happens (next_pc = pc + 4 = 4).
        row[cpu::CLK] = Felt::new(clk as u64);
        row[cpu::NEXT_PC] = Felt::new(4);
    }
    let (memw, file) = memw_r::build_trace(&accesses, &register::initial_registers(), &mut bytes);
    let mut alu_traces = Vec::with_capacity(machine.alu.len());
    for t in &machine.alu {
        let ops: Vec<AluOp> = alu_ops
            .iter()
            .copied()
            .filter(|o| t.accepts(o.op))
            .collect();
        alu_traces.push(t.build(&ops, &mut bytes));
    }
    if let Some(o) = alu_ops
        .iter()
        .find(|o| !machine.alu.iter().any(|t| t.accepts(o.op)))
    {
        return Err(TraceError::NoAluTable { op: o.op });
    }
    let decode = RowMajorMatrix::new(decode_mult.into_iter().map(Felt::new).collect(), 1);
    let mut traces = vec![
        cpu_trace,
        decode,
        memw,
        register::build_trace(&file),
        bytes.trace(),
    ];
    traces.extend(alu_traces);
    Ok((traces, public))
}

/// What one CPU step asks of other tables besides registers: its ALU operation (ALU
/// instructions and branch compares), its byte-logic lookups, and the range checks of its
/// result and adder bytes and of the two split-off values (`2·L7`, `2·H`). Shared by
/// [`build_traces`] and [`pack_traces`], so both count exactly the same lookups.
fn step_lookups(
    d: &Decoded,
    a: u64,
    b: u64,
    res: u64,
    sum: u64,
    alu_ops: &mut Vec<AluOp>,
    bytes: &mut ByteCounts,
) {
    if d.class[class::ALU] || d.class[class::BRANCH] {
        alu_ops.push(AluOp {
            op: d.alu_op,
            a,
            b,
            c: res,
        });
    }
    let lop = [
        (class::AND, BYTE_AND),
        (class::OR, BYTE_OR),
        (class::XOR, BYTE_XOR),
    ]
    .into_iter()
    .find(|(k, _)| d.class[*k]);
    if let Some((_, op)) = lop {
        for (x, y) in a.to_le_bytes().into_iter().zip(b.to_le_bytes()) {
            bytes.add(op, x, y);
        }
    }
    let (rb, sb) = (res.to_le_bytes(), sum.to_le_bytes());
    for j in 0..4 {
        bytes.range(rb[2 * j], rb[2 * j + 1]);
        bytes.range(sb[2 * j], sb[2 * j + 1]);
    }
    let (l7, h) = cpu::extra_range_bytes(d, sum);
    bytes.range(l7, h);
}

fn row_byte(row: &[Felt], col: usize) -> u8 {
    row[col].as_u64() as u8
}

/// Index of the CPU table in [`Machine::tables`] order.
pub const CPU_TABLE: usize = 0;
/// Index of the MEMW_R table in [`Machine::tables`] order.
pub const MEMW_R_TABLE: usize = 2;

/// The CPU table as packed per-step records for a fill kernel. Row `clk` (the thread index)
/// of the trace is [`cpu::fill_row`] of step `clk`; padding rows follow up to `height`.
/// Everything else a row holds is derived: `pc` and the DECODE fields from the program's
/// DECODE row (see [`decode_fields`]), `next_pc` from the next step's DECODE row, operand b,
/// the adder and the flags from the fields and the values here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuRecords {
    /// The trace height (a power of two, at least 8).
    pub height: usize,
    /// Each step's DECODE row (index into the program's code).
    pub dec_row: Vec<u32>,
    pub rs1: Vec<u64>,
    pub rs2: Vec<u64>,
    /// The result bytes' value (what [`cpu::fill_row`] returns).
    pub res: Vec<u64>,
}

impl CpuRecords {
    pub fn len(&self) -> usize {
        self.dec_row.len()
    }
    pub fn is_empty(&self) -> bool {
        self.dec_row.is_empty()
    }
}

/// MEMW_R as packed per-access records for a fill kernel, in the CPU's access order: access
/// `r` belongs to step `r / 3`, has timestamp `4·(r/3) + r%3 + 1` and writes iff `r % 3 == 2`
/// (rs1 read, rs2 read, rd write), so neither is stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemwRRecords {
    /// The trace height (a power of two, at least 8).
    pub height: usize,
    /// `reg | old_ts << 8` per access.
    pub meta: Vec<u64>,
    /// The register's value before the access, per access.
    pub old: Vec<u64>,
    /// The value written, per step (the access `3·step + 2`).
    pub new: Vec<u64>,
}

impl MemwRRecords {
    /// Number of accesses (real rows).
    pub fn len(&self) -> usize {
        self.meta.len()
    }
    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }
}

/// Words per row of [`decode_fields`]: `pc` then the DECODE tuple's fields.
pub const DECODE_WORDS: usize = super::decode::TUPLE;

/// The program's DECODE rows as the CPU fill kernel reads them: per code slot, `pc` then
/// [`super::decode::Decoded::fields`] as canonical words (zeros for an instruction this
/// version cannot prove; no executed step refers to one).
pub fn decode_fields(program: &ProgramImage) -> Vec<u64> {
    let mut out = Vec::with_capacity(program.code.len() * DECODE_WORDS);
    for &(pc, word) in &program.code {
        out.push(pc as u64);
        match decode_for_air(pc, word) {
            Some(d) => out.extend(d.fields().iter().map(|f| f.as_u64())),
            None => out.extend([0; DECODE_WORDS - 1]),
        }
    }
    out
}

/// [`build_traces`] with the CPU and MEMW_R traces left as packed records for device fills.
pub struct PackedTraces {
    pub cpu: CpuRecords,
    pub memw_r: MemwRRecords,
    /// Every other table's trace, in [`Machine::tables`] order; `None` at [`CPU_TABLE`]
    /// and [`MEMW_R_TABLE`].
    pub traces: Vec<Option<RowMajorMatrix>>,
    pub public: Vec<Felt>,
}

/// One pass over the steps producing what [`build_traces`] does, except that the CPU and
/// MEMW_R tables come as packed records (no rows built); their byte lookups are counted
/// into BITWISE here, so every other trace equals [`build_traces`]'s.
///
/// # Errors
/// As [`build_traces`].
pub fn pack_traces(
    machine: &Rv64Machine,
    program: &ProgramImage,
    steps: &[Step],
) -> Result<PackedTraces, TraceError> {
    let last = steps.last().ok_or(TraceError::Empty)?;
    if steps.len() > 1 << 26 {
        return Err(TraceError::TooLong { steps: steps.len() });
    }
    let rows: BTreeMap<u32, usize> = program
        .code
        .iter()
        .enumerate()
        .map(|(i, &(pc, _))| (pc, i))
        .collect();
    let decode_h = program.code.len().next_power_of_two().max(8);
    let mut decode_mult = vec![0u64; decode_h];
    let n = steps.len();
    let mut rec = CpuRecords {
        height: n.next_power_of_two().max(8),
        dec_row: Vec::with_capacity(n),
        rs1: Vec::with_capacity(n),
        rs2: Vec::with_capacity(n),
        res: Vec::with_capacity(n),
    };
    let mut memw = MemwRRecords {
        height: (3 * n).next_power_of_two().max(8),
        meta: Vec::with_capacity(3 * n),
        old: Vec::with_capacity(3 * n),
        new: Vec::with_capacity(n),
    };
    let mut file = memw_r::RegFile {
        values: register::initial_registers(),
        ts: [0; 32],
    };
    let mut bytes = ByteCounts::default();
    let mut alu_ops = Vec::new();
    let mut public = vec![Felt::ZERO; NUM_PUBLIC];
    for (clk, s) in steps.iter().enumerate() {
        let d = decode_for_air(s.pc, s.word).ok_or(TraceError::Unsupported {
            pc: s.pc,
            word: s.word,
        })?;
        let r = *rows
            .get(&s.pc)
            .ok_or(TraceError::NotInProgram { pc: s.pc })?;
        decode_mult[r] += 1;
        let b = cpu::operand_b(s, &d);
        let (sum, _) = cpu::sum_and_carries(s.rs1_val, b, &d);
        let res = cpu::result(s, &d, b, sum);
        rec.dec_row.push(r as u32);
        rec.rs1.push(s.rs1_val);
        rec.rs2.push(s.rs2_val);
        rec.res.push(res);
        let ts = 4 * clk as u64;
        let written = if d.wr { res } else { 0 };
        for (k, reg, value, is_write) in [
            (1, d.rs1, s.rs1_val, false),
            (2, d.rs2, s.rs2_val, false),
            (3, d.rd, written, true),
        ] {
            let i = reg as usize & 31;
            let (old, old_ts) = (file.values[i], file.ts[i]);
            let t = ts + k;
            memw.meta.push(reg as u64 | old_ts << 8);
            memw.old.push(old);
            let new = if is_write {
                memw.new.push(value);
                value
            } else {
                old
            };
            let dd = (t - old_ts - 1).to_le_bytes();
            bytes.range(dd[0], dd[1]);
            bytes.range(dd[2], dd[3]);
            file.values[i] = new;
            file.ts[i] = t;
        }
        step_lookups(&d, s.rs1_val, b, res, sum, &mut alu_ops, &mut bytes);
        if d.class[class::ECALL] {
            public = s
                .rs2_val
                .to_le_bytes()
                .map(|x| Felt::from(x as u32))
                .to_vec();
        }
    }
    let exit = decode_for_air(last.pc, last.word).is_some_and(|d| d.class[class::ECALL]);
    if !exit {
        return Err(TraceError::NoExit);
    }
    let mut alu_traces = Vec::with_capacity(machine.alu.len());
    for t in &machine.alu {
        let ops: Vec<AluOp> = alu_ops
            .iter()
            .copied()
            .filter(|o| t.accepts(o.op))
            .collect();
        alu_traces.push(Some(t.build(&ops, &mut bytes)));
    }
    if let Some(o) = alu_ops
        .iter()
        .find(|o| !machine.alu.iter().any(|t| t.accepts(o.op)))
    {
        return Err(TraceError::NoAluTable { op: o.op });
    }
    let decode = RowMajorMatrix::new(decode_mult.into_iter().map(Felt::new).collect(), 1);
    let mut traces = vec![
        None,
        Some(decode),
        None,
        Some(register::build_trace(&file)),
        Some(bytes.trace()),
    ];
    traces.extend(alu_traces);
    Ok(PackedTraces {
        cpu: rec,
        memw_r: memw,
        traces,
        public,
    })
}
