//! The IO fill (`kernels/rv/io.cu`): IO's trace from its records (one per transferred
//! word), equal to its room's host fill `io::fill` (the byte lookups stay on the host).
//!
//! Four words per record (32 B, where the host trace was 42 words): `ts | kind << 55 | lo <<
//! 57 | (cnt − 1) << 60`, `w | pos << 29`, `old`, `new`.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{io, IoWord, IO_ZERO};

use super::records::{fill_uploaded, MemTable};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;
use crate::error::ProverError;

/// Bits of `ts` in a record's first word (a run has at most 2^36 cycles).
const TS_BITS: u32 = 55;
/// Bits of the word index in a record's second word (`pos` above it).
const W_BITS: u32 = 29;
/// Bits of `pos` (an output position, below 2^20, plus a transfer's length, below 2^32).
const POS_BITS: u32 = 64 - W_BITS;

/// Whether the kernel fills `io`'s row as the host does: a kind of [`IO_ZERO`] or below,
/// one to eight covered bytes inside the word, a word index below 2^29 (what the host
/// fill asserts) and a timestamp and position the packing holds.
fn check(io: &IoWord) -> Result<(), String> {
    let ok = io.kind <= IO_ZERO
        && io.cnt >= 1
        && io.lo as u32 + io.cnt as u32 <= 8
        && io.w >> W_BITS == 0
        && io.ts >> TS_BITS == 0
        && io.pos >> POS_BITS == 0;
    if ok {
        Ok(())
    } else {
        Err(format!("not an IO row: {io:?}"))
    }
}

/// Word `k` of the record `io` (checked by [`check`]).
fn word(io: &IoWord, k: usize) -> u64 {
    match k {
        0 => {
            io.ts
                | (io.kind as u64) << TS_BITS
                | (io.lo as u64) << (TS_BITS + 2)
                | (io.cnt as u64 - 1) << (TS_BITS + 5)
        }
        1 => io.w as u64 | io.pos << W_BITS,
        2 => io.old,
        _ => io.new,
    }
}

const IO_FILL: MemTable = MemTable {
    op: "fill IO",
    kernel: "ks_fill_io",
    name: "IO",
    what: "IO trace",
    width: io::WIDTH,
};

/// Enqueues the IO fill on `stream` (the upload synchronises; the kernel does not).
pub(super) fn enqueue_io(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rows: &[IoWord],
) -> Result<CudaTrace, CudaError> {
    let n = rows.len();
    rows.iter()
        .try_for_each(check)
        .map_err(|detail| CudaError::Limit {
            op: "fill IO",
            detail,
        })?;
    fill_uploaded(dev, stream, &IO_FILL, n, 4, |r, k| word(&rows[r], k))
}

impl CudaBackend {
    /// IO's main trace in device memory from its records (height
    /// `rows.len().next_power_of_two().max(kestrel_core::params::MIN_ROWS)`; no records give
    /// an all-zero trace): equal to `io::fill(rows)`.
    ///
    /// # Errors
    /// Too many records, a record that is no IO row (a kind above [`IO_ZERO`], no covered
    /// byte, bytes past the word's end, a word index of 2^29 or more) or that the packing
    /// cannot hold (a timestamp of 2^55 or more, a position of 2^35 or more), or any device
    /// failure.
    pub fn fill_io(&self, rows: &[IoWord]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_io(dev, &s, rows)?;
        dev.sync(&s, "fill IO")?;
        Ok(t)
    }
}
