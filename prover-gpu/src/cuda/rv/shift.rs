//! The SHIFT fill (`kernels/rv/shift.cu`): SHIFT's trace from its distinct operations
//! (`shift::distinct`), equal to `shift::fill_distinct` (the byte lookups stay on the host,
//! `shift::lookups`).

use kestrel_core::rv::{shift, Distinct};

use super::alu_ops::Table;
use super::records::MemTable;
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::error::ProverError;

pub(super) const SHIFT: Table = Table {
    fill: MemTable {
        op: "fill SHIFT",
        kernel: "ks_fill_shift",
        name: "SHIFT",
        what: "SHIFT trace",
        width: shift::WIDTH,
    },
    accepts: |op| shift::OPS.contains(&op),
};

impl CudaBackend {
    /// SHIFT's main trace in device memory from its distinct ops (`shift::distinct`): equal
    /// to `shift::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than a shift, or any device failure.
    pub fn fill_shift(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        self.fill_distinct(&SHIFT, rows)
    }
}
