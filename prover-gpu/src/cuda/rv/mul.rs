//! The MUL fill (`kernels/rv/mul.cu`): MUL's trace from its distinct operations
//! (`mul::distinct`), equal to `mul::fill_distinct` (each row's result and its 128-bit
//! product computed on the device from `(op, a, b)`; the byte lookups stay on the host,
//! `mul::lookups`).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{mul, Distinct};

use super::alu_ops::{finish, prepare, Table};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::error::ProverError;

const MUL: Table = Table {
    op: "fill MUL",
    name: "MUL",
    what: "MUL trace",
    width: mul::WIDTH,
    accepts: |op| mul::OPS.contains(&op),
};

/// Enqueues MUL's fill from its distinct ops on `stream` (the upload synchronises; the
/// kernel does not).
pub(super) fn enqueue_mul(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rows: &[Distinct],
) -> Result<CudaTrace, CudaError> {
    let p = prepare(dev, stream, &MUL, rows)?;
    dev.injected_fill_launch_failure("ks_fill_mul")?;
    launch!(
        dev,
        stream,
        "ks_fill_mul",
        grid_for(p.h, 256),
        [&p.out.ptr(stream), &p.h, &p.packed.ptr(stream), &p.n]
    );
    Ok(finish(dev, &MUL, p))
}

impl CudaBackend {
    /// MUL's main trace in device memory from its distinct ops (`mul::distinct`): equal to
    /// `mul::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than MUL, MULH, MULHSU, MULHU, MULW, or any device failure.
    pub fn fill_mul(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_mul(dev, &s, rows)?;
        dev.sync(&s, MUL.op)?;
        Ok(t)
    }
}
