//! What the fills of the tables with one row per record (LOAD, STORE, MEMW_A, ECALL, IO)
//! share: the records are uploaded as a structure of arrays (`n` words per array, `meta =
//! funct3 | addr << 8`), counted under "packed op records" ([`PACKED`]):
//!
//! | table | arrays | bytes per record |
//! | --- | --- | --- |
//! | LOAD | `ts, meta, word0, word1` | 32 |
//! | STORE | `ts, meta, value, old0, old1` | 40 |
//! | MEMW_A | `w, old, new, old_ts, ts` | 40 |
//! | ECALL | `clk \| outpos << 40 \| kind << 61, res, p1, p2, p3` (by kind: `ecall.rs`) | 40 |
//! | IO | `ts \| kind << 55 \| lo << 57 \| (cnt − 1) << 60, w \| pos << 29, old, new` | 32 |
//!
//! The run tables REGISTER, PAGE and PAGE0 are filled the same way from a whole run's run
//! records, counted under "run table records" ([`RUN_RECORDS`]): 24, 24 and 32 bytes per
//! row. It also holds what the CPU fill and the register walk (`memw_r.rs`) both upload:
//! the system calls' words and the DECODE field table's category.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::cpu::CallMark;

use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::cuda::stats::PACKED;

/// Category of the run tables' records (REGISTER's, PAGE's and PAGE0's, from
/// [`RunRecords`](kestrel_core::rv::machine::RunRecords)).
pub const RUN_RECORDS: &str = "run table records";

/// Category of the DECODE field table the CPU fill and the register walk read.
pub const DECODE_TABLE: &str = "fill decode table";

/// Word `k` of the system calls as the CPU fill reads them: triples `(clk, outpos before,
/// outn | exit << 63)`.
pub(super) fn call_word(calls: &[CallMark], k: usize) -> u64 {
    let c = &calls[k / 3];
    match k % 3 {
        0 => c.clk,
        1 => c.outpos,
        _ => c.outn | (c.exit as u64) << 63,
    }
}

/// The most records one fill takes (the trace height stays a `u32` power of two).
const MAX_RECORDS: usize = 1 << 31;

/// The trace's log height for `n` records: `n.next_power_of_two().max(kestrel_core::params::MIN_ROWS)`, as the host
/// builders pad.
pub(super) fn log_height(op: &'static str, n: usize) -> Result<u32, CudaError> {
    if n > MAX_RECORDS {
        return Err(CudaError::Limit {
            op,
            detail: format!("{n} records exceed the most one fill takes ({MAX_RECORDS})"),
        });
    }
    Ok(n.next_power_of_two()
        .max(kestrel_core::params::MIN_ROWS)
        .trailing_zeros())
}

/// A table with one row per record (LOAD, STORE, MEMW_A, MEMW, ECALL, IO, and the ALU
/// tables' distinct rows): its fill kernel (signature `(out, h, rec, n)`: `n` records at
/// `rec`, laid out as the kernel reads them) and trace.
pub(super) struct MemTable {
    pub(super) op: &'static str,
    pub(super) kernel: &'static str,
    pub(super) name: &'static str,
    pub(super) what: &'static str,
    pub(super) width: usize,
}

/// Uploads `n` records (`arrays` words per record, `word(record, array)`, array by array)
/// and enqueues `t`'s fill on them (the upload synchronises; the kernel does not).
pub(super) fn fill_uploaded(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    t: &MemTable,
    n: usize,
    arrays: usize,
    word: impl Fn(usize, usize) -> u64 + Sync,
) -> Result<CudaTrace, CudaError> {
    fill_uploaded_as(dev, stream, t, n, arrays, PACKED, word)
}

/// [`fill_uploaded`] with the upload counted under `category`.
pub(super) fn fill_uploaded_as(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    t: &MemTable,
    n: usize,
    arrays: usize,
    category: &'static str,
    word: impl Fn(usize, usize) -> u64 + Sync,
) -> Result<CudaTrace, CudaError> {
    log_height(t.op, n)?;
    let packed = dev.upload_with(stream, arrays * n, category, |off, dst| {
        for (j, w) in dst.iter_mut().enumerate() {
            let g = off + j;
            *w = word(g % n, g / n);
        }
    })?;
    let trace = fill_from(dev, stream, t, n, packed.ptr(stream))?;
    // Stream-ordered: released after the kernel reads it.
    drop(packed);
    Ok(trace)
}

/// Allocates `t`'s trace for `n` records, enqueues its fill on the record arrays at device
/// address `rec` and counts the fill.
pub(super) fn fill_from(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    t: &MemTable,
    n: usize,
    rec: u64,
) -> Result<CudaTrace, CudaError> {
    let log_h = log_height(t.op, n)?;
    let out = dev.alloc::<u64>(stream, t.width << log_h, t.what)?;
    let h = 1u64 << log_h;
    dev.injected_fill_launch_failure(t.kernel)?;
    launch!(
        dev,
        stream,
        t.kernel,
        grid_for(h, 256),
        [&out.ptr(stream), &h, &rec, &(n as u64)]
    );
    dev.counters.fill(t.name);
    Ok(CudaTrace {
        cols: out,
        width: t.width,
        log_height: log_h,
    })
}
