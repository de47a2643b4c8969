//! The SHIFT fill (`kernels/rv/shift.cu`): SHIFT's trace from its distinct operations
//! (`shift::distinct`), equal to `shift::fill_distinct` (the byte lookups stay on the host,
//! `shift::lookups`).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{shift, Distinct};

use super::alu_ops::{finish, prepare, Table};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::error::ProverError;

const SHIFT: Table = Table {
    op: "fill SHIFT",
    name: "SHIFT",
    what: "SHIFT trace",
    width: shift::WIDTH,
    accepts: |op| shift::OPS.contains(&op),
};

/// Enqueues SHIFT's fill from its distinct ops on `stream` (the upload synchronises; the
/// kernel does not).
pub(super) fn enqueue_shift(
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
