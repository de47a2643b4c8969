//! The DECODE fill (`kernels/rv/decode.cu`): DECODE's multiplicity column counted on the
//! device from the steps' DECODE rows the register walk already holds (nothing uploaded),
//! equal to [`decode::build_trace`](kestrel_core::rv::decode::build_trace) of the packing
//! pass's counts. Only a whole run's only segment is filled here: a segmented run proves
//! its run tables once, from every segment's counts, on the host.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::machine::TableId;

use super::memw_r::RegWalk;
use super::records::log_height;
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::error::ProverError;

/// Blocks of DECODE's count: enough to fill the device, few enough that each block's
/// shared counters see thousands of steps before they are added.
const DECODE_BLOCKS: u32 = 264;

/// Enqueues DECODE's fill on `stream`: its multiplicity column (one row per code slot,
/// padded to a power of two ≥ 16) from the register walk's DECODE rows of the steps.
pub(super) fn enqueue_decode(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    walk: &RegWalk,
) -> Result<CudaTrace, CudaError> {
    let (dec_row, n) = walk.dec_rows(stream);
    launch_decode(dev, stream, dec_row, n, walk.code_slots)
}

/// DECODE's trace for `rows` code slots from the `n` DECODE rows (`u32`, each below `rows`)
/// at device address `dec_row`.
fn launch_decode(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    dec_row: u64,
    n: usize,
    rows: usize,
) -> Result<CudaTrace, CudaError> {
    const OP: &str = "fill DECODE";
    let log_h = log_height(OP, rows)?;
    let rows = u32::try_from(rows).map_err(|_| CudaError::Limit {
        op: OP,
        detail: format!("{rows} code slots"),
    })?;
    let out = dev.alloc_zeros::<u64>(stream, 1 << log_h, "DECODE trace")?;
    dev.injected_fill_launch_failure("ks_fill_decode_mult")?;
    if n > 0 {
        launch!(
            dev,
            stream,
            "ks_fill_decode_mult",
            cudarc::driver::LaunchConfig {
                grid_dim: (DECODE_BLOCKS, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            },
            [&out.ptr(stream), &dec_row, &(n as u64), &rows]
        );
    }
    dev.counters.fill(TableId::Decode.name());
    Ok(CudaTrace {
        cols: out,
        width: 1,
        log_height: log_h,
    })
}

impl CudaBackend {
    /// DECODE's main trace in device memory for `rows` code slots from the steps' DECODE
    /// rows `dec_row` (uploaded here; a proof's fill reads the register walk's copy):
    /// equal to [`decode::build_trace`](kestrel_core::rv::decode::build_trace) of their
    /// counts. For tests.
    ///
    /// # Errors
    /// A row of `dec_row` not below `rows`, or any device failure.
    pub fn fill_decode_counts(
        &self,
        dec_row: &[u32],
        rows: usize,
    ) -> Result<CudaTrace, ProverError> {
        if let Some(r) = dec_row.iter().find(|&&r| r as usize >= rows) {
            return Err(CudaError::Limit {
                op: "fill DECODE",
                detail: format!("DECODE row {r} of {rows}"),
            }
            .into());
        }
        let dev = self.device();
        let s = dev.stream();
        let words: Vec<u64> = dec_row
            .chunks(2)
            .map(|p| u64::from(p[0]) | u64::from(*p.get(1).unwrap_or(&0)) << 32)
            .collect();
        let up = dev.upload(&s, &words, "DECODE rows (test)")?;
        // Stream-ordered: released after the kernel reads it.
        let t = launch_decode(dev, &s, up.ptr(&s), dec_row.len(), rows)?;
        dev.sync(&s, "fill DECODE")?;
        Ok(t)
    }
}
