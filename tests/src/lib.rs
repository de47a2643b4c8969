//! Shared helpers for Kestrel's integration tests.
pub mod heap;
pub mod vm_support;
