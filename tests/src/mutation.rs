//! Single-cell mutation testing of one table in isolation: core's
//! [`kestrel_core::rv::testing::mutation`] (the rooms' unit tests use it too).
pub use kestrel_core::rv::testing::mutation::*;
