//! The STORE fill (`kernels/rv/store.cu`): STORE's trace from its records, equal to
//! its room's host fill (the byte lookups stay on the host).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{store, StoreOp};

use super::records::{fill_uploaded, MemTable};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;
use crate::error::ProverError;

pub(super) const STORE: MemTable = MemTable {
    op: "fill STORE",
    kernel: "ks_fill_store",
    name: "STORE",
    what: "STORE trace",
    width: store::WIDTH,
};

/// Enqueues the STORE fill on `stream`.
pub(super) fn enqueue_store(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    ops: &[StoreOp],
) -> Result<CudaTrace, CudaError> {
    fill_uploaded(dev, stream, &STORE, ops.len(), 5, |r, a| {
        let o = &ops[r];
        match a {
            0 => o.ts,
            1 => o.funct3 as u64 | (o.addr as u64) << 8,
            2 => o.value,
            3 => o.old0,
            _ => o.old1,
        }
    })
}

impl CudaBackend {
    /// STORE's main trace in device memory from its records.
    ///
    /// # Errors
    /// Too many records, or any device failure.
    pub fn fill_store(&self, ops: &[StoreOp]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_store(dev, &s, ops)?;
        dev.sync(&s, "fill STORE")?;
        Ok(t)
    }
}
