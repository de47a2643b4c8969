//! The PAGE0 fill (`kernels/rv/page0.cu`): PAGE0's trace from a whole run's run records
//! ([`RunRecords::zero`]: the touched zero-initialised words by increasing index), equal to
//! [`RunRecords::fill_host`]. Four arrays of one word per touched word (`w | ro << 32, lo |
//! hi << 32, fin, fin_ts`), under [`RUN_RECORDS`](super::records::RUN_RECORDS); the kernel
//! derives the gaps and distances its range checks read.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::machine::RunRecords;
use kestrel_core::rv::page0;

use super::records::{fill_uploaded_as, MemTable, RUN_RECORDS};
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;

const PAGE0_FILL: MemTable = MemTable {
    op: "fill PAGE0",
    kernel: "ks_fill_page0",
    name: "PAGE0",
    what: "PAGE0 trace",
    width: page0::P0_WIDTH,
};

/// Enqueues PAGE0's fill on `stream` (the upload synchronises; the kernel does not).
///
/// # Errors
/// Touched words out of order, or any device failure.
pub(super) fn enqueue_page0(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    run: &RunRecords,
) -> Result<CudaTrace, CudaError> {
    if run.zero.windows(2).any(|z| z[0].w >= z[1].w) {
        return Err(CudaError::Limit {
            op: PAGE0_FILL.op,
            detail: "touched zero words out of order".into(),
        });
    }
    fill_uploaded_as(
        dev,
        stream,
        &PAGE0_FILL,
        run.zero.len(),
        4,
        RUN_RECORDS,
        |r, a| {
            let z = &run.zero[r];
            match a {
                0 => u64::from(z.w) | u64::from(z.range.ro) << 32,
                1 => u64::from(z.range.lo) | u64::from(z.range.hi) << 32,
                2 => z.fin,
                _ => z.fin_ts,
            }
        },
    )
}
