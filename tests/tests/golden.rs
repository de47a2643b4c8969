//! The committed golden proof must keep verifying, and the prover must keep producing it
//! byte for byte: a format or transcript change is a deliberate, versioned act (bump
//! `FORMAT_VERSION` and regenerate with
//! `kestrel fib --log-rows 6 --blowup 8 -o tests/fixtures/fib-golden.proof --vk-out tests/fixtures/fib-golden.vk`).

use kestrel_core::air::examples::{fibonacci_trace, FibonacciMachine};
use kestrel_core::field::Felt;
use kestrel_core::keys::VerifyingKey;
use kestrel_core::params::StarkParams;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};

const PROOF: &[u8] = include_bytes!("../fixtures/fib-golden.proof");
const VK: &[u8; 32] = include_bytes!("../fixtures/fib-golden.vk");

fn public() -> [Felt; 3] {
    let (_, result) = fibonacci_trace(6, Felt::ONE, Felt::ONE);
    [Felt::ONE, Felt::ONE, result]
}

#[test]
fn golden_proof_verifies() {
    kestrel_verifier::verify(&FibonacciMachine, &VerifyingKey(*VK), &public(), PROOF)
        .expect("the committed golden proof must verify");
}

#[test]
fn golden_proof_is_reproduced_byte_for_byte() {
    let pk = setup(&CpuBackend, &FibonacciMachine, StarkParams::BLOWUP_8).unwrap();
    assert_eq!(&pk.vk.0, VK, "verifying key changed");
    let (trace, _) = fibonacci_trace(6, Felt::ONE, Felt::ONE);
    let (proof, _) = prove(&CpuBackend, &pk, &FibonacciMachine, &[trace], &public()).unwrap();
    assert!(
        proof.to_bytes() == PROOF,
        "proof bytes changed: bump FORMAT_VERSION and regenerate"
    );
}
