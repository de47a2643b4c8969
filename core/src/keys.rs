//! The verifying key: a 32-byte digest binding the statement (machine name), the parameter
//! set and the preprocessed commitments. The proof carries the preprocessed roots; the
//! verifier recomputes the digest and compares it with the key it was given.

use sha3::{Digest as _, Keccak256};

use crate::merkle::Digest;
use crate::params::StarkParams;

/// A 32-byte verifying key.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct VerifyingKey(pub [u8; 32]);

/// Preprocessed commitment of one table: its Merkle root and log height.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PreprocessedCommitment {
    pub root: Digest,
    pub log_height: u8,
}

impl VerifyingKey {
    /// Digest of `(machine, params, [(table index, root, log height)])`.
    pub fn compute<'a>(
        machine: &str,
        params: &StarkParams,
        preprocessed: impl IntoIterator<Item = (usize, &'a PreprocessedCommitment)>,
    ) -> VerifyingKey {
        let mut h = Keccak256::new();
        h.update(b"kestrel-vk-v1");
        h.update((machine.len() as u64).to_le_bytes());
        h.update(machine.as_bytes());
        h.update([
            params.log_blowup,
            params.pow_bits,
            params.log_final_poly_len,
        ]);
        h.update(params.num_queries.to_le_bytes());
        for (t, c) in preprocessed {
            h.update((t as u64).to_le_bytes());
            h.update(c.root.0);
            h.update([c.log_height]);
        }
        VerifyingKey(h.finalize().into())
    }
}
