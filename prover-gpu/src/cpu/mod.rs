//! The CPU reference backend (rayon): the oracle every other backend must match bit for bit.

mod backend;
mod committed;
mod deep;
mod eval;
mod fri;
mod logup;
pub mod merkle;
pub mod ntt;
pub mod packed;
mod quotient;

pub use committed::{CpuCommitted, CpuFriLayer};

use kestrel_core::field::{batch_inverse, bit_reverse, powers, Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::stark::COSET_SHIFT;
use rayon::prelude::*;

use crate::error::ProverError;
use ntt::two_adic;

/// The reference backend: host memory, rayon.
#[derive(Copy, Clone, Debug, Default)]
pub struct CpuBackend;

/// Rows per rayon task in row-wise passes.
pub(crate) const CHUNK: usize = 1 << 12;

/// `x_i` for every row of an LDE of size `2^log_size` (bit-reversed).
pub(crate) fn lde_points(log_size: u32) -> Vec<Felt> {
    let n = 1usize << log_size;
    let w = two_adic(n);
    let natural = powers(w, n);
    (0..n)
        .into_par_iter()
        .map(|i| COSET_SHIFT * natural[bit_reverse(i, log_size)])
        .collect()
}

/// Batch inversion in parallel chunks.
pub(crate) fn par_batch_inverse<F: Field>(values: &[F]) -> Result<Vec<F>, ProverError> {
    let parts: Option<Vec<Vec<F>>> = values.par_chunks(CHUNK).map(batch_inverse).collect();
    parts
        .map(|p| p.into_iter().flatten().collect())
        .ok_or(ProverError::Internal("zero in batch inversion"))
}

/// Row `i` of `m`, or nothing for a matrix without columns.
pub(crate) fn row_of(m: &RowMajorMatrix, i: usize) -> &[Felt] {
    if m.width == 0 {
        &[]
    } else {
        m.row(i)
    }
}
