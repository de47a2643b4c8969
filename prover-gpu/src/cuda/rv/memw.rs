//! The MEMW_A fill (`kernels/rv/memw.cu`): MEMW_A's trace from its records, equal to
//! its room's host fill (the byte lookups stay on the host) (MEMW, the split accesses' table, is built on the host).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{memw, WordAccess};

use super::records::{fill_mem, prepare};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::error::ProverError;

/// Enqueues the MEMW_A fill on `stream`.
pub(super) fn enqueue_memw_a(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    accesses: &[WordAccess],
) -> Result<CudaTrace, CudaError> {
    let n = accesses.len();
    let width = memw::MEMW_A.num_columns();
    let prep = prepare(
        dev,
        stream,
        "fill MEMW_A",
        "MEMW_A trace",
        width,
        n,
        5,
        |r, k| {
            let a = &accesses[r];
            match k {
                // The flags ride above the word index (w < 2^29): bit 32 ro, bit 33 wr.
                0 => a.w as u64 | (a.ro as u64) << 32 | (a.wr as u64) << 33,
                1 => a.old,
                2 => a.new,
                3 => a.old_ts,
                _ => a.ts,
            }
        },
    )?;
    fill_mem!(dev, stream, "ks_fill_memw_a", "MEMW_A", width, n, prep)
}

impl CudaBackend {
    /// MEMW_A's main trace in device memory from its word accesses.
    ///
    /// # Errors
    /// Too many records, or any device failure.
    pub fn fill_memw_a(&self, accesses: &[WordAccess]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_memw_a(dev, &s, accesses)?;
        dev.sync(&s, "fill MEMW_A")?;
        Ok(t)
    }
}
