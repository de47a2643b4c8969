//! The verifier's embedded tests, on QEMU's mps2-an505 (Cortex-M33) with `defmt-test`:
//! the golden Fibonacci proof verifies on the device read in place (a `SliceSource`, which
//! rewinds) and read once (a `&[u8]`), a copy with one byte flipped, a wrong public value,
//! a truncated copy and one with a trailing byte are rejected the same way by both, a
//! statement file streamed from memory is read and its proof checked, statement files
//! round-trip and a file that is not one is refused. `RUSTC_BOOTSTRAP=1 /usr/bin/cargo test` (see `runner.sh`).
#![no_std]
#![no_main]

extern crate alloc;

use core::mem::MaybeUninit;

use cortex_m_rt::{exception, ExceptionFrame};
use defmt_semihosting as _; // the global logger: defmt frames on semihosting stdout
use embedded_alloc::LlffHeap;
use panic_probe as _;

use kestrel_verifier::kestrel_core::air::examples::{fibonacci_trace_result, FibonacciMachine};
use kestrel_verifier::kestrel_core::field::Felt;
use kestrel_verifier::kestrel_core::keys::VerifyingKey;

const PROOF: &[u8] = include_bytes!("../../../tests/fixtures/fib-golden.proof");
const VK: &[u8; 32] = include_bytes!("../../../tests/fixtures/fib-golden.vk");

const HEAP_SIZE: usize = 1 << 20;
static mut HEAP_MEM: [MaybeUninit<u8>; HEAP_SIZE] = [MaybeUninit::uninit(); HEAP_SIZE];

#[global_allocator]
static HEAP: LlffHeap = LlffHeap::empty();

/// panic-probe ends a panic (a failed test) in `udf`, which no debugger catches under QEMU:
/// report the fault and exit with a failure code instead of hanging.
#[exception]
unsafe fn HardFault(_frame: &ExceptionFrame) -> ! {
    cortex_m_semihosting::debug::exit(cortex_m_semihosting::debug::EXIT_FAILURE);
    loop {}
}

fn public() -> [Felt; 3] {
    [
        Felt::ONE,
        Felt::ONE,
        fibonacci_trace_result(6, Felt::ONE, Felt::ONE),
    ]
}

/// The one call into the verifier for these tests: the proof streamed from memory, read in
/// place (the source rewinds; the out-of-domain record is read twice); and, to compare, read
/// once from a `&[u8]` that cannot rewind. Both must agree.
fn verify(public: &[Felt], proof: &[u8]) -> Result<(), kestrel_verifier::VerifyError> {
    let vk = VerifyingKey(*VK);
    let in_place = kestrel_verifier::verify_stream(
        &FibonacciMachine,
        &vk,
        public,
        &mut kestrel_verifier::SliceSource::new(proof),
    );
    let mut once = proof;
    let read_once = kestrel_verifier::verify_stream(&FibonacciMachine, &vk, public, &mut once);
    defmt::assert!(in_place == read_once, "a source that cannot rewind disagrees");
    in_place
}

#[defmt_test::tests]
mod tests {
    use alloc::vec::Vec;

    use defmt::{assert, assert_eq};
    use kestrel_verifier::statement::{decode_statement, encode_statement, Statement};
    use kestrel_verifier::VerifyError;

    use super::{public, verify, Felt, HEAP, HEAP_MEM, HEAP_SIZE, PROOF};

    #[init]
    fn init() {
        // SAFETY: runs once, before any test allocates; `HEAP_MEM` is used by nothing else.
        unsafe { HEAP.init(core::ptr::addr_of_mut!(HEAP_MEM) as usize, HEAP_SIZE) };
    }

    #[test]
    fn golden_proof_verifies() {
        assert!(verify(&public(), PROOF).is_ok());
    }

    #[test]
    fn flipped_byte_is_rejected() {
        let mut bad: Vec<u8> = PROOF.to_vec();
        let mid = bad.len() / 2;
        bad[mid] ^= 1;
        assert!(verify(&public(), &bad).is_err());
    }

    #[test]
    fn wrong_public_value_is_rejected() {
        let mut p = public();
        p[2] += Felt::ONE;
        assert!(verify(&p, PROOF).is_err());
    }

    #[test]
    fn truncated_proof_is_a_shape_error() {
        let e = verify(&public(), &PROOF[..PROOF.len() - 1]);
        assert!(matches!(e, Err(VerifyError::Truncated)));
    }

    #[test]
    fn trailing_byte_is_rejected() {
        let mut long: Vec<u8> = PROOF.to_vec();
        long.push(0);
        let e = verify(&public(), &long);
        assert!(matches!(e, Err(VerifyError::TrailingBytes { count: 1 })));
    }

    #[test]
    fn statement_file_is_streamed_from_memory() {
        use kestrel_verifier::statement::read_statement;
        use kestrel_verifier::SliceSource;

        // The golden proof behind a statement header: the statement is read from the
        // source, which is left at the proof's first byte.
        let st = Statement {
            exit_code: 0,
            output: b"6765\n".to_vec(),
        };
        let file = encode_statement(&st, PROOF);
        let mut src = SliceSource::new(&file);
        let back = read_statement(&mut src).unwrap();
        assert_eq!(back.output.as_slice(), b"6765\n".as_slice());
        assert!(verify(&public(), src.rest()).is_ok());
    }

    #[test]
    fn statement_round_trips() {
        let st = Statement {
            exit_code: 7,
            output: b"6765\n".to_vec(),
        };
        let file = encode_statement(&st, b"proof bytes");
        let (back, proof) = decode_statement(&file).unwrap();
        assert_eq!(back.exit_code, 7);
        assert_eq!(back.output.as_slice(), b"6765\n".as_slice());
        assert_eq!(proof, b"proof bytes".as_slice());
    }

    #[test]
    fn not_a_statement_file_is_refused() {
        assert!(decode_statement(PROOF).is_err());
    }
}
