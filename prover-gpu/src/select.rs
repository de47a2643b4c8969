//! `--backend auto|cpu|cuda`: which backend proves. `cuda` means the GPU or a clear error;
//! `auto` takes the GPU when this binary was built with CUDA and a device answers, else the
//! CPU, and says which. Nothing falls back silently.

use crate::cpu::CpuBackend;
#[cfg(feature = "cuda")]
use crate::cuda::CudaBackend;

/// The `--backend` flag.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendChoice {
    /// CUDA when built with it and a device is present, else CPU.
    #[default]
    Auto,
    /// The CPU reference backend.
    Cpu,
    /// The CUDA backend, or an error.
    Cuda,
}

/// The backend chosen.
pub enum Selected {
    Cpu(CpuBackend),
    #[cfg(feature = "cuda")]
    Cuda(Box<CudaBackend>),
}

impl Selected {
    pub fn name(&self) -> &'static str {
        match self {
            Selected::Cpu(_) => "cpu",
            #[cfg(feature = "cuda")]
            Selected::Cuda(_) => "cuda",
        }
    }
}

/// Resolves the flag.
///
/// # Errors
/// A message when `cuda` was asked for and this binary has no CUDA support or no device
/// answers.
pub fn select(choice: BackendChoice) -> Result<Selected, String> {
    match choice {
        BackendChoice::Cpu => Ok(Selected::Cpu(CpuBackend)),
        #[cfg(feature = "cuda")]
        BackendChoice::Cuda => CudaBackend::new()
            .map(|b| Selected::Cuda(Box::new(b)))
            .map_err(|e| format!("--backend cuda: {e}")),
        #[cfg(not(feature = "cuda"))]
        BackendChoice::Cuda => {
            Err("--backend cuda: this binary was built without CUDA support (cargo build --features cuda)".into())
        }
        #[cfg(feature = "cuda")]
        BackendChoice::Auto => Ok(match CudaBackend::new() {
            Ok(b) => Selected::Cuda(Box::new(b)),
            Err(_) => Selected::Cpu(CpuBackend),
        }),
        #[cfg(not(feature = "cuda"))]
        BackendChoice::Auto => Ok(Selected::Cpu(CpuBackend)),
    }
}

/// Runs `$body` with `$b` bound to the selected backend (a `&impl Backend`).
#[macro_export]
macro_rules! with_backend {
    ($sel:expr, $b:ident => $body:expr) => {
        match $sel {
            $crate::select::Selected::Cpu(ref $b) => $body,
            #[cfg(feature = "cuda")]
            $crate::select::Selected::Cuda(ref boxed) => {
                let $b: &$crate::cuda::CudaBackend = boxed;
                $body
            }
        }
    };
}
