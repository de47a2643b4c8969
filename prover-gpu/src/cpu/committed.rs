//! What the CPU backend commits (a matrix's LDE and tree, a FRI layer), and opening a
//! committed matrix (mirrors `cuda/committed.rs`).

use kestrel_core::field::Ext3;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::{hash_leaf, Digest};
use kestrel_core::stark::{RoundTreeShape, COSET_SHIFT};
use rayon::prelude::*;

use super::merkle::MerkleTree;
use super::ntt::coset_lde_from_coeffs;

use crate::error::ProverError;

use super::CpuBackend;

/// A committed LDE on the host and its rows' digests (its part of a round's tree).
pub struct CpuCommitted {
    pub lde: RowMajorMatrix,
    pub leaves: Vec<Digest>,
}

/// A round's mixed-matrix tree on the host.
pub struct CpuRoundTree {
    pub tree: MerkleTree,
    pub shape: RoundTreeShape,
}

/// A committed FRI layer on the host.
pub struct CpuFriLayer {
    pub values: Vec<Ext3>,
    /// log2 of the layer's arity (values per leaf).
    pub log_arity: u32,
    pub tree: MerkleTree,
}

pub(super) fn commit(lde: RowMajorMatrix) -> CpuCommitted {
    let leaves = lde
        .values
        .par_chunks_exact(lde.width.max(1))
        .map(hash_leaf)
        .collect();
    CpuCommitted { lde, leaves }
}

use crate::backend::RoundOpening;

impl CpuBackend {
    /// Coset LDE of a coefficient matrix and its Merkle commitment.
    pub fn commit_coeffs(
        &self,
        coeffs: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<CpuCommitted, ProverError> {
        Ok(commit(coset_lde_from_coeffs(
            coeffs,
            log_blowup,
            COSET_SHIFT,
        )))
    }

    /// The mixed-matrix tree of a round over its matrices (table order).
    pub fn round_tree(&self, matrices: &[&CpuCommitted]) -> Result<CpuRoundTree, ProverError> {
        let shape = RoundTreeShape::over(matrices.iter().map(|c| c.leaves.len().trailing_zeros()))
            .ok_or(ProverError::Internal("a round without matrices"))?;
        let leaves: Vec<&[Digest]> = matrices.iter().map(|c| c.leaves.as_slice()).collect();
        Ok(CpuRoundTree {
            tree: MerkleTree::mixed(&leaves),
            shape,
        })
    }

    /// The opening of leaf `index` of a round's tree: row `index >> (L − h)` of each
    /// matrix, and the path up to below the cap.
    pub fn open_round_at(
        &self,
        tree: &CpuRoundTree,
        matrices: &[&CpuCommitted],
        index: usize,
    ) -> Result<RoundOpening, ProverError> {
        let top = tree.shape.log_leaves;
        if index >> top != 0 {
            return Err(ProverError::Internal("opening row out of range"));
        }
        let rows = matrices
            .iter()
            .map(|c| {
                let h = c.lde.height().trailing_zeros();
                c.lde.row(index >> (top - h)).to_vec()
            })
            .collect();
        Ok((rows, tree.tree.path_to_cap(index, tree.shape.cap_bits)))
    }
}
