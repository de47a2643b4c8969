//! The ECALL fill (`kernels/rv/ecall.cu`): ECALL's trace from its records (one per system
//! call), equal to its room's host fill `ecall::fill` (the byte lookups stay on the host).
//!
//! Five words per record (40 B, where the host trace was 85 words): `meta = clk | outpos <<
//! 40 | kind << 61` ([`ecall::call_kind`]; a call no selector covers uploads zeros and gets
//! an all-zero row) and four words whose meaning depends on the kind (see the kernel): `res`
//! and, for `exit` `a0`, for a write `a1, a2`, for a read `a1, a2` and the low half of the
//! unread input count, for `brk` `a0`, the old break and `limit | heap_start << 32`. `a7` and
//! a transfer's fd follow from the kind.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::{ecall, EcallOp};

use super::records::{fill_uploaded, MemTable};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;
use crate::error::ProverError;

/// Bits of `clk` in a record's meta word (a run has at most 2^36 cycles).
const CLK_BITS: u32 = 40;
/// Bits of `outpos` in a record's meta word (above `clk`; the output has at most 2^20 bytes).
const OUTPOS_BITS: u32 = 21;
/// Where the call kind starts in a record's meta word.
const KIND_SHIFT: u32 = CLK_BITS + OUTPOS_BITS;
/// Words per record.
const RECORD_WORDS: usize = 5;

/// The record of `op` as the kernel reads it, or why it cannot be packed (a field beyond
/// what the packing holds; never in an execution the packing pass accepts).
fn pack(op: &EcallOp) -> Result<[u64; RECORD_WORDS], String> {
    let kind = ecall::call_kind(op);
    if kind == 0 {
        return Ok([0; RECORD_WORDS]);
    }
    if op.clk >> CLK_BITS != 0 {
        return Err(format!("cycle {} is not below 2^{CLK_BITS}", op.clk));
    }
    if op.outpos >> OUTPOS_BITS != 0 {
        return Err(format!(
            "output position {} (cycle {}) is not below 2^{OUTPOS_BITS}",
            op.outpos, op.clk
        ));
    }
    let meta = op.clk | op.outpos << CLK_BITS | (kind as u64) << KIND_SHIFT;
    Ok(match kind {
        ecall::CALL_EXIT => [meta, op.res, op.a0, 0, 0],
        ecall::CALL_WOUT | ecall::CALL_WDBG => [meta, op.res, op.a1, op.a2, 0],
        ecall::CALL_READ => [meta, op.res, op.a1, op.a2, op.remaining & 0xffff_ffff],
        _ => {
            let [_, limit, start] = op.brk;
            if limit >> 32 != 0 || start >> 32 != 0 {
                return Err(format!(
                    "brk at cycle {}: heap limit {limit:#x} or start {start:#x} is not below 2^32",
                    op.clk
                ));
            }
            [meta, op.res, op.a0, op.brk[0], limit | start << 32]
        }
    })
}

const ECALL_FILL: MemTable = MemTable {
    op: "fill ECALL",
    kernel: "ks_fill_ecall",
    name: "ECALL",
    what: "ECALL trace",
    width: ecall::WIDTH,
};

/// Enqueues the ECALL fill on `stream` (the upload synchronises; the kernel does not).
pub(super) fn enqueue_ecall(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    ops: &[EcallOp],
) -> Result<CudaTrace, CudaError> {
    let n = ops.len();
    let packed = ops
        .iter()
        .map(pack)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|detail| CudaError::Limit {
            op: "fill ECALL",
            detail,
        })?;
    fill_uploaded(dev, stream, &ECALL_FILL, n, RECORD_WORDS, |r, a| {
        packed[r][a]
    })
}

impl CudaBackend {
    /// ECALL's main trace in device memory from its records (height
    /// `ops.len().next_power_of_two().max(kestrel_core::params::MIN_ROWS)`; no records give
    /// an all-zero trace): equal to `ecall::fill(ops)`.
    ///
    /// # Errors
    /// Too many records, a record the packing cannot hold (a cycle of 2^40 or more, an output
    /// position of 2^21 or more, a `brk` whose heap limit or start is 2^32 or more), or any
    /// device failure.
    pub fn fill_ecall(&self, ops: &[EcallOp]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_ecall(dev, &s, ops)?;
        dev.sync(&s, "fill ECALL")?;
        Ok(t)
    }
}
