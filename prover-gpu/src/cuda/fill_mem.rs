//! Device-resident trace fills of the memory tables (kernels/fill_mem.cu): LOAD, STORE and
//! MEMW_A main traces built in device memory from their records, one thread per row
//! (padding rows too), column-major, natural row order. The packed records are the only
//! upload, counted under "packed op records" ([`PACKED`]); the trace never crosses the bus.
//! Each kernel matches its Rust builder bit for bit (`tests/tests/cuda_fill_mem.rs`); the
//! host counts the tables' BITWISE lookups with `load::lookups`, `store::lookups` and
//! `memw::lookups_a`.
//!
//! Record layouts (structure of arrays, `n` words per array, `meta = funct3 | addr << 8`):
//!
//! | table | arrays | bytes per record |
//! | --- | --- | --- |
//! | LOAD | `ts, meta, word0, word1` | 32 |
//! | STORE | `ts, meta, value, old0, old1` | 40 |
//! | MEMW_A | `w, old, new, old_ts, ts` | 40 |

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{load, memw, store, LoadOp, StoreOp, WordAccess};

use super::backend::CudaBackend;
use super::buffer::DeviceBuffer;
use super::committed::CudaTrace;
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;
use super::stats::PACKED;
use crate::error::ProverError;

/// The most records one fill takes (the trace height stays a `u32` power of two).
const MAX_RECORDS: usize = 1 << 31;

/// The trace's log height for `n` records: `n.next_power_of_two().max(8)`, as the host
/// builders pad.
fn log_height(op: &'static str, n: usize) -> Result<u32, CudaError> {
    if n > MAX_RECORDS {
        return Err(CudaError::Limit {
            op,
            detail: format!("{n} records exceed the most one fill takes ({MAX_RECORDS})"),
        });
    }
    Ok(n.next_power_of_two().max(8).trailing_zeros())
}

/// The records uploaded (`arrays` words per record, `word(record, array)`, array by array)
/// and the `width`-column trace allocated for `n` records: `(records, trace, log height)`.
#[allow(clippy::too_many_arguments)]
fn prepare(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    op: &'static str,
    what: &'static str,
    width: usize,
    n: usize,
    arrays: usize,
    word: impl Fn(usize, usize) -> u64 + Sync,
) -> Result<(DeviceBuffer<u64>, DeviceBuffer<u64>, u32), CudaError> {
    let log_h = log_height(op, n)?;
    let packed = dev.upload_with(stream, arrays * n, PACKED, |off, dst| {
        for (j, w) in dst.iter_mut().enumerate() {
            let g = off + j;
            *w = word(g % n, g / n);
        }
    })?;
    let out = dev.alloc::<u64>(stream, width << log_h, what)?;
    Ok((packed, out, log_h))
}

/// Launches one memory fill kernel (signature `(out, h, rec, n)`), releases the records
/// (stream-ordered, after the kernel reads them) and counts the fill.
macro_rules! fill_mem {
    ($dev:expr, $stream:expr, $kernel:literal, $table:literal, $width:expr, $n:expr, $prep:expr) => {{
        let (packed, out, log_h) = $prep;
        let h = 1u64 << log_h;
        $dev.injected_fill_launch_failure($kernel)?;
        launch!(
            $dev,
            $stream,
            $kernel,
            grid_for(h, 256),
            [&out.ptr($stream), &h, &packed.ptr($stream), &($n as u64)]
        );
        drop(packed);
        $dev.counters.fill($table);
        Ok(CudaTrace {
            cols: out,
            width: $width,
            log_height: log_h,
        })
    }};
}

/// Enqueues the LOAD fill on `stream` (the upload synchronises; the kernel does not).
pub(crate) fn enqueue_load(
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

/// Enqueues the STORE fill on `stream`.
pub(crate) fn enqueue_store(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    ops: &[StoreOp],
) -> Result<CudaTrace, CudaError> {
    let n = ops.len();
    let prep = prepare(
        dev,
        stream,
        "fill STORE",
        "STORE trace",
        store::WIDTH,
        n,
        5,
        |r, a| {
            let o = &ops[r];
            match a {
                0 => o.ts,
                1 => o.funct3 as u64 | (o.addr as u64) << 8,
                2 => o.value,
                3 => o.old0,
                _ => o.old1,
            }
        },
    )?;
    fill_mem!(dev, stream, "ks_fill_store", "STORE", store::WIDTH, n, prep)
}

/// Enqueues the MEMW_A fill on `stream`.
pub(crate) fn enqueue_memw_a(
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
    /// LOAD's main trace in device memory from its records (height
    /// `ops.len().next_power_of_two().max(8)`; no records give an all-zero trace).
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
