//! The verifier as firmware links it: `kestrel_verifier::verify` for the Fibonacci statement
//! on the golden proof, with the minimal runtime of `size_rt` (no formatting, no printing).
//! Built with the crate's release profile (opt-level "s", fat LTO, one codegen unit, panic
//! abort). Exit status 0 when the golden proof verifies and a flipped byte is rejected.
#![no_std]
#![no_main]

extern crate alloc;

#[path = "../size_rt.rs"]
mod size_rt;

use core::ffi::{c_char, c_int};
use core::hint::black_box;

use kestrel_verifier::kestrel_core::air::examples::{fibonacci_trace_result, FibonacciMachine};
use kestrel_verifier::kestrel_core::field::Felt;
use kestrel_verifier::kestrel_core::keys::VerifyingKey;

const GOLDEN_PROOF: &[u8] = include_bytes!("../../../fixtures/fib-golden.proof");
const GOLDEN_VK: &[u8; 32] = include_bytes!("../../../fixtures/fib-golden.vk");

#[no_mangle]
pub extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    let public = [
        Felt::ONE,
        Felt::ONE,
        fibonacci_trace_result(6, Felt::ONE, Felt::ONE),
    ];
    let vk = VerifyingKey(*black_box(GOLDEN_VK));
    let proof: &[u8] = black_box(GOLDEN_PROOF);
    if kestrel_verifier::verify(&FibonacciMachine, &vk, black_box(&public), proof).is_err() {
        return 1;
    }
    let mut bad = alloc::vec::Vec::from(proof);
    let mid = bad.len() / 2;
    bad[mid] ^= 1;
    if kestrel_verifier::verify(&FibonacciMachine, &vk, &public, &bad).is_ok() {
        return 1;
    }
    0
}
