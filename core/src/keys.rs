//! The verifying key: a 32-byte digest binding the statement (machine name), the parameter
//! set and the preprocessed commitment (the preprocessed round's cap, and which tables it
//! covers at which heights). The proof carries the cap; the verifier recomputes the digest
//! and compares it with the key it was given.

use crate::hash::Hasher;

use crate::air::TableShape;
use crate::merkle::Digest;
use crate::params::StarkParams;

/// A 32-byte verifying key.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct VerifyingKey(pub [u8; 32]);

impl VerifyingKey {
    /// Digest of `(machine, params, table shapes, [(table index, log height)] of the
    /// preprocessed tables, the preprocessed round's cap)`.
    ///
    /// The shapes (widths, constraint and interaction counts, degrees) bind the AIR's form;
    /// its constraints themselves are checked at the out-of-domain point.
    pub fn compute(
        machine: &str,
        params: &StarkParams,
        shapes: &[TableShape],
        preprocessed: impl IntoIterator<Item = (usize, u8)>,
        preprocessed_cap: &[Digest],
    ) -> VerifyingKey {
        let mut h = Hasher::new();
        h.update(b"kestrel-vk-v2");
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
        for (t, log_height) in preprocessed {
            h.update((t as u64).to_le_bytes());
            h.update([log_height]);
        }
        h.update((preprocessed_cap.len() as u64).to_le_bytes());
        for d in preprocessed_cap {
            h.update(d.0);
        }
        VerifyingKey(h.finalize())
    }
}
