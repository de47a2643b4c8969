//! The CPU reference backend (rayon): the oracle every other backend must match bit for bit.

mod backend;
pub mod merkle;
pub mod ntt;
pub mod packed;

pub use backend::{CpuBackend, CpuCommitted, CpuFriLayer};
