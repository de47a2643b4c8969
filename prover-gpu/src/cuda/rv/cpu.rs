//! The CPU fill (`kernels/rv/cpu.cu`): the CPU trace of a segment (or a whole run) from
//! its packed records ([`CpuRecords`]: the steps, the first clock and output position, the
//! handoff) and the program's DECODE field table ([`decode::fields_of`](kestrel_core::rv::decode::fields_of)).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::cpu::{self, CpuRecords};
use kestrel_core::rv::decode::DECODE_WORDS;

use super::memw_r::RegWalk;
use super::records::{call_word, DECODE_TABLE};
use super::{check_height, limit};
use crate::cuda::backend::CudaBackend;
use crate::cuda::buffer::DeviceBuffer;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::cuda::stats::PACKED;
use crate::prover::ProverError;

const OP: &str = "fill CPU";

/// Enqueues the CPU fill on `stream` (uploads synchronise; the kernel does not).
pub(super) fn enqueue_cpu(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rec: &CpuRecords,
    decode: &[u64],
) -> Result<CudaTrace, CudaError> {
    let (n, log_h) = check_cpu(rec, true)?;
    let dec_rows = decode.len() / DECODE_WORDS;
    if !decode.len().is_multiple_of(DECODE_WORDS)
        || rec.dec_row.iter().any(|&r| r as usize >= dec_rows)
    {
        return Err(limit(OP, format!("a DECODE row outside {dec_rows} rows")));
    }
    let dec = dev.upload(stream, decode, DECODE_TABLE)?;
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
                call_word(&rec.calls, g - half - 3 * n)
            };
        }
    })?;
    let p = |i: usize| packed.ptr_at(stream, i);
    let arrays = [p(0), p(half), p(half + n), p(half + 2 * n), p(half + 3 * n)];
    let t = launch_cpu(dev, stream, rec, log_h, arrays, &dec)?;
    // Frees are stream-ordered: the inputs are released after the kernel reads them.
    drop((packed, dec));
    Ok(t)
}

/// Checks the CPU records' shape: `(steps, log height)`. `operands`: the fill reads the
/// records' `rs1` and `rs2` (not the register walk's, which a device-lookups packing pass
/// leaves empty).
fn check_cpu(rec: &CpuRecords, operands: bool) -> Result<(usize, u32), CudaError> {
    let n = rec.len();
    let log_h = check_height(OP, rec.height, n)?;
    let operands_ok = !operands || (rec.rs1.len() == n && rec.rs2.len() == n);
    if !operands_ok || rec.res.len() != n || n == 0 {
        return Err(limit(OP, "record columns of different lengths".into()));
    }
    if rec.calls.windows(2).any(|w| w[0].clk >= w[1].clk) {
        return Err(limit(OP, "system calls out of order".into()));
    }
    Ok((n, log_h))
}

/// Enqueues the CPU fill on the register walk's records (after the walk, on its stream):
/// only the steps' DECODE rows and results were uploaded, their register values are the
/// walk's ([`RegWalk`]).
pub(super) fn enqueue_cpu_walked(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rec: &CpuRecords,
    walk: &RegWalk,
) -> Result<CudaTrace, CudaError> {
    let (_, log_h) = check_cpu(rec, false)?;
    launch_cpu(dev, stream, rec, log_h, walk.cpu_arrays(stream), &walk.dec)
}

/// Allocates the CPU trace and launches its fill on the arrays at `[dec_row, rs1, rs2, res,
/// calls]` (device addresses), then counts the fill.
fn launch_cpu(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rec: &CpuRecords,
    log_h: u32,
    arrays: [u64; 5],
    dec: &DeviceBuffer<u64>,
) -> Result<CudaTrace, CudaError> {
    let h = 1u64 << log_h;
    let out = dev.alloc::<u64>(stream, cpu::WIDTH << log_h, "CPU trace")?;
    let [dec_row, rs1, rs2, res, calls] = arrays;
    dev.injected_fill_launch_failure("ks_fill_cpu")?;
    launch!(
        dev,
        stream,
        "ks_fill_cpu",
        grid_for(h, 256),
        [
            &out.ptr(stream),
            &h,
            &dec_row,
            &rs1,
            &rs2,
            &res,
            &(rec.len() as u64),
            &dec.ptr(stream),
            &calls,
            &(rec.calls.len() as u64),
            &rec.clk0,
            &rec.outpos0,
            &(rec.handoff as u64)
        ]
    );
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
