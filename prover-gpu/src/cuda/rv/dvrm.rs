//! The DVRM fill (`kernels/rv/dvrm.cu`): DVRM's trace from its distinct operations
//! (`dvrm::distinct`), equal to `dvrm::fill_distinct` (each row's quotient, remainder,
//! result and the division identity's witness computed on the device from `(op, a, b)`; the
//! byte lookups stay on the host, `dvrm::lookups`).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{dvrm, Distinct};

use super::alu_ops::{self, Table};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;
use crate::error::ProverError;

const DVRM: Table = Table {
    op: "fill DVRM",
    kernel: "ks_fill_dvrm",
    name: "DVRM",
    what: "DVRM trace",
    width: dvrm::WIDTH,
    accepts: |op| dvrm::OPS.contains(&op),
};

/// Enqueues DVRM's fill from its distinct ops on `stream` (the upload synchronises; the
/// kernel does not).
pub(super) fn enqueue_dvrm(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rows: &[Distinct],
) -> Result<CudaTrace, CudaError> {
    alu_ops::enqueue(dev, stream, &DVRM, rows)
}

impl CudaBackend {
    /// DVRM's main trace in device memory from its distinct ops (`dvrm::distinct`): equal to
    /// `dvrm::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than DIV, DIVU, REM, REMU, DIVW, DIVUW, REMW, REMUW, or any device
    /// failure.
    pub fn fill_dvrm(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        self.fill_distinct(&DVRM, rows)
    }
}
