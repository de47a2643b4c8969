//! Shared helpers for Kestrel's integration tests.
