//! Proof-of-work search on the device (kernels/grind.cu): batches of nonces in increasing
//! order, the smallest valid one of the first batch holding any, which is the smallest
//! valid nonce overall, as `CpuBackend::grind` returns.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::device::{grid_for, launch, CudaDevice};
use crate::error::ProverError;

const BATCH: u64 = 1 << 24;

pub fn grind(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    challenge: &[u8; 32],
    bits: u32,
) -> Result<u64, ProverError> {
    let mut c = [0u64; 4];
    for (w, b) in c.iter_mut().zip(challenge.chunks_exact(8)) {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        *w = u64::from_le_bytes(a);
    }
    let mut best = dev.alloc::<u64>(stream, 1, "grind result")?;
    let mut start = 0u64;
    loop {
        let count = BATCH.min(u64::MAX - start);
        dev.upload_into(stream, &mut best, &[u64::MAX], "grind")?;
        launch!(
            dev,
            stream,
            "ks_grind",
            grid_for(count, 256),
            [
                &best.ptr(stream),
                &c[0],
                &c[1],
                &c[2],
                &c[3],
                &bits,
                &start,
                &count
            ]
        );
        let found = dev.download(stream, &best, 0, 1, "grind")?[0];
        if found != u64::MAX {
            return Ok(found);
        }
        start = start
            .checked_add(BATCH)
            .ok_or(ProverError::Internal("grinding exhausted"))?;
    }
}
