//! Shared helpers for Kestrel's integration tests.
pub mod heap;
pub mod mutation;
pub mod vm_support;
