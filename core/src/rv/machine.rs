//! The RV64IM statement: its tables in proof order, its public values (the exit code), and
//! the trace builder that turns an execution into every table's trace.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use super::bitwise::{BitwiseAir, ByteCounts};
use super::cpu::{self, CpuAir, Step};
use super::decode::{class, decode_for_air, DecodeAir, Decoded, ProgramImage};
use super::ecall::{self, EcallAir};
use super::io::{self, IoAir};
use super::load::{self, LoadAir};
use super::memw::{self, MEMW, MEMW_A};
use super::memw_r::{self, MemwRAir, RegAccess, RegRow};
use super::page::{self, Page0Air, PageAir};
use super::register::{self, RegisterAir};
use super::store::{self, StoreAir};
use super::{
    distinct_height, AluOp, Distinct, EcallOp, IoWord, LoadOp, StoreOp, WordAccess, BUS_EXIT,
    BUS_OUTPUT, BYTE_AND, BYTE_OR, BYTE_XOR, IO_IN, IO_OUT, IO_ZERO, MEMOP_LOAD, MEMOP_STORE,
    REG_BRK, REG_HEAP_LIMIT, REG_HEAP_START, SYS_BRK, SYS_EXIT,
};
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
            register: RegisterAir::new(program),
            page: PageAir::new(&page::MemoryImage {
                words: program.words.clone(),
                heap_start: program.heap_start,
            }),
            alu: alu_tables(),
        }
    }

    /// The verifier's machine: shapes only; commitments come from the verifying key.
    pub fn verifier() -> Rv64Machine {
        Rv64Machine {
            decode: DecodeAir::shape_only(),
            register: RegisterAir::shape_only(),
            page: PageAir::shape_only(),
            alu: alu_tables(),
        }
    }
}

/// Public values: the 8 bytes of `a0` at the exit call, then the public output bytes (fd 1),
/// one value per byte.
pub const NUM_PUBLIC: usize = 8;
/// The most public output bytes a statement may carry (bounds the verifier's work).
pub const MAX_OUTPUT: usize = 1 << 20;

/// The machine: CPU, DECODE, MEMW_R, REGISTER, BITWISE, the ALU tables, then the memory
/// tables LOAD, STORE, MEMW_A, MEMW, PAGE, PAGE0 and the system-call tables ECALL, IO.
pub struct Rv64Machine {
    pub decode: DecodeAir,
    pub register: RegisterAir,
    pub page: PageAir,
    pub alu: Vec<Box<dyn AluTable>>,
}

impl Machine for Rv64Machine {
    fn name(&self) -> &str {
        "kestrel-rv64im"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        let mut t: Vec<&dyn TableAir> = vec![
            &CpuAir,
            &self.decode,
            &MemwRAir,
            &self.register,
            &BitwiseAir,
        ];
        t.extend(self.alu.iter().map(|a| a.air()));
        t.extend([
            &LoadAir as &dyn TableAir,
            &StoreAir,
            &MEMW_A,
            &MEMW,
            &self.page,
            &Page0Air,
            &EcallAir,
            &IoAir,
        ]);
        t
    }
    fn num_public_values(&self) -> usize {
        NUM_PUBLIC
    }
    fn public_len_ok(&self, n: usize) -> bool {
        n >= NUM_PUBLIC && n - NUM_PUBLIC <= MAX_OUTPUT
    }
    fn public_interactions(&self, public: &[Felt]) -> Vec<PublicInteraction> {
        let exit = public.get(..NUM_PUBLIC).unwrap_or(&[]);
        let mut out = Vec::with_capacity(1 + public.len().saturating_sub(NUM_PUBLIC));
        out.push(PublicInteraction {
            bus: BUS_EXIT,
            direction: Direction::Receive,
            multiplicity: Felt::ONE,
            values: exit.to_vec(),
        });
        for (i, &byte) in public.iter().skip(NUM_PUBLIC).enumerate() {
            out.push(PublicInteraction {
                bus: BUS_OUTPUT,
                direction: Direction::Receive,
                multiplicity: Felt::ONE,
                values: vec![Felt::new(i as u64), byte],
            });
        }
        out
    }
}

/// The public values of a run: exit code and public output.
pub fn public_values(exit_code: u64, output: &[u8]) -> Vec<Felt> {
    let mut v: Vec<Felt> = exit_code
        .to_le_bytes()
        .iter()
        .map(|&b| Felt::from(b as u32))
        .collect();
    v.extend(output.iter().map(|&b| Felt::from(b as u32)));
    v
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
    /// The execution does not end with exit.
    NoExit,
    /// An ALU operation no table accepts.
    NoAluTable { op: u32 },
    /// Too many steps for the largest table height.
    TooLong { steps: usize },
    /// A system call the proof does not cover.
    UnsupportedCall { pc: u32, number: u64, arg: u64 },
    /// A memory access at an address the proof's memory does not cover (below the heap and
    /// outside the program image, or above 2^32).
    Unmapped { pc: u32, addr: u64 },
    /// The recorded execution disagrees with memory as replayed from the image (e.g. a load
    /// of bytes that were never stored there).
    MemoryMismatch { pc: u32, addr: u64 },
    /// A read consumed more input than was given.
    InputExhausted { pc: u32 },
    /// More public output than a statement may carry.
    OutputTooLong { bytes: usize },
}

impl core::fmt::Display for TraceError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TraceError::Empty => write!(f, "empty execution"),
            TraceError::Unsupported { pc, word } => write!(
                f,
                "instruction {word:#010x} at pc {pc:#x} cannot be proven (not RV64IM)"
            ),
            TraceError::NotInProgram { pc } => write!(f, "pc {pc:#x} is not in the program"),
            TraceError::NoExit => write!(f, "the execution does not end with exit"),
            TraceError::NoAluTable { op } => write!(f, "no table proves ALU operation {op}"),
            TraceError::TooLong { steps } => write!(f, "{steps} steps exceed the largest table"),
            TraceError::UnsupportedCall { pc, number, arg } => write!(
                f,
                "system call {number} (a0 = {arg}) at pc {pc:#x} cannot be proven"
            ),
            TraceError::Unmapped { pc, addr } => write!(
                f,
                "memory access at {addr:#x} (pc {pc:#x}) is outside the provable memory"
            ),
            TraceError::MemoryMismatch { pc, addr } => write!(
                f,
                "the recorded access at {addr:#x} (pc {pc:#x}) disagrees with replayed memory"
            ),
            TraceError::InputExhausted { pc } => {
                write!(f, "read at pc {pc:#x} consumed more input than was given")
            }
            TraceError::OutputTooLong { bytes } => write!(
                f,
                "{bytes} bytes of public output exceed the limit of {MAX_OUTPUT}"
            ),
        }
    }
}

/// Every table's trace (in [`Machine::tables`] order) and the public values: the packed
/// records of [`pack_traces`] with the [`RECORD_TABLES`] filled on the host (the same fills
/// the device kernels make). `steps` are [`Step`]s or anything that converts to one (the
/// executor's records), read once each.
///
/// # Errors
/// [`TraceError`] when the execution cannot be proven.
pub fn build_traces<S: Copy + Into<Step>>(
    machine: &Rv64Machine,
    program: &ProgramImage,
    steps: &[S],
    input: &[u8],
) -> Result<(Vec<RowMajorMatrix>, Vec<Felt>), TraceError> {
    pack_traces(machine, program, steps, input)?.into_host_traces(program)
}

/// What one CPU step asks of other tables besides registers: its ALU operation (ALU
/// instructions and branch compares), its byte-logic lookups, and the range checks of its
/// result and adder bytes and of the two split-off values (`2·L7`, `2·H`).
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

/// Index of the CPU table in [`Machine::tables`] order.
pub const CPU_TABLE: usize = 0;
/// Index of the MEMW_R table in [`Machine::tables`] order.
pub const MEMW_R_TABLE: usize = 2;

/// A system call as the CPU row sees it: its cycle, the output position before it, the
/// output bytes it writes and whether it is the exit.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CallMark {
    pub clk: u64,
    pub outpos: u64,
    pub outn: u64,
    pub exit: bool,
}

/// The CPU table as packed per-step records for a fill kernel. Row `clk` (the thread index)
/// of the trace is [`cpu::fill_row`] of step `clk`; padding rows follow up to `height`.
/// Everything else a row holds is derived: `pc` and the DECODE fields from the program's
/// DECODE row (see [`decode_fields`]), `next_pc` from the next step's DECODE row, operand b,
/// the adder and the flags from the fields and the values here, and the output columns from
/// `calls` (sorted by cycle).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuRecords {
    /// The trace height (a power of two, at least 8).
    pub height: usize,
    /// Each step's DECODE row (index into the program's code).
    pub dec_row: Vec<u32>,
    pub rs1: Vec<u64>,
    pub rs2: Vec<u64>,
    /// The result bytes' value (what [`cpu::result`] gives).
    pub res: Vec<u64>,
    /// Every system call, in execution order.
    pub calls: Vec<CallMark>,
}

impl CpuRecords {
    pub fn len(&self) -> usize {
        self.dec_row.len()
    }
    pub fn is_empty(&self) -> bool {
        self.dec_row.is_empty()
    }
}

/// MEMW_R as packed per-access records for a fill kernel. The first `3·steps` rows are the
/// CPU's accesses in order: access `r` belongs to step `r / 3`, has timestamp
/// `4·(r/3) + r%3 + 1` and writes iff `r % 3 == 2` (rs1 read, rs2 read, rd write), so neither
/// is stored. The system calls' own register accesses follow as whole rows (`extra`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemwRRecords {
    /// The trace height (a power of two, at least 8).
    pub height: usize,
    /// `reg | old_ts << 8` per CPU access.
    pub meta: Vec<u64>,
    /// The register's value before the access, per CPU access.
    pub old: Vec<u64>,
    /// The value written, per step (the access `3·step + 2`).
    pub new: Vec<u64>,
    /// The system calls' register accesses (rows `3·steps ..`).
    pub extra: Vec<RegRow>,
}

impl MemwRRecords {
    /// Number of accesses (real rows).
    pub fn len(&self) -> usize {
        self.meta.len() + self.extra.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Words per row of [`decode_fields`]: `pc` then the DECODE tuple's fields.
pub const DECODE_WORDS: usize = super::decode::TUPLE;

/// The program's DECODE rows as the CPU fill reads them: per code slot, `pc` then
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

/// The CPU trace from its records, on the host (what `ks_fill_cpu` builds on a device).
pub fn fill_cpu_host(rec: &CpuRecords, decode: &[u64]) -> RowMajorMatrix {
    let n = rec.len();
    let mut m = RowMajorMatrix::zeros(rec.height, cpu::WIDTH);
    // Each DECODE row's pc and fields, decoded once.
    let slots: Vec<(u32, Decoded)> = decode
        .chunks_exact(DECODE_WORDS)
        .map(|d| (d[0] as u32, decoded_from_fields(&d[1..])))
        .collect();
    let slot = |i: usize| &slots[rec.dec_row[i] as usize];
    let mut calls = rec.calls.iter().peekable();
    let mut outpos = 0u64;
    for (clk, row) in m.values.chunks_exact_mut(cpu::WIDTH).enumerate() {
        if clk >= n {
            // Padding: the clock runs on, nothing else happens (next_pc = pc + 4 = 4).
            row[cpu::CLK] = Felt::new(clk as u64);
            row[cpu::NEXT_PC] = Felt::new(4);
            row[cpu::OUTPOS] = Felt::new(outpos);
            continue;
        }
        let (pc, fields) = slot(clk);
        let next_pc = if clk + 1 < n {
            slot(clk + 1).0
        } else {
            pc.wrapping_add(4)
        };
        cpu::fill_row(
            row,
            clk,
            *pc,
            fields,
            rec.rs1[clk],
            rec.rs2[clk],
            rec.res[clk],
            next_pc,
        );
        row[cpu::OUTPOS] = Felt::new(outpos);
        if let Some(c) = calls.next_if(|c| c.clk == clk as u64) {
            row[cpu::OUTN] = Felt::new(c.outn);
            row[cpu::EXIT] = Felt::from(c.exit);
            outpos += c.outn;
        }
    }
    m
}

/// The [`Decoded`] a DECODE field row holds (the inverse of [`Decoded::fields`]).
fn decoded_from_fields(f: &[u64]) -> Decoded {
    let k = class::COUNT;
    Decoded {
        class: core::array::from_fn(|i| f[i] != 0),
        br_neg: f[k] != 0,
        use_imm: f[k + 1] != 0,
        wr: f[k + 2] != 0,
        alu_op: f[k + 3] as u32,
        rd: f[k + 4] as u8,
        rs1: f[k + 5] as u8,
        rs2: f[k + 6] as u8,
        imm_f: Felt::new(f[k + 7]),
        imm: u64::from_le_bytes(core::array::from_fn(|j| f[k + 8 + j] as u8)),
    }
}

/// MEMW_R's trace from its records, on the host (what `ks_fill_memw_r` builds on a device).
pub fn fill_memw_r_host(rec: &MemwRRecords) -> RowMajorMatrix {
    let mut m = RowMajorMatrix::zeros(rec.height, memw_r::WIDTH);
    for (i, (&meta, &old)) in rec.meta.iter().zip(&rec.old).enumerate() {
        let (step, k) = (i / 3, i % 3);
        let is_write = k == 2;
        let r = RegRow {
            access: RegAccess {
                reg: (meta & 0xff) as u8,
                value: if is_write { rec.new[step] } else { old },
                ts: 4 * step as u64 + k as u64 + 1,
                is_write,
            },
            old,
            old_ts: meta >> 8,
        };
        memw_r::fill_row(m.row_mut(i), &r);
    }
    let base = rec.meta.len();
    for (i, r) in rec.extra.iter().enumerate() {
        memw_r::fill_row(m.row_mut(base + i), r);
    }
    m
}

/// Index of the first ALU table (LT) in [`Machine::tables`] order.
pub const FIRST_ALU_TABLE: usize = 5;
/// Index of the LT table in [`Machine::tables`] order.
pub const LT_TABLE: usize = FIRST_ALU_TABLE;
/// Index of the SHIFT table.
pub const SHIFT_TABLE: usize = 7;
/// Index of the LOAD table.
pub const LOAD_TABLE: usize = 10;
/// Index of the STORE table.
pub const STORE_TABLE: usize = 11;
/// Index of the MEMW_A table.
pub const MEMW_A_TABLE: usize = 12;
/// The tables [`PackedTraces`] leaves as records (a backend may fill them in its own
/// memory; [`build_traces`] fills them on the host).
pub const RECORD_TABLES: [usize; 7] = [
    CPU_TABLE,
    MEMW_R_TABLE,
    LT_TABLE,
    SHIFT_TABLE,
    LOAD_TABLE,
    STORE_TABLE,
    MEMW_A_TABLE,
];

/// The packed records of the [`RECORD_TABLES`] and every other table's trace.
pub struct PackedTraces {
    pub cpu: CpuRecords,
    pub memw_r: MemwRRecords,
    /// LT's distinct operations with multiplicities (its rows).
    pub lt: Vec<Distinct>,
    /// SHIFT's distinct operations with multiplicities.
    pub shift: Vec<Distinct>,
    pub loads: Vec<LoadOp>,
    pub stores: Vec<StoreOp>,
    pub mem_a: Vec<WordAccess>,
    /// Every other table's trace, in [`Machine::tables`] order; `None` at the
    /// [`RECORD_TABLES`].
    pub traces: Vec<Option<RowMajorMatrix>>,
    pub public: Vec<Felt>,
}

impl PackedTraces {
    /// Every table's trace, the [`RECORD_TABLES`] filled on the host, and the public values.
    ///
    /// # Errors
    /// [`TraceError::Empty`] if a table has neither a trace nor records (never after
    /// [`pack_traces`]).
    pub fn into_host_traces(
        mut self,
        program: &ProgramImage,
    ) -> Result<(Vec<RowMajorMatrix>, Vec<Felt>), TraceError> {
        let traces = core::mem::take(&mut self.traces)
            .into_iter()
            .enumerate()
            .map(|(t, m)| m.or_else(|| self.fill_host(program, t)))
            .collect::<Option<Vec<_>>>()
            .ok_or(TraceError::Empty)?;
        Ok((traces, self.public))
    }

    /// Table `t`'s trace filled on the host from its records (`None` unless `t` is one of
    /// the [`RECORD_TABLES`]); the same fills the device kernels make.
    pub fn fill_host(&self, program: &ProgramImage, t: usize) -> Option<RowMajorMatrix> {
        let mut scratch = ByteCounts::default();
        Some(match t {
            CPU_TABLE => fill_cpu_host(&self.cpu, &decode_fields(program)),
            MEMW_R_TABLE => fill_memw_r_host(&self.memw_r),
            LT_TABLE => super::lt::fill_distinct(&self.lt),
            SHIFT_TABLE => super::shift::fill_distinct(&self.shift),
            LOAD_TABLE => load::build_trace(&self.loads, &mut scratch),
            STORE_TABLE => store::build_trace(&self.stores, &mut scratch),
            MEMW_A_TABLE => memw::build_trace_a(&self.mem_a, &mut scratch),
            _ => return None,
        })
    }
}

/// The program's code slots, decoded once: a step's DECODE row and fields from its pc.
struct CodeSlots {
    /// `(first pc, first slot, slots)` per run of consecutive instruction words.
    runs: Vec<(u32, usize, usize)>,
    decoded: Vec<Option<Decoded>>,
}

impl CodeSlots {
    fn new(program: &ProgramImage) -> CodeSlots {
        let mut runs: Vec<(u32, usize, usize)> = Vec::new();
        for (i, &(pc, _)) in program.code.iter().enumerate() {
            match runs.last_mut() {
                Some((first, _, len)) if first.wrapping_add(4 * *len as u32) == pc => *len += 1,
                _ => runs.push((pc, i, 1)),
            }
        }
        runs.sort_unstable();
        let decoded = program
            .code
            .iter()
            .map(|&(pc, word)| decode_for_air(pc, word))
            .collect();
        CodeSlots { runs, decoded }
    }

    /// The step's DECODE row and decoded fields.
    fn get(&self, s: &Step) -> Result<(usize, &Decoded), TraceError> {
        let not_in = TraceError::NotInProgram { pc: s.pc };
        let k = self.runs.partition_point(|r| r.0 <= s.pc);
        let &(first, slot0, len) = self.runs.get(k.wrapping_sub(1)).ok_or(not_in.clone())?;
        let off = s.pc - first;
        if !off.is_multiple_of(4) || (off / 4) as usize >= len {
            return Err(not_in);
        }
        let slot = slot0 + (off / 4) as usize;
        let d = self.decoded[slot].as_ref().ok_or(TraceError::Unsupported {
            pc: s.pc,
            word: s.word,
        })?;
        Ok((slot, d))
    }
}

/// Memory as the memory argument sees it: each touched word's value and last timestamp.
struct MemReplay<'a> {
    image: &'a [(u32, u64)],
    floor: u32,
    words: hashbrown::HashMap<u32, (u64, u64)>,
}

impl MemReplay<'_> {
    fn image_value(&self, w: u32) -> Option<u64> {
        self.image
            .binary_search_by_key(&w, |&(k, _)| k)
            .ok()
            .map(|i| self.image[i].1)
    }

    /// Word `w`'s value and last timestamp (its initial token if untouched).
    fn read(&self, pc: u32, w: u32) -> Result<(u64, u64), TraceError> {
        if let Some(&v) = self.words.get(&w) {
            return Ok(v);
        }
        match self.image_value(w) {
            Some(v) => Ok((v, 0)),
            None if w >= self.floor && w < 1 << 29 => Ok((0, 0)),
            None => Err(TraceError::Unmapped {
                pc,
                addr: 8 * w as u64,
            }),
        }
    }

    /// Records the access that found `(old, old_ts)` (from [`MemReplay::read`]) and left
    /// `new` at `ts`.
    fn write(&mut self, w: u32, (old, old_ts): (u64, u64), new: u64, ts: u64) -> WordAccess {
        self.words.insert(w, (new, ts));
        WordAccess {
            w,
            old,
            new,
            old_ts,
            ts,
        }
    }
}

/// Records of one run, gathered step by step.
struct Run<'a> {
    mem: MemReplay<'a>,
    file: memw_r::RegFile,
    memw: MemwRRecords,
    loads: Vec<LoadOp>,
    stores: Vec<StoreOp>,
    mem_a: Vec<WordAccess>,
    mem_s: Vec<(WordAccess, WordAccess)>,
    ecalls: Vec<EcallOp>,
    io: Vec<IoWord>,
    input: &'a [u8],
    input_pos: usize,
    output: Vec<u8>,
    alu_ops: Vec<AluOp>,
    bytes: ByteCounts,
}

impl Run<'_> {
    fn reg(&mut self, reg: u8, value: u64, ts: u64, is_write: bool) -> RegRow {
        let access = RegAccess {
            reg,
            value,
            ts,
            is_write,
        };
        let (old, old_ts) = self.file.access(&access);
        let r = RegRow {
            access,
            old,
            old_ts,
        };
        memw_r::row_lookups(&r, &mut self.bytes);
        r
    }

    /// One of the CPU's three register accesses (packed).
    fn cpu_reg(&mut self, reg: u8, value: u64, ts: u64, is_write: bool) {
        let r = self.reg(reg, value, ts, is_write);
        self.memw.meta.push(reg as u64 | r.old_ts << 8);
        self.memw.old.push(r.old);
        if is_write {
            self.memw.new.push(value);
        }
    }

    fn extra_reg(&mut self, reg: u32, value: u64, ts: u64, is_write: bool) -> u64 {
        let r = self.reg(reg as u8, value, ts, is_write);
        self.memw.extra.push(r);
        r.old
    }

    fn load_store(&mut self, pc: u32, d: &Decoded, s: &Step, clk: u64) -> Result<(), TraceError> {
        let addr = s.mem_addr;
        let unmapped = TraceError::Unmapped { pc, addr };
        let addr32 = u32::try_from(addr).map_err(|_| unmapped.clone())?;
        let ts = clk + 1;
        let w = addr32 / 8;
        let load = d.class[class::LOAD];
        let funct3 = (d.alu_op - if load { MEMOP_LOAD } else { MEMOP_STORE }) as u8;
        let split = load::is_split(funct3, addr32);
        if split && w + 1 >= 1 << 29 {
            return Err(unmapped);
        }
        let old0 = self.mem.read(pc, w)?;
        let old1 = if split {
            self.mem.read(pc, w + 1)?
        } else {
            (0, 0)
        };
        // The bytes the access reads or overwrites must be those the executor recorded.
        let width_funct3 = match funct3 % 4 {
            3 => 3,
            f => 4 + f,
        };
        let raw = load::load_value(&LoadOp {
            ts,
            funct3: width_funct3,
            addr: addr32,
            word0: old0.0,
            word1: old1.0,
        });
        if raw != s.mem_val {
            return Err(TraceError::MemoryMismatch { pc, addr });
        }
        let (new0, new1) = if load {
            self.loads.push(LoadOp {
                ts,
                funct3,
                addr: addr32,
                word0: old0.0,
                word1: old1.0,
            });
            (old0.0, old1.0)
        } else {
            let op = StoreOp {
                ts,
                funct3,
                addr: addr32,
                value: s.rs2_val,
                old0: old0.0,
                old1: old1.0,
            };
            self.stores.push(op);
            store::store_words(&op)
        };
        let a0 = self.mem.write(w, old0, new0, ts);
        let a1 = split.then(|| self.mem.write(w + 1, old1, new1, ts));
        self.route(a0, a1);
        Ok(())
    }

    fn route(&mut self, a0: WordAccess, a1: Option<WordAccess>) {
        match a1 {
            Some(a1) => self.mem_s.push((a0, a1)),
            None => self.mem_a.push(a0),
        }
    }

    /// The IO rows of one chain over bytes `from .. from + cnt` at memory time `ts`, one per
    /// word: input bytes come from the private input, output bytes go to the public output,
    /// zeroed bytes become 0.
    fn io_chain(
        &mut self,
        pc: u32,
        kind: u32,
        from: u32,
        cnt: u32,
        ts: u64,
        mut pos: u64,
    ) -> Result<(), TraceError> {
        for (w, lo, c) in io::words_of(from, cnt) {
            let covered = lo as usize..(lo + c) as usize;
            let old = self.mem.read(pc, w)?;
            let mut bytes = old.0.to_le_bytes();
            match kind {
                IO_IN => {
                    let rest = self.input.get(self.input_pos..).unwrap_or(&[]);
                    let take = rest
                        .get(..c as usize)
                        .ok_or(TraceError::InputExhausted { pc })?;
                    bytes[covered].copy_from_slice(take);
                    self.input_pos += c as usize;
                }
                IO_OUT => self.output.extend_from_slice(&bytes[covered]),
                _ => bytes[covered].fill(0),
            }
            let a = self.mem.write(w, old, u64::from_le_bytes(bytes), ts);
            self.io.push(IoWord {
                kind,
                ts,
                pos,
                w,
                lo,
                cnt: c,
                old: a.old,
                new: a.new,
            });
            self.mem_a.push(a);
            pos += c as u64;
        }
        Ok(())
    }

    /// A system call's register accesses, transfer and ECALL record.
    fn ecall(&mut self, pc: u32, s: &Step, clk: u64, outpos: u64) -> Result<EcallOp, TraceError> {
        let (a7, a0) = (s.rs1_val, s.rs2_val);
        let io = matches!((a7, a0), (64, 1) | (64, 2) | (63, 0));
        let brk = a7 == SYS_BRK as u64;
        if !io && !brk && a7 != SYS_EXIT as u64 {
            return Err(TraceError::UnsupportedCall {
                pc,
                number: a7,
                arg: a0,
            });
        }
        let ts = 4 * clk + 1;
        let mut op = EcallOp {
            clk,
            a7,
            a0,
            a1: s.mem_addr,
            a2: s.mem_val,
            res: s.rd_val,
            outpos,
            brk: [0; 3],
        };
        if io {
            self.extra_reg(11, 0, ts, false);
            self.extra_reg(12, 0, ts, false);
        }
        if brk {
            op.brk =
                [REG_BRK, REG_HEAP_LIMIT, REG_HEAP_START].map(|r| self.extra_reg(r, 0, ts, false));
            self.extra_reg(REG_BRK, s.rd_val, ts + 1, true);
        }
        if let Some((kind, buf, cnt)) = ecall::transfer(&op) {
            self.io_chain(pc, kind, buf, cnt, clk + 1, outpos)?;
        }
        if let Some((from, cnt)) = ecall::zero_range(&op) {
            // A break shrink: the released bytes become zero.
            self.io_chain(pc, IO_ZERO, from, cnt, clk + 1, 0)?;
        }
        self.alu_ops.extend(ecall::alu_lookups(&op));
        self.ecalls.push(op);
        Ok(op)
    }
}

/// One pass over the steps: the CPU and MEMW_R tables as packed records (no rows built),
/// every other table's trace, and the public values. Memory is replayed from the program
/// image; the recorded loads must agree with it, and `input` feeds the reads.
///
/// # Errors
/// [`TraceError`] when the execution cannot be proven.
pub fn pack_traces<S: Copy + Into<Step>>(
    machine: &Rv64Machine,
    program: &ProgramImage,
    steps: &[S],
    input: &[u8],
) -> Result<PackedTraces, TraceError> {
    let last: Step = (*steps.last().ok_or(TraceError::Empty)?).into();
    if steps.len() > 1 << 26 {
        return Err(TraceError::TooLong { steps: steps.len() });
    }
    let slots = CodeSlots::new(program);
    let decode_h = program.code.len().next_power_of_two().max(8);
    let mut decode_mult = vec![0u64; decode_h];
    let n = steps.len();
    let mut rec = CpuRecords {
        height: n.next_power_of_two().max(8),
        dec_row: Vec::with_capacity(n),
        rs1: Vec::with_capacity(n),
        rs2: Vec::with_capacity(n),
        res: Vec::with_capacity(n),
        calls: Vec::new(),
    };
    let mut run = Run {
        mem: MemReplay {
            image: &program.words,
            floor: program.heap_start / 8,
            words: hashbrown::HashMap::new(),
        },
        file: memw_r::RegFile::new(register::initial_registers(program)),
        memw: MemwRRecords {
            height: 0,
            meta: Vec::with_capacity(3 * n),
            old: Vec::with_capacity(3 * n),
            new: Vec::with_capacity(n),
            extra: Vec::new(),
        },
        // Reserved for the worst case: untouched capacity costs no memory, and the records
        // are never copied by a regrowth.
        loads: Vec::with_capacity(n),
        stores: Vec::with_capacity(n),
        mem_a: Vec::with_capacity(n),
        mem_s: Vec::new(),
        ecalls: Vec::new(),
        io: Vec::new(),
        input,
        input_pos: 0,
        output: Vec::new(),
        alu_ops: Vec::with_capacity(n),
        bytes: ByteCounts::default(),
    };
    let mut exit_code = None;
    let mut outpos = 0u64;
    for (clk, &step) in steps.iter().enumerate() {
        let step: Step = step.into();
        let s = &step;
        let (r, d) = slots.get(s)?;
        decode_mult[r] += 1;
        let b = cpu::operand_b(d, s.rs2_val);
        let (sum, _) = cpu::sum_and_carries(s.rs1_val, b, d);
        let res = cpu::result(s, d, b, sum);
        rec.dec_row.push(r as u32);
        rec.rs1.push(s.rs1_val);
        rec.rs2.push(s.rs2_val);
        rec.res.push(res);
        let ts = 4 * clk as u64;
        run.cpu_reg(d.rs1, s.rs1_val, ts + 1, false);
        run.cpu_reg(d.rs2, s.rs2_val, ts + 2, false);
        if d.class[class::LOAD] || d.class[class::STORE] {
            run.load_store(s.pc, d, s, clk as u64)?;
        }
        if d.class[class::ECALL] {
            let op = run.ecall(s.pc, s, clk as u64, outpos)?;
            let outn = ecall::outn(&op);
            let exit = ecall::is_exit(&op);
            rec.calls.push(CallMark {
                clk: clk as u64,
                outpos,
                outn,
                exit,
            });
            outpos += outn;
            if exit {
                exit_code = Some(s.rs2_val);
            }
        }
        let written = if d.wr { res } else { 0 };
        run.cpu_reg(d.rd, written, ts + 3, true);
        step_lookups(d, s.rs1_val, b, res, sum, &mut run.alu_ops, &mut run.bytes);
    }
    let exit = decode_for_air(last.pc, last.word).is_some_and(|d| d.class[class::ECALL]);
    let exit_code = match exit_code {
        Some(c) if exit && rec.calls.last().is_some_and(|c| c.exit) => c,
        _ => return Err(TraceError::NoExit),
    };
    if run.output.len() > MAX_OUTPUT {
        return Err(TraceError::OutputTooLong {
            bytes: run.output.len(),
        });
    }
    run.memw.height = run.memw.len().next_power_of_two().max(8);
    let Run {
        mem,
        file,
        memw,
        loads,
        stores,
        mem_a,
        mem_s,
        ecalls,
        io: io_rows,
        output,
        alu_ops,
        mut bytes,
        ..
    } = run;
    // ALU tables: each op to its table in one pass (op codes are small: a lookup table of
    // which table accepts each code), then LT and SHIFT as distinct-operation records and
    // the others built here.
    const OP_CODES: usize = 32;
    let owner: [Option<usize>; OP_CODES] =
        core::array::from_fn(|op| machine.alu.iter().position(|t| t.accepts(op as u32)));
    let mut per_table: Vec<Vec<AluOp>> = machine.alu.iter().map(|_| Vec::new()).collect();
    for o in &alu_ops {
        let t = owner
            .get(o.op as usize)
            .copied()
            .flatten()
            .ok_or(TraceError::NoAluTable { op: o.op })?;
        per_table[t].push(*o);
    }
    drop(alu_ops);
    let mut alu_traces = Vec::with_capacity(machine.alu.len());
    let (mut lt_rows, mut shift_rows) = (Vec::new(), Vec::new());
    for (i, (t, ops)) in machine.alu.iter().zip(&per_table).enumerate() {
        match FIRST_ALU_TABLE + i {
            LT_TABLE => {
                lt_rows = super::lt::distinct(ops);
                super::lt::lookups(&lt_rows, distinct_height(lt_rows.len()), &mut bytes);
                alu_traces.push(None);
            }
            SHIFT_TABLE => {
                shift_rows = super::shift::distinct(ops);
                super::shift::lookups(&shift_rows, distinct_height(shift_rows.len()), &mut bytes);
                alu_traces.push(None);
            }
            _ => alu_traces.push(Some(t.build(ops, &mut bytes))),
        }
    }
    // Final memory: image words (untouched ones keep their initial token) and touched
    // zero-initialised words, sorted.
    let finals: Vec<(u64, u64)> = program
        .words
        .iter()
        .map(|&(w, init)| mem.words.get(&w).copied().unwrap_or((init, 0)))
        .collect();
    let mut zero: Vec<(u32, u64, u64)> = mem
        .words
        .iter()
        .filter(|(w, _)| mem.image_value(**w).is_none())
        .map(|(&w, &(v, ts))| (w, v, ts))
        .collect();
    zero.sort_unstable_by_key(|z| z.0);
    let image = page::MemoryImage {
        words: program.words.clone(),
        heap_start: program.heap_start,
    };
    load::lookups(&loads, &mut bytes);
    store::lookups(&stores, &mut bytes);
    memw::lookups_a(&mem_a, &mut bytes);
    let mem_traces = [
        memw::build_trace_s(&mem_s, &mut bytes),
        page::build_trace(&image, &finals),
        page::build_trace0(mem.floor, &zero, &mut bytes),
        ecall::build_trace(&ecalls, &mut bytes),
        io::build_trace(&io_rows, &mut bytes),
    ];
    let decode = RowMajorMatrix::new(decode_mult.into_iter().map(Felt::new).collect(), 1);
    let mut traces = vec![
        None,
        Some(decode),
        None,
        Some(register::build_trace(&file)),
        None,
    ];
    traces.extend(alu_traces);
    traces.extend([None, None, None]);
    traces.extend(mem_traces.into_iter().map(Some));
    traces[4] = Some(bytes.trace());
    Ok(PackedTraces {
        cpu: rec,
        memw_r: memw,
        lt: lt_rows,
        shift: shift_rows,
        loads,
        stores,
        mem_a,
        traces,
        public: public_values(exit_code, &output),
    })
}
