//! Nothing: the embedded tests are `tests/embedded.rs` (a package needs a target to hang them on).
#![no_std]
