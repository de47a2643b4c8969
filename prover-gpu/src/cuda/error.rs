//! Every CUDA failure as a value naming the operation and its sizes.

use cudarc::driver::DriverError;

use crate::error::ProverError;

/// Why the CUDA backend could not do something. There is no CPU fallback: each of these
/// reaches the caller.
#[derive(Debug, thiserror::Error)]
pub enum CudaError {
    /// No CUDA driver could be loaded, or it reports no device.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// A driver call failed; `op` names it and `detail` gives the sizes involved.
    #[error("CUDA {op} failed ({detail}): {source}")]
    Driver {
        op: &'static str,
        detail: String,
        #[source]
        source: DriverError,
    },
    /// A kernel could not be launched or failed while running.
    #[error("CUDA kernel {kernel} (grid {grid:?}, block {block:?}, {shared} B shared): {source}")]
    Launch {
        kernel: &'static str,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared: u32,
        #[source]
        source: DriverError,
    },
    /// An embedded module or kernel is missing from the binary or failed to load.
    #[error("loading kernel {what}: {detail}")]
    Module { what: String, detail: String },
    /// A problem beyond what the kernels handle (e.g. too many columns for one launch).
    #[error("{op}: {detail}")]
    Limit { op: &'static str, detail: String },
    /// An allocation does not fit under the device-memory budget even with every idle
    /// cached LDE evicted.
    #[error(
        "device memory budget: {what} needs {bytes} B with {held} B held, budget {budget} B \
         (raise --vram-budget)"
    )]
    Budget {
        what: &'static str,
        bytes: u64,
        held: u64,
        budget: u64,
    },
    /// An operation the CUDA backend does not implement; never silently run on the CPU.
    #[error("operation not supported on the CUDA backend: {0}")]
    Unsupported(&'static str),
}

impl CudaError {
    pub(crate) fn driver(
        op: &'static str,
        detail: impl Into<String>,
    ) -> impl FnOnce(DriverError) -> CudaError {
        let detail = detail.into();
        move |source| CudaError::Driver { op, detail, source }
    }
}

impl From<CudaError> for ProverError {
    fn from(e: CudaError) -> ProverError {
        match e {
            CudaError::Budget { .. } => ProverError::Budget(e.to_string()),
            e => ProverError::Backend(e.to_string()),
        }
    }
}

impl From<crate::program::ProgramError> for CudaError {
    fn from(e: crate::program::ProgramError) -> CudaError {
        CudaError::Limit {
            op: "constraint program",
            detail: e.0,
        }
    }
}
