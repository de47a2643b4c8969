//! The LT fill (`kernels/rv/lt.cu`): LT's trace from its distinct operations
//! (`lt::distinct`), equal to `lt::fill_distinct` (the byte lookups stay on the host,
//! `lt::lookups`).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{lt, Distinct, ALU_SLT, ALU_SLTU};

use super::alu_ops::{finish, prepare, Table};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::error::ProverError;

const LT: Table = Table {
    op: "fill LT",
    name: "LT",
    what: "LT trace",
    width: lt::WIDTH,
    accepts: |op| op == ALU_SLT || op == ALU_SLTU,
};

/// Enqueues LT's fill from its distinct ops on `stream` (the upload synchronises; the
/// kernel does not).
pub(super) fn enqueue_lt(
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
}
