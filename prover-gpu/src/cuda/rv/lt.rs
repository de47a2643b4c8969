//! The LT fill (`kernels/rv/lt.cu`): LT's trace from its distinct operations
//! (`lt::distinct`), equal to `lt::fill_distinct` (the byte lookups stay on the host,
//! `lt::lookups`).

use kestrel_core::rv::{lt, Distinct, ALU_SLT, ALU_SLTU};

use super::alu_ops::Table;
use super::records::MemTable;
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::error::ProverError;

pub(super) const LT: Table = Table {
    fill: MemTable {
        op: "fill LT",
        kernel: "ks_fill_lt",
        name: "LT",
        what: "LT trace",
        width: lt::WIDTH,
    },
    accepts: |op| op == ALU_SLT || op == ALU_SLTU,
};

impl CudaBackend {
    /// LT's main trace in device memory from its distinct ops (`lt::distinct`): equal to
    /// `lt::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than SLT/SLTU, or any device failure.
    pub fn fill_lt(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        self.fill_distinct(&LT, rows)
    }
}
