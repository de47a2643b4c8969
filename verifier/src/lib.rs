//! Kestrel's verifier (`no_std` + `alloc`): proof parsing and verification, nothing else.
//!
//! ```ignore
//! kestrel_verifier::verify(&machine, &vk, &public_values, &proof_bytes)?;
//! ```
//!
//! Nothing reachable from proof bytes panics, allocates beyond what the input or the AIR's
//! shape bounds, or loops longer than the parameter caps allow.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

mod error;
mod parse;
pub mod statement;
mod verify;

pub use error::{Round, VerifyError};
pub use kestrel_core;
pub use parse::parse_proof;
pub use verify::verify;
