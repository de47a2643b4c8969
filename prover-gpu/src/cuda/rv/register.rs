//! The REGISTER fill (`kernels/rv/register.cu`): REGISTER's trace from a whole run's run
//! records ([`RunRecords`]: the final register file and the input's length), equal to
//! [`RunRecords::fill_host`]. Three arrays of one word per row (`value, ts, input`: the
//! input's length on `REG_INPUT`'s row), 1.5 KB, under
//! [`RUN_RECORDS`](super::records::RUN_RECORDS).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::machine::RunRecords;
use kestrel_core::rv::{register, NUM_REGS, REG_INPUT};

use super::records::{fill_uploaded_as, MemTable, RUN_RECORDS};
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;

const REGISTER_FILL: MemTable = MemTable {
    op: "fill REGISTER",
    kernel: "ks_fill_register",
    name: "REGISTER",
    what: "REGISTER trace",
    width: register::WIDTH,
};

/// Enqueues REGISTER's fill on `stream` (the upload synchronises; the kernel does not).
pub(super) fn enqueue_register(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    run: &RunRecords,
) -> Result<CudaTrace, CudaError> {
    let rows = 1 << register::LOG_HEIGHT;
    fill_uploaded_as(
        dev,
        stream,
        &REGISTER_FILL,
        rows,
        3,
        RUN_RECORDS,
        |r, a| match (a, r < NUM_REGS) {
            (_, false) => 0,
            (0, _) => run.file.values[r],
            (1, _) => run.file.ts[r],
            _ if r == REG_INPUT as usize => u64::from(run.input_len),
            _ => 0,
        },
    )
}
