//! Shared helpers for Kestrel's integration tests.
pub mod vm_support;
