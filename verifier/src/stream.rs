//! The entry points: a proof's header read and checked, then the whole proof (format 9,
//! [`crate::verify`]) or a segmented run (format 10, [`crate::segmented`]).

use kestrel_core::air::Machine;
use kestrel_core::field::Felt;
use kestrel_core::keys::VerifyingKey;
use kestrel_core::proof::SEGMENTED_FORMAT_VERSION;

use crate::read::Reader;
use crate::source::ProofSource;
use crate::verify::header;
use crate::VerifyError;

/// Verifies `proof` for `machine` with `public` values under the verifying key `vk`: the
/// proof held in memory (or memory-mapped flash). The same as [`verify_stream`] over the
/// slice.
///
/// # Errors
/// A [`VerifyError`] naming the first check that failed.
pub fn verify(
    machine: &dyn Machine,
    vk: &VerifyingKey,
    public: &[Felt],
    proof: &[u8],
) -> Result<(), VerifyError> {
    let mut src = proof;
    verify_stream(machine, vk, public, &mut src)
}

/// Verifies the proof `source` yields for `machine` with `public` values under the
/// verifying key `vk`, reading it once, in order, and holding none of it beyond what
/// later steps need: the heap it uses depends on the AIR's shape (tables, columns), not
/// on the proof's size or its number of queries. Reads exactly the proof: the source must
/// end where the proof does.
///
/// # Errors
/// A [`VerifyError`] naming the first check that failed.
pub fn verify_stream(
    machine: &dyn Machine,
    vk: &VerifyingKey,
    public: &[Felt],
    source: &mut dyn ProofSource,
) -> Result<(), VerifyError> {
    let mut r = Reader::new(source);

    // 1. Header and parameters: well-formed, the statement's public values.
    let (version, params) = header(&mut r)?;
    if !params.is_well_formed() {
        return Err(VerifyError::BadParams);
    }
    if !machine.public_len_ok(public.len()) {
        return Err(VerifyError::PublicCount {
            expected: machine.num_public_values(),
            got: public.len(),
        });
    }
    if version == SEGMENTED_FORMAT_VERSION {
        crate::segmented::verify_segmented(machine, vk, public, params, &mut r)
    } else {
        crate::verify::verify_whole(machine, vk, public, params, &mut r)
    }
}
