//! Device-resident trace fills (kernels/fill.cu): the CPU and MEMW_R main traces built in
//! device memory from packed records, one thread per row (padding rows too), column-major
//! as every committed source is. The packed records are the only upload, counted under
//! "packed op records" (the small DECODE field table under "fill decode table"); the trace
//! itself never crosses the bus. Each kernel matches its Rust builder bit for bit
//! (`tests/tests/cuda_fill.rs`).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::cpu::CpuRecords;
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::decode::{fields_of as decode_fields, DECODE_WORDS};
use kestrel_core::rv::machine::{RecordRefs, TableId};
use kestrel_core::rv::memw_r::MemwRRecords;
use kestrel_core::rv::{cpu, load, lt, memw, memw_r, shift, store};

use super::backend::CudaBackend;
use super::committed::CudaTrace;
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;
use super::fill_alu::{enqueue_lt, enqueue_shift};
use super::fill_mem::{enqueue_load, enqueue_memw_a, enqueue_store};
use super::stats::PACKED;
use crate::backend::TablePlan;
use crate::prover::ProverError;
use crate::rv::RvFills;

/// Category of the DECODE field table the CPU fill reads.
pub const DECODE_TABLE: &str = "fill decode table";

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

/// Enqueues the CPU fill on `stream` (uploads synchronise; the kernel does not).
fn enqueue_cpu(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rec: &CpuRecords,
    decode: &[u64],
) -> Result<CudaTrace, CudaError> {
    const OP: &str = "fill CPU";
    let n = rec.len();
    let log_h = check_height(OP, rec.height, n)?;
    if rec.rs1.len() != n || rec.rs2.len() != n || rec.res.len() != n || n == 0 {
        return Err(limit(OP, "record columns of different lengths".into()));
    }
    let dec_rows = decode.len() / DECODE_WORDS;
    if !decode.len().is_multiple_of(DECODE_WORDS)
        || rec.dec_row.iter().any(|&r| r as usize >= dec_rows)
    {
        return Err(limit(OP, format!("a DECODE row outside {dec_rows} rows")));
    }
    let dec = dev.upload(stream, decode, DECODE_TABLE)?;
    if rec.calls.windows(2).any(|w| w[0].clk >= w[1].clk) {
        return Err(limit(OP, "system calls out of order".into()));
    }
    // Layout: dec_row as u32 pairs, then rs1, rs2, res, then the calls as triples.
    let half = n.div_ceil(2);
    let nc = rec.calls.len();
    let words = half + 3 * n + 3 * nc;
    let packed = dev.upload_with(stream, words, PACKED, |off, dst| {
        for (j, w) in dst.iter_mut().enumerate() {
            let g = off + j;
            *w = if g < half {
                let lo = rec.dec_row[2 * g] as u64;
                let hi = rec.dec_row.get(2 * g + 1).map_or(0, |&x| x as u64);
                lo | hi << 32
            } else if g < half + n {
                rec.rs1[g - half]
            } else if g < half + 2 * n {
                rec.rs2[g - half - n]
            } else if g < half + 3 * n {
                rec.res[g - half - 2 * n]
            } else {
                let k = g - half - 3 * n;
                let c = &rec.calls[k / 3];
                match k % 3 {
                    0 => c.clk,
                    1 => c.outpos,
                    _ => c.outn | (c.exit as u64) << 63,
                }
            };
        }
    })?;
    let h = 1u64 << log_h;
    let out = dev.alloc::<u64>(stream, cpu::WIDTH << log_h, "CPU trace")?;
    dev.injected_fill_launch_failure("ks_fill_cpu")?;
    launch!(
        dev,
        stream,
        "ks_fill_cpu",
        grid_for(h, 256),
        [
            &out.ptr(stream),
            &h,
            &packed.ptr(stream),
            &(n as u64),
            &dec.ptr(stream),
            &(nc as u64)
        ]
    );
    // Frees are stream-ordered: the inputs are released after the kernel reads them.
    drop((packed, dec));
    dev.counters.fill("CPU");
    Ok(CudaTrace {
        cols: out,
        width: cpu::WIDTH,
        log_height: log_h,
    })
}

/// Enqueues the MEMW_R fill on `stream`.
fn enqueue_memw_r(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rec: &MemwRRecords,
) -> Result<CudaTrace, CudaError> {
    const OP: &str = "fill MEMW_R";
    let n = rec.meta.len();
    let x = rec.extra.len();
    let log_h = check_height(OP, rec.height, n + x)?;
    if rec.old.len() != n || n == 0 || n != 3 * rec.new.len() {
        return Err(limit(
            OP,
            format!(
                "{n} accesses, {} old values, {} written values (3 accesses per step)",
                rec.old.len(),
                rec.new.len()
            ),
        ));
    }
    if rec.extra.iter().any(|r| r.access.ts >> 63 != 0) {
        return Err(limit(OP, "a timestamp of 2^63 or more".into()));
    }
    // Layout: meta[n + x], old[n + x], new[n / 3], then the extra rows' new values and
    // timestamps (ts | is_write << 63).
    let (nm, ne) = (n + x, rec.new.len());
    let words = 2 * nm + ne + 2 * x;
    let packed = dev.upload_with(stream, words, PACKED, |off, dst| {
        for (j, w) in dst.iter_mut().enumerate() {
            let g = off + j;
            *w = if g < n {
                rec.meta[g]
            } else if g < nm {
                let r = &rec.extra[g - n];
                r.access.reg as u64 | r.old_ts << 8
            } else if g < nm + n {
                rec.old[g - nm]
            } else if g < 2 * nm {
                rec.extra[g - nm - n].old
            } else if g < 2 * nm + ne {
                rec.new[g - 2 * nm]
            } else if g < 2 * nm + ne + x {
                let a = &rec.extra[g - 2 * nm - ne].access;
                if a.is_write {
                    a.value
                } else {
                    0
                }
            } else {
                let a = &rec.extra[g - 2 * nm - ne - x].access;
                a.ts | (a.is_write as u64) << 63
            };
        }
    })?;
    let h = 1u64 << log_h;
    let out = dev.alloc::<u64>(stream, memw_r::WIDTH << log_h, "MEMW_R trace")?;
    dev.injected_fill_launch_failure("ks_fill_memw_r")?;
    launch!(
        dev,
        stream,
        "ks_fill_memw_r",
        grid_for(h, 256),
        [
            &out.ptr(stream),
            &h,
            &packed.ptr(stream),
            &(n as u64),
            &(x as u64)
        ]
    );
    drop(packed);
    dev.counters.fill("MEMW_R");
    Ok(CudaTrace {
        cols: out,
        width: memw_r::WIDTH,
        log_height: log_h,
    })
}

impl CudaBackend {
    /// The CPU table's main trace in device memory from its packed records and the
    /// program's DECODE field table ([`decode_fields`]).
    ///
    /// # Errors
    /// Malformed records, or any device failure.
    pub fn fill_cpu(&self, rec: &CpuRecords, decode: &[u64]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_cpu(dev, &s, rec, decode)?;
        dev.sync(&s, "fill CPU")?;
        Ok(t)
    }

    /// MEMW_R's main trace in device memory from its packed records.
    ///
    /// # Errors
    /// Malformed records, or any device failure.
    pub fn fill_memw_r(&self, rec: &MemwRRecords) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_memw_r(dev, &s, rec)?;
        dev.sync(&s, "fill MEMW_R")?;
        Ok(t)
    }
}

/// `(width, height)` of record table `t`'s trace as its fill builds it (`None` for the
/// other tables).
fn record_dims(p: &RecordRefs<'_>, t: TableId) -> Option<(usize, usize)> {
    let records = |n: usize| n.next_power_of_two().max(8);
    Some(match t {
        TableId::Cpu => (cpu::WIDTH, p.cpu.height),
        TableId::MemwR => (memw_r::WIDTH, p.memw_r.height),
        TableId::Lt => (lt::WIDTH, records(p.lt.len())),
        TableId::Shift => (shift::WIDTH, records(p.shift.len())),
        TableId::Load => (load::WIDTH, records(p.loads.len())),
        TableId::Store => (store::WIDTH, records(p.stores.len())),
        TableId::MemwA => (memw::MEMW_A.num_columns(), records(p.mem_a.len())),
        TableId::Decode
        | TableId::Register
        | TableId::Bitwise
        | TableId::Eq
        | TableId::Mul
        | TableId::Dvrm
        | TableId::Memw
        | TableId::Page
        | TableId::Page0
        | TableId::Ecall
        | TableId::Io => return None,
    })
}

impl RvFills for CudaBackend {
    fn has_device_fills(&self) -> bool {
        true
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
        let plan: Vec<TablePlan> = tables
            .iter()
            .map(|&t| record_dims(r, t).map(|(main, h)| plan_of(main, h)))
            .collect::<Option<_>>()
            .ok_or(ProverError::Internal("no fill kernel for a record table"))?;
        self.check_plan(&plan, 1, 0)?;
        let streams: Vec<_> = tables.iter().map(|_| dev.stream()).collect();
        let mut out = Vec::with_capacity(tables.len());
        for (&t, s) in tables.iter().zip(&streams) {
            let trace = match t {
                TableId::Cpu => enqueue_cpu(dev, s, r.cpu, &decode_fields(image))?,
                TableId::MemwR => enqueue_memw_r(dev, s, r.memw_r)?,
                TableId::Lt => enqueue_lt(dev, s, r.lt)?,
                TableId::Shift => enqueue_shift(dev, s, r.shift)?,
                TableId::Load => enqueue_load(dev, s, r.loads)?,
                TableId::Store => enqueue_store(dev, s, r.stores)?,
                TableId::MemwA => enqueue_memw_a(dev, s, r.mem_a)?,
                TableId::Decode
                | TableId::Register
                | TableId::Bitwise
                | TableId::Eq
                | TableId::Mul
                | TableId::Dvrm
                | TableId::Memw
                | TableId::Page
                | TableId::Page0
                | TableId::Ecall
                | TableId::Io => {
                    return Err(ProverError::Internal("no fill kernel for a record table"))
                }
            };
            out.push((t, trace));
        }
        for s in &streams {
            dev.sync(s, "trace fills")?;
        }
        Ok(out)
    }
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
