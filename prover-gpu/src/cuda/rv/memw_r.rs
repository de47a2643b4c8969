//! The MEMW_R fill (`kernels/rv/memw_r.cu`): MEMW_R's trace from its packed records
//! ([`MemwRRecords`]).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::memw_r::{self, MemwRRecords};

use super::{check_height, limit};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::cuda::stats::PACKED;
use crate::prover::ProverError;

/// Enqueues the MEMW_R fill on `stream`.
pub(super) fn enqueue_memw_r(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rec: &MemwRRecords,
) -> Result<CudaTrace, CudaError> {
    const OP: &str = "fill MEMW_R";
    let n = rec.meta.len();
    let x = rec.extra.len();
    let log_h = check_height(OP, rec.height, n + x)?;
    if rec.old.len() != n || n == 0 || n != 3 * rec.new.len() {
        return Err(limit(
            OP,
            format!(
                "{n} accesses, {} old values, {} written values (3 accesses per step)",
                rec.old.len(),
                rec.new.len()
            ),
        ));
    }
    if rec.extra.iter().any(|r| r.access.ts >> 63 != 0) {
        return Err(limit(OP, "a timestamp of 2^63 or more".into()));
    }
    // The CPU accesses' timestamps (below 4·(clk0 + steps)) stay in `meta`'s 56 bits of
    // `old_ts` and in the field.
    if rec
        .clk0
        .checked_add(rec.new.len() as u64)
        .is_none_or(|c| c >> 53 != 0)
    {
        return Err(limit(OP, format!("first clock {} too large", rec.clk0)));
    }
    // Layout: meta[n + x], old[n + x], new[n / 3], then the extra rows' new values and
    // timestamps (ts | is_write << 63).
    let (nm, ne) = (n + x, rec.new.len());
    let words = 2 * nm + ne + 2 * x;
    let packed = dev.upload_with(stream, words, PACKED, |off, dst| {
        for (j, w) in dst.iter_mut().enumerate() {
            let g = off + j;
            *w = if g < n {
                rec.meta[g]
            } else if g < nm {
                let r = &rec.extra[g - n];
                r.access.reg as u64 | r.old_ts << 8
            } else if g < nm + n {
                rec.old[g - nm]
            } else if g < 2 * nm {
                rec.extra[g - nm - n].old
            } else if g < 2 * nm + ne {
                rec.new[g - 2 * nm]
            } else if g < 2 * nm + ne + x {
                let a = &rec.extra[g - 2 * nm - ne].access;
                if a.is_write {
                    a.value
                } else {
                    0
                }
            } else {
                let a = &rec.extra[g - 2 * nm - ne - x].access;
                a.ts | (a.is_write as u64) << 63
            };
        }
    })?;
    let h = 1u64 << log_h;
    let out = dev.alloc::<u64>(stream, memw_r::WIDTH << log_h, "MEMW_R trace")?;
    dev.injected_fill_launch_failure("ks_fill_memw_r")?;
    launch!(
        dev,
        stream,
        "ks_fill_memw_r",
        grid_for(h, 256),
        [
            &out.ptr(stream),
            &h,
            &packed.ptr(stream),
            &(n as u64),
            &(x as u64),
            &rec.clk0
        ]
    );
    drop(packed);
    dev.counters.fill("MEMW_R");
    Ok(CudaTrace {
        cols: out,
        width: memw_r::WIDTH,
        log_height: log_h,
    })
}

impl CudaBackend {
    /// MEMW_R's main trace in device memory from its packed records.
    ///
    /// # Errors
    /// Malformed records, or any device failure.
    pub fn fill_memw_r(&self, rec: &MemwRRecords) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_memw_r(dev, &s, rec)?;
        dev.sync(&s, "fill MEMW_R")?;
        Ok(t)
    }
}
