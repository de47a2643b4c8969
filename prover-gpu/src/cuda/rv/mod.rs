//! Device-resident trace fills of the record tables, one launcher per table mirroring
//! `core/src/rv/<table>/` and its kernel `kernels/rv/<table>.cu`: each builds the table's
//! main trace in device memory from its packed records, one thread per row (padding rows
//! too), column-major as every committed source is. The packed records are the only
//! upload, counted under "packed op records" ([`PACKED`](super::stats::PACKED)); the trace
//! itself never crosses the bus. Each kernel matches its room's host fill bit for bit
//! (`tests/tests/cuda_fill.rs`, `cuda_fill_alu.rs`, `cuda_fill_mem.rs`); the byte lookups
//! stay on the host. This module dispatches on [`TableId`]; `alu_ops` and `records` hold
//! the upload helpers the tables share.

use kestrel_core::rv;
use kestrel_core::rv::decode::{self, ProgramImage};
use kestrel_core::rv::machine::{RecordRefs, TableId};

use super::backend::CudaBackend;
use super::committed::CudaTrace;
use super::error::CudaError;
use crate::backend::TablePlan;
use crate::prover::ProverError;
use crate::rv::RvFills;

mod alu_ops;
pub mod cpu;
pub mod load;
pub mod lt;
pub mod memw;
pub mod memw_r;
mod records;
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

/// `(width, height)` of record table `t`'s trace as its fill builds it (`None` for the
/// other tables).
fn record_dims(p: &RecordRefs<'_>, t: TableId) -> Option<(usize, usize)> {
    let records = |n: usize| n.next_power_of_two().max(8);
    Some(match t {
        TableId::Cpu => (rv::cpu::WIDTH, p.cpu.height),
        TableId::MemwR => (rv::memw_r::WIDTH, p.memw_r.height),
        TableId::Lt => (rv::lt::WIDTH, records(p.lt.len())),
        TableId::Shift => (rv::shift::WIDTH, records(p.shift.len())),
        TableId::Load => (rv::load::WIDTH, records(p.loads.len())),
        TableId::Store => (rv::store::WIDTH, records(p.stores.len())),
        TableId::MemwA => (rv::memw::MEMW_A.num_columns(), records(p.mem_a.len())),
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
                TableId::Cpu => cpu::enqueue_cpu(dev, s, r.cpu, &decode::fields_of(image))?,
                TableId::MemwR => memw_r::enqueue_memw_r(dev, s, r.memw_r)?,
                TableId::Lt => lt::enqueue_lt(dev, s, r.lt)?,
                TableId::Shift => shift::enqueue_shift(dev, s, r.shift)?,
                TableId::Load => load::enqueue_load(dev, s, r.loads)?,
                TableId::Store => store::enqueue_store(dev, s, r.stores)?,
                TableId::MemwA => memw::enqueue_memw_a(dev, s, r.mem_a)?,
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
