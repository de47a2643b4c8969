//! Device-resident trace fills of the record tables, one launcher per table mirroring
//! `core/src/rv/<table>/` and its kernel `kernels/rv/<table>.cu`: each builds the table's
//! main trace in device memory from its records, one thread per row (padding rows too),
//! column-major as every committed source is. The trace itself never crosses the bus, and
//! most records are made on the device: CPU's and MEMW_R's by the register walk
//! ([`memw_r::RegWalk`]) from each step's DECODE row and result (counted under
//! [`memw_r::STEP_RECORDS`]), LOAD's, STORE's, MEMW_A's and MEMW's by the memory walk
//! ([`memw::MemWalk`]), and LT's, EQ's, SHIFT's, MUL's and DVRM's distinct rows from the
//! register walk's operands (`alu_ops`). ECALL's and IO's records are uploaded, counted
//! under "packed op records" ([`PACKED`](super::stats::PACKED)). A whole run's run tables
//! are filled here too: DECODE's multiplicities counted from the register walk's DECODE
//! rows, REGISTER, PAGE and PAGE0 from the packing pass's run records (counted under
//! [`RUN_RECORDS`]). Each kernel matches its room's host fill bit for bit
//! (`tests/tests/cuda_fill.rs`, `cuda_fill_alu.rs`, `cuda_fill_mem.rs`, `cuda_fill_dvrm.rs`,
//! `cuda_fill_sys.rs`, `cuda_fill_run.rs`); BITWISE is counted from their traces
//! ([`super::bytes`]). This module dispatches on [`TableId`]; `alu_ops` and `records` hold what the
//! tables share.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv;
use kestrel_core::rv::decode::{fields_of, ProgramImage};
use kestrel_core::rv::machine::{RecordRefs, RunRecords, TableId};

use super::backend::CudaBackend;
use super::committed::CudaTrace;
use super::device::CudaDevice;
use super::error::CudaError;
use crate::backend::TablePlan;
use crate::prover::ProverError;
use crate::rv::{LookupTally, RvFills};

use super::bytes::ByteTally;

/// Byte lookups counted right after the early fills ([`RvFills::count_lookups_early`]), with
/// the stream their kernels were enqueued on (BITWISE is finished on it).
struct EarlyTally {
    /// `None` once taken.
    tally: Option<ByteTally>,
    stream: Arc<CudaStream>,
}

impl Drop for EarlyTally {
    /// A tally dropped unfinished (a later step failed) waits for its kernels first: they
    /// read traces that are freed on other streams.
    fn drop(&mut self) {
        if self.tally.is_some() {
            let _ = self.stream.synchronize();
        }
    }
}

mod alu_ops;
pub mod cpu;
pub mod decode;
pub mod dvrm;
pub mod ecall;
pub mod eq;
pub mod io;
pub mod load;
pub mod lt;
pub mod memw;
pub mod memw_r;
pub mod mul;
pub mod page;
pub mod page0;
mod records;
pub mod register;
pub use records::RUN_RECORDS;
pub mod shift;
pub mod store;

fn limit(op: &'static str, detail: String) -> CudaError {
    CudaError::Limit { op, detail }
}

fn check_height(op: &'static str, height: usize, rows: usize) -> Result<u32, CudaError> {
    if !height.is_power_of_two() || height < rows || height < 8 {
        return Err(limit(
            op,
            format!("{rows} records for a trace of height {height}"),
        ));
    }
    Ok(height.trailing_zeros())
}

/// A record table's device fill: its trace's `(width, height)` from the records (the ALU
/// tables': from the rows the device made), and the launcher that enqueues its kernel on a
/// stream.
struct DeviceFill {
    dims: fn(&RecordRefs<'_>, &ProgramImage) -> (usize, usize),
    enqueue: Launch,
}

/// How a fill gets its records: uploaded for it, from the register walk, from the memory
/// walk, or made from the register walk's operands.
enum Launch {
    Records(Enqueue),
    /// After the register walk ([`memw_r::RegWalk`]), on its stream.
    Walked(WalkedEnqueue),
    /// After the memory walk ([`memw::MemWalk`]), on the register walk's stream.
    MemWalked(memw::Walked),
    /// After the ALU rows ([`alu_ops::AluRows`]), on the register walk's stream.
    AluRows(alu_ops::AluTable),
}

type WalkedEnqueue = fn(
    &CudaDevice,
    &Arc<CudaStream>,
    &RecordRefs<'_>,
    &memw_r::RegWalk,
) -> Result<CudaTrace, CudaError>;

type Enqueue = fn(&CudaDevice, &Arc<CudaStream>, &RecordRefs<'_>) -> Result<CudaTrace, CudaError>;

/// The ALU tables' fills, in `AluTable::ALL` order (each held by its room's launcher).
const ALU_FILLS: alu_ops::Fills = [&lt::LT, &eq::EQ, &shift::SHIFT, &mul::MUL, &dvrm::DVRM];

/// A trace of `n` records pads to a power of two, at least `MIN_ROWS` (16) rows.
fn padded_rows(n: usize) -> usize {
    n.next_power_of_two().max(kestrel_core::params::MIN_ROWS)
}

/// The device fill of table `t`: the one list of the tables filled on the device (`None`
/// for the tables the packing pass builds on the host).
fn device_fill(t: TableId) -> Option<DeviceFill> {
    Some(match t {
        TableId::Cpu => DeviceFill {
            dims: |p, _| (rv::cpu::WIDTH, p.cpu.height),
            enqueue: Launch::Walked(|d, s, r, w| cpu::enqueue_cpu_walked(d, s, r.cpu, w)),
        },
        TableId::MemwR => DeviceFill {
            dims: |p, _| (rv::memw_r::WIDTH, p.memw_r.height),
            enqueue: Launch::Walked(|d, s, r, w| {
                memw_r::enqueue_memw_r_walked(d, s, r.memw_r, w, false)
            }),
        },
        TableId::MemwR2 => DeviceFill {
            dims: |p, _| (rv::memw_r::WIDTH, p.memw_r.height2),
            enqueue: Launch::Walked(|d, s, r, w| {
                memw_r::enqueue_memw_r_walked(d, s, r.memw_r, w, true)
            }),
        },
        TableId::Lt => DeviceFill {
            dims: |p, _| (rv::lt::WIDTH, padded_rows(p.lt.len())),
            enqueue: Launch::AluRows(alu_ops::AluTable::Lt),
        },
        TableId::Eq => DeviceFill {
            dims: |p, _| (rv::eq::WIDTH, padded_rows(p.eq.len())),
            enqueue: Launch::AluRows(alu_ops::AluTable::Eq),
        },
        TableId::Shift => DeviceFill {
            dims: |p, _| (rv::shift::WIDTH, padded_rows(p.shift.len())),
            enqueue: Launch::AluRows(alu_ops::AluTable::Shift),
        },
        TableId::Mul => DeviceFill {
            dims: |p, _| (rv::mul::WIDTH, padded_rows(p.mul.len())),
            enqueue: Launch::AluRows(alu_ops::AluTable::Mul),
        },
        TableId::Dvrm => DeviceFill {
            dims: |p, _| (rv::dvrm::WIDTH, padded_rows(p.dvrm.len())),
            enqueue: Launch::AluRows(alu_ops::AluTable::Dvrm),
        },
        TableId::Load => DeviceFill {
            dims: |p, _| (rv::load::WIDTH, padded_rows(p.n_loads())),
            enqueue: Launch::MemWalked(memw::Walked::Load),
        },
        TableId::Store => DeviceFill {
            dims: |p, _| (rv::store::WIDTH, padded_rows(p.n_stores())),
            enqueue: Launch::MemWalked(memw::Walked::Store),
        },
        TableId::MemwA => DeviceFill {
            dims: |p, _| (rv::memw::MEMW_A.num_columns(), padded_rows(p.n_mem_a())),
            enqueue: Launch::MemWalked(memw::Walked::MemwA),
        },
        TableId::Ecall => DeviceFill {
            dims: |p, _| (rv::ecall::WIDTH, padded_rows(p.ecalls.len())),
            enqueue: Launch::Records(|d, s, r| ecall::enqueue_ecall(d, s, r.ecalls)),
        },
        TableId::Io => DeviceFill {
            dims: |p, _| (rv::io::WIDTH, padded_rows(p.io.len())),
            enqueue: Launch::Records(|d, s, r| io::enqueue_io(d, s, r.io)),
        },
        TableId::Memw => DeviceFill {
            dims: |p, _| (rv::memw::MEMW.num_columns(), padded_rows(p.n_mem_s())),
            enqueue: Launch::MemWalked(memw::Walked::Memw),
        },
        // A whole run's DECODE: its multiplicities counted from the register walk's DECODE
        // rows (REGISTER, PAGE and PAGE0 are filled from the run records: `fill_run`).
        TableId::Decode => DeviceFill {
            dims: |_, image| (1, padded_rows(image.code.len())),
            enqueue: Launch::Walked(|d, s, _, w| decode::enqueue_decode(d, s, w)),
        },
        TableId::Register | TableId::Bitwise | TableId::Page | TableId::Page0 => return None,
    })
}

impl RvFills for CudaBackend {
    fn has_device_fills(&self) -> bool {
        true
    }

    /// Every fill: the ALU tables' distinct rows are made here, from the register walk.
    fn fills_early(&self, t: TableId) -> bool {
        device_fill(t).is_some()
    }

    /// REGISTER, PAGE and PAGE0 from the run records, each table's plan checked first (as
    /// [`RvFills::fill_records`] checks the record tables').
    fn fill_run(
        &self,
        image: &ProgramImage,
        run: &RunRecords,
    ) -> Result<Vec<(TableId, CudaTrace)>, ProverError> {
        let at = std::time::Instant::now();
        let mem = rv::page::MemoryImage::of(image);
        self.check_plan(
            &[
                plan_of(rv::register::WIDTH, 1 << rv::register::LOG_HEIGHT),
                plan_of(rv::page::WIDTH, rv::page::page_height(&mem)),
                plan_of(rv::page0::P0_WIDTH, padded_rows(run.zero.len())),
            ],
            1,
            0,
        )?;
        let out = self.fill_run_records(run, &mem);
        self.device().counters.host_time("fill: run tables", at);
        out
    }

    /// BITWISE is counted here, from the fills' traces ([`super::bytes`]).
    fn counts_lookups(&self) -> bool {
        true
    }

    /// The byte kernels of the tables in `filled` whose sends read no public value, enqueued
    /// on a stream the tally keeps (its kernels run while the packing pass ends).
    fn count_lookups_early(
        &self,
        machine: &rv::machine::Rv64Machine,
        filled: &[(TableId, &CudaTrace)],
    ) -> Result<Option<LookupTally>, ProverError> {
        let dev = self.device();
        dev.counters.op("bitwise_early");
        let stream = dev.stream();
        let mut tally = ByteTally::new(dev, &stream)?;
        tally.count(dev, &stream, machine, filled, None)?;
        Ok(Some(Box::new(EarlyTally {
            tally: Some(tally),
            stream,
        })))
    }

    fn fill_bitwise(
        &self,
        machine: &rv::machine::Rv64Machine,
        filled: &[(TableId, &CudaTrace)],
        public: &[kestrel_core::field::Felt],
        base: &[u64],
        tally: Option<LookupTally>,
    ) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let taken = match tally.map(|t| t.downcast::<EarlyTally>()) {
            Some(Ok(mut t)) => t.tally.take().map(|tally| (tally, t.stream.clone())),
            Some(Err(_)) => {
                return Err(ProverError::Internal(
                    "a byte lookup tally of another backend",
                ))
            }
            None => None,
        };
        let (mut tally, s) = match taken {
            Some(t) => t,
            None => {
                let s = dev.stream();
                (ByteTally::new(dev, &s)?, s)
            }
        };
        // The tables not counted early (their sends read public values), then the run
        // tables' lookups.
        tally.count(dev, &s, machine, filled, Some(public))?;
        let trace = tally.finish(dev, &s, base)?;
        dev.sync(&s, "bitwise trace")?;
        Ok(trace)
    }

    /// Checks the plan of the requested tables alone (a lower bound: the others' traces
    /// are not built yet), then enqueues every fill on its own stream and synchronises
    /// each stream once: the kernels overlap and no fill waits for another's round trip.
    fn fill_records(
        &self,
        image: &ProgramImage,
        r: &RecordRefs<'_>,
        tables: &[TableId],
    ) -> Result<Vec<(TableId, CudaTrace)>, ProverError> {
        let dev = self.device();
        let mut at = std::time::Instant::now();
        let mut mark = |name: &'static str| {
            dev.counters.host_time(name, at);
            at = std::time::Instant::now();
        };
        let fills: Vec<DeviceFill> = tables
            .iter()
            .map(|&t| device_fill(t))
            .collect::<Option<_>>()
            .ok_or(ProverError::Internal("no fill kernel for a record table"))?;
        let plan = |alu: Option<&alu_ops::AluRows>| -> Vec<TablePlan> {
            fills
                .iter()
                .map(|f| match (&f.enqueue, alu) {
                    (Launch::AluRows(t), Some(a)) => {
                        (ALU_FILLS[*t as usize].fill.width, a.height(*t))
                    }
                    _ => (f.dims)(r, image),
                })
                .map(|(main, h)| plan_of(main, h))
                .collect()
        };
        // The ALU tables' heights are known once their rows are made: until then, each
        // counts at its least.
        self.check_plan(&plan(None), 1, 0)?;
        let streams: Vec<_> = tables.iter().map(|_| dev.stream()).collect();
        // CPU and MEMW_R read the register walk: it runs once, and they run after it on
        // its stream.
        let walk_stream = dev.stream();
        let decode = fields_of(image);
        mark("fill: plan, decode fields");
        let mut walk: Option<memw_r::RegWalk> = None;
        let mut mem: Option<memw::MemWalk> = None;
        // The ALU rows are made right after the register walk; their fills wait for their
        // counts, read after every other fill is enqueued (the one synchronisation before
        // the end).
        let before = dev.counters.held();
        let pending = if fills
            .iter()
            .any(|f| matches!(f.enqueue, Launch::AluRows(_)))
        {
            let w = reg_walk(dev, &walk_stream, r, &decode, &mut walk)?;
            Some(alu_ops::enqueue_alu_rows(
                dev,
                &walk_stream,
                r,
                &decode,
                w,
                &ALU_FILLS,
            )?)
        } else {
            None
        };
        mark("fill: register walk, ALU rows (enqueue)");
        let mut out: Vec<Option<(TableId, CudaTrace)>> = Vec::with_capacity(tables.len());
        for ((&t, fill), s) in tables.iter().zip(&fills).zip(&streams) {
            let trace = match fill.enqueue {
                Launch::Records(enqueue) => enqueue(dev, s, r)?,
                Launch::Walked(enqueue) => {
                    let w = reg_walk(dev, &walk_stream, r, &decode, &mut walk)?;
                    enqueue(dev, &walk_stream, r, w)?
                }
                Launch::MemWalked(table) => {
                    let m = match mem {
                        Some(ref m) => m,
                        None => {
                            let w = reg_walk(dev, &walk_stream, r, &decode, &mut walk)?;
                            mem.insert(memw::enqueue_memwalk(dev, &walk_stream, r, &decode, w)?)
                        }
                    };
                    memw::enqueue_walked(dev, &walk_stream, m, table)?
                }
                Launch::AluRows(_) => {
                    out.push(None);
                    continue;
                }
            };
            out.push(Some((t, trace)));
        }
        mark("fill: memory walk, fills (enqueue)");
        let alu = match pending {
            Some(p) => {
                let rows = p.finish(dev, &walk_stream)?;
                // Everything held since the fills began is one of these traces or a walk's
                // buffer given back before the proof's stages: none is held against its plan.
                let since = dev.counters.held().saturating_sub(before);
                self.check_plan(&plan(Some(&rows)), 1, since)?;
                Some(rows)
            }
            None => None,
        };
        mark("fill: ALU row counts (wait)");
        for ((slot, &t), fill) in out.iter_mut().zip(tables).zip(&fills) {
            if let (None, Launch::AluRows(table), Some(rows)) = (&slot, &fill.enqueue, &alu) {
                *slot = Some((
                    t,
                    alu_ops::enqueue_derived(dev, &walk_stream, rows, *table, &ALU_FILLS)?,
                ));
            }
        }
        let out = out
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or(ProverError::Internal("a record table without its fill"))?;
        mark("fill: ALU fills (enqueue)");
        for s in streams.iter().chain([&walk_stream]) {
            dev.sync(s, "trace fills")?;
        }
        mark("fill: device (wait)");
        drop((walk, mem, alu));
        mark("fill: free walks");
        Ok(out)
    }
}

/// The register walk of the records `r`, enqueued on `stream` the first time it is asked for.
fn reg_walk<'w>(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    r: &RecordRefs<'_>,
    decode: &[u64],
    walk: &'w mut Option<memw_r::RegWalk>,
) -> Result<&'w memw_r::RegWalk, CudaError> {
    Ok(match walk {
        Some(w) => w,
        None => walk.insert(memw_r::enqueue_regwalk(
            dev, stream, r.cpu, r.memw_r, decode,
        )?),
    })
}

/// A record table's main trace (`main` columns of `h` rows) as the plan before any
/// commitment sees it: resident, no aux or quotient yet.
fn plan_of(main: usize, h: usize) -> TablePlan {
    TablePlan {
        log_height: h.trailing_zeros(),
        main,
        pre: 0,
        aux: 0,
        quotient: 0,
        interactions: 0,
        main_resident: true,
    }
}

impl CudaBackend {
    /// REGISTER's, PAGE's and PAGE0's main traces in device memory from a whole run's run
    /// records `run` (`image`: the program's memory map), each with its table: equal to
    /// [`RunRecords::fill_host`]'s.
    ///
    /// # Errors
    /// Records that do not fit the memory map or are out of order, or any device failure.
    pub fn fill_run_records(
        &self,
        run: &RunRecords,
        image: &rv::page::MemoryImage,
    ) -> Result<Vec<(TableId, CudaTrace)>, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let out = vec![
            (TableId::Register, register::enqueue_register(dev, &s, run)?),
            (TableId::Page, page::enqueue_page(dev, &s, run, image)?),
            (TableId::Page0, page0::enqueue_page0(dev, &s, run)?),
        ];
        dev.sync(&s, "fill run tables")?;
        Ok(out)
    }

    /// The ALU tables' distinct rows made on the device from one segment's records `r`
    /// (`decode`: [`fields_of`] of the program), downloaded in table order (LT, EQ,
    /// SHIFT, MUL, DVRM): what a proof's fills of those tables read; for tests and
    /// diagnostics.
    ///
    /// # Errors
    /// Malformed records, or any device failure.
    pub fn derive_alu_rows(
        &self,
        r: &RecordRefs<'_>,
        decode: &[u64],
    ) -> Result<Vec<(TableId, Vec<rv::Distinct>)>, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let walk = memw_r::enqueue_regwalk(dev, &s, r.cpu, r.memw_r, decode)?;
        let rows =
            alu_ops::enqueue_alu_rows(dev, &s, r, decode, &walk, &ALU_FILLS)?.finish(dev, &s)?;
        Ok(rows.download(dev, &s)?)
    }
}
