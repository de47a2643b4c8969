//! Everything `size-verify` links except the verifier: the C start files, the panic
//! handler and the allocator (one allocation keeps it linked). `.text` of `size-verify`
//! minus `.text` of this binary is the verifier's code size.
#![no_std]
#![no_main]

extern crate alloc;

#[path = "../size_rt.rs"]
mod size_rt;

use core::ffi::{c_char, c_int};

#[no_mangle]
pub extern "C" fn main(argc: c_int, _argv: *const *const c_char) -> c_int {
    let v = alloc::vec![0u8; core::hint::black_box(argc as usize)];
    core::hint::black_box(&v);
    0
}
