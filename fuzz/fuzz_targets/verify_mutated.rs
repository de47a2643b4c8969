//! Mutations of the golden Fibonacci proof: each input is XOR-ed into the proof at an
//! offset it chooses; verification must reject every change without panicking.
#![no_main]

use kestrel_core::air::examples::{fibonacci_trace_result, FibonacciMachine};
use kestrel_core::field::Felt;
use kestrel_core::keys::VerifyingKey;
use libfuzzer_sys::fuzz_target;

const PROOF: &[u8] = include_bytes!("../../tests/fixtures/fib-golden.proof");
const VK: &[u8; 32] = include_bytes!("../../tests/fixtures/fib-golden.vk");

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let offset = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) as usize % PROOF.len();
    let patch = &data[4..];
    let mut proof = PROOF.to_vec();
    let mut changed = false;
    for (i, b) in patch.iter().enumerate() {
        if let Some(p) = proof.get_mut(offset + i) {
            changed |= *b != 0;
            *p ^= b;
        }
    }
    let public = [Felt::ONE, Felt::ONE, fibonacci_trace_result(6, Felt::ONE, Felt::ONE)];
    let verdict = kestrel_verifier::verify(&FibonacciMachine, &VerifyingKey(*VK), &public, &proof);
    if changed {
        assert!(verdict.is_err(), "a mutated proof was accepted");
    } else {
        assert!(verdict.is_ok(), "the golden proof was rejected");
    }
});
