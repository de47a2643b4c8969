//! The verifying key: a 32-byte digest binding the statement (machine name), the parameter
//! set and the preprocessed commitments. The proof carries the preprocessed roots; the
//! verifier recomputes the digest and compares it with the key it was given.

use sha3::{Digest as _, Keccak256};

use crate::air::TableShape;
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
    /// Digest of `(machine, params, table shapes, [(table index, root, log height)])`.
    ///
    /// The shapes (widths, constraint and interaction counts, degrees) bind the AIR's form;
    /// its constraints themselves are checked at the out-of-domain point.
    pub fn compute<'a>(
        machine: &str,
        params: &StarkParams,
        shapes: &[TableShape],
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
        h.update((shapes.len() as u64).to_le_bytes());
        for s in shapes {
            for v in [
                s.width,
                s.preprocessed_width,
                s.num_air_constraints,
                s.num_interactions,
                s.max_interaction_values,
                s.aux_width,
                s.num_constraints,
                s.max_degree,
                s.quotient_chunks,
            ] {
                h.update((v as u64).to_le_bytes());
            }
        }
        for (t, c) in preprocessed {
            h.update((t as u64).to_le_bytes());
            h.update(c.root.0);
            h.update([c.log_height]);
        }
        VerifyingKey(h.finalize().into())
    }
}
