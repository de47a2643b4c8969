//! The EQ fill (`kernels/rv/eq.cu`): EQ's trace from its distinct operations
//! (`eq::distinct`), equal to `eq::fill_distinct` (each row's inverse computed on the
//! device; EQ makes no byte lookups).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{eq, Distinct, ALU_EQ};

use super::alu_ops::{self, Table};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;
use crate::error::ProverError;

const EQ: Table = Table {
    op: "fill EQ",
    kernel: "ks_fill_eq",
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
    alu_ops::enqueue(dev, stream, &EQ, rows)
}

impl CudaBackend {
    /// EQ's main trace in device memory from its distinct ops (`eq::distinct`): equal to
    /// `eq::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than EQ, or any device failure.
    pub fn fill_eq(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        self.fill_distinct(&EQ, rows)
    }
}
