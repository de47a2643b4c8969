//! The CUDA backend (feature `cuda`): kernels in `kernels/*.cu`, compiled by build.rs with
//! nvcc and embedded in the binary, driven through cudarc's driver API (loaded at run time,
//! so a binary built without a GPU runs on a GPU server).
//!
//! Modules mirror the kernel files (`ntt.rs` ↔ `kernels/ntt.cu`, …). Every operation of
//! [`crate::backend::Backend`] runs on the device; there is no CPU fallback anywhere, and
//! every failure is a [`CudaError`] naming the operation.

mod backend;
pub mod bench;
pub mod buffer;
pub mod bytes;
pub mod committed;
pub mod deep;
pub mod device;
pub mod error;
pub mod eval;
pub mod fri;
pub mod grind;
pub mod logup;
pub mod merkle;
pub mod ntt;
pub mod plan;
/// The generated constraint-program kernels (kernels/gen/*.cu), by fingerprint.
#[rustfmt::skip]
pub mod gen_programs;
pub mod quotient;
pub mod resident;
pub mod rv;
pub mod stats;

pub use backend::CudaBackend;
pub use committed::{CudaCommitted, CudaFriLayer, CudaTrace};
pub use error::CudaError;
pub use stats::CudaStats;
