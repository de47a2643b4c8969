//! The RV64IM statement: its tables in proof order, its public values (the exit code), and
//! the trace builder that turns an execution into every table's trace.

use alloc::vec;
use alloc::vec::Vec;

use super::bitwise::BitwiseAir;
use super::cpu::CpuAir;
use super::decode::{DecodeAir, ProgramImage};
use super::dvrm::DvrmAir;
use super::ecall::EcallAir;
use super::eq::EqAir;
use super::io::IoAir;
use super::load::LoadAir;
use super::lt::LtAir;
use super::memw::{MEMW, MEMW_A};
use super::memw_r::{MEMW_R, MEMW_R2};
use super::mul::MulAir;
use super::page::{self, PageAir};
use super::page0::Page0Air;
use super::register::RegisterAir;
use super::shift::ShiftAir;
use super::store::StoreAir;
use super::{BUS_EXIT, BUS_OUTPUT};
use crate::air::{Direction, Machine, PublicInteraction, SegmentLayout, TableAir};
use crate::field::Felt;

pub use super::table::TableId;

/// ALU table `t` as the machine routes it (`None` for the tables that are not
/// [`TableId::ALU`] tables): the operation codes it receives and, with the `trace`
/// feature, how the packing pass builds it.
#[derive(Copy, Clone)]
pub struct AluTable {
    /// The operation codes the table receives.
    pub ops: &'static [u32],
    /// How its distinct rows and their byte lookups are built.
    #[cfg(feature = "trace")]
    pub build: DistinctRows,
}

/// ALU table `t` (`None` for the tables that are not [`TableId::ALU`] tables): the one
/// list of the ALU tables' operation codes and builders.
pub fn alu_table(t: TableId) -> Option<AluTable> {
    use super::alu_ops::*;
    use super::{dvrm, mul, shift};
    // The builder exists only with `trace`; without it the arms name the codes alone.
    macro_rules! table {
        ($ops:expr, $build:expr) => {
            AluTable {
                ops: $ops,
                #[cfg(feature = "trace")]
                build: $build,
            }
        };
    }
    Some(match t {
        TableId::Lt => table!(
            &[ALU_SLT, ALU_SLTU],
            DistinctRows {
                distinct: super::lt::distinct,
                lookups: super::lt::lookups,
            }
        ),
        TableId::Eq => table!(
            &[ALU_EQ],
            DistinctRows {
                distinct: super::eq::distinct,
                lookups: super::eq::lookups,
            }
        ),
        TableId::Shift => table!(
            &shift::OPS,
            DistinctRows {
                distinct: shift::distinct,
                lookups: shift::lookups,
            }
        ),
        TableId::Mul => table!(
            &mul::OPS,
            DistinctRows {
                distinct: mul::distinct,
                lookups: mul::lookups,
            }
        ),
        TableId::Dvrm => table!(
            &dvrm::OPS,
            DistinctRows {
                distinct: dvrm::distinct,
                lookups: dvrm::lookups,
            }
        ),
        TableId::Cpu
        | TableId::Decode
        | TableId::MemwR
        | TableId::MemwR2
        | TableId::Register
        | TableId::Bitwise
        | TableId::Load
        | TableId::Store
        | TableId::MemwA
        | TableId::Memw
        | TableId::Page
        | TableId::Page0
        | TableId::Ecall
        | TableId::Io => return None,
    })
}

impl Rv64Machine {
    /// The machine proving `program`.
    pub fn new(program: &ProgramImage) -> Rv64Machine {
        Rv64Machine {
            decode: DecodeAir::new(program),
            register: RegisterAir::new(program),
            page: PageAir::new(&page::MemoryImage::of(program)),
            unrouted: None,
        }
    }

    /// The verifier's machine: shapes only; commitments come from the verifying key.
    pub fn verifier() -> Rv64Machine {
        Rv64Machine {
            decode: DecodeAir::shape_only(),
            register: RegisterAir::shape_only(),
            page: PageAir::shape_only(),
            unrouted: None,
        }
    }

    /// This machine with ALU table `t` receiving no operations: it keeps every table (the
    /// same AIRs and keys), but the trace builder routes none of `t`'s operations to it,
    /// so an execution using one cannot be proven ([`TraceError::NoAluTable`]). For tests.
    pub fn without_alu_ops(mut self, t: TableId) -> Rv64Machine {
        self.unrouted = Some(t);
        self
    }

    /// Whether the trace builder routes ALU operation `op` to table `t`.
    pub fn accepts(&self, t: TableId, op: u32) -> bool {
        self.unrouted != Some(t) && alu_table(t).is_some_and(|a| a.ops.contains(&op))
    }

    /// Table `t`'s AIR.
    pub fn air(&self, t: TableId) -> &dyn TableAir {
        match t {
            TableId::Cpu => &CpuAir,
            TableId::Decode => &self.decode,
            TableId::MemwR => &MEMW_R,
            TableId::MemwR2 => &MEMW_R2,
            TableId::Register => &self.register,
            TableId::Bitwise => &BitwiseAir,
            TableId::Lt => &LtAir,
            TableId::Eq => &EqAir,
            TableId::Shift => &ShiftAir,
            TableId::Mul => &MulAir,
            TableId::Dvrm => &DvrmAir,
            TableId::Load => &LoadAir,
            TableId::Store => &StoreAir,
            TableId::MemwA => &MEMW_A,
            TableId::Memw => &MEMW,
            TableId::Page => &self.page,
            TableId::Page0 => &Page0Air,
            TableId::Ecall => &EcallAir,
            TableId::Io => &IoAir,
        }
    }
}

/// Public values: the 8 bytes of `a0` at the exit call, then the public output bytes (fd 1),
/// one value per byte.
pub const NUM_PUBLIC: usize = 8;
/// The most public output bytes a statement may carry (bounds the verifier's work).
pub const MAX_OUTPUT: usize = 1 << 20;
/// The most cycles a run may take (over all its segments): register timestamps
/// `4·clk + 1 ..= 3` stay below 2^38.
pub const MAX_RUN_CYCLES: u64 = 1 << 36;

/// The machine: its tables are the [`TableId`]s, in proof order ([`TableId::ALL`]).
pub struct Rv64Machine {
    pub decode: DecodeAir,
    pub register: RegisterAir,
    pub page: PageAir,
    /// An ALU table the trace builder routes no operations to (see
    /// [`Rv64Machine::without_alu_ops`]).
    unrouted: Option<TableId>,
}

impl Machine for Rv64Machine {
    fn name(&self) -> &str {
        "kestrel-rv64im"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        TableId::ALL.iter().map(|&t| self.air(t)).collect()
    }
    fn num_public_values(&self) -> usize {
        NUM_PUBLIC
    }
    fn public_len_ok(&self, n: usize) -> bool {
        n >= NUM_PUBLIC && n - NUM_PUBLIC <= MAX_OUTPUT
    }
    fn segment_layout(&self) -> Option<SegmentLayout> {
        let index = |run: bool| {
            TableId::ALL
                .iter()
                .filter(|t| t.is_run_table() == run)
                .map(|t| t.index())
                .collect()
        };
        Some(SegmentLayout {
            segment: index(false),
            run: index(true),
            clock: TableId::Cpu.index(),
        })
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

/// Trace building: the records of an execution and the host fills of the tables a backend
/// may fill in its own memory (the `trace` feature; the verifier compiles without it).
#[cfg(feature = "trace")]
mod records {
    use super::*;
    use crate::matrix::RowMajorMatrix;
    use crate::rv::bitwise::ByteCounts;
    use crate::rv::cpu::CpuRecords;
    use crate::rv::memw_r::MemwRRecords;
    use crate::rv::AluOp;
    use crate::rv::{cpu, decode, ecall, io, load, memw, memw_r, store};
    use crate::rv::{Distinct, EcallOp, IoWord, LoadOp, StoreOp, WordAccess, WordStart};

    /// How the packing pass builds an ALU table ([`AluTable::build`]): as distinct rows
    /// merged per chunk and per range of keys (every ALU table: LT, EQ, SHIFT, MUL, DVRM),
    /// from its operations, and the byte lookups of its first rows (`(rows, height)`: real
    /// rows, then zero padding up to `height`). Its rows are records (the ALU tables are
    /// [`RECORD_TABLES`]): their fills are [`record_table`]'s.
    #[derive(Copy, Clone)]
    pub struct DistinctRows {
        pub distinct: fn(&[AluOp]) -> Vec<Distinct>,
        pub lookups: fn(&[Distinct], usize, &mut ByteCounts),
    }

    /// Table `t`'s distinct-row builder (`None` unless `t` keeps distinct rows).
    pub fn distinct_rows(t: TableId) -> Option<DistinctRows> {
        alu_table(t).map(|a| a.build)
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
        /// Too many steps for the largest table height (more than 2^(MAX_LOG_HEIGHT − 2): MEMW_R
        /// has up to four rows per step).
        TooLong { steps: usize },
        /// A run longer than [`MAX_RUN_CYCLES`] (`cycles`: where its segment would end).
        RunTooLong { cycles: u64 },
        /// A segment that is not the run's last contains the exit call (at cycle `clk`).
        ExitBeforeLast { clk: u64 },
        /// A segment packed after the run's last one.
        AfterLast,
        /// A system call the proof does not cover.
        UnsupportedCall { pc: u32, number: u64, arg: u64 },
        /// A memory access at an address the memory map does not cover (outside the program
        /// image, its bss, the heap up to its limit and the stack).
        Unmapped { pc: u32, addr: u64 },
        /// A write (store, input transfer, break shrink) to a read-only word.
        ReadOnly { pc: u32, addr: u64 },
        /// The recorded execution disagrees with memory as replayed from the image (e.g. a load
        /// of bytes that were never stored there).
        MemoryMismatch { pc: u32, addr: u64 },
        /// A read consumed more input than was given.
        InputExhausted { pc: u32 },
        /// More public output than a statement may carry.
        OutputTooLong { bytes: usize },
        /// A private input of 2^32 bytes or more (the unread count is a 32-bit register value).
        InputTooLong { bytes: usize },
        /// A checkpoint's totals added to a segmenter of another program
        /// ([`super::pack::Segmenter::absorb`]).
        ForeignFork,
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
                TraceError::TooLong { steps } => {
                    write!(f, "{steps} steps exceed the largest table")
                }
                TraceError::RunTooLong { cycles } => write!(
                    f,
                    "a run of {cycles} cycles exceeds the limit of {MAX_RUN_CYCLES}"
                ),
                TraceError::ExitBeforeLast { clk } => write!(
                    f,
                    "the exit call at cycle {clk} is in a segment that is not the last"
                ),
                TraceError::AfterLast => write!(f, "a segment after the run's last one"),
                TraceError::UnsupportedCall { pc, number, arg } => write!(
                    f,
                    "system call {number} (a0 = {arg}) at pc {pc:#x} cannot be proven"
                ),
                TraceError::Unmapped { pc, addr } => write!(
                    f,
                    "memory access at {addr:#x} (pc {pc:#x}) is outside the provable memory"
                ),
                TraceError::ReadOnly { pc, addr } => {
                    write!(f, "write to read-only memory at {addr:#x} (pc {pc:#x})")
                }
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
                TraceError::ForeignFork => {
                    write!(f, "a checkpoint of another program's run")
                }
                TraceError::InputTooLong { bytes } => {
                    write!(
                        f,
                        "{bytes} bytes of private input exceed the limit of 2^32 - 1"
                    )
                }
            }
        }
    }

    /// When a record table's records are final in the packing pass.
    #[derive(Copy, Clone, Debug, PartialEq, Eq)]
    pub enum RecordStage {
        /// Before its last stage (a backend may start filling them while it runs).
        Early,
        /// After it (LT, EQ, SHIFT, MUL and DVRM: the last stage merges their distinct
        /// rows).
        Late,
    }

    /// A record table as [`PackedTraces`] keeps it: when its records are final, how many
    /// real rows they make, and its host fill (the same fill the device kernels make).
    #[derive(Copy, Clone)]
    pub struct RecordTable {
        pub stage: RecordStage,
        pub rows: fn(&PackedTraces) -> usize,
        pub fill: fn(&PackedTraces, &ProgramImage) -> RowMajorMatrix,
    }

    /// Whether [`PackedTraces`] leaves table `t` as records (a backend may fill them in its
    /// own memory; [`build_traces`](super::super::pack::build_traces) fills them on the
    /// host), and how; `None` for the tables built in the packing pass. The one list of the
    /// record tables.
    pub const fn record_table(t: TableId) -> Option<RecordTable> {
        use RecordStage::{Early, Late};
        let (stage, rows, fill): (RecordStage, fn(&PackedTraces) -> usize, RecordFill) = match t {
            TableId::Cpu => (
                Early,
                |p| p.cpu.dec_row.len(),
                |p, program| cpu::fill_host(&p.cpu, &decode::fields_of(program)),
            ),
            TableId::MemwR => (
                Early,
                // Three accesses per step (also where the pass left them to a device), the
                // first `height` of them ([`memw_r::split`]).
                |p| memw_r_rows(p).min(p.memw_r.height),
                |p, _| memw_r::fill_host(&p.memw_r),
            ),
            TableId::MemwR2 => (
                Early,
                |p| memw_r_rows(p) - memw_r_rows(p).min(p.memw_r.height),
                |p, _| memw_r::fill_host2(&p.memw_r),
            ),
            TableId::Lt => (
                Late,
                |p| p.lt.len(),
                |p, _| crate::rv::lt::fill_distinct(&p.lt),
            ),
            TableId::Eq => (
                Late,
                |p| p.eq.len(),
                |p, _| crate::rv::eq::fill_distinct(&p.eq),
            ),
            TableId::Shift => (
                Late,
                |p| p.shift.len(),
                |p, _| crate::rv::shift::fill_distinct(&p.shift),
            ),
            TableId::Mul => (
                Late,
                |p| p.mul.len(),
                |p, _| crate::rv::mul::fill_distinct(&p.mul),
            ),
            TableId::Dvrm => (
                Late,
                |p| p.dvrm.len(),
                |p, _| crate::rv::dvrm::fill_distinct(&p.dvrm),
            ),
            TableId::Load => (
                Early,
                |p| p.records().n_loads(),
                |p, _| load::build_trace(&p.loads, &mut ByteCounts::default()),
            ),
            TableId::Store => (
                Early,
                |p| p.records().n_stores(),
                |p, _| store::build_trace(&p.stores, &mut ByteCounts::default()),
            ),
            TableId::MemwA => (
                Early,
                |p| p.records().n_mem_a(),
                |p, _| memw::build_trace_a(&p.mem_a, &mut ByteCounts::default()),
            ),
            TableId::Memw => (
                Early,
                |p| p.records().n_mem_s(),
                |p, _| memw::build_trace_s(&p.mem_s, &mut ByteCounts::default()),
            ),
            TableId::Ecall => (Early, |p| p.ecalls.len(), |p, _| ecall::fill(&p.ecalls)),
            TableId::Io => (Early, |p| p.io.len(), |p, _| io::fill(&p.io)),
            TableId::Decode
            | TableId::Register
            | TableId::Bitwise
            | TableId::Page
            | TableId::Page0 => return None,
        };
        Some(RecordTable { stage, rows, fill })
    }

    /// MEMW_R's and MEMW_R2's accesses together: three per step and the system calls'.
    fn memw_r_rows(p: &PackedTraces) -> usize {
        3 * p.cpu.dec_row.len() + p.memw_r.extra.len()
    }

    /// A record table's host fill ([`RecordTable::fill`]).
    type RecordFill = fn(&PackedTraces, &ProgramImage) -> RowMajorMatrix;

    /// When table `t`'s records are final ([`record_table`]).
    pub const fn record_stage(t: TableId) -> Option<RecordStage> {
        match record_table(t) {
            Some(r) => Some(r.stage),
            None => None,
        }
    }

    /// The `N` tables, in proof order, whose [`record_stage`] is `stage` (any stage if
    /// `None`); fails to compile unless there are exactly `N`.
    const fn record_tables<const N: usize>(stage: Option<RecordStage>) -> [TableId; N] {
        let mut out = [TableId::Cpu; N];
        let (mut i, mut n) = (0, 0);
        while i < TableId::COUNT {
            let t = TableId::ALL[i];
            let pick = match (record_stage(t), stage) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(s), Some(want)) => s as u8 == want as u8,
            };
            if pick {
                assert!(n < N, "more record tables than N");
                out[n] = t;
                n += 1;
            }
            i += 1;
        }
        assert!(n == N, "fewer record tables than N");
        out
    }

    /// The tables [`PackedTraces`] leaves as records, in proof order (those with a
    /// [`record_stage`]).
    pub const RECORD_TABLES: [TableId; 14] = record_tables(None);

    /// The packed records of the [`RECORD_TABLES`] and every other table's trace.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct PackedTraces {
        pub cpu: CpuRecords,
        pub memw_r: MemwRRecords,
        /// LT's distinct operations with multiplicities (its rows).
        pub lt: Vec<Distinct>,
        /// EQ's distinct operations with multiplicities (its rows).
        pub eq: Vec<Distinct>,
        /// SHIFT's distinct operations with multiplicities.
        pub shift: Vec<Distinct>,
        /// MUL's distinct operations with multiplicities (its rows; each row's result is
        /// computed from its `(op, a, b)`).
        pub mul: Vec<Distinct>,
        /// DVRM's distinct operations with multiplicities (its rows; each row's quotient,
        /// remainder and result are computed from its `(op, a, b)`).
        pub dvrm: Vec<Distinct>,
        pub loads: Vec<LoadOp>,
        pub stores: Vec<StoreOp>,
        pub mem_a: Vec<WordAccess>,
        /// The words the segment's memory accesses touch, as they were before its first
        /// access to each (by increasing word index): where the memory walk on a device
        /// starts.
        pub mem_start: Vec<WordStart>,
        /// MEMW's records: the split accesses' word pairs, in execution order.
        pub mem_s: Vec<(WordAccess, WordAccess)>,
        /// ECALL's records: every system call, in execution order.
        pub ecalls: Vec<EcallOp>,
        /// IO's records: one per word of every transfer or zeroing chain.
        pub io: Vec<IoWord>,
        /// `Some` when the pass left the memory accesses to a device's memory walk (and the
        /// CPU's operands and MEMW_R's accesses to its register walk): [`MemCounts`].
        /// Such records fill no host trace ([`PackedTraces::fill_host`] is `None`).
        pub mem_counts: Option<MemCounts>,
        /// Every other table's trace, in [`Machine::tables`] order (index: [`TableId::index`]);
        /// `None` at the [`RECORD_TABLES`].
        pub traces: Vec<Option<RowMajorMatrix>>,
        /// The real rows (records before padding) of the tables built in the packing pass
        /// where one row stands for one record: DECODE (the code words), REGISTER (the
        /// registers), PAGE (its image words or zero ranges, whichever are
        /// more), PAGE0 (the touched zero words); also LT, EQ, SHIFT, MUL and DVRM (their
        /// distinct operations, as [`PackedTraces::real_rows`] reads them from their records);
        /// `None` elsewhere. Index: [`TableId::index`].
        pub table_rows: Vec<Option<usize>>,
        pub public: Vec<Felt>,
        /// With [`Lookups::Device`](super::super::pack::Lookups::Device), a whole run's run
        /// tables' byte lookups ([`RunTraces::run_lookups`]); `None` otherwise.
        pub run_lookups: Option<Vec<u64>>,
        /// With [`Lookups::Device`](super::super::pack::Lookups::Device), a whole run's run
        /// tables' records ([`RunTraces::records`]); `None` otherwise.
        pub run: Option<RunRecords>,
    }

    /// What a segmented run proves once, after its last segment
    /// ([`Segmenter::finish`](super::super::pack::Segmenter::finish)): the traces of the
    /// [`RUN_TABLES`](TableId::RUN_TABLES), their real rows and the public values.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct RunTraces {
        /// The run tables' traces, in [`Machine::tables`] order (index: [`TableId::index`]);
        /// `None` at the segment tables.
        pub traces: Vec<Option<RowMajorMatrix>>,
        /// The run tables' real rows as [`PackedTraces::table_rows`] has them (`None` at
        /// BITWISE and at the segment tables).
        pub table_rows: Vec<Option<usize>>,
        pub public: Vec<Felt>,
        /// With [`Lookups::Device`](super::super::pack::Lookups::Device): the run tables'
        /// own byte lookups ([`ByteTotals::into_counts`](super::super::bitwise::ByteTotals::into_counts)
        /// order), which the device adds to the segment tables' to make BITWISE (whose
        /// trace is then `None`).
        pub run_lookups: Option<Vec<u64>>,
        /// With [`Lookups::Device`](super::super::pack::Lookups::Device): the run tables'
        /// records, whose fills a device makes (DECODE's, REGISTER's, PAGE's and PAGE0's
        /// traces are then `None`, and `run_lookups` holds REGISTER's lookups alone:
        /// [`register::input_lookups`](crate::rv::register::input_lookups)).
        pub records: Option<RunRecords>,
    }

    /// What the run tables' fills read after the last segment
    /// ([`RunTraces::records`]): DECODE's multiplicities, REGISTER's final register file
    /// and input length, PAGE's final image words and zero-range counts, PAGE0's touched
    /// zero-initialised words. [`RunRecords::fill_host`] is the host fill a device's is
    /// checked against.
    #[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct RunRecords {
        /// Executions per code slot; `None` with
        /// [`Lookups::Device`](super::super::pack::Lookups::Device), where the device
        /// counts them from the CPU's DECODE rows (a whole run's only segment).
        pub mult: Option<Vec<u64>>,
        /// The final register file.
        pub file: memw_r::RegFile,
        /// The input's length ([`REG_INPUT`](crate::rv::REG_INPUT)'s initial value).
        pub input_len: u32,
        /// Per image word ([`MemoryImage::words`](page::MemoryImage::words) order), its final
        /// value and timestamp (its initial value at 0 if never written or read).
        pub page: Vec<(u64, u64)>,
        /// Per zero range, the touched words in it (PAGE's `zmult`).
        pub zmult: Vec<u64>,
        /// The touched zero-initialised words by increasing index (PAGE0's rows).
        pub zero: Vec<crate::rv::page0::ZeroWord>,
    }

    impl RunRecords {
        /// Run table `t`'s host trace from these records, its byte lookups added to
        /// `bytes`: DECODE (with multiplicities), REGISTER, PAGE and PAGE0; `None` for the
        /// other tables and for DECODE without multiplicities. `image`: the memory map of
        /// `program` ([`MemoryImage::of`](page::MemoryImage::of)).
        pub fn fill_host(
            &self,
            t: TableId,
            program: &ProgramImage,
            image: &page::MemoryImage,
            bytes: &mut ByteCounts,
        ) -> Option<RowMajorMatrix> {
            use crate::rv::{page0, register};
            Some(match t {
                TableId::Decode => decode::build_trace(program, [self.mult.as_deref()?]),
                TableId::Register => register::build_trace(&self.file, self.input_len, bytes),
                TableId::Page => page::build_trace(image, &self.page, &self.zmult),
                TableId::Page0 => page0::build_trace(&self.zero, bytes),
                _ => return None,
            })
        }
    }

    impl RunTraces {
        /// The run tables' traces in [`TableId::RUN_TABLES`] order, and the public values.
        ///
        /// # Errors
        /// [`TraceError::Empty`] if a run table has no trace (never after
        /// [`Segmenter::finish`](super::super::pack::Segmenter::finish)).
        pub fn into_host_traces(mut self) -> Result<(Vec<RowMajorMatrix>, Vec<Felt>), TraceError> {
            let traces = TableId::RUN_TABLES
                .into_iter()
                .map(|t| self.traces[t.index()].take())
                .collect::<Option<Vec<_>>>()
                .ok_or(TraceError::Empty)?;
            Ok((traces, self.public))
        }
    }

    /// The records of the [`RECORD_TABLES`], borrowed: what their fills read. Those the
    /// packing pass hands out before its last stage ([`EARLY_TABLES`]) have LT, EQ, SHIFT,
    /// MUL and DVRM empty.
    #[derive(Clone, Copy, Debug)]
    pub struct RecordRefs<'a> {
        pub cpu: &'a CpuRecords,
        pub memw_r: &'a MemwRRecords,
        pub lt: &'a [Distinct],
        pub eq: &'a [Distinct],
        pub shift: &'a [Distinct],
        pub mul: &'a [Distinct],
        pub dvrm: &'a [Distinct],
        pub loads: &'a [LoadOp],
        pub stores: &'a [StoreOp],
        pub mem_a: &'a [WordAccess],
        pub mem_start: &'a [WordStart],
        pub mem_s: &'a [(WordAccess, WordAccess)],
        pub ecalls: &'a [EcallOp],
        pub io: &'a [IoWord],
        /// `Some` when the memory accesses are left to a device's memory walk
        /// ([`PackedTraces::mem_counts`]).
        pub mem_counts: Option<MemCounts>,
    }

    /// How many loads, stores and memory accesses a segment made, when the packing pass
    /// leaves their records to a device's memory walk
    /// ([`Lookups::Device`](super::super::pack::Lookups::Device)): `loads`, `stores` and
    /// `mem_s` are then empty, and `mem_a` holds only the system calls' transfer and zeroing
    /// accesses (IO's words), in execution order.
    #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct MemCounts {
        pub loads: usize,
        pub stores: usize,
        /// MEMW_A's rows: the unsplit loads' and stores' accesses and the transfers'.
        pub mem_a: usize,
        /// MEMW's rows: the split accesses.
        pub mem_s: usize,
    }

    impl RecordRefs<'_> {
        /// LOAD's rows.
        pub fn n_loads(&self) -> usize {
            self.mem_counts.map_or(self.loads.len(), |c| c.loads)
        }
        /// STORE's rows.
        pub fn n_stores(&self) -> usize {
            self.mem_counts.map_or(self.stores.len(), |c| c.stores)
        }
        /// MEMW_A's rows.
        pub fn n_mem_a(&self) -> usize {
            self.mem_counts.map_or(self.mem_a.len(), |c| c.mem_a)
        }
        /// MEMW's rows.
        pub fn n_mem_s(&self) -> usize {
            self.mem_counts.map_or(self.mem_s.len(), |c| c.mem_s)
        }
    }

    /// The [`RECORD_TABLES`] whose records are final before the packing pass's last stage
    /// ([`RecordStage::Early`]: all but LT, EQ, SHIFT, MUL and DVRM, whose distinct rows
    /// that stage merges).
    pub const EARLY_TABLES: [TableId; 9] = record_tables(Some(RecordStage::Early));

    /// The [`RECORD_TABLES`] whose records are final only after the packing pass
    /// ([`RecordStage::Late`]: LT, EQ, SHIFT, MUL and DVRM).
    pub const LATE_TABLES: [TableId; 5] = record_tables(Some(RecordStage::Late));

    impl PackedTraces {
        /// The records, borrowed.
        pub fn records(&self) -> RecordRefs<'_> {
            RecordRefs {
                cpu: &self.cpu,
                memw_r: &self.memw_r,
                lt: &self.lt,
                eq: &self.eq,
                shift: &self.shift,
                mul: &self.mul,
                dvrm: &self.dvrm,
                loads: &self.loads,
                stores: &self.stores,
                mem_a: &self.mem_a,
                mem_start: &self.mem_start,
                mem_s: &self.mem_s,
                ecalls: &self.ecalls,
                io: &self.io,
                mem_counts: self.mem_counts,
            }
        }

        /// Each table's real rows (its records, before padding to the trace height) where the
        /// packing pass knows them without reading a trace, in
        /// [`Machine::tables`](crate::air::Machine::tables) order: the [`RECORD_TABLES`] (CPU:
        /// the steps; MEMW_R: three accesses per step and the system calls' extra rows; LT, EQ,
        /// SHIFT, MUL and DVRM: their distinct operations; LOAD, STORE, MEMW_A: one row per
        /// operation; ECALL: one per system call; IO: one per transferred word) and
        /// [`PackedTraces::table_rows`]. `None` for BITWISE (a fixed table of every byte pair,
        /// no padding).
        pub fn real_rows(&self) -> Vec<Option<usize>> {
            TableId::ALL
                .iter()
                .map(|&t| match record_table(t) {
                    Some(r) => Some((r.rows)(self)),
                    None => self.table_rows.get(t.index()).copied().flatten(),
                })
                .collect()
        }

        /// A whole run's packed traces: these of its only segment, with the run tables'
        /// traces, their real rows and the public values of `run` merged in.
        pub fn with_run(mut self, run: RunTraces) -> PackedTraces {
            for (t, (m, rows)) in TableId::ALL
                .into_iter()
                .zip(run.traces.into_iter().zip(run.table_rows))
            {
                if t.is_run_table() {
                    self.traces[t.index()] = m;
                    self.table_rows[t.index()] = rows;
                }
            }
            self.public = run.public;
            self.run_lookups = run.run_lookups;
            self.run = run.records;
            self
        }

        /// A segment's traces: the [`SEGMENT_TABLES`](TableId::SEGMENT_TABLES)' in their
        /// order, the [`RECORD_TABLES`] filled on the host.
        ///
        /// # Errors
        /// [`TraceError::Empty`] if a segment table has neither a trace nor records (never
        /// after [`Segmenter::pack_segment`](super::super::pack::Segmenter::pack_segment)).
        pub fn into_host_segment_traces(
            mut self,
            program: &ProgramImage,
        ) -> Result<Vec<RowMajorMatrix>, TraceError> {
            TableId::SEGMENT_TABLES
                .into_iter()
                .map(|t| {
                    self.traces[t.index()]
                        .take()
                        .or_else(|| self.fill_host(program, t))
                })
                .collect::<Option<Vec<_>>>()
                .ok_or(TraceError::Empty)
        }

        /// Every table's trace, the [`RECORD_TABLES`] filled on the host, and the public
        /// values: those of a whole run (a segment's lack the run tables: see
        /// [`PackedTraces::into_host_segment_traces`]).
        ///
        /// # Errors
        /// [`TraceError::Empty`] if a table has neither a trace nor records (never after
        /// [`pack_traces`](super::pack::pack_traces)).
        pub fn into_host_traces(
            mut self,
            program: &ProgramImage,
        ) -> Result<(Vec<RowMajorMatrix>, Vec<Felt>), TraceError> {
            let traces = core::mem::take(&mut self.traces)
                .into_iter()
                .zip(TableId::ALL)
                .map(|(m, t)| m.or_else(|| self.fill_host(program, t)))
                .collect::<Option<Vec<_>>>()
                .ok_or(TraceError::Empty)?;
            Ok((traces, self.public))
        }

        /// Table `t`'s trace filled on the host from its records (`None` unless `t` is one of
        /// the [`RECORD_TABLES`], and for records a device completes: see
        /// [`PackedTraces::mem_counts`]); the same fills the device kernels make.
        pub fn fill_host(&self, program: &ProgramImage, t: TableId) -> Option<RowMajorMatrix> {
            if self.mem_counts.is_some() {
                return None;
            }
            record_table(t).map(|r| (r.fill)(self, program))
        }
    }
}
#[cfg(feature = "trace")]
pub use records::*;

#[cfg(test)]
mod tests {
    use super::{Rv64Machine, TableId};
    use crate::air::Machine;
    use alloc::vec::Vec;

    #[test]
    fn the_machine_lists_the_tables_in_proof_order() {
        let machine = Rv64Machine::verifier();
        let names: Vec<&str> = machine.tables().iter().map(|t| t.name()).collect();
        assert_eq!(names, TableId::ALL.map(TableId::name));
        for t in TableId::ALL {
            assert_eq!(machine.air(t).name(), t.name());
        }
    }
}
