//! Device-resident fills of the ALU tables with one row per distinct operation
//! (kernels/fill_alu.cu): LT and SHIFT main traces built in device memory from their
//! distinct-op records ([`Distinct`], as `lt::distinct` / `shift::distinct` make them), one
//! thread per row (padding rows too), column-major. The records are the only upload, three
//! words per row (`op | mult << 32`, `a`, `b`), counted under "packed op records". Each
//! kernel matches its host fill (`lt::fill_distinct`, `shift::fill_distinct`) bit for bit
//! (`tests/tests/cuda_fill_alu.rs`); the byte lookups stay on the host (`lt::lookups`,
//! `shift::lookups`).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{distinct_height, lt, shift, Distinct, ALU_SLT, ALU_SLTU};

use super::backend::CudaBackend;
use super::buffer::DeviceBuffer;
use super::committed::CudaTrace;
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;
use super::stats::PACKED;
use crate::error::ProverError;

/// Words per uploaded record.
const RECORD_WORDS: usize = 3;

/// Which table a fill builds.
struct Table {
    op: &'static str,
    name: &'static str,
    what: &'static str,
    width: usize,
    accepts: fn(u32) -> bool,
}

const LT: Table = Table {
    op: "fill LT",
    name: "LT",
    what: "LT trace",
    width: lt::WIDTH,
    accepts: |op| op == ALU_SLT || op == ALU_SLTU,
};

const SHIFT: Table = Table {
    op: "fill SHIFT",
    name: "SHIFT",
    what: "SHIFT trace",
    width: shift::WIDTH,
    accepts: |op| shift::OPS.contains(&op),
};

/// A fill ready to launch: the uploaded records and the trace buffer.
struct Prepared {
    packed: DeviceBuffer<u64>,
    out: DeviceBuffer<u64>,
    h: u64,
    n: u64,
}

/// Checks `rows`, uploads them and allocates `t`'s trace (height [`distinct_height`]).
fn prepare(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    t: &Table,
    rows: &[Distinct],
) -> Result<Prepared, CudaError> {
    let n = rows.len();
    if let Some(r) = rows.iter().find(|r| !(t.accepts)(r.op)) {
        return Err(CudaError::Limit {
            op: t.op,
            detail: format!("op {} is not one of the table's", r.op),
        });
    }
    let h = distinct_height(n);
    let (Some(cells), Some(words)) = (h.checked_mul(t.width), n.checked_mul(RECORD_WORDS)) else {
        return Err(CudaError::Limit {
            op: t.op,
            detail: format!("{n} records"),
        });
    };
    let packed = dev.upload_with(stream, words, PACKED, |off, dst| {
        for (j, w) in dst.iter_mut().enumerate() {
            let g = off + j;
            let r = &rows[g / RECORD_WORDS];
            *w = match g % RECORD_WORDS {
                0 => r.op as u64 | (r.mult as u64) << 32,
                1 => r.a,
                _ => r.b,
            };
        }
    })?;
    let out = dev.alloc::<u64>(stream, cells, t.what)?;
    Ok(Prepared {
        packed,
        out,
        h: h as u64,
        n: n as u64,
    })
}

/// Releases the records (stream-ordered, after the kernel reads them) and counts the fill.
fn finish(dev: &CudaDevice, t: &Table, p: Prepared) -> CudaTrace {
    drop(p.packed);
    dev.counters.fill(t.name);
    CudaTrace {
        cols: p.out,
        width: t.width,
        log_height: p.h.trailing_zeros(),
    }
}

/// Enqueues LT's fill from its distinct ops on `stream` (the upload synchronises; the
/// kernel does not).
pub(crate) fn enqueue_lt(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rows: &[Distinct],
) -> Result<CudaTrace, CudaError> {
    let p = prepare(dev, stream, &LT, rows)?;
    dev.injected_fill_launch_failure("ks_fill_lt")?;
    launch!(
        dev,
        stream,
        "ks_fill_lt",
        grid_for(p.h, 256),
        [&p.out.ptr(stream), &p.h, &p.packed.ptr(stream), &p.n]
    );
    Ok(finish(dev, &LT, p))
}

/// Enqueues SHIFT's fill from its distinct ops on `stream` (the upload synchronises; the
/// kernel does not).
pub(crate) fn enqueue_shift(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rows: &[Distinct],
) -> Result<CudaTrace, CudaError> {
    let p = prepare(dev, stream, &SHIFT, rows)?;
    dev.injected_fill_launch_failure("ks_fill_shift")?;
    launch!(
        dev,
        stream,
        "ks_fill_shift",
        grid_for(p.h, 256),
        [&p.out.ptr(stream), &p.h, &p.packed.ptr(stream), &p.n]
    );
    Ok(finish(dev, &SHIFT, p))
}

impl CudaBackend {
    /// LT's main trace in device memory from its distinct ops (`lt::distinct`): equal to
    /// `lt::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than SLT/SLTU, or any device failure.
    pub fn fill_lt(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_lt(dev, &s, rows)?;
        dev.sync(&s, LT.op)?;
        Ok(t)
    }

    /// SHIFT's main trace in device memory from its distinct ops (`shift::distinct`): equal
    /// to `shift::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than a shift, or any device failure.
    pub fn fill_shift(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_shift(dev, &s, rows)?;
        dev.sync(&s, SHIFT.op)?;
        Ok(t)
    }
}
