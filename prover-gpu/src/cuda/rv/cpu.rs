//! The CPU fill (`kernels/rv/cpu.cu`): the CPU trace of a segment (or a whole run) from
//! its packed records ([`CpuRecords`]: the steps, the first clock and output position, the
//! handoff) and the program's DECODE field table ([`decode::fields_of`](kestrel_core::rv::decode::fields_of)).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::cpu::{self, CpuRecords};
use kestrel_core::rv::decode::DECODE_WORDS;

use super::{check_height, limit};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::cuda::stats::PACKED;
use crate::prover::ProverError;

/// Category of the DECODE field table the CPU fill reads.
pub const DECODE_TABLE: &str = "fill decode table";

/// Enqueues the CPU fill on `stream` (uploads synchronise; the kernel does not).
pub(super) fn enqueue_cpu(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rec: &CpuRecords,
    decode: &[u64],
) -> Result<CudaTrace, CudaError> {
    const OP: &str = "fill CPU";
    let n = rec.len();
    let log_h = check_height(OP, rec.height, n)?;
    if rec.rs1.len() != n || rec.rs2.len() != n || rec.res.len() != n || n == 0 {
        return Err(limit(OP, "record columns of different lengths".into()));
    }
    let dec_rows = decode.len() / DECODE_WORDS;
    if !decode.len().is_multiple_of(DECODE_WORDS)
        || rec.dec_row.iter().any(|&r| r as usize >= dec_rows)
    {
        return Err(limit(OP, format!("a DECODE row outside {dec_rows} rows")));
    }
    let dec = dev.upload(stream, decode, DECODE_TABLE)?;
    if rec.calls.windows(2).any(|w| w[0].clk >= w[1].clk) {
        return Err(limit(OP, "system calls out of order".into()));
    }
    // Layout: dec_row as u32 pairs, then rs1, rs2, res, then the calls as triples.
    let half = n.div_ceil(2);
    let nc = rec.calls.len();
    let words = half + 3 * n + 3 * nc;
    let packed = dev.upload_with(stream, words, PACKED, |off, dst| {
        for (j, w) in dst.iter_mut().enumerate() {
            let g = off + j;
            *w = if g < half {
                let lo = rec.dec_row[2 * g] as u64;
                let hi = rec.dec_row.get(2 * g + 1).map_or(0, |&x| x as u64);
                lo | hi << 32
            } else if g < half + n {
                rec.rs1[g - half]
            } else if g < half + 2 * n {
                rec.rs2[g - half - n]
            } else if g < half + 3 * n {
                rec.res[g - half - 2 * n]
            } else {
                let k = g - half - 3 * n;
                let c = &rec.calls[k / 3];
                match k % 3 {
                    0 => c.clk,
                    1 => c.outpos,
                    _ => c.outn | (c.exit as u64) << 63,
                }
            };
        }
    })?;
    let h = 1u64 << log_h;
    let out = dev.alloc::<u64>(stream, cpu::WIDTH << log_h, "CPU trace")?;
    dev.injected_fill_launch_failure("ks_fill_cpu")?;
    launch!(
        dev,
        stream,
        "ks_fill_cpu",
        grid_for(h, 256),
        [
            &out.ptr(stream),
            &h,
            &packed.ptr(stream),
            &(n as u64),
            &dec.ptr(stream),
            &(nc as u64),
            &rec.clk0,
            &rec.outpos0,
            &(rec.handoff as u64)
        ]
    );
    // Frees are stream-ordered: the inputs are released after the kernel reads them.
    drop((packed, dec));
    dev.counters.fill("CPU");
    Ok(CudaTrace {
        cols: out,
        width: cpu::WIDTH,
        log_height: log_h,
    })
}

impl CudaBackend {
    /// The CPU table's main trace in device memory from its packed records and the
    /// program's DECODE field table ([`decode::fields_of`](kestrel_core::rv::decode::fields_of)).
    ///
    /// # Errors
    /// Malformed records, or any device failure.
    pub fn fill_cpu(&self, rec: &CpuRecords, decode: &[u64]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_cpu(dev, &s, rec, decode)?;
        dev.sync(&s, "fill CPU")?;
        Ok(t)
    }
}
