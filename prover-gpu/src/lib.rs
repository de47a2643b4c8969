//! Kestrel's std prover: ELF loading and execution, trace building, the STARK prover
//! generic over a [`backend::Backend`], and the pieces of the `kestrel` command line.

pub mod api;
pub mod backend;
pub mod cli;
pub mod cli_fib;
pub mod cli_new;
pub mod cli_prove;
pub mod cli_run;
pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod limits;
pub mod par;
pub mod prover;
pub mod roofline;
pub mod rv;
pub mod select;
pub mod vm;
