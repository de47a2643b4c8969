//! The LOAD fill (`kernels/rv/load.cu`): LOAD's trace from its records, equal to
//! its room's host fill (the byte lookups stay on the host).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{load, LoadOp};

use super::records::{fill_uploaded, MemTable};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;
use crate::error::ProverError;

pub(super) const LOAD: MemTable = MemTable {
    op: "fill LOAD",
    kernel: "ks_fill_load",
    name: "LOAD",
    what: "LOAD trace",
    width: load::WIDTH,
};

/// Enqueues the LOAD fill on `stream` (the upload synchronises; the kernel does not).
pub(super) fn enqueue_load(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    ops: &[LoadOp],
) -> Result<CudaTrace, CudaError> {
    fill_uploaded(dev, stream, &LOAD, ops.len(), 4, |r, a| {
        let o = &ops[r];
        match a {
            0 => o.ts,
            1 => o.funct3 as u64 | (o.addr as u64) << 8,
            2 => o.word0,
            _ => o.word1,
        }
    })
}

impl CudaBackend {
    /// LOAD's main trace in device memory from its records (height
    /// `ops.len().next_power_of_two().max(kestrel_core::params::MIN_ROWS)`; no records give an all-zero trace).
    ///
    /// # Errors
    /// Too many records, or any device failure.
    pub fn fill_load(&self, ops: &[LoadOp]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_load(dev, &s, ops)?;
        dev.sync(&s, "fill LOAD")?;
        Ok(t)
    }
}
