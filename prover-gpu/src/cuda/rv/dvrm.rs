//! The DVRM fill (`kernels/rv/dvrm.cu`): DVRM's trace from its distinct operations
//! (`dvrm::distinct`), equal to `dvrm::fill_distinct` (each row's quotient, remainder,
//! result and the division identity's witness computed on the device from `(op, a, b)`; the
//! byte lookups stay on the host, `dvrm::lookups`).

use kestrel_core::rv::{dvrm, Distinct};

use super::alu_ops::Table;
use super::records::MemTable;
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::error::ProverError;

pub(super) const DVRM: Table = Table {
    fill: MemTable {
        op: "fill DVRM",
        kernel: "ks_fill_dvrm",
        name: "DVRM",
        what: "DVRM trace",
        width: dvrm::WIDTH,
    },
    accepts: |op| dvrm::OPS.contains(&op),
};

impl CudaBackend {
    /// DVRM's main trace in device memory from its distinct ops (`dvrm::distinct`): equal to
    /// `dvrm::fill_distinct(rows)`.
    ///
    /// # Errors
    /// An op other than DIV, DIVU, REM, REMU, DIVW, DIVUW, REMW, REMUW, or any device
    /// failure.
    pub fn fill_dvrm(&self, rows: &[Distinct]) -> Result<CudaTrace, ProverError> {
        self.fill_distinct(&DVRM, rows)
    }
}
