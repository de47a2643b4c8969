//! The LT fill (`kernels/rv/lt.cu`): LT's trace from its distinct operations
//! (`lt::distinct`), equal to `lt::fill_distinct` (the byte lookups stay on the host,
//! `lt::lookups`).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{lt, Distinct, ALU_SLT, ALU_SLTU};

use super::alu_ops::{self, Table};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;
use crate::error::ProverError;

const LT: Table = Table {
    op: "fill LT",
    kernel: "ks_fill_lt",
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
    alu_ops::enqueue(dev, stream, &LT, rows)
}

impl CudaBackend {
    /// LT's main trace in device memory from its distinct ops (`lt::distinct`): equal to
    /// `lt::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than SLT/SLTU, or any device failure.
    pub fn fill_lt(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        self.fill_distinct(&LT, rows)
    }
}
