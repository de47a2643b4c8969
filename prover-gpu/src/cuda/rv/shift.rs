//! The SHIFT fill (`kernels/rv/shift.cu`): SHIFT's trace from its distinct operations
//! (`shift::distinct`), equal to `shift::fill_distinct` (the byte lookups stay on the host,
//! `shift::lookups`).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{shift, Distinct};

use super::alu_ops::{self, Table};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;
use crate::error::ProverError;

const SHIFT: Table = Table {
    op: "fill SHIFT",
    kernel: "ks_fill_shift",
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
    alu_ops::enqueue(dev, stream, &SHIFT, rows)
}

impl CudaBackend {
    /// SHIFT's main trace in device memory from its distinct ops (`shift::distinct`): equal
    /// to `shift::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than a shift, or any device failure.
    pub fn fill_shift(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        self.fill_distinct(&SHIFT, rows)
    }
}
