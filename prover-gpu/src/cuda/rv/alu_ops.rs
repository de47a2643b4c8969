//! What the fills of the tables with one row per distinct operation (LT, EQ, SHIFT, MUL,
//! DVRM) share, as their rooms share `core/src/rv/alu_ops.rs`: the records ([`Distinct`], as
//! the rooms' `distinct` make them) are the only upload, three words per row
//! (`op | mult << 32`, `a`, `b`), counted under "packed op records".

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{distinct_height, Distinct};

use crate::cuda::backend::CudaBackend;
use crate::cuda::buffer::DeviceBuffer;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::cuda::stats::PACKED;
use crate::error::ProverError;

/// Words per uploaded record.
const RECORD_WORDS: usize = 3;

/// Which table a fill builds.
pub(super) struct Table {
    pub(super) op: &'static str,
    /// Its fill kernel (signature `(out, h, rec, n)`).
    pub(super) kernel: &'static str,
    pub(super) name: &'static str,
    pub(super) what: &'static str,
    pub(super) width: usize,
    pub(super) accepts: fn(u32) -> bool,
}

/// A fill ready to launch: the uploaded records and the trace buffer.
pub(super) struct Prepared {
    pub(super) packed: DeviceBuffer<u64>,
    pub(super) out: DeviceBuffer<u64>,
    pub(super) h: u64,
    pub(super) n: u64,
}

/// Checks `rows`, uploads them and allocates `t`'s trace (height [`distinct_height`]).
pub(super) fn prepare(
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
pub(super) fn finish(dev: &CudaDevice, t: &Table, p: Prepared) -> CudaTrace {
    drop(p.packed);
    dev.counters.fill(t.name);
    CudaTrace {
        cols: p.out,
        width: t.width,
        log_height: p.h.trailing_zeros(),
    }
}

/// Enqueues `t`'s fill from its distinct rows on `stream` (the upload synchronises; the
/// kernel does not).
pub(super) fn enqueue(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    t: &Table,
    rows: &[Distinct],
) -> Result<CudaTrace, CudaError> {
    let p = prepare(dev, stream, t, rows)?;
    dev.injected_fill_launch_failure(t.kernel)?;
    launch!(
        dev,
        stream,
        t.kernel,
        grid_for(p.h, 256),
        [&p.out.ptr(stream), &p.h, &p.packed.ptr(stream), &p.n]
    );
    Ok(finish(dev, t, p))
}

impl CudaBackend {
    /// `t`'s main trace in device memory from its distinct rows, synchronised.
    pub(super) fn fill_distinct(
        &self,
        t: &Table,
        rows: &[Distinct],
    ) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let trace = enqueue(dev, &s, t, rows)?;
        dev.sync(&s, t.op)?;
        Ok(trace)
    }
}
