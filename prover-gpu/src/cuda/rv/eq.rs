//! The EQ fill (`kernels/rv/eq.cu`): EQ's trace from its distinct operations
//! (`eq::distinct`), equal to `eq::fill_distinct` (each row's inverse computed on the
//! device; EQ makes no byte lookups).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{eq, Distinct, ALU_EQ};

use super::alu_ops::{finish, prepare, Table};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::error::ProverError;

const EQ: Table = Table {
    op: "fill EQ",
    name: "EQ",
    what: "EQ trace",
    width: eq::WIDTH,
    accepts: |op| op == ALU_EQ,
};

/// Enqueues EQ's fill from its distinct ops on `stream` (the upload synchronises; the
/// kernel does not).
pub(super) fn enqueue_eq(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rows: &[Distinct],
) -> Result<CudaTrace, CudaError> {
    let p = prepare(dev, stream, &EQ, rows)?;
    dev.injected_fill_launch_failure("ks_fill_eq")?;
    launch!(
        dev,
        stream,
        "ks_fill_eq",
        grid_for(p.h, 256),
        [&p.out.ptr(stream), &p.h, &p.packed.ptr(stream), &p.n]
    );
    Ok(finish(dev, &EQ, p))
}

impl CudaBackend {
    /// EQ's main trace in device memory from its distinct ops (`eq::distinct`): equal to
    /// `eq::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than EQ, or any device failure.
    pub fn fill_eq(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_eq(dev, &s, rows)?;
        dev.sync(&s, EQ.op)?;
        Ok(t)
    }
}
