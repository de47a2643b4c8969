//! The test AIRs prove and verify with every preset.

use kestrel_core::air::examples::{
    fibonacci_trace, range_check_traces, FibonacciMachine, RangeCheckMachine,
};
use kestrel_core::field::Felt;
use kestrel_core::params::StarkParams;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_verifier::verify;

#[test]
fn fibonacci_every_preset() {
    for params in StarkParams::PRESETS {
        let pk = setup(&CpuBackend, &FibonacciMachine, params).unwrap();
        let (trace, result) = fibonacci_trace(6, Felt::ONE, Felt::ONE);
        let public = [Felt::ONE, Felt::ONE, result];
        let (proof, _) = prove(&CpuBackend, &pk, &FibonacciMachine, &[trace], &public).unwrap();
        let bytes = proof.to_bytes();
        verify(&FibonacciMachine, &pk.vk, &public, &bytes).unwrap();
        let wrong = [Felt::ONE, Felt::ONE, result + Felt::ONE];
        assert!(verify(&FibonacciMachine, &pk.vk, &wrong, &bytes).is_err());
    }
}

#[test]
fn range_check_every_preset() {
    for params in StarkParams::PRESETS {
        let pk = setup(&CpuBackend, &RangeCheckMachine, params).unwrap();
        for log_n in [4, 8, 10] {
            let traces = range_check_traces(log_n, 42, 200);
            let public = [Felt::new(200)];
            let (proof, _) = prove(&CpuBackend, &pk, &RangeCheckMachine, &traces, &public).unwrap();
            verify(&RangeCheckMachine, &pk.vk, &public, &proof.to_bytes()).unwrap();
        }
    }
}
