//! FRI folding and layer commitments on the CPU (mirrors `cuda/fri.rs`).

use kestrel_core::field::{bit_reverse, powers, Ext3, Felt, Field};
use kestrel_core::merkle::hash_leaf_ext;
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

    /// Folds a committed layer on domain `shift·H` by its arity: binary folds with
    /// `β, β², …` on `shift·H, shift²·H², …`.
    pub fn fri_fold_layer(
        &self,
        layer: &CpuFriLayer,
        beta: Ext3,
        shift: Felt,
    ) -> Result<Vec<Ext3>, ProverError> {
        let (mut beta, mut shift) = (beta, shift);
        let mut cw = self.fri_fold(&layer.values, beta, shift)?;
        for _ in 1..layer.log_arity {
            beta = beta.square();
            shift = shift.square();
            cw = self.fri_fold(&cw, beta, shift)?;
        }
        Ok(cw)
    }

    /// Commits a FRI layer of arity `2^log_arity` (leaf j = positions `j·2^a … (j+1)·2^a − 1`).
    pub fn commit_fri_layer(
        &self,
        values: Vec<Ext3>,
        log_arity: u32,
    ) -> Result<CpuFriLayer, ProverError> {
        let arity = 1usize << log_arity;
        if log_arity == 0 || values.len() < arity || !values.len().is_power_of_two() {
            return Err(ProverError::Internal("FRI layer shorter than its arity"));
        }
        let tree = MerkleTree::from_rows(&values, arity, hash_leaf_ext);
        Ok(CpuFriLayer {
            values,
            log_arity,
            tree,
        })
    }

    /// The other values of position `pos`'s leaf (leaf order) and the leaf's path, up to
    /// below the cap.
    pub fn open_fri(
        &self,
        layer: &CpuFriLayer,
        pos: usize,
    ) -> Result<crate::backend::FriOpening, ProverError> {
        let a = layer.log_arity;
        let leaf = pos >> a;
        let coset = layer
            .values
            .get(leaf << a..(leaf + 1) << a)
            .ok_or(ProverError::Internal("FRI position out of range"))?;
        let own = pos & ((1 << a) - 1);
        let siblings = coset
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != own)
            .map(|(_, v)| *v)
            .collect();
        let cap_bits = fri_cap_bits(layer.tree.depth() as u32);
        Ok((siblings, layer.tree.path_to_cap(leaf, cap_bits)))
    }

    /// The values a layer was committed from.
    pub fn fri_values<'a>(&self, layer: &'a CpuFriLayer) -> &'a [Ext3] {
        &layer.values
    }
}
