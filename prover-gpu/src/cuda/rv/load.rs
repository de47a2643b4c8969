//! The LOAD fill (`kernels/rv/load.cu`): LOAD's trace from its records, equal to
//! its room's host fill (the byte lookups stay on the host).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{load, LoadOp};

use super::records::{fill_mem, prepare};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::error::ProverError;

/// Enqueues the LOAD fill on `stream` (the upload synchronises; the kernel does not).
pub(super) fn enqueue_load(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    ops: &[LoadOp],
) -> Result<CudaTrace, CudaError> {
    let n = ops.len();
    let prep = prepare(
        dev,
        stream,
        "fill LOAD",
        "LOAD trace",
        load::WIDTH,
        n,
        4,
        |r, a| {
            let o = &ops[r];
            match a {
                0 => o.ts,
                1 => o.funct3 as u64 | (o.addr as u64) << 8,
                2 => o.word0,
                _ => o.word1,
            }
        },
    )?;
    fill_mem!(dev, stream, "ks_fill_load", "LOAD", load::WIDTH, n, prep)
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
