//! Helpers for tests that forge RV64IM witnesses: check that forged traces never become a
//! verifying proof (a table's trace is `traces[TableId::X.index()]`).

use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::StarkParams;
use kestrel_core::rv::machine::Rv64Machine;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup, ProverError};
use kestrel_prover_gpu::rv::verifier_machine;
use kestrel_verifier::{verify, VerifyError};

/// Proves forged `traces` with `machine`'s key (blowup 2): the prover refuses them (a
/// constraint fails) or the verifier rejects the proof (a constraint fails at the
/// out-of-domain point, or the buses do not balance).
///
/// # Panics
/// If the proof verifies, or either side fails for another reason.
#[track_caller]
pub fn assert_unprovable(machine: &Rv64Machine, traces: &[RowMajorMatrix], public: &[Felt]) {
    let pk = setup(&CpuBackend, machine, StarkParams::BLOWUP_2).unwrap();
    match prove(&CpuBackend, &pk, machine, traces, public) {
        Err(ProverError::ConstraintsNotSatisfied { .. }) => {}
        Err(e) => panic!("unexpected prover error {e}"),
        Ok((proof, _)) => {
            let r = verify(&verifier_machine(), &pk.vk, public, &proof.to_bytes());
            assert!(
                matches!(
                    r,
                    Err(VerifyError::OodMismatch { .. } | VerifyError::LogUpSum)
                ),
                "forged traces: {r:?}"
            );
        }
    }
}
