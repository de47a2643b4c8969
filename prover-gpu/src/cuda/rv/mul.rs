//! The MUL fill (`kernels/rv/mul.cu`): MUL's trace from its distinct operations
//! (`mul::distinct`), equal to `mul::fill_distinct` (each row's result and its 128-bit
//! product computed on the device from `(op, a, b)`; the byte lookups stay on the host,
//! `mul::lookups`).

use kestrel_core::rv::{mul, Distinct};

use super::alu_ops::Table;
use super::records::MemTable;
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::error::ProverError;

pub(super) const MUL: Table = Table {
    fill: MemTable {
        op: "fill MUL",
        kernel: "ks_fill_mul",
        name: "MUL",
        what: "MUL trace",
        width: mul::WIDTH,
    },
    accepts: |op| mul::OPS.contains(&op),
};

impl CudaBackend {
    /// MUL's main trace in device memory from its distinct ops (`mul::distinct`): equal to
    /// `mul::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than MUL, MULH, MULHSU, MULHU, MULW, or any device failure.
    pub fn fill_mul(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        self.fill_distinct(&MUL, rows)
    }
}
