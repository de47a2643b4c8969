//! The MUL fill (`kernels/rv/mul.cu`): MUL's trace from its distinct operations
//! (`mul::distinct`), equal to `mul::fill_distinct` (each row's result and its 128-bit
//! product computed on the device from `(op, a, b)`; the byte lookups stay on the host,
//! `mul::lookups`).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{mul, Distinct};

use super::alu_ops::{self, Table};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;
use crate::error::ProverError;

const MUL: Table = Table {
    op: "fill MUL",
    kernel: "ks_fill_mul",
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
    alu_ops::enqueue(dev, stream, &MUL, rows)
}

impl CudaBackend {
    /// MUL's main trace in device memory from its distinct ops (`mul::distinct`): equal to
    /// `mul::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than MUL, MULH, MULHSU, MULHU, MULW, or any device failure.
    pub fn fill_mul(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        self.fill_distinct(&MUL, rows)
    }
}
