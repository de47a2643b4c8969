//! Kestrel's verifier (`no_std` + `alloc`): proof reading and verification, nothing else.
//!
//! The proof is read as a stream ([`ProofSource`]: a slice, or a user type over a link),
//! once, in order, record by record (format version 2; the byte layout is in
//! [`kestrel_core::proof`] and the crate's README). The verifier keeps only what later steps
//! need and checks the queries one at a time, so its heap depends on the AIR's shape, not on
//! the proof's size or number of queries.
//!
//! ```ignore
//! // A proof in memory or memory-mapped flash:
//! kestrel_verifier::verify(&machine, &vk, &public_values, &proof_bytes)?;
//! // A proof arriving over a link:
//! kestrel_verifier::verify_stream(&machine, &vk, &public_values, &mut link)?;
//! // A `kestrel prove` file (statement, then proof) for the RV64IM machine:
//! let statement = kestrel_verifier::statement::verify_statement_stream(&vk, &mut link)?;
//! ```
//!
//! Nothing reachable from proof bytes panics, allocates beyond what the AIR's shape bounds
//! (every count is checked before anything of it is read), or loops longer than the
//! parameter caps allow.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

mod error;
mod read;
mod segmented;
mod source;
pub mod statement;
mod stream;
mod verify;

pub use error::{Round, VerifyError};
pub use kestrel_core;
pub use segmented::{MAX_PARTS, MAX_RUN_LOG_CYCLES};
pub use source::{ProofSource, SliceSource, SourceError};
pub use stream::{verify, verify_stream};
pub use verify::read_params;
