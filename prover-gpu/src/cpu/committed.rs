//! What the CPU backend commits (a matrix's LDE and tree, a FRI layer), and opening a
//! committed matrix (mirrors `cuda/committed.rs`).

use kestrel_core::field::Ext3;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::hash_leaf;
use kestrel_core::proof::Opening;
use kestrel_core::stark::COSET_SHIFT;

use super::merkle::MerkleTree;
use super::ntt::coset_lde_from_coeffs;

use crate::error::ProverError;

use super::CpuBackend;

/// A committed LDE on the host.
pub struct CpuCommitted {
    pub lde: RowMajorMatrix,
    pub tree: MerkleTree,
}

/// A committed FRI layer on the host.
pub struct CpuFriLayer {
    pub values: Vec<Ext3>,
    pub tree: MerkleTree,
}

pub(super) fn commit(lde: RowMajorMatrix) -> CpuCommitted {
    let tree = MerkleTree::from_rows(&lde.values, lde.width.max(1), hash_leaf);
    CpuCommitted { lde, tree }
}

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

    /// Row `row` of the LDE and its Merkle path.
    pub fn open(&self, c: &CpuCommitted, row: usize) -> Result<Opening, ProverError> {
        if row >= c.lde.height() {
            return Err(ProverError::Internal("opening row out of range"));
        }
        Ok(Opening {
            values: c.lde.row(row).to_vec(),
            path: c.tree.path(row),
        })
    }
}
