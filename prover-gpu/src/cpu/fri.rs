//! FRI folding and layer commitments on the CPU (mirrors `cuda/fri.rs`).

use kestrel_core::field::{bit_reverse, powers, Ext3, Felt, Field};
use kestrel_core::merkle::{hash_leaf_ext, Digest};
use kestrel_core::stark::{fold_pair, fri_cap_bits};
use rayon::prelude::*;

use super::merkle::MerkleTree;
use super::ntt::two_adic;

use crate::error::ProverError;

use super::committed::CpuFriLayer;
use super::CpuBackend;

impl CpuBackend {
    /// Folds a codeword on layer domain `shift·H` (bit-reversed) in half.
    pub fn fri_fold(&self, cw: &[Ext3], beta: Ext3, shift: Felt) -> Result<Vec<Ext3>, ProverError> {
        let half = cw.len() / 2;
        let log_len = cw.len().trailing_zeros();
        // 1/(2x_j) with x_j = shift·ω_L^{bitrev_{L/2}(j)}.
        let w_inv = two_adic(cw.len()).inverse().expect("nonzero");
        let inv_pows = powers(w_inv, half);
        let two_shift_inv = (shift + shift).inverse().expect("nonzero");
        Ok((0..half)
            .into_par_iter()
            .map(|j| {
                let inv_two_x = two_shift_inv * inv_pows[bit_reverse(j, log_len - 1)];
                fold_pair(cw[2 * j], cw[2 * j + 1], beta, inv_two_x)
            })
            .collect())
    }

    /// Commits a FRI layer (leaf j = the pair of positions 2j, 2j+1).
    pub fn commit_fri_layer(&self, values: Vec<Ext3>) -> Result<CpuFriLayer, ProverError> {
        let tree = MerkleTree::from_rows(&values, 2, hash_leaf_ext);
        Ok(CpuFriLayer { values, tree })
    }

    /// The sibling of position `pos` and the path of its pair, up to below the cap.
    pub fn open_fri(
        &self,
        layer: &CpuFriLayer,
        pos: usize,
    ) -> Result<(Ext3, Vec<Digest>), ProverError> {
        let sib = *layer
            .values
            .get(pos ^ 1)
            .ok_or(ProverError::Internal("FRI position out of range"))?;
        let cap_bits = fri_cap_bits(layer.tree.depth() as u32);
        Ok((sib, layer.tree.path_to_cap(pos >> 1, cap_bits)))
    }

    /// The values a layer was committed from.
    pub fn fri_values<'a>(&self, layer: &'a CpuFriLayer) -> &'a [Ext3] {
        &layer.values
    }
}
