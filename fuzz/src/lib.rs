//! Helpers shared by the fuzz targets and the corpus generator: the statements whose proofs
//! `verify_mutated` mutates, the structure-aware proof mutator, and a minimal RV64 ELF
//! writer for `execute`.

pub mod elf;
pub mod mutate;

use std::sync::OnceLock;

use kestrel_core::air::examples::{
    fibonacci_trace_result, range_check_traces, FibonacciMachine, RangeCheckMachine,
};
use kestrel_core::air::Machine;
use kestrel_core::field::Felt;
use kestrel_core::keys::VerifyingKey;
use kestrel_core::params::StarkParams;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};

/// The committed golden Fibonacci proof (2^6 rows, blowup 8).
pub const GOLDEN_PROOF: &[u8] = include_bytes!("../../tests/fixtures/fib-golden.proof");
/// Its verifying key.
pub const GOLDEN_VK: &[u8; 32] = include_bytes!("../../tests/fixtures/fib-golden.vk");

/// A valid statement: machine, verifying key, public values and proof bytes.
pub struct Statement {
    pub machine: &'static (dyn Machine + Sync),
    pub vk: VerifyingKey,
    pub public: Vec<Felt>,
    pub proof: Vec<u8>,
}

/// The statements `verify_mutated` starts from: the golden Fibonacci proof (one table, no
/// preprocessed columns, no interactions) and a range-check proof made here (two tables of
/// different heights, a preprocessed table, LogUp interactions), so every round and every
/// list in the proof format is present in at least one of them.
pub fn statements() -> &'static [Statement] {
    static S: OnceLock<Vec<Statement>> = OnceLock::new();
    S.get_or_init(|| {
        let fib = Statement {
            machine: &FibonacciMachine,
            vk: VerifyingKey(*GOLDEN_VK),
            public: vec![
                Felt::ONE,
                Felt::ONE,
                fibonacci_trace_result(6, Felt::ONE, Felt::ONE),
            ],
            proof: GOLDEN_PROOF.to_vec(),
        };
        let pk = setup(&CpuBackend, &RangeCheckMachine, StarkParams::BLOWUP_8)
            .expect("range-check setup");
        let traces = range_check_traces(3, 42, 200);
        let public = vec![Felt::new(200)];
        let (proof, _) = prove(&CpuBackend, &pk, &RangeCheckMachine, &traces, &public)
            .expect("range-check proof");
        let range = Statement {
            machine: &RangeCheckMachine,
            vk: pk.vk,
            public,
            proof: proof.to_bytes(),
        };
        for s in [&fib, &range] {
            kestrel_verifier::verify(s.machine, &s.vk, &s.public, &s.proof)
                .expect("seed statement verifies");
        }
        vec![fib, range]
    })
}
