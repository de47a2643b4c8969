//! The EQ fill (`kernels/rv/eq.cu`): EQ's trace from its distinct operations
//! (`eq::distinct`), equal to `eq::fill_distinct` (each row's inverse computed on the
//! device; EQ makes no byte lookups).

use kestrel_core::rv::{eq, Distinct, ALU_EQ};

use super::alu_ops::Table;
use super::records::MemTable;
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::error::ProverError;

pub(super) const EQ: Table = Table {
    fill: MemTable {
        op: "fill EQ",
        kernel: "ks_fill_eq",
        name: "EQ",
        what: "EQ trace",
        width: eq::WIDTH,
    },
    accepts: |op| op == ALU_EQ,
};

impl CudaBackend {
    /// EQ's main trace in device memory from its distinct ops (`eq::distinct`): equal to
    /// `eq::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than EQ, or any device failure.
    pub fn fill_eq(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        self.fill_distinct(&EQ, rows)
    }
}
