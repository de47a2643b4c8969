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
use kestrel_core::rv::machine::Rv64Machine;
use kestrel_prover_gpu::api::{BackendChoice, Guest, ProveOptions};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_verifier::statement::{decode_statement, verify_statement_stream};
use kestrel_verifier::{ProofSource, SourceError};

/// The committed golden Fibonacci proof (2^6 rows, blowup 8).
pub const GOLDEN_PROOF: &[u8] = include_bytes!("../../tests/fixtures/fib-golden.proof");
/// Its verifying key.
pub const GOLDEN_VK: &[u8; 32] = include_bytes!("../../tests/fixtures/fib-golden.vk");

/// A valid statement: machine, verifying key, public values and proof bytes; for an RV64IM
/// proof file, the statement header that precedes the proof in the file.
pub struct Statement {
    pub machine: &'static (dyn Machine + Sync),
    pub vk: VerifyingKey,
    pub public: Vec<Felt>,
    pub proof: Vec<u8>,
    /// The statement file's header (`kestrel prove`'s files), or empty: then the statement
    /// is `machine` and `public`.
    pub file_header: Vec<u8>,
}

/// Two slices read as one stream: a statement header, then a proof held elsewhere.
struct Chain<'a>(&'a [u8], &'a [u8]);

impl ProofSource for Chain<'_> {
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), SourceError> {
        if self.0.is_empty() {
            return self.1.read_exact(buf);
        }
        let n = buf.len().min(self.0.len());
        let (a, b) = buf.split_at_mut(n);
        self.0.read_exact(a)?;
        self.1.read_exact(b)
    }
    fn remaining(&self) -> Option<usize> {
        Some(self.0.len() + self.1.len())
    }
}

impl Statement {
    /// Verifies `proof` in place of this statement's proof (streamed after the file header
    /// for an RV64IM statement).
    pub fn verify(&self, proof: &[u8]) -> Result<(), String> {
        if self.file_header.is_empty() {
            kestrel_verifier::verify(self.machine, &self.vk, &self.public, proof)
                .map_err(|e| e.to_string())
        } else {
            let mut src = Chain(&self.file_header, proof);
            verify_statement_stream(&self.vk, &mut src)
                .map(drop)
                .map_err(|e| e.to_string())
        }
    }

    /// Verifies `data` as this statement's whole input: the proof, or for an RV64IM
    /// statement the whole file; true only for the statement's own bytes.
    pub fn verify_whole(&self, data: &[u8]) -> Result<(), String> {
        if self.file_header.is_empty() {
            self.verify(data)
        } else {
            let mut src = data;
            verify_statement_stream(&self.vk, &mut src)
                .map(drop)
                .map_err(|e| e.to_string())
        }
    }

    /// The statement's own bytes as [`Statement::verify_whole`] reads them.
    pub fn whole(&self) -> Vec<u8> {
        [&self.file_header[..], &self.proof].concat()
    }
}

/// The RV64IM guest whose proof file is a seed: `fibonacci.elf` on input `10`, blowup 8.
pub fn rv64_statement() -> Statement {
    let elf = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/guests/bin/fibonacci.elf"
    );
    let guest = Guest::load(elf).expect("load fibonacci.elf");
    let options = ProveOptions {
        backend: BackendChoice::Cpu,
        blowup: 8,
        ..ProveOptions::default()
    };
    let proved = guest.prove(b"10", &options).expect("prove fibonacci.elf");
    let file = proved.file_bytes();
    let (st, proof) = decode_statement(&file).expect("a statement file");
    Statement {
        machine: &*RV64_VERIFIER,
        vk: guest.verifying_key(8).expect("vk"),
        public: st.public(),
        proof: proof.to_vec(),
        file_header: file[..file.len() - proof.len()].to_vec(),
    }
}

static RV64_VERIFIER: std::sync::LazyLock<Rv64Machine> =
    std::sync::LazyLock::new(Rv64Machine::verifier);

/// The statements `verify_mutated` starts from: the golden Fibonacci proof (one table, no
/// preprocessed columns, no interactions), a range-check proof made here (two tables of
/// different heights, a preprocessed table, LogUp interactions), so every round and every
/// list in the proof format is present in at least one of them, and an RV64IM proof file
/// ([`rv64_statement`]).
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
            file_header: Vec::new(),
        };
        let pk = setup(&CpuBackend, &RangeCheckMachine, StarkParams::BLOWUP_8)
            .expect("range-check setup");
        let traces = range_check_traces(4, 42, 200);
        let public = vec![Felt::new(200)];
        let (proof, _) = prove(&CpuBackend, &pk, &RangeCheckMachine, &traces, &public)
            .expect("range-check proof");
        let range = Statement {
            machine: &RangeCheckMachine,
            vk: pk.vk,
            public,
            proof: proof.to_bytes(),
            file_header: Vec::new(),
        };
        let rv = rv64_statement();
        for s in [&fib, &range, &rv] {
            s.verify(&s.proof).expect("seed statement verifies");
        }
        vec![fib, range, rv]
    })
}
