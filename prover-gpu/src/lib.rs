//! Kestrel's std prover: ELF loading and execution, trace building, the STARK prover
//! generic over a [`backend::Backend`], the library API ([`api`]) and, with the `cli` feature
//! (a default), the `kestrel` command line on it.

pub mod api;
pub mod backend;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod cli_common;
#[cfg(feature = "cli")]
pub mod cli_dist;
#[cfg(feature = "cli")]
pub mod cli_fib;
#[cfg(feature = "cli")]
pub mod cli_new;
#[cfg(feature = "cli")]
pub mod cli_prove;
#[cfg(feature = "cli")]
pub mod cli_run;
pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod dist;
pub mod error;
pub mod limits;
pub mod par;
pub mod program;
pub mod prover;
pub mod roofline;
pub mod rv;
pub mod segmented;
pub mod select;
pub mod step_results;
pub mod vm;
