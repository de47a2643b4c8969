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
//! It also holds what the CPU fill and the register walk (`memw_r.rs`) both upload: the
//! system calls' words and the DECODE field table's category.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::cpu::CallMark;

use crate::cuda::buffer::DeviceBuffer;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;
use crate::cuda::stats::PACKED;

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

/// The records uploaded (`arrays` words per record, `word(record, array)`, array by array)
/// and the `width`-column trace allocated for `n` records: `(records, trace, log height)`.
#[allow(clippy::too_many_arguments)]
pub(super) fn prepare(
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
pub(super) use fill_mem;
